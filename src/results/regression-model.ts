/** The shapes of what a baseline comparison reports beyond its checks (conformance.json `baseline`): no logic here. */

export type SpecChangeKind =
  | 'removed-operation'
  | 'added-operation'
  | 'removed-response'
  | 'added-response'
  | 'required-parameter'
  | 'required-member'
  | 'removed-alternative'
  | 'enum'
  | 'type'
  | 'removed-response-member'
  | 'security'
  | 'constraint'
  | 'other';

/** How each kind reads in a report, in the order the report lists them. */
export const KIND_TITLES: Record<SpecChangeKind, string> = {
  'removed-operation': 'removed operations',
  'removed-response': 'removed responses',
  'required-parameter': 'new required parameters',
  'required-member': 'new required members',
  'removed-alternative': 'request alternatives removed',
  enum: 'enum values changed',
  type: 'type changes',
  'removed-response-member': 'removed response members',
  security: 'security changed',
  constraint: 'validation constraints changed',
  'added-operation': 'added operations',
  'added-response': 'added responses',
  other: 'other changes',
};

/** The same, for one: "1 removed response", not "1 removed responses". */
export const KIND_SINGULAR: Record<SpecChangeKind, string> = {
  'removed-operation': 'removed operation',
  'removed-response': 'removed response',
  'required-parameter': 'new required parameter',
  'required-member': 'new required member',
  'removed-alternative': 'request alternative removed',
  enum: 'enum values changed',
  type: 'type change',
  'removed-response-member': 'removed response member',
  security: 'security changed',
  constraint: 'validation constraint changed',
  'added-operation': 'added operation',
  'added-response': 'added response',
  other: 'other change',
};

export interface SpecChange {
  breaking: boolean;
  kind: SpecChangeKind;
  /** "GET /transfers", when the change is inside an operation. */
  operation?: string;
  /** Where in the document, as a JSON pointer (an enum's or a list's index left out). */
  pointer: string;
  /** Ours for enums, removed response members and request alternatives; else api-smart-diff's, or ours when it gives none. */
  description: string;
  /** How many of the library's changes this one folds; for an enum, how many values were removed or added. */
  count: number;
  /** The library could not classify it (it says so): listed with the non-breaking ones, to judge by hand. */
  unclassified?: boolean;
}

export interface SpecDiff {
  old: { path: string; title: string; version: string; openapi: string };
  new: { path: string; title: string; version: string; openapi: string };
  breaking: number;
  non_breaking: number;
  /** Of the non-breaking ones, those the library could not classify. */
  unclassified: number;
  by_kind: Partial<Record<SpecChangeKind, { breaking: number; non_breaking: number }>>;
  changes: SpecChange[];
}

export type DriftKind = 'status-added' | 'status-gone' | 'member-added' | 'member-gone' | 'header-added' | 'header-gone' | 'latency';

export interface DriftFinding {
  /** operationId, and "METHOD /template" for reading. */
  operation: string;
  endpoint: string;
  kind: DriftKind;
  /** The status whose answers it is about ("201"), for members and headers. */
  status?: string;
  /** The statuses, members or headers added or gone; for latency "p95 12 ms -> 80 ms". */
  items: string[];
  /** The checks (by id) whose answers show the change, compared with their own answers in the baseline (not for latency). */
  checks?: string[];
}

export interface BehaviourDrift {
  /** An operation's p50 or p95 may grow to this many times the baseline's, and by LATENCY_FLOOR_MS, before it is drift. */
  latency_ratio: number;
  latency_floor_ms: number;
  /** Operations that both runs reached. */
  operations_compared: number;
  /** What statuses, members and headers were compared by: a check, one of its cases and an operation, in both runs. */
  cases_compared?: number;
  findings: DriftFinding[];
}

/** One run in the trend: its counts, MUST coverage and latency over every exchange its report kept. */
export interface TrendPoint {
  run_id: string;
  started_at: string;
  verdict: string;
  counts: { total: number; passed: number; failed: number; warning: number; skipped: number; error: number };
  must?: { verified: number; applicable: number };
  latency_ms?: { p50: number; p95: number };
  document_sha256: string;
}
