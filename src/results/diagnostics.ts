/**
 * Run diagnostics: what makes a run meaningless or weak, each with its fix, read before any per-check detail.
 * A wrong key (most answers 401) or a wrong base URL or document (most operations 404) otherwise shows as
 * hundreds of failures and skips rather than one diagnosis.
 *
 * The answers judged are those to the requests the suite built as valid (each operation's FSAPI-CONTRACT-004 "valid
 * request": its own request to that operation, not the prerequisites it made first, nor the deliberately invalid
 * probes other checks' evidence holds) and every request sent with the configured key outside the families that
 * send wrong keys or unknown ids on purpose (auth, transport, tenancy, http, versioning).
 */
import type { CheckResult, Coverage, Diagnostic, RecordedExchange, RequirementCoverage } from './model.js';
import { isRateLimited } from './verdict.js';
import { errorText } from '../http/error-text.js';
import type { Probe } from '../http/request-parts.js';

const parsed = (text: string | undefined): unknown => {
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return text;
  }
};

/** The check that sends each operation the request the suite built as valid (src/checks/valid-requests.ts). */
const VALID_REQUEST = 'FSAPI-CONTRACT-004';
/** Not a probe sent on purpose: the valid request named ids made up from the document and got "not found". */
const MADE_UP: Probe = 'made-up-value';
/** Families whose requests are meant to be refused (wrong keys, other tenants, unknown ids, wrong versions). */
const REFUSED_ON_PURPOSE = new Set<CheckResult['family']>(['auth', 'transport', 'tenancy', 'http', 'versioning']);
const WRITE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Below this many answers a share says nothing. */
const MIN_ANSWERS = 5;

const withConfiguredKey = (x: RecordedExchange) =>
  Object.entries(x.request.headers).some(([k, v]) => k.toLowerCase() === 'api-key' && v === '[REDACTED:FSAPI_API_KEY]');
const pct = (n: number, of: number) => `${Math.round((100 * n) / of)}%`;

export interface DiagnosticsInput {
  checks: readonly CheckResult[];
  coverage?: Coverage | undefined;
  throttling?: { responses: number; waited_ms: number } | undefined;
  durationMs: number;
  /** Diagnostics the checks cannot show (the document's security scheme, a webhook receiver nothing reached): carried as they are. */
  notes?: readonly Diagnostic[];
}

