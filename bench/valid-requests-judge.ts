/**
 * Which failed checks rest on a request their own document forbids. A check that failed or warned and sent a
 * request it meant as valid (no probe, or only values the suite made up: src/http/request-parts.ts) claims that a
 * valid request was refused or mis-answered; each such request is validated against its operation in the document
 * by an independent validator (openapi-backend, with ajv-formats: parameters with their formats, query, headers,
 * request body), not by the suite's own code. Deliberately invalid probes and deliveries the receiver got are left
 * out: they are invalid on purpose, or not the suite's requests.
 */
import { OpenAPIBackend, type Document, type Request as ValidatorRequest } from 'openapi-backend';
import formats from 'ajv-formats';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import type { CheckResult, RecordedExchange, RunReport } from '../src/results/model.js';

/** A probe that is no probe: a request meant as valid whose made-up ids were answered "not found". */
const MADE_UP = 'made-up-value';

export const meantValid = (x: RecordedExchange): boolean => !x.received && (!x.probe || x.probe === MADE_UP);

export type RequestVerdict =
  | { kind: 'valid' }
  | { kind: 'invalid'; errors: string[] }
  /** Not judged: no operation of the document at that method and path, or a body the evidence cut short. */
  | { kind: 'not-judged'; reason: string };

export interface JudgedRequest {
  method: string;
  url: string;
  operation: string | undefined;
  verdict: RequestVerdict;
  request: RecordedExchange['request'];
}

export interface JudgedCheck {
  id: string;
  requirement: string;
  status: string;
  operation: string | undefined;
  requests: JudgedRequest[];
  /** A check rests on an invalid request when any request it meant as valid is invalid for the document. */
  invalid: boolean;
}

export interface DocumentFigures {
  failed_or_warned: number;
  failed: number;
  warned: number;
  /** Failed or warned checks that sent at least one request meant as valid. */
  claim_valid: number;
  /** Of those, resting on a request the document forbids. */
  on_invalid_request: number;
  requests_judged: number;
  requests_invalid: number;
  requests_not_judged: number;
  by_requirement: Record<string, { failed_or_warned: number; claim_valid: number; on_invalid_request: number }>;
  top_reasons: { reason: string; checks: number }[];
}

