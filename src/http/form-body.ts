/**
 * Request bodies in the form media types, encoded as OpenAPI 3 says (Encoding Object; style and explode as for
 * query parameters): `application/x-www-form-urlencoded` with each property `form`-exploded by default and
 * `deepObject` where the document asks (`metadata[team]=ops`, `items[0][price]=1`, as Stripe takes them), and
 * `multipart/form-data` with a part per property (objects and arrays of objects as JSON, binary strings as files).
 */
import { randomBytes } from 'node:crypto';
import { isObj } from '../json.js';

export type Encoding = Record<string, { style?: string; explode?: boolean; contentType?: string }>;

const scalar = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** `a[b][0]=c` pairs of a nested value under a key (deepObject, arrays indexed). */
function deepPairs(key: string, v: unknown, out: [string, string][]): void {
  if (Array.isArray(v)) v.forEach((x, i) => deepPairs(`${key}[${i}]`, x, out));
  else if (isObj(v)) for (const [k, x] of Object.entries(v)) deepPairs(`${key}[${k}]`, x, out);
  else out.push([key, scalar(v)]);
}

/** The name=value pairs of an application/x-www-form-urlencoded body. */
export function formPairs(value: unknown, encoding: Encoding = {}): [string, string][] {
  const out: [string, string][] = [];
  if (!isObj(value)) return out;
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const e = encoding[k] ?? {};
    const style = e.style ?? 'form';
    const explode = e.explode ?? style === 'form';
    if (style === 'deepObject') deepPairs(k, v, out);
    else if (Array.isArray(v)) {
      if (explode) for (const x of v) out.push([k, scalar(x)]);
      else out.push([k, v.map(scalar).join(style === 'spaceDelimited' ? ' ' : style === 'pipeDelimited' ? '|' : ',')]);
    } else if (isObj(v)) {
      if (explode) for (const [ik, iv] of Object.entries(v)) out.push([ik, scalar(iv)]);
      else out.push([k, Object.entries(v).flatMap(([ik, iv]) => [ik, scalar(iv)]).join(',')]);
    } else out.push([k, scalar(v)]);
  }
  return out;
}

export function urlEncodedBody(value: unknown, encoding?: Encoding): string {
  return new URLSearchParams(formPairs(value, encoding)).toString();
}

/** A multipart/form-data body and its Content-Type (with the boundary). `binary`: properties sent as files. */
export function multipartBody(value: unknown, encoding: Encoding = {}, binary: ReadonlySet<string> = new Set()): { body: Buffer; contentType: string } {
  const boundary = `fsapi-${randomBytes(12).toString('hex')}`;
  const chunks: string[] = [];
  const part = (name: string, content: string, type?: string, file?: boolean) => {
    const disposition = `form-data; name="${name.replace(/"/g, '%22')}"${file ? `; filename="${name.replace(/"/g, '%22')}.bin"` : ''}`;
    chunks.push(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n${content}\r\n`);
  };
  if (isObj(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      const declared = encoding[k]?.contentType;
      if (binary.has(k)) part(k, scalar(v), declared ?? 'application/octet-stream', true);
      else if (Array.isArray(v) && v.every((x) => !isObj(x) && !Array.isArray(x))) for (const x of v) part(k, scalar(x), declared);
      else if (isObj(v) || Array.isArray(v)) part(k, JSON.stringify(v), declared ?? 'application/json');
      else part(k, scalar(v), declared);
    }
  }
  chunks.push(`--${boundary}--\r\n`);
  return { body: Buffer.from(chunks.join(''), 'utf8'), contentType: `multipart/form-data; boundary=${boundary}` };
}
