import type { Parameter, SpecDocument } from './openapi.js';

/**
 * A value for a parameter the document requires and the suite has nothing of its own for: the document's example,
 * default or first enum value, else a plain value of its type. A request without it would only get a 400 or 422
 * that says nothing of the requirement under test.
 */
export function sampleParameterValue(p: Pick<Parameter, 'name' | 'example' | 'schema'>, spec?: Pick<SpecDocument, 'schemaAt'>): string | number | boolean {
  const { name, example } = p;
  // A parameter's schema is often a component (an enum of entity types): read it there.
  const ref = typeof p.schema === 'object' && p.schema !== null ? (p.schema as Record<string, unknown>)['$ref'] : undefined;
  const schema = typeof ref === 'string' ? (spec?.schemaAt(ref) ?? p.schema) : p.schema;
  const plain = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
  if (plain(example)) return example;
  const s = typeof schema === 'object' && schema !== null ? (schema as Record<string, unknown>) : {};
  for (const v of [s['default'], s['example'], Array.isArray(s['examples']) ? s['examples'][0] : undefined, Array.isArray(s['enum']) ? s['enum'][0] : undefined]) if (plain(v)) return v;
  const type = Array.isArray(s['type']) ? s['type'].find((t) => t !== 'null') : s['type'];
  if (type === 'integer' || type === 'number') return typeof s['minimum'] === 'number' ? s['minimum'] : 1;
  if (type === 'boolean') return true;
  // Dates a reader of a statement or history would ask for: the last thirty days.
  const day = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString();
  const back = /(^|_)(until|before|to|end)(_|[A-Z]|$)|[a-z](Until|Before|To|End)([A-Z_]|$)/.test(name) ? 0 : 30;
  if (s['format'] === 'date') return day(back).slice(0, 10);
  if (s['format'] === 'date-time') return day(back);
  return 'fsapi';
}