/** An independent validator of requests for one document. */
export async function requestValidator(document: object): Promise<(x: RecordedExchange, basePath: string) => { operation?: string; verdict: RequestVerdict }> {
  const api = new OpenAPIBackend({
    // Dereferenced first by the library openapi-backend itself uses (cycles kept as objects), as its quick mode's own
    // dereferencer leaves some references unresolved.
    definition: (await $RefParser.dereference(structuredClone(document))) as Document,
    strict: false,
    // Quick: the document itself is not validated and each operation's validators are compiled when first used, so a
    // slip in an unrelated schema (Formance's log payloads: `required: true`) does not stop the run.
    quick: true,
    validate: true,
    // Schemas are taken as written (a slip elsewhere in the document does not stop the run); unknown vendor formats
    // (bigint) are not checked, and said once in the README rather than per schema.
    ajvOpts: { strict: false, validateSchema: false, logger: false },
    customizeAjv: (ajv) => {
      formats.default(ajv);
      return ajv;
    },
  });
  await api.init();
  return (x, basePath) => {
    const url = new URL(x.request.url);
    const path = url.pathname.startsWith(basePath) ? `/${url.pathname.slice(basePath.length).replace(/^\/+/, '')}` : url.pathname;
    const headers = Object.fromEntries(Object.entries(x.request.headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
    const req: ValidatorRequest = { method: x.request.method.toLowerCase(), path, headers, query: url.search.replace(/^\?/, ''), body: parseBody(x.request.body, headers['content-type']) };
    const op = api.matchOperation(req);
    if (!op) return { verdict: { kind: 'not-judged', reason: `no operation of the document at ${x.request.method} ${path}` } };
    const operation = op.operationId ?? `${op.method.toUpperCase()} ${op.path}`;
    if (x.request.body_truncated) return { operation, verdict: { kind: 'not-judged', reason: 'the recorded body was cut short' } };
    let res: ReturnType<typeof api.validateRequest>;
    try {
      res = api.validateRequest(req, op);
    } catch (e) {
      return { operation, verdict: { kind: 'not-judged', reason: `the validator cannot compile this operation's schemas: ${(e as Error).message.slice(0, 200)}` } };
    }
    if (res.valid) return { operation, verdict: { kind: 'valid' } };
    return { operation, verdict: { kind: 'invalid', errors: (res.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}${paramsText(e.params)}`) } };
  };
}

const paramsText = (p: Record<string, unknown> | undefined): string => {
  if (!p) return '';
  const v = p.missingProperty ?? p.additionalProperty ?? p.format ?? p.allowedValues ?? p.pattern;
  return v === undefined ? '' : ` (${Array.isArray(v) ? v.join('|') : String(v)})`;
};

function parseBody(body: string | undefined, contentType: string | undefined): unknown {
  if (body === undefined || body === '') return undefined;
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(body));
  if (type === '' || type === 'application/json' || type.endsWith('+json')) {
    try {
      return JSON.parse(body);
    } catch {
      return body;
    }
  }
  return body;
}

/** A reason as the same fault reads on every request: array indices and made-up values left out. */
export const reasonKey = (operation: string | undefined, error: string): string => `${operation ?? '?'}: ${error.replace(/\/\d+(?=\/|\s)/g, '/*')}`;

/** Every failed or warned check of one run, with its requests meant as valid judged against the document. */
export function judgeRun(report: RunReport, validate: Awaited<ReturnType<typeof requestValidator>>): { checks: JudgedCheck[]; figures: DocumentFigures } {
  const basePath = new URL(report.target.base_url).pathname;
  const bad = report.checks.filter((c: CheckResult) => c.status === 'failed' || c.status === 'warning');
  const checks: JudgedCheck[] = bad.map((c) => {
    const requests = c.exchanges.filter(meantValid).map((x) => {
      const { operation, verdict } = validate(x, basePath);
      return { method: x.request.method, url: x.request.url, operation, verdict, request: x.request };
    });
    return { id: c.id, requirement: c.requirement, status: c.status, operation: c.operation, requests, invalid: requests.some((r) => r.verdict.kind === 'invalid') };
  });
  const byReq: DocumentFigures['by_requirement'] = {};
  const reasons = new Map<string, Set<string>>();
  for (const c of checks) {
    const r = (byReq[c.requirement] ??= { failed_or_warned: 0, claim_valid: 0, on_invalid_request: 0 });
    r.failed_or_warned++;
    if (c.requests.length) r.claim_valid++;
    if (c.invalid) r.on_invalid_request++;
    for (const q of c.requests) if (q.verdict.kind === 'invalid') for (const e of q.verdict.errors) (reasons.get(reasonKey(q.operation, e)) ?? reasons.set(reasonKey(q.operation, e), new Set()).get(reasonKey(q.operation, e))!).add(c.id);
  }
  const all = checks.flatMap((c) => c.requests);
  return {
    checks,
    figures: {
      failed_or_warned: checks.length,
      failed: checks.filter((c) => c.status === 'failed').length,
      warned: checks.filter((c) => c.status === 'warning').length,
      claim_valid: checks.filter((c) => c.requests.length > 0).length,
      on_invalid_request: checks.filter((c) => c.invalid).length,
      requests_judged: all.filter((q) => q.verdict.kind !== 'not-judged').length,
      requests_invalid: all.filter((q) => q.verdict.kind === 'invalid').length,
      requests_not_judged: all.filter((q) => q.verdict.kind === 'not-judged').length,
      by_requirement: byReq,
      top_reasons: [...reasons].map(([reason, ids]) => ({ reason, checks: ids.size })).sort((a, b) => b.checks - a.checks || a.reason.localeCompare(b.reason)).slice(0, 10),
    },
  };
}
