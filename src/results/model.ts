/**
 * The result model: what a run produces, independent of how it is rendered.
 * The harness fills it; the reporters (JSON, Markdown, JUnit, Allure, diff, merge) read it.
 * `RunReport` is exactly the content of conformance.json (schema: src/reports/conformance.schema.json).
 */
import type { OperationAccount } from '../binding/binding.js';
import type { Level } from '../catalogue/requirements.js';
import type { SuiteSlug } from '../catalogue/groups.js';
import type { BehaviourDrift, SpecDiff, TrendPoint } from './regression-model.js';
import type { RecordedExchange } from '../http/exchange.js';

export type CheckStatus = 'passed' | 'failed' | 'warning' | 'skipped' | 'error';
export const CHECK_STATUSES: readonly CheckStatus[] = ['passed', 'failed', 'warning', 'skipped', 'error'];

export type Verdict = 'conformant' | 'non-conformant' | 'inconclusive' | 'incomplete';

/**
 * Why a check was skipped, for coverage: whether its requirement counts as "not verified" (credential,
 * not-in-document, binding, prerequisite, live-environment) or was left out on purpose (capabilities,
 * not-applicable) or waived.
 */
export type SkipCause = 'credential' | 'not-in-document' | 'binding' | 'prerequisite' | 'waived' | 'capabilities' | 'live-environment' | 'not-applicable';
export const SKIP_CAUSES: readonly SkipCause[] = ['credential', 'not-in-document', 'binding', 'prerequisite', 'waived', 'capabilities', 'live-environment', 'not-applicable'];

/** Check families: one module of the check library each, plus hand-written group flows and gap observations. */
export type Family =
  | 'auth'
  | 'idempotency'
  | 'headers'
  | 'schema'
  | 'input'
  | 'tenancy'
  | 'transport'
  | 'versioning'
  | 'http'
  | 'lifecycle'
  | 'flow'
  | 'observation';

// Defined with the client that records it; named here too because every report holds exchanges.
export type { RecordedExchange };

/** Named values a check's run read through a driver, for its judge (CheckResult.facts). */
export type Facts = Readonly<Record<string, number | string>>;

export interface ValueSourceAccount {
  operation: string;
  parameter: string;
  in: string;
  producer: string;
  kind: 'list' | 'create' | 'read';
  select: string;
  via: 'link' | 'inferred';
  confidence: number;
  active: boolean;
  reason: string;
}

export interface CheckResult {
  /** Stable identity across runs: `<requirement> <operation|group> <variant>`; baseline diffs and shard merges key on it. */
  id: string;
  /** The test name as vitest shows it; starts with the requirement ID. */
  name: string;
  requirement: string;
  level: Level;
  group: SuiteSlug;
  family: Family;
  operation?: string;
  /** The requirement's source, cited ("seed spec: Endpoints, rule 1"). */
  clause: string;
  title: string;
  status: CheckStatus;
  /** Why an `error` is not the target's fault to judge: a 429/503 that outlasted the retries (message "rate limited: ..."). */
  cause?: 'rate-limited';
  /** Why it failed, warned, errored or was skipped; what was observed for INFO. */
  message?: string;
  /** For INFO checks: what the target was observed to do, for the gap report. */
  observation?: string;
  /** For a skipped check: what kind of reason it is (coverage reads it to tell "not verified" from "not applicable"). */
  skip_cause?: SkipCause;
  duration_ms: number;
  exchanges: RecordedExchange[];
  /**
   * What the run read through a driver, not in one answer (effect counts before and after a burst), recorded as
   * data: the check's judge reads it, in the run and in `verify`.
   */
  facts?: Facts;
  /** For a check that did not pass: a shell script that replays its whole sequence (after the set-up it depends on), reading the target and keys from FSAPI_* variables (src/results/reproduce.ts). */
  reproduce?: string;
  /** Exchanges the evidence cap dropped (the first and last are kept): the judge saw them, the report does not hold them. */
  exchanges_not_kept?: number;
  /** Where the check is defined ("src/checks/auth.ts:73", its run function), from the requirement catalogue's index. */
  defined_at?: string;
  /**
   * With a baseline where it passed, a check that failed or errored was run again (FSAPI_RETRIES): every run of it,
   * and how many failed (the first among them). Evidence and message are the first failure's.
   */
  attempts?: Attempts;
  /** A retry passed: the check fails only sometimes (it still failed: the verdict counts it). */
  intermittent?: boolean;
  /** For an exploration check: a value the document allows that the target refused, shown as a suggestion (never a verdict). */
  refused_value?: RefusedValue;
}

/**
 * A documented 400 or 422 by which the target refused an explored request that is valid for the document, from a
 * valid request it accepted, shrunk to the one change that draws it (confirmed on that request with only this
 * change): either the document should say so (an enum, a pattern, a documented rule) or the target has a defect.
 * A suggestion the user reads; it never changes the verdict or the exit code.
 */
