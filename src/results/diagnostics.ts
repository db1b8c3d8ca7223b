/**
 * Run diagnostics: what makes a run meaningless or weak, each with its fix, read before any per-check detail.
 * A wrong key (most answers 401) or a wrong base URL or document (most operations 404) otherwise shows as
 * hundreds of failures and skips rather than one diagnosis.
 *
 * The answers judged are those to the run's valid requests (the CONTRACT "valid request" checks, family `schema`)
 * and every request sent with the configured key outside the families that send wrong keys or unknown ids on
 * purpose (auth, transport, tenancy, http, versioning).
 */
import type { CheckResult, Coverage, Diagnostic, RecordedExchange } from './model.js';
import { isRateLimited } from './verdict.js';
import { errorText } from '../http/error-text.js';

const parsed = (text: string | undefined): unknown => {
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return text;
  }
};

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
  /** Diagnostics about the document that the checks cannot show (its security scheme): carried as they are. */
  documentNotes?: readonly Diagnostic[];
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

  // Per operation, the answers to its valid requests (and the checks over its observed traffic): an operation that
  // answered only 404 is not where the document says.
  const byOp = new Map<string, RecordedExchange[]>();
  for (const c of checks) {
    if (c.family !== 'schema' || !c.operation) continue;
    const answers = c.exchanges.filter((x) => x.response);
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
      message: `${refused.length} of ${writes.length} valid writes were refused with a 4xx${said.length ? ` (the target said: ${said.join('; ')})` : ''}${prerequisites ? `, and ${prerequisites} checks were skipped for a prerequisite the target refused` : ''}: the checks that build on them tell little`,
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

  out.push(...(input.documentNotes ?? []));

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

  const unverified = input.coverage?.requirements.filter((r) => r.level === 'MUST' && r.status === 'not-verified') ?? [];
  if (unverified.length) {
    const causes = [...new Set(unverified.map((r) => r.cause ?? 'other'))];
    out.push({
      kind: 'unverified-must',
      message: `${unverified.length} MUST requirements that apply were not verified (${causes.join(', ')}): the run cannot be conformant`,
      fix: causes.map((c) => CAUSE_FIX[c] ?? 'see each requirement\'s reason in the coverage table').join('; '),
    });
  }
  return out;
}

const CAUSE_FIX: Record<string, string> = {
  credential: 'set the credentials the reasons name (e.g. FSAPI_SECOND_API_KEY and FSAPI_SECOND_TENANT_ID), or waive the requirement in the capabilities file',
  'not-in-document': 'use the document that describes the target, or bind its operations to the reference ones',
  binding: 'bind the vendor operations the reasons name',
  prerequisite: 'see why the target refused the prerequisite (each skipped check says which request)',
  'live-environment': 'run against a sandbox, or allow writes with --allow-live-writes',
  'rate-limited': 'lower FSAPI_RATE_LIMIT',
};

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
