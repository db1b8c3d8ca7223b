/** Which of an operation's request media types a client sends its body in. */
import type { MediaSpec, Operation } from './document-types.js';

export const isJsonMedia = (m: string): boolean => m === 'application/json' || /^application\/[\w.+-]+\+json$/.test(m);

/**
 * The media type a client sends an operation's body in: JSON where the document takes it, else another JSON type
 * (`application/vnd.api+json`), else a form (`application/x-www-form-urlencoded`, `multipart/form-data`), else the
 * first it names.
 */
export function requestMediaOf(op: Pick<Operation, 'requestBody'>): MediaSpec | undefined {
  const content = op.requestBody?.content ?? [];
  return (
    content.find((c) => c.mediaType === 'application/json') ??
    content.find((c) => isJsonMedia(c.mediaType)) ??
    content.find((c) => c.mediaType === 'application/x-www-form-urlencoded') ??
    content.find((c) => c.mediaType === 'multipart/form-data') ??
    content[0]
  );
}
