/**
 * A binding as `bind` writes it: YAML, with each suggestion (a pairing below the confidence threshold) as a
 * commented entry under `operations`, which a person can take by uncommenting its lines. The loader counts them
 * (load.ts, suggestionsIn) and a run says how many it did not use.
 */
import { stringify } from 'yaml';
import type { BindingFile, OperationBinding } from './format.js';
import { SUGGESTION_MARK } from './load.js';

export function bindingYaml(binding: BindingFile, suggestions: { reference: string; entry: OperationBinding }[], threshold: number): string {
  const { operations, groups, unbound, suggestions: _, ...head } = binding;
  const yaml = (v: object): string => (Object.keys(v).length ? stringify(v, { lineWidth: 0 }) : '');
  const active = operations && Object.keys(operations).length ? stringify({ operations }, { lineWidth: 0 }) : 'operations:\n';
  const commented = suggestions.map(({ reference, entry }) => {
    const lines = stringify({ [reference]: entry }, { lineWidth: 0 }).trimEnd().split('\n');
    return [`  # ${SUGGESTION_MARK} (confidence ${entry.confidence ?? '?'}, below ${threshold}): not used; uncomment the lines below to bind it`, ...lines.map((l) => `  # ${l}`)].join('\n');
  });
  return `${yaml(head)}${active}${commented.length ? `${commented.join('\n')}\n` : ''}${yaml({ ...(groups ? { groups } : {}), ...(unbound ? { unbound } : {}) })}`;
}