export interface RefusedValue {
  /** The minimal request in words: the member, its value and the kind of edge ("first_name = \"ë\" (unicode: accented letter)"). */
  request: string;
  /** The member or query parameter whose value draws the refusal, when one alone does. */
  member?: string;
  status: number;
  /** The problem body's title and detail, as the target answered the minimal request. */
  title?: string;
  detail?: string;
  /** Explored requests the target refused with a documented 400 or 422, of those explored. */
  refused: number;
  explored: number;
}

export interface Attempts {
  runs: number;
  failed: number;
}

export type StatusCounts = Record<CheckStatus, number> & { total: number };

export interface Gap {
  requirement: string;
  statement: string;
  observations: string[];
}

export interface BaselineDiff {
  baseline: { path: string; run_id: string; verdict: Verdict; started_at: string };
  /** Failed, errored or warned now; passed (or absent) in the baseline. */
  newly_failing: DiffEntry[];
  /** Passed now; failed, errored or warned in the baseline. */
  fixed: DiffEntry[];
  added: DiffEntry[];
  removed: DiffEntry[];
  /** Newly failing checks that passed again on a retry: failures of the target, not plain regressions (exit 7). */
  intermittent?: DiffEntry[];
  /** MUST requirements verified in the baseline and not verified now (inconclusive where it was not): a regression may hide there. */
  must_not_verified_now?: string[];
  regression: boolean;
  /** Whether the document changed since the baseline, and what changed (src/regression/spec-diff.ts). */
  document?: { changed: boolean; diff?: SpecDiff; note?: string };
  /** How the target's answers changed, per operation, even where every check still passes. */
  drift?: BehaviourDrift;
}

export interface DiffEntry {
  id: string;
  requirement: string;
  level: Level;
  before?: CheckStatus;
  after?: CheckStatus;
  message?: string;
  attempts?: Attempts;
  intermittent?: boolean;
}

/**
 * The schema_version this suite writes and reads: the one definition (the report's JSON Schema states the same const,
 * held to it by test/reports.test.ts).
 */
export const SCHEMA_VERSION = 1;

export interface RunReport {
  schema_version: typeof SCHEMA_VERSION;
  suite: { name: 'fsapi-conformance'; version: string };
  spec: {
    path: string;
    title: string;
    openapi: string;
    sha256: string;
    reference_profile: boolean;
    /** The vendor binding file in use (src/binding), when one was given. */
    binding?: string;
    /** Every operation of the document: the reference operation it plays, its group only, or why it is unbound. */
    operations?: OperationAccount[];
    /**
     * Which operation's answers give another operation's parameters (src/values/producers.ts): from the document's
     * links or inferred, each with its confidence and reason; inactive ones are suggestions the run did not act on.
     */
    value_sources?: ValueSourceAccount[];
  };
  requirements: { path: string; sha256: string; count: number };
  target: {
    base_url: string;
    environment: 'sandbox' | 'live';
    /** True when the run started its own embedded reference sandbox. */
    embedded: boolean;
    tenant_id?: string;
    sandbox_faults?: string[];
    /** Where the plain-HTTP probes were sent (FSAPI_PLAIN_HTTP_URL, or the base URL over http://). */
    plain_http_url?: string;
    /** The origin of the run's webhook receiver (where deliveries arrive and the suite reads them), when it had one. */
    webhook_receiver?: string;
  };
  run: {
    id: string;
    seed: number;
    started_at: string;
    finished_at: string;
    duration_ms: number;
    /** Report writing is not here: it cannot be known while this file is written (the console prints it). */
    phases: { startup_ms: number; preflight_ms: number; suites_ms: number };
    strict: boolean;
    groups: SuiteSlug[];
    shard?: { index: number; count: number };
    /** Shard reports this one was merged from. */
    merged_from?: string[];
    concurrency: number;
    requests_sent: number;
    /** How to find what the run created on the target. */
    resources_created: { count: number; by_type: Record<string, number>; label: string };
    /** 429/503 answers seen, and the time the run paused for them (Retry-After; overlapping pauses once). */
    throttling?: { responses: number; waited_ms: number };
    node: string;
    platform: string;
    /** Why the run is incomplete, when it is. */
    incomplete_reason?: string;
    /** Requirements waived by the capabilities file, with the reason given there. */
    waivers?: Waiver[];
    /** What decided which checks could run, recorded so that verify derives every skip before a request from it. */
    settings?: RunSettings;
    /**
     * How to run it again: the command with the same seed, groups, faults, document and shard; for the embedded
     * sandbox, the command that starts one with the same faults and writes the settings (`--env`) a reproduction reads.
     */
    repeat?: { command: string; sandbox?: string };
  };
  verdict: Verdict;
  counts: {
    by_status: StatusCounts;
    by_level: Record<Level, StatusCounts>;
    by_group: Record<string, StatusCounts>;
  };
  /** The verdict in one line, with what was not verified ("conformant: 27 of 27 MUST requirements verified"). */
  headline?: string;
  /** What makes this run meaningless or weak, each with its fix; shown before any per-check detail. */
  diagnostics?: Diagnostic[];
  /**
   * Where the document itself contradicts a seed rule (src/results/document-conflicts.ts), once per requirement, with
   * the checks that failed for doing what the document says grouped under it (they still fail and count).
   */
  document_conflicts?: DocumentConflict[];
  /** Which requirements and document operations the run exercised, and why not where it did not. */
  coverage?: Coverage;
  checks: CheckResult[];
  gaps: Gap[];
  baseline?: BaselineDiff;
  /** The last runs against this target in the report directory, this one last (FSAPI_TREND). */
  trend?: TrendPoint[];
}