export function runDiagnostics(input: DiagnosticsInput): Diagnostic[] {
  const out: Diagnostic[] = [];
  const { checks } = input;

  const mine = checks.filter((c) => !REFUSED_ON_PURPOSE.has(c.family)).flatMap((c) => c.exchanges.filter((x) => x.response && withConfiguredKey(x)));
  const unauthorized = mine.filter((x) => x.response!.status === 401).length;
  if (mine.length >= MIN_ANSWERS && unauthorized * 2 >= mine.length) {
    out.push({
      kind: 'unauthorized',
      message: `${unauthorized} of ${mine.length} answers to requests with the configured key were 401 (${pct(unauthorized, mine.length)}): the target refuses the key, so nearly nothing was tested`,
      fix: 'check FSAPI_API_KEY (a secret key of this environment), FSAPI_TENANT_ID and FSAPI_ENVIRONMENT; and that the target reads the key from the Api-Key header',
    });
  }

  // Per operation, the answers to the request the suite built as valid: an operation that answered only 404 is not
  // where the document says. Not the prerequisites the check made first (other operations), nor a probe: the
  // observed-traffic checks' evidence holds the deliberately malformed requests, whose 400 says nothing of a write.
  // A valid request whose made-up ids were not found is no probe: every operation answering so is the wrong path.
  const byOp = new Map<string, RecordedExchange[]>();
  for (const c of checks) {
    if (c.family !== 'schema' || c.requirement !== VALID_REQUEST || !c.operation) continue;
    const answers = c.exchanges.filter((x) => x.response && (!x.probe || x.probe === MADE_UP) && x.operation === c.operation);
    if (answers.length) byOp.set(c.operation, [...(byOp.get(c.operation) ?? []), ...answers]);
  }
  const answered = [...byOp.keys()];
  const notFound = answered.filter((op) => byOp.get(op)!.every((x) => x.response!.status === 404));
  if (answered.length >= 2 && notFound.length * 2 >= answered.length) {
    out.push({
      kind: 'not-found',
      message: `${notFound.length} of ${answered.length} operations answered their valid request with 404 (${notFound.slice(0, 3).join(', ')}${notFound.length > 3 ? ', …' : ''}): the paths of the document are not the target's`,
      fix: 'check FSAPI_BASE_URL (it ends with the version segment, e.g. https://host/v1/), that FSAPI_SPEC is the document of this target, and the binding of its operations',
    });
  }

  const writes = answered.filter((op) => byOp.get(op)!.some((x) => WRITE.has(x.request.method.toUpperCase())));
  const lastWrite = (op: string) => byOp.get(op)!.filter((x) => WRITE.has(x.request.method.toUpperCase())).at(-1)!;
  const refused = writes.filter((op) => {
    const last = lastWrite(op).response!.status;
    return last >= 400 && last < 500 && last !== 401 && last !== 404;
  });
  // The target's own words for a few of them: a refusal of a body valid for the document is its answer.
  const said = refused
    .map((op) => ({ op, status: lastWrite(op).response!.status, text: errorText(parsed(lastWrite(op).response!.body)) }))
    .filter((x) => x.text)
    .slice(0, 3)
    .map((x) => `${x.op} ${x.status}: "${x.text!.length > 120 ? `${x.text!.slice(0, 120)}...` : x.text}"`);
  const prerequisites = checks.filter((c) => c.status === 'skipped' && c.skip_cause === 'prerequisite').length;
  if (writes.length >= 2 && refused.length * 2 >= writes.length) {
    out.push({
      kind: 'writes-refused',
      message: `${refused.length} of ${writes.length} valid writes (each operation's request built as valid for its document, ${VALID_REQUEST}) were refused with a 4xx${said.length ? ` (the target said: ${said.join('; ')})` : ''}${prerequisites ? `, and ${prerequisites} checks were skipped for a prerequisite the target refused` : ''}: the checks that build on them tell little`,
      fix: 'read the refused requests in summary.md (a 422 names the field); give the target the data it needs (a funded account, an approved customer), or the document the bodies it accepts',
    });
  }

  const limited = checks.filter(isRateLimited).length;
  const t = input.throttling;
  if ((t && t.responses > 0) || limited) {
    const waited = t?.waited_ms ? `, and the run waited ${(t.waited_ms / 1000).toFixed(1)} s on them (${pct(t.waited_ms, Math.max(1, input.durationMs))} of its duration)` : '';
    out.push({
      kind: 'rate-limited',
      message: `the target answered 429/503 ${t?.responses ?? 0} times${waited}${limited ? `; ${limited} checks gave up on it and verified nothing` : ''}`,
      fix: 'lower FSAPI_RATE_LIMIT (and with shards, divide it by their number), or ask for a higher limit on the sandbox',
    });
  }

  out.push(...(input.notes ?? []));

  const unbound = input.coverage?.operations.list.filter((o) => !o.group) ?? [];
  if (unbound.length) {
    out.push({
      kind: 'unbound-operations',
      message: `${unbound.length} operations of the document are in no endpoint group and were never exercised (${unbound
        .slice(0, 4)
        .map((o) => o.operation)
        .join(', ')}${unbound.length > 4 ? ', …' : ''})`,
      fix: "tag them in the document with the seed's group names (Customers, Accounts, Transfers, …) or bind them to reference operations",
    });
  }

  out.push(...unverifiedMust(input.coverage?.requirements ?? []));
  return out;
}

