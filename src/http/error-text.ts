/**
 * A target's own words for why it refused a request, read from its error body: an RFC 9457 problem (title, detail),
 * or the members vendors use (`message`, `error.message`, `errors[0].message`, `error_description`, ...). Quoted in
 * check messages and run diagnostics, so a refusal reads as the target's answer rather than the suite's guess.
 */
import { isObj } from '../json.js';

const TEXT_MEMBERS = ['message', 'detail', 'error_description', 'error_message', 'description', 'title', 'reason'];

function textOf(v: unknown, depth = 0): string | undefined {
  if (typeof v === 'string' && v.trim() !== '') return v.trim();
  if (depth > 2) return undefined;
  if (Array.isArray(v)) return textOf(v[0], depth + 1);
  if (!isObj(v)) return undefined;
  for (const k of TEXT_MEMBERS) {
    const t = typeof v[k] === 'string' ? textOf(v[k]) : undefined;
    if (t) return t;
  }
  // `{ error: { message } }`, `{ errors: [{ message }] }`, `{ error: "..." }`, `{ Errors: [...] }`.
  for (const k of Object.keys(v)) if (/^errors?$/i.test(k) || /^(fault|problem)$/i.test(k)) {
    const t = textOf(v[k], depth + 1);
    if (t) return t;
  }
  return undefined;
}

/** The error text of a JSON error body, with its code where it gives one; undefined when it has none. */
export function errorText(json: unknown): string | undefined {
  if (!isObj(json)) return textOf(json);
  const code = ['code', 'error_code', 'type'].map((k) => json[k]).find((c): c is string => typeof c === 'string' && c.length < 60 && !c.includes('/'));
  const problem = [json['title'], json['detail']].filter((x): x is string => typeof x === 'string' && x.trim() !== '');
  const text = problem.length ? problem.join(': ') : textOf(json);
  if (!text) return undefined;
  return code && !text.includes(code) ? `${code}: ${text}` : text;
}
