/** Reading an answer's body, with no HTTP stack loaded: the client reads live answers with it, verify recorded ones. */

/** A body's JSON, or why it is not JSON (nothing for an empty body): as the client reads an answer, and as verify reads a recorded one. */
export function parseBody(text: string): { json: unknown; jsonError?: string } {
  if (text.length === 0) return { json: undefined };
  try {
    return { json: JSON.parse(text) as unknown };
  } catch (e) {
    return { json: undefined, jsonError: (e as Error).message };
  }
}

/** "application/json" of "application/json; charset=utf-8": the media type alone, lower case. */
export const mediaTypeOf = (contentType: string | undefined): string => (contentType ?? '').split(';')[0]!.trim().toLowerCase();