type Cause = NonNullable<RequirementCoverage['cause']>;
const MAX_IDS = 6;
const ids = (reqs: readonly RequirementCoverage[]) => `${reqs.slice(0, MAX_IDS).map((r) => r.id).join(', ')}${reqs.length > MAX_IDS ? ', …' : ''}`;
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
/** The settings a reason names (FSAPI_SECOND_API_KEY ...), in the order it names them. */
const settingsIn = (text: string | undefined) => [...new Set(text?.match(/\bFSAPI_[A-Z_]+\b/g) ?? [])];
const and = (xs: readonly string[]) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);

/**
 * What each cause of an unverified MUST requirement says, and what it needs: the fix names the setting from the
 * requirements' own reasons where the cause is a setting (a credential), never a fixed example.
 */
const UNVERIFIED: Partial<Record<Cause, { why: string; fix(reqs: readonly RequirementCoverage[]): string }>> = {
  interrupted: {
    why: 'the run was interrupted before their checks ran',
    fix: () => 'let the run finish (it writes its report after the last check); to shorten it, run fewer suites (FSAPI_GROUPS) or split it across machines (FSAPI_SHARD) and merge the reports',
  },
  'suite-error': {
    why: 'their suite could not run (the suite errors the run printed say why): this says nothing of the target',
    fix: () => 'run again; if the suite fails again, it is a fault of this suite: report it with the output of a run with FSAPI_DEBUG=1',
  },
  credential: {
    why: 'their checks need a credential or address this run was not given',
    fix(reqs) {
      // Requirements grouped by the settings their reasons name: each group gets its own "set ... for ...".
      const bySettings = new Map<string, RequirementCoverage[]>();
      for (const r of reqs) {
        const key = and(settingsIn(r.reason));
        (bySettings.get(key) ?? bySettings.set(key, []).get(key)!).push(r);
      }
      const parts = [...bySettings].map(([settings, rs]) => (settings ? `set ${settings} for ${ids(rs)}` : `${ids(rs)}: ${rs[0]!.reason ?? 'see its reason in the coverage table'}`));
      return `${parts.join('; ')}; or waive them in the capabilities file (FSAPI_CAPABILITIES) with the reason the target cannot show them`;
    },
  },
  'not-in-document': {
    why: 'the document in use has none of the operations their checks apply to',
    fix: () => 'give the document that describes the target in FSAPI_SPEC, or, if it names those operations otherwise, say which of its operations play them in FSAPI_BINDING (`fsapi-conformance bind` proposes one)',
  },
  binding: {
    why: 'the binding leaves what their checks need unbound',
    fix: (reqs) => `complete FSAPI_BINDING as their reasons say (${reqs[0]!.reason ?? 'see the coverage table'}); \`fsapi-conformance bind --check\` shows what each operation plays`,
  },
  prerequisite: {
    why: 'the target refused a request their checks build on',
    fix: (reqs) => `make the target accept what their checks first create (${reqs[0]!.reason ?? 'each skipped check names the refused request'}), or waive them in the capabilities file (FSAPI_CAPABILITIES)`,
  },
  'live-environment': {
    why: 'only writes verify them, and writes are not sent to a live target',
    fix: () => 'allow writes with FSAPI_ALLOW_LIVE_WRITES=true (--allow-live-writes), or run against a sandbox (FSAPI_ENVIRONMENT=sandbox and its FSAPI_BASE_URL)',
  },
  'rate-limited': {
    why: 'the target kept answering 429/503 until their checks gave up',
    fix: () => 'set FSAPI_RATE_LIMIT to a rate the target accepts (the run paces itself and waits out Retry-After, but these answers outlasted its retries)',
  },
};
const CAUSE_ORDER: readonly Cause[] = ['interrupted', 'suite-error', 'credential', 'not-in-document', 'binding', 'prerequisite', 'live-environment', 'rate-limited'];

