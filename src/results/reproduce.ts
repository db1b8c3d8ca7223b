import type { RecordedExchange } from './model.js';
import { plural } from '../plural.js';

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** At most this many requests of one check are written out; the rest are named in a comment. */
export const SCRIPT_MAX_REQUESTS = 40;

/** A value of an answer that a later request of the same check sends back: captured into a shell variable. */
interface Capture {
  value: string;
  name: string;
  /** Keys from the answer's JSON body to the value. */
  path: (string | number)[];
}

/**
 * A shell script that replays the whole sequence a check sent, in order: its set-up requests, both requests of a
 * replay, a parallel burst sent in parallel (`&` ... `wait`), the pauses it waited (a delayed replay). It runs
 * against whatever FSAPI_BASE_URL names, with the key from the environment and the CA from FSAPI_CA_FILE when set,
 * so it works after the run's own (embedded) sandbox is gone. An id the target answered and a later request sends
 * back is read from the new answer (ID1, ...), not pasted from the old one; each idempotency key is made fresh per
 * replay (KEY1, ...), so the script can be run again. A value the check did not make (a resource the suite set up
 * before it) is kept as sent, and named in a comment.
 */
export function reproduceScript(exchanges: readonly RecordedExchange[], opts: { baseUrl: string; setup?: readonly RecordedExchange[] }): string | undefined {
  if (!exchanges.length) return undefined;
  const setup = opts.setup ?? [];
  const shown = [...setup, ...exchanges].slice(0, SCRIPT_MAX_REQUESTS);
  const vars = new Map<string, string>();
  // Longest first, so a value is never replaced by a shorter one it contains.
  const sub = () => [...vars].sort((a, b) => b[0].length - a[0].length);
  vars.set(opts.baseUrl, 'FSAPI_BASE_URL');
  const lines: string[] = [];
  const keys = [...new Set(shown.map((x) => headerValue(x, 'idempotency-key')).filter((k): k is string => !!k))];
  keys.forEach((k, i) => vars.set(k, `KEY${i + 1}`));
  if (keys.length) lines.push(`run=$(date +%s)$$; ${keys.map((_, i) => `KEY${i + 1}="repro-$run-${i + 1}"`).join('; ')}`);
  // The set-up requests one after another (each may answer an id the next sends), then the check's own as it sent them.
  const bursts = [...shown.slice(0, setup.length).map((x) => [x]), ...parallelBursts(shown.slice(setup.length))];
  const captured = new Set<string>();
  const foreign = new Set<string>();
  let ids = 0;
  let lastEnd: number | undefined;
  for (const [n, burst] of bursts.entries()) {
    const start = Date.parse(burst[0]!.started_at);
    if (n === Math.min(setup.length, shown.length) && setup.length) {
      lines.push('# the check itself');
      lastEnd = undefined;
    } else if (n === 0 && setup.length) lines.push("# set-up: what the check's requests name, made as the run made it");
    if (n >= setup.length && lastEnd !== undefined && start - lastEnd >= 1000) lines.push(`sleep ${Math.round((start - lastEnd) / 1000)}`);
    lastEnd = Math.max(...burst.map((x) => Date.parse(x.started_at) + x.duration_ms));
    const later = shown.slice(shown.indexOf(burst[burst.length - 1]!) + 1);
    // An id sent before this check answered it was made outside the check (the suite's set-up).
    for (const x of burst) for (const id of idsIn(requestText(x))) if (!captured.has(id)) foreign.add(id);
    if (burst.length > 1) {
      lines.push(`# ${burst.length} requests at once, as the check sent them`);
      for (const x of burst) lines.push(`${curlCommand(x, sub())} -w '\\n' &`);
      lines.push('wait');
      continue;
    }
    const x = burst[0]!;
    const captures = capturesOf(x, later, captured).map((c) => ({ ...c, name: `ID${++ids}` }));
    if (!captures.length) {
      lines.push(`${curlCommand(x, sub())} -w '\\n'`);
      continue;
    }
    const r = `R${ids}`;
    lines.push(`${r}=$(${curlCommand(x, sub())}); printf '%s\\n' "$${r}"`);
    for (const c of captures) {
      lines.push(`${c.name}=$(printf '%s' "$${r}" | json_at ${c.path.map((p) => quote(String(p))).join(' ')})`);
      vars.set(c.value, c.name);
      captured.add(c.value);
    }
  }
  const total = setup.length + exchanges.length;
  if (total > shown.length) lines.push(`# ...and ${total - shown.length} more requests: see the check's exchanges in conformance.json`);
  const head = [`# the ${exchanges.length === 1 ? 'request' : `${exchanges.length} requests`} the check sent, in order${setup.length ? `, after the ${plural(setup.length, 'request')} of the run that made what they name` : ''}`];
  if (foreign.size) head.push(`# made before this check (by the suite's set-up), kept as sent: ${[...foreign].join(', ')}`);
  if (ids) head.push(`json_at() { node -e 'const s=require("fs").readFileSync(0,"utf8");let v=JSON.parse(s.slice(s.search(/\\r?\\n\\r?\\n/)));for(const k of process.argv.slice(1))v=v[k];console.log(v)' "$@"; }`);
  return [...head, ...lines].join('\n');
}

/** Exchanges in order, those that overlapped in time (a parallel burst) together. */
function parallelBursts(xs: readonly RecordedExchange[]): RecordedExchange[][] {
  const out: RecordedExchange[][] = [];
  let end = -Infinity;
  for (const x of [...xs].sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at))) {
    const start = Date.parse(x.started_at);
    // Recorded times are whole milliseconds: an overlap of a tick or two is one request following another.
    if (out.length && start < end - 2) out[out.length - 1]!.push(x);
    else out.push([x]);
    end = Math.max(start < end - 2 ? end : -Infinity, start + x.duration_ms);
  }
  return out;
}

