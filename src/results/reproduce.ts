import type { RecordedExchange } from './model.js';

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * A curl line that repeats a recorded request. Redacted secrets become shell variables
 * ([REDACTED:FSAPI_API_KEY] -> "$FSAPI_API_KEY"), so the line is safe to print and works when pasted.
 */
export function curlFor(x: RecordedExchange | undefined, opts: { caFile?: boolean } = {}): string | undefined {
  if (!x) return undefined;
  const hasSecret = (s: string) => /\[REDACTED:[A-Z_]+\]/.test(s);
  const arg = (s: string) => (hasSecret(s) ? `"${s.replace(/["\\`]/g, '\\$&').replace(/\[REDACTED:([A-Z_]+)\]/g, '$$$1')}"` : quote(s));
  const parts = ['curl -sS -i', x.request.method === 'GET' ? '' : `-X ${x.request.method}`, arg(x.request.url)];
  if (opts.caFile) parts.push('--cacert "$FSAPI_CA_FILE"');
  for (const [k, v] of Object.entries(x.request.headers)) parts.push(`-H ${arg(`${k}: ${v}`)}`);
  if (x.request.body !== undefined) parts.push(`--data-binary ${arg(x.request.body)}`);
  const line = parts.filter(Boolean).join(' ');
  return x.request.body_truncated ? `${line}  # body shortened in the evidence` : line;
}