/**
 * The run's settings that decide which checks can run (src/harness/preconditions.ts), never a secret: which optional
 * credentials were configured, not their values.
 */
export interface RunSettings {
  /** The suites asked for, before a shard took its share. */
  requested_groups: SuiteSlug[];
  allow_live_writes: boolean;
  /** The exploration phase's budget per operation (0: off), which decides whether its checks run; absent in reports made before the phase (verify requires it). */
  explore?: number;
  /** The exploration phase's total over the run (0: no total), shared among its operations when the run was planned; absent in reports made before it (verify requires it). */
  explore_total?: number;
  credentials: { second_tenant: boolean; public_key: boolean; revoked_key: boolean; live_key: boolean; webhooks: boolean };
  /** The capabilities file in use (its content is packaged by certify). */
  capabilities?: { path: string; sha256: string };
}

export interface Waiver {
  requirement: string;
  reason: string;
}

/**
 * verified: at least one check was executed (passed, failed or warned) and none failed; failed: one failed or
 * errored; not-verified: it applies but no check was executed (`cause` and `reason` say why); waived: the
 * capabilities file waived it; not-applicable: this run's configuration left it out on purpose (groups, shard,
 * capabilities) or it binds the suite itself (client scope).
 */
export type RequirementStatus = 'verified' | 'failed' | 'not-verified' | 'waived' | 'not-applicable';

export interface RequirementCoverage {
  id: string;
  level: Level;
  status: RequirementStatus;
  /** For not-verified, waived and not-applicable: the kind of reason (suite-obligation: a client-scope requirement, proven by the project's own tests). */
  cause?: SkipCause | 'rate-limited' | 'suite-obligation' | 'interrupted' | 'suite-error';
  reason?: string;
  /** Checks of the run for it: executed (passed, failed, warning) of total. */
  checks: { executed: number; total: number };
}

export interface OperationCoverage {
  operation: string;
  method: string;
  /** Its path template in the document, relative to the base URL. */
  path: string;
  group?: string;
  exercised: boolean;
  /** When not exercised: why (not in this run's groups, excluded by the capabilities file, no endpoint group...). */
  reason?: string;
  /** True when the run's configuration left it out on purpose (not in its groups, excluded by capabilities). */
  not_in_run?: boolean;
}

export interface Coverage {
  must: { total: number; applicable: number; verified: number; failed: number; not_verified: number; waived: number; not_applicable: number };
  requirements: RequirementCoverage[];
  operations: { total: number; exercised: number; not_in_run: number; list: OperationCoverage[] };
}

export interface DocumentConflict {
  /** The seed requirement the document contradicts. */
  requirement: string;
  /** What the document declares, in words. */
  declaration: string;
  /** The JSON pointer of the declaration in the document (RFC 6901; of the one most operations share). */
  pointer: string;
  /** How many places of the document declare it (several inline parameters, say). */
  places: number;
  /** The operations of the document it applies to (operationId, else "METHOD /path"). */
  operations: string[];
  /** The checks (by id) that failed or warned for doing what the document says: grouped under it, still counted. */
  checks: string[];
  failed: number;
  warning: number;
}

export type DiagnosticKind = 'unauthorized' | 'not-found' | 'writes-refused' | 'rate-limited' | 'security-scheme' | 'no-webhook-delivery' | 'unbound-operations' | 'unverified-must';

export interface Diagnostic {
  kind: DiagnosticKind;
  /** What was seen, with figures. */
  message: string;
  /** What to change. */
  fix: string;
  /** unverified-must: why those requirements were not verified (one diagnostic per cause). */
  cause?: RequirementCoverage['cause'];
  /** unverified-must: the requirements it is about. */
  requirements?: string[];
}