function headerValue(x: RecordedExchange, name: string): string | undefined {
  return Object.entries(x.request.headers).find(([k]) => k.toLowerCase() === name)?.[1];
}

const requestText = (x: RecordedExchange) => `${x.request.url}\n${x.request.body ?? ''}`;
/**
 * Ids as the reference profile and most APIs write them: a prefix, an underscore, then at least 8 letters and digits
 * with a digit or a capital among them (so that enum values such as non_binary or crypto_wallets are not ids).
 */
const ID = /\b[a-z]{2,8}_(?=[a-z]*[A-Z0-9])[A-Za-z0-9]{8,}\b/g;
const idsIn = (s: string) => s.match(ID) ?? [];

/** The values of x's JSON answer that a later request sends back, each with its path in the answer (first found). */
function capturesOf(x: RecordedExchange, later: readonly RecordedExchange[], known: ReadonlySet<string>): Omit<Capture, 'name'>[] {
  const body = x.response?.body;
  if (!body || x.response?.body_truncated) return [];
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    return [];
  }
  const wanted = new Set(later.flatMap((l) => idsIn(requestText(l))).filter((id) => !known.has(id)));
  const out: Omit<Capture, 'name'>[] = [];
  const walk = (v: unknown, path: (string | number)[]) => {
    if (typeof v === 'string') {
      if (wanted.delete(v)) out.push({ value: v, path });
    } else if (Array.isArray(v)) v.forEach((item, i) => walk(item, [...path, i]));
    else if (v && typeof v === 'object') for (const [k, item] of Object.entries(v)) walk(item, [...path, k]);
  };
  walk(data, []);
  return out;
}

/** One curl command: literal text single-quoted, the values bound to shell variables spliced in as "${NAME}". */
function curlCommand(x: RecordedExchange, vars: readonly [string, string][]): string {
  const arg = (s: string) => shellWord(s, vars);
  const parts = ['curl -sS -i', '${FSAPI_CA_FILE:+--cacert "$FSAPI_CA_FILE"}', x.request.method === 'GET' ? '' : `-X ${x.request.method}`, arg(x.request.url)];
  for (const [k, v] of Object.entries(x.request.headers)) parts.push(`-H ${arg(`${k}: ${v}`)}`);
  if (x.request.body !== undefined) parts.push(`--data-binary ${arg(x.request.body)}`);
  const line = parts.filter(Boolean).join(' ');
  return x.request.body_truncated ? `${line}  # body shortened in the evidence` : line;
}

/** A shell word for `s`: [REDACTED:NAME] and each bound value become "${NAME}", the rest stays single-quoted. */
function shellWord(s: string, vars: readonly [string, string][]): string {
  const pieces: { text: string; name?: string }[] = [{ text: s }];
  const split = (find: string | RegExp, nameOf: (m: string) => string) => {
    for (let i = 0; i < pieces.length; i++) {
      const p = pieces[i]!;
      if (p.name !== undefined) continue;
      const re = typeof find === 'string' ? new RegExp(find.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : find;
      const m = re.exec(p.text);
      if (!m) continue;
      pieces.splice(i, 1, { text: p.text.slice(0, m.index) }, { text: m[0], name: nameOf(m[0]) }, { text: p.text.slice(m.index + m[0].length) });
    }
  };
  split(/\[REDACTED:[A-Z_]+\]/, (m) => m.slice(10, -1));
  for (const [value, name] of vars) split(value, () => name);
  return pieces
    .filter((p) => p.name !== undefined || p.text)
    .map((p) => (p.name !== undefined ? `"\${${p.name}}"` : quote(p.text)))
    .join('');
}

/** At most this many set-up requests are prepended to a check's own. */
const MAX_SETUP = 20;

/**
 * The set-up a check's requests depend on: of the requests the suite made for its shared resources (`setupLog`, in
 * order), those that created or changed (any method but GET) a resource the check names and did not create itself,
 * and, the same way, what those name (an account's create names its customer, whose KYC was approved first).
 */
export function setupFor(exchanges: readonly RecordedExchange[], setupLog: readonly RecordedExchange[]): RecordedExchange[] {
  if (!setupLog.length) return [];
  const made = new Set(exchanges.map((x) => createdId(x)).filter((id): id is string => !!id));
  const wanted = [...new Set(exchanges.flatMap((x) => idsIn(requestText(x))))].filter((id) => !made.has(id));
  const needed = new Set<RecordedExchange>();
  const seen = new Set<string>();
  while (wanted.length && needed.size < MAX_SETUP) {
    const id = wanted.shift()!;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const x of setupLog) {
      if (needed.has(x) || needed.size >= MAX_SETUP) continue;
      if (createdId(x) !== id && (x.request.method === 'GET' || !requestText(x).includes(id))) continue;
      needed.add(x);
      for (const other of idsIn(requestText(x))) if (!seen.has(other)) wanted.push(other);
    }
  }
  return setupLog.filter((x) => needed.has(x));
}

/** The id a create answered: a 2xx to POST or PUT whose JSON body has it as `id`. */
export function createdId(x: RecordedExchange): string | undefined {
  const status = x.response?.status ?? 0;
  if ((x.request.method !== 'POST' && x.request.method !== 'PUT') || status < 200 || status > 299 || !x.response?.body) return undefined;
  try {
    const v = JSON.parse(x.response.body) as { id?: unknown };
    return typeof v.id === 'string' ? v.id : undefined;
  } catch {
    return undefined;
  }
}