/** One diagnostic per cause of the MUST requirements that apply and were not verified, then one for those waived. */
function unverifiedMust(reqs: readonly RequirementCoverage[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const must = reqs.filter((r) => r.level === 'MUST' && r.cause !== 'suite-obligation');
  const unverified = must.filter((r) => r.status === 'not-verified');
  const causes = [...new Set(unverified.map((r) => r.cause))].sort((a, b) => rank(a) - rank(b));
  for (const cause of causes) {
    const mine = unverified.filter((r) => r.cause === cause);
    const known = cause ? UNVERIFIED[cause] : undefined;
    out.push({
      kind: 'unverified-must',
      ...(cause ? { cause } : {}),
      requirements: mine.map((r) => r.id),
      message: `${plural(mine.length, 'MUST requirement')} not verified: ${known?.why ?? mine[0]!.reason ?? 'every check of theirs was skipped'} (${ids(mine)}); the run cannot be conformant`,
      fix: known?.fix(mine) ?? "see each requirement's reason in the coverage table (summary.md, Coverage)",
    });
  }
  const waived = must.filter((r) => r.status === 'waived');
  if (waived.length) {
    out.push({
      kind: 'unverified-must',
      cause: 'waived',
      requirements: waived.map((r) => r.id),
      message: `${plural(waived.length, 'MUST requirement')} waived by the capabilities file (${ids(waived)}): the verdict does not vouch for them`,
      fix: 'remove their entries from `waive` in the capabilities file (FSAPI_CAPABILITIES) once the target can show them; a certification run (FSAPI_STRICT, --strict) refuses MUST waivers',
    });
  }
  return out;
}

const rank = (c: Cause | undefined) => (c === undefined ? CAUSE_ORDER.length : CAUSE_ORDER.indexOf(c) === -1 ? CAUSE_ORDER.length : CAUSE_ORDER.indexOf(c));

/**
 * The suite's webhook receiver got no delivery in a run that waited for some: against a remote target the path
 * from the target to FSAPI_WEBHOOK_LISTEN is the user's to build, so the webhook checks' failures and skips may
 * tell of that path rather than of the target.
 */
export function silentReceiverNote(listen: string): Diagnostic {
  return {
    kind: 'no-webhook-delivery',
    message: `the suite's webhook receiver (FSAPI_WEBHOOK_LISTEN ${listen}) got no delivery in the whole run: the webhook checks that failed or were skipped for want of one may tell of the way from the target to the receiver, not of the target`,
    fix: `make the target deliver to an address that reaches ${listen} on this machine (in CI: the runner's address, or a tunnel to that port), and check its webhook secret is FSAPI_WEBHOOK_SECRET; or unset FSAPI_WEBHOOK_LISTEN and FSAPI_WEBHOOK_SECRET (the webhook MUST requirements then stay not verified)`,
  };
}

/**
 * The document's security scheme, when it is not the seed's Api-Key header: the suite sends the key as Api-Key, so
 * a target that reads another header or a bearer token refuses every request.
 */
export function securitySchemeNote(raw: Record<string, unknown>): Diagnostic | undefined {
  const components = raw['components'];
  const schemes = typeof components === 'object' && components !== null ? (components as Record<string, unknown>)['securitySchemes'] : undefined;
  if (typeof schemes !== 'object' || schemes === null) return undefined;
  const entries = Object.entries(schemes as Record<string, Record<string, unknown>>);
  if (entries.length === 0) return undefined;
  const isSeed = (s: Record<string, unknown>) => s['type'] === 'apiKey' && s['in'] === 'header' && String(s['name']).toLowerCase() === 'api-key';
  if (entries.some(([, s]) => typeof s === 'object' && s !== null && isSeed(s))) return undefined;
  const shown = entries
    .slice(0, 3)
    .map(([name, s]) => `${name} (${[s?.['type'], s?.['scheme'] ?? s?.['in'], s?.['name']].filter((x) => typeof x === 'string').join(' ')})`)
    .join(', ');
  return {
    kind: 'security-scheme',
    message: `the document's security scheme is ${shown}, not the seed's Api-Key header: the suite sends the key as Api-Key`,
    fix: 'a target that reads its key elsewhere refuses every request: use a target (or sandbox) that accepts the Api-Key header, as the seed requires',
  };
}
