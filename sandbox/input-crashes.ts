/**
 * The input-crash fault switches: a request that passed validation (valid for the document) still crashes the
 * handler with a 500 when one of its strings or numbers is of a kind real services trip over (a customer named
 * "Zoë", an e-mail with a plus sign, a string at its maximum length). Only the exploration phase
 * (src/explore) sends such valid values on purpose, so each switch proves that phase, and no other check trips it.
 */
import type { Operation, SpecDocument } from '../src/catalogue/index.js';
import { mergedSchema, propertiesOf } from '../src/catalogue/schema-walker.js';
import { isObj, type JsonObject } from '../src/json.js';
import type { FaultName, FaultSet } from './faults.js';
import { unprocessable, type ApiError } from './problem.js';

/** A string or number of the request, with the schema that declares it (when the walk found one). */
interface Leaf {
  at: string;
  value: string | number;
  schema: JsonObject | undefined;
}

/** Strings whose length reaches a maxLength this large are ones no prerequisite of the suite fills to the brim. */
const LONG_MAX_LENGTH = 60;

type Trigger = (leaf: Leaf) => boolean;
const str = (leaf: Leaf): string => (typeof leaf.value === 'string' ? leaf.value : '');

const TRIGGERS: Partial<Record<FaultName, Trigger>> = {
  'crash-non-ascii': (l) => /[^\x00-\x7f]/.test(str(l)),
  'crash-plus-email': (l) => /^[^@\s]*\+[^@\s]*@/.test(str(l)),
  'crash-emoji': (l) => /\p{Extended_Pictographic}/u.test(str(l)),
  'crash-rtl': (l) => /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]/.test(str(l)),
  'crash-combining-mark': (l) => /\p{M}/u.test(str(l)),
  'crash-backslash': (l) => str(l).includes('\\'),
  'crash-double-quote': (l) => str(l).includes('"'),
  'crash-percent': (l) => str(l).includes('%'),
  'crash-max-length': (l) => {
    const max = l.schema?.['maxLength'];
    return typeof l.value === 'string' && typeof max === 'number' && max >= LONG_MAX_LENGTH && [...l.value].length === max;
  },
  'crash-long-domain': (l) => /@[^@]*[^.@]{40,}/.test(str(l)) || /@(?:[^@]*\.)?xn--/i.test(str(l)),
};

function leaves(spec: SpecDocument, value: unknown, schema: unknown, at: string, out: Leaf[], depth = 0): void {
  if (depth > 12) return;
  const s = mergedSchema(spec, schema);
  if (typeof value === 'string' || typeof value === 'number') out.push({ at, value, schema: s });
  else if (Array.isArray(value)) value.forEach((v, i) => leaves(spec, v, isObj(s?.['items']) ? s['items'] : undefined, `${at}/${i}`, out, depth + 1));
  else if (isObj(value)) {
    const props = propertiesOf(spec, s);
    for (const [k, v] of Object.entries(value)) leaves(spec, v, props.get(k), `${at}/${k}`, out, depth + 1);
  }
}

/** The crash a switched-on fault makes of this valid request (its message, as an unchecked handler would throw), or undefined. */
export function inputCrash(spec: SpecDocument, faults: FaultSet, op: Operation, body: unknown, query: URLSearchParams): string | undefined {
  const active = (Object.entries(TRIGGERS) as [FaultName, Trigger][]).filter(([name]) => faults.has(name));
  if (active.length === 0) return undefined;
  const found: Leaf[] = [];
  if (op.requestBody) leaves(spec, body, op.requestBody.content[0]?.schema, '', found);
  for (const [name, value] of query) found.push({ at: `?${name}`, value, schema: undefined });
  for (const [name, trigger] of active) {
    const hit = found.find(trigger);
    if (hit) return `${name}: cannot process ${hit.at || '(body)'}`;
  }
  return undefined;
}

/** A customer's name members: the refuse-non-ascii-name fault reads only these. */
const NAME_MEMBER = /^\/(first|middle|last)_name$/;

/**
 * The refusal a switched-on fault makes of this valid request (a legacy core that takes only ASCII names, say): a
 * documented 422 naming the member, or undefined. Valid for the document, so only the exploration sends it.
 */
export function inputRefusal(spec: SpecDocument, faults: FaultSet, op: Operation, body: unknown): ApiError | undefined {
  if (!faults.has('refuse-non-ascii-name') || !op.requestBody || !['createCustomer', 'updateCustomer'].includes(op.operationId)) return undefined;
  const found: Leaf[] = [];
  leaves(spec, body, op.requestBody.content[0]?.schema, '', found);
  const hit = found.find((l) => NAME_MEMBER.test(l.at) && /[^\x00-\x7f]/.test(str(l)));
  return hit ? unprocessable('unsupported_characters', 'Unsupported characters', `${hit.at} holds characters this service cannot store; use Latin letters without accents.`, hit.at) : undefined;
}
