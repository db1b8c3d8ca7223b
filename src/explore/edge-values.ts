/**
 * The edges of one member's schema: the values real services trip over, each named by its kind. They are candidates,
 * not promises: a value the member's schema refuses (a pattern, a format the validator reads strictly) is dropped by
 * the request's validation before anything is sent (src/explore/variants.ts).
 */
import { isObj, type JsonObject } from '../json.js';

export interface EdgeValue {
  value: unknown;
  /** What kind of edge it is, as the report names it: "unicode: combining mark", "maxLength 100". */
  kind: string;
}

/** A string's edge is made at most this long: beyond it the request tests the transport, not the member. */
export const LONGEST_STRING = 4096;

/** Text edges: unicode classes, then the punctuation that breaks hand-built SQL, JSON, paths and URLs. */
const TEXTS: readonly EdgeValue[] = [
  { value: 'Zoë', kind: 'unicode: accented letter' },
  { value: 'Zoe\u0308', kind: 'unicode: combining mark' },
  { value: 'Ana 😀', kind: 'unicode: emoji' },
  { value: 'שרה', kind: 'unicode: right-to-left script' },
  { value: '王芳', kind: 'unicode: CJK' },
  { value: "O'Brien", kind: 'apostrophe' },
  { value: 'say "hi"', kind: 'double quote' },
  { value: 'C:\\temp', kind: 'backslash' },
  { value: '100% %20', kind: 'percent sign' },
];

const codePoints = (s: string): string[] => [...s];

/** A text fitted into the schema's length bounds (code points, as JSON Schema counts): padded or cut. */
function fitted(text: string, min: number, max: number | undefined): string {
  let out = codePoints(text);
  while (out.length < min) out.push('a');
  if (max !== undefined && out.length > max) out = out.slice(0, max);
  return out.join('');
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function types(s: JsonObject): string[] {
  const t = s['type'];
  return Array.isArray(t) ? t.map(String) : typeof t === 'string' ? [t] : [];
}

/** Whether the member may be null: `type: [x, 'null']`, a `null` enum value, or a `{type: 'null'}` branch. */
export function nullable(s: JsonObject): boolean {
  if (types(s).includes('null') || s['nullable'] === true) return true;
  if (Array.isArray(s['enum']) && s['enum'].includes(null)) return true;
  return ['oneOf', 'anyOf'].some((k) => Array.isArray(s[k]) && (s[k] as unknown[]).some((b) => isObj(b) && b['type'] === 'null'));
}

/** Edges of an e-mail member, built on the value it has (so what it creates keeps the run's label and domain). */
function emailEdges(base: unknown): EdgeValue[] {
  const [local, domain] = typeof base === 'string' && base.includes('@') ? [base.slice(0, base.lastIndexOf('@')), base.slice(base.lastIndexOf('@') + 1)] : ['ana', 'fsapi-conformance.test'];
  return [
    { value: `${local}+fsapi@${domain}`, kind: 'e-mail: plus-addressed' },
    { value: `${local}@${'a'.repeat(48)}.${domain}`, kind: 'e-mail: long domain label' },
    { value: `${local}@xn--zo-nia.${domain}`, kind: 'e-mail: IDN domain' },
    { value: `${local.toUpperCase()}@${domain.toUpperCase()}`, kind: 'e-mail: upper case' },
  ];
}

function stringEdges(s: JsonObject, base: unknown): EdgeValue[] {
  const min = num(s['minLength']) ?? 0;
  const max = num(s['maxLength']);
  const format = typeof s['format'] === 'string' ? s['format'] : undefined;
  if (format === 'email') return emailEdges(base);
  if (format === 'date') return [{ value: '2024-02-29', kind: 'date: leap day' }, { value: '1970-01-01', kind: 'date: epoch' }];
  if (format === 'date-time') return [{ value: '2024-02-29T23:59:59Z', kind: 'date-time: leap day' }, { value: '2024-02-29T00:00:00.000+14:00', kind: 'date-time: far offset' }];
  // Identifiers, URIs and the like have one form; their made values are edge enough.
  if (format !== undefined) return [];
  const out: EdgeValue[] = [];
  if (max !== undefined && max <= LONGEST_STRING && max > min) out.push({ value: 'z'.repeat(max), kind: `maxLength ${max}` });
  out.push({ value: 'z'.repeat(Math.max(min, 1)), kind: `minLength ${Math.max(min, 1)}` });
  for (const t of TEXTS) out.push({ value: fitted(t.value as string, min, max), kind: t.kind });
  return out;
}

function numberEdges(s: JsonObject, integer: boolean): EdgeValue[] {
  const step = num(s['multipleOf']) ?? (integer ? 1 : 0.01);
  const out: EdgeValue[] = [];
  const min = num(s['minimum']);
  const max = num(s['maximum']);
  const exMin = num(s['exclusiveMinimum']);
  const exMax = num(s['exclusiveMaximum']);
  if (max !== undefined) out.push({ value: max, kind: `maximum ${max}` });
  if (exMax !== undefined) out.push({ value: exMax - step, kind: `just under exclusiveMaximum ${exMax}` });
  if (min !== undefined) out.push({ value: min, kind: `minimum ${min}` });
  if (exMin !== undefined) out.push({ value: exMin + step, kind: `just over exclusiveMinimum ${exMin}` });
  out.push({ value: 0, kind: 'zero' });
  if (!integer) out.push({ value: 0.1 + 0.2, kind: 'binary fraction' });
  return out;
}

/**
 * The edge values of a member's (merged) schema, most telling first: each enum value, the bounds, format edge forms,
 * unicode classes and punctuation; null where the member is nullable. `base` is the value the valid request has.
 */
export function edgeValues(s: JsonObject, base: unknown): EdgeValue[] {
  const out: EdgeValue[] = [];
  if (Array.isArray(s['enum'])) {
    for (const v of s['enum']) if (v !== null) out.push({ value: v, kind: `enum value ${JSON.stringify(v)}` });
  } else if (s['const'] === undefined) {
    const t = types(s);
    if (t.includes('string') || (t.length === 0 && typeof base === 'string')) out.push(...stringEdges(s, base));
    if (t.includes('integer')) out.push(...numberEdges(s, true));
    else if (t.includes('number') || (t.length === 0 && typeof base === 'number')) out.push(...numberEdges(s, false));
    if (t.includes('boolean') || typeof base === 'boolean') out.push({ value: true, kind: 'true' }, { value: false, kind: 'false' });
    if (t.includes('array') && Array.isArray(base) && base.length > 0) out.push({ value: [], kind: 'empty array' });
  }
  if (nullable(s)) out.push({ value: null, kind: 'null' });
  return out.filter((e) => !Object.is(e.value, base) && JSON.stringify(e.value) !== JSON.stringify(base));
}
