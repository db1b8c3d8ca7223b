/**
 * Evidence belongs to the run it claims. Every recorded exchange was sent to the recorded target (its base URL's
 * origin, or the plain-HTTP address for the plain-HTTP probes), started within the run's own times, and carries
 * only idempotency keys this run made: each key is derived from the run id and its check (src/harness/
 * idempotency-key.ts), so a check spliced from another run, or an exchange of the embedded sandbox relabelled, shows.
 * What the target was is derived from its answers, not from a field: the reference sandbox names itself and its
 * fault switches on every answer (sandbox/identity.ts); a loopback base URL is the machine that ran the suite.
 * A probe's label must match what its request broke, where that can be read from the request.
 */
import type { SuiteSlug } from '../catalogue/groups.js';
import { MAX_EXCHANGES } from '../harness/check.js';
import { idempotencyKeyFor, keyScope, worldKeyScope } from '../harness/idempotency-key.js';
import { EVIDENCE_CAP } from '../http/exchange.js';
import type { CheckResult, RecordedExchange, RunReport } from '../results/model.js';
import { faultsOfIdentity, SANDBOX_IDENTITY_HEADER } from '../../sandbox/identity.js';
import { differs } from './difference.js';
import { VERIFY_EXIT } from './exit-codes.js';
import { evidenceFile, REPORT_FILE, type TargetKind } from './layout.js';

export interface Provenance {
  kind: TargetKind;
  /** The sandbox fault switches the answers name (none unless the target is the reference sandbox). */
  faults: string[];
  /** Checks whose evidence lost answers the run's judge saw: by id, how (cut at the cap, exchanges not kept). */
  partial: Map<string, string>;
}

function fail(message: string): never {
  return differs(VERIFY_EXIT.provenance, message);
}

const header = (headers: Record<string, string>, name: string): string | undefined => {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
};

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/i;
export const isLoopback = (url: string): boolean => {
  try {
    return LOOPBACK.test(new URL(url).hostname);
  } catch {
    return false;
  }
};

/** How much shorter than the cap a cut body may be: redaction replaces a secret the target echoed with its name. */
const CUT_SLACK = 1024;

/** How far a label's keys are searched (a full run's busiest check makes about 100). */
const MAX_KEYS_PER_LABEL = 4096;

/** The keys a run made, by label, derived as far as needed. */
class RunKeys {
  private readonly made = new Map<string, string>();
  private readonly reached = new Map<string, number>();
  constructor(private readonly runId: string) {}
  /** Whether `key` is one the run made under one of `labels`. */
  madeUnder(key: string, labels: readonly string[]): boolean {
    if (this.made.has(key)) return true;
    for (const label of labels) {
      for (let n = this.reached.get(label) ?? 0; n < MAX_KEYS_PER_LABEL; n++) {
        const k = idempotencyKeyFor(this.runId, label, n);
        this.made.set(k, label);
        this.reached.set(label, n + 1);
        if (k === key) return true;
      }
    }
    return false;
  }
  known(key: string): boolean {
    return this.made.has(key);
  }
}

/** The key's own part: keys are compared exactly by the target, but a check varies one by case or extends it (IDEM-105). */
const keyPart = (value: string): string => value.toLowerCase().slice(0, 36);

export interface ProvenanceInputs {
  report: RunReport;
  /** The suite that registers a check (its set-up keys are its suite's). */
  suiteOf: (checkId: string) => SuiteSlug;
  /** A packaged evidence file's bytes. */
  evidence: (name: string) => Buffer | undefined;
  /** The document's operations whose path template and method an exchange matches. */
  operationsAt: (method: string, url: string) => string[];
}

