/** A JSON object (not an array, not null): what a parsed document, a body or a schema is walked as. */
export type Json = Record<string, unknown>;

export const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
