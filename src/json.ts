/** A JSON object (not an array, not null): what a parsed document, a body or a schema is walked as. */
export type JsonObject = Record<string, unknown>;

export const isObj = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * JSON with object keys sorted at every level (members that are undefined left out, as JSON.stringify does): one
 * text per value, whatever the key order. The sandbox's idempotency fingerprints and the checks' comparisons of
 * re-read resources both rest on it.
 */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * A schema's JSON text, the key its derived values are kept by: made once per schema object (a loaded document's
 * schemas are never changed), since every check of an operation asks with the same object and Stripe's bodies run
 * to tens of kilobytes of JSON.
 */
const schemaTexts = new WeakMap<object, string>();
export function schemaText(schema: unknown): string {
  if (typeof schema !== 'object' || schema === null) return JSON.stringify(schema ?? null);
  let text = schemaTexts.get(schema);
  if (text === undefined) schemaTexts.set(schema, (text = JSON.stringify(schema)));
  return text;
}