export function checkProvenance({ report, suiteOf, evidence, operationsAt }: ProvenanceInputs): Provenance {
  const base = safeUrl(report.target.base_url) ?? fail(`${REPORT_FILE}: target.base_url ${JSON.stringify(report.target.base_url)} is not a URL`);
  const plain = report.target.plain_http_url ? safeUrl(report.target.plain_http_url) : undefined;
  if (plain && plain.protocol !== 'http:') fail(`${REPORT_FILE}: target.plain_http_url ${report.target.plain_http_url} is not an http:// address`);
  const receiver = report.target.webhook_receiver ? safeUrl(report.target.webhook_receiver) : undefined;
  // Where an exchange may go: the target, its plain-HTTP address, and the run's own webhook receiver (deliveries read back).
  const origins = new Set([base.origin, ...(plain ? [plain.origin] : []), ...(receiver ? [receiver.origin] : [])]);
  const from = Date.parse(report.run.started_at);
  const to = Date.parse(report.run.finished_at);
  if (!(from <= to)) fail(`${REPORT_FILE}: run.started_at ${report.run.started_at} and finished_at ${report.run.finished_at} are not a time span`);
  const keys = new RunKeys(report.run.id);
  const deferred: { check: CheckResult; at: number; key: string }[] = [];
  const identities = new Set<string>();
  let answers = 0;
  const partial = new Map<string, string>();
  report.checks.forEach((c, i) => {
    const held = evidence(evidenceFile(i));
    const exchanges = held ? parseEvidence(held, c.id) : undefined;
    if (!exchanges || JSON.stringify(exchanges) !== JSON.stringify(c.exchanges)) {
      differs(VERIFY_EXIT.digest, `${evidenceFile(i)}: the exchanges of check ${c.id} differ from ${REPORT_FILE}`);
    }
    const labels = [keyScope(c.id, 0), ...Array.from({ length: c.attempts?.runs ?? 0 }, (_, k) => keyScope(c.id, k + 1))];
    c.exchanges.forEach((x, at) => {
      const where = `${REPORT_FILE}, check ${c.id}, exchange ${at + 1} (${x.request.method} ${x.request.url})`;
      const url = safeUrl(x.request.url) ?? fail(`${where}: not a URL`);
      if (!origins.has(url.origin)) fail(`${where}: sent to ${url.origin}, not to the target ${base.origin}${plain ? `, its plain-HTTP address ${plain.origin}` : ''}${receiver ? ` or the run's webhook receiver ${receiver.origin}` : ''}: an exchange of another target`);
      const t = Date.parse(x.started_at);
      if (!(t >= from && t <= to)) fail(`${where}: started at ${x.started_at}, outside the run (${report.run.started_at} to ${report.run.finished_at}): an exchange of another run`);
      const key = header(x.request.headers, 'idempotency-key');
      if (key !== undefined && !keys.madeUnder(keyPart(key), labels)) deferred.push({ check: c, at, key });
      checkProbe(x, report, where);
      if (x.operation !== undefined && !operationsAt(x.request.method, x.request.url).includes(x.operation)) {
        fail(`${where}: recorded as an answer to ${x.operation}, but that is not the operation the document gives this method and path`);
      }
      if (x.response) {
        answers++;
        const id = header(x.response.headers, SANDBOX_IDENTITY_HEADER);
        if (id !== undefined) identities.add(id);
        if (x.response.body_truncated) {
          // The run cuts an answer's text at its cap, never under EVIDENCE_CAP.responseBody: a cut body is at least that long (less what redaction shortened).
          const kept = (x.response.body ?? '').length;
          if (x.response.size_bytes <= kept || kept < EVIDENCE_CAP.responseBody - CUT_SLACK) {
            fail(`${where}: the answer is marked cut, but it is ${x.response.size_bytes} bytes and ${kept} characters were kept (a cut answer keeps at least ${EVIDENCE_CAP.responseBody})`);
          }
          partial.set(c.id, `an answer it judged (${x.response.size_bytes} bytes) was cut at its evidence cap`);
        }
      }
    });
    if (c.exchanges_not_kept !== undefined) {
      if (c.exchanges.length !== MAX_EXCHANGES) fail(`${REPORT_FILE}, check ${c.id}: ${c.exchanges_not_kept} exchanges are said not kept, but the evidence holds ${c.exchanges.length}, under its cap of ${MAX_EXCHANGES}`);
      partial.set(c.id, `${c.exchanges_not_kept} of its exchanges were not kept (the evidence keeps ${MAX_EXCHANGES} per check)`);
    }
  });
  // A key another check made (a producer's answer shared by the checks that asked), or a suite's set-up.
  for (const d of deferred) {
    const k = keyPart(d.key);
    const suite = suiteOf(d.check.id);
    if (keys.known(k) || keys.madeUnder(k, [worldKeyScope(suite, 'primary'), worldKeyScope(suite, 'second')])) continue;
    fail(`${REPORT_FILE}, check ${d.check.id}, exchange ${d.at + 1}: Idempotency-Key ${d.key} is not one run ${report.run.id} made: an exchange of another run`);
  }
  return { ...targetKind(report, identities, answers), partial };
}

function safeUrl(s: string): URL | undefined {
  try {
    return new URL(s);
  } catch {
    return undefined;
  }
}

function parseEvidence(held: Buffer, id: string): RecordedExchange[] | undefined {
  try {
    const e = JSON.parse(held.toString('utf8')) as { id?: unknown; exchanges?: unknown };
    return e.id === id && Array.isArray(e.exchanges) ? (e.exchanges as RecordedExchange[]) : undefined;
  } catch {
    return undefined;
  }
}

/** The reference sandbox when its answers name it (all with the same faults); else loopback or remote by the base URL. */
function targetKind(report: RunReport, identities: ReadonlySet<string>, answers: number): Pick<Provenance, 'kind' | 'faults'> {
  const recorded = [...(report.target.sandbox_faults ?? [])].sort();
  if (identities.size === 0) {
    if (report.target.embedded && answers > 0) fail(`${REPORT_FILE}: target.embedded is true, but no recorded answer comes from the reference sandbox (none carries its ${SANDBOX_IDENTITY_HEADER} header)`);
    if (recorded.length) fail(`${REPORT_FILE}: target.sandbox_faults names ${recorded.join(', ')}, but no recorded answer comes from the reference sandbox`);
    return { kind: isLoopback(report.target.base_url) ? 'loopback' : 'remote', faults: [] };
  }
  if (identities.size > 1) fail(`the recorded answers name ${identities.size} different reference sandboxes (${[...identities].join(' | ')}): answers of several targets`);
  const faults = faultsOfIdentity([...identities][0]) ?? fail(`a recorded answer's ${SANDBOX_IDENTITY_HEADER} header is not the reference sandbox's (${[...identities][0]})`);
  if (report.target.embedded && faults.join(',') !== recorded.join(',')) {
    fail(`${REPORT_FILE}: target.sandbox_faults is [${recorded.join(', ')}], but the sandbox's answers name the faults [${faults.join(', ')}]`);
  }
  return { kind: 'reference-sandbox', faults };
}

/** A probe's label, where its request shows what it broke: a valid request cannot pass for a probe (a 4xx then excused). */
function checkProbe(x: RecordedExchange, report: RunReport, where: string): void {
  const h = x.request.headers;
  const has = (name: string) => header(h, name) !== undefined;
  const mismatch = (what: string) => fail(`${where}: recorded as a ${x.probe} probe, but ${what}`);
  switch (x.probe) {
    case 'no-key':
      if (has('api-key')) mismatch('the request carries an Api-Key');
      break;
    case 'no-tenant':
      if (has('x-tenant-id')) mismatch('the request carries an x-tenant-id');
      break;
    case 'no-idempotency-key':
      if (has('idempotency-key')) mismatch('the request carries an Idempotency-Key');
      break;
    case 'bad-key':
      if (/^\[REDACTED:FSAPI_(?:SECOND_)?API_KEY\]$/.test(header(h, 'api-key') ?? '')) mismatch('the request carries a configured key');
      break;
    case 'foreign-tenant':
      if (report.target.tenant_id !== undefined && header(h, 'x-tenant-id') === report.target.tenant_id) mismatch("the request carries the configured business's x-tenant-id");
      break;
    case 'wrong-media-type':
      if (/^application\/(?:[\w.+-]+\+)?json\b/i.test(header(h, 'content-type') ?? '')) mismatch('the request is labelled JSON');
      break;
    case 'empty-body':
      if ((x.request.body ?? '').trim() !== '{}') mismatch('its body is not {}');
      break;
    default:
  }
}
