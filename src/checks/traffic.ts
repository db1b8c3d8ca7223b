/**
 * Judgements on every response a suite receives for a known operation (Schemathesis calls these
 * response_schema_conformance, status_code_conformance, content_type_conformance, ...). The observer applies them
 * to all traffic as it arrives; one check per operation and requirement, run last, reports the findings.
 */
import type { Operation, ResponseVerdict, SpecDocument } from '../catalogue/openapi.js';
import { UnsupportedPattern } from '../catalogue/linear-pattern.js';
import { CheckFailure } from '../harness/assert.js';
import type { CheckDef } from '../harness/check.js';
import type { HttpResponse } from '../http/client.js';
import { PartlyJudged, type TrafficApplicability, type TrafficEvaluator, type TrafficFinding } from '../harness/observer.js';
import type { CheckFamily } from './plan.js';
import type { Probe } from '../http/request-parts.js';

const isJsonMedia = (m: string) => m === 'application/json' || /^application\/[\w.+-]+\+json$/.test(m);
const isError = (res: HttpResponse) => res.status >= 400;

/** What each probe asked for, as a reader of the document would say it. */
const PROBED: Record<Probe, string> = {
  'no-key': 'a request without Api-Key',
  'bad-key': 'a request whose Api-Key is not a valid secret key',
  'no-tenant': 'a request without x-tenant-id',
  'foreign-tenant': "a request with another business's x-tenant-id",
  'foreign-object': "another business's request for this business's object",
  'wrong-media-type': 'a body labelled with another media type than JSON',
  'malformed-body': 'a body that is not the JSON object expected',
  'invalid-body': 'a body that breaks the request schema',
  'empty-body': 'an empty JSON object as the body',
  'no-idempotency-key': 'a POST without Idempotency-Key',
  'reused-idempotency-key': 'an Idempotency-Key reused with another body',
  'unknown-id': 'an id that exists nowhere',
  'oversized-body': 'a body over the size limit',
  'over-limit': 'a page size over the documented maximum',
  'made-up-value': 'a request naming values made up from the document (ids that need not exist)',
};

/**
 * A 4xx the suite provoked on purpose: when the document does not list it, the document has a gap (a SHOULD),
 * the target has not broken its contract. Any other status (a 2xx, a 5xx) is judged like every answer.
 */
const provoked = (res: HttpResponse, probe: Probe | undefined): probe is Probe => probe !== undefined && res.status >= 400 && res.status < 500;

/** Stack frames, interpreter tracebacks, framework error codes and source paths: internals a client must not see. */
const LEAK_PATTERNS: [RegExp, string][] = [
  [/\bat\s+[\w$.<>[\]]+\s+\((?:file:\/\/)?[^()\s]+:\d+:\d+\)/, 'a JavaScript stack frame'],
  [/\n\s+at\s+[\w$.<>]+/, 'a stack trace'],
  [/Traceback \(most recent call last\)/, 'a Python traceback'],
  [/\b(?:java|javax|org\.springframework|org\.hibernate)\.[\w.]+(?:Exception|Error)\b/, 'a Java exception class'],
  [/\bFST_[A-Z_]{3,}\b/, 'a framework error code (FST_...)'],
  [/"stack"\s*:\s*"/, 'a "stack" member'],
  [/(?:\/|\\)node_modules(?:\/|\\)/, 'a node_modules path'],
  [/(?:^|[\s"'(])\/(?:home|usr|opt|srv|var|app|src)\/[\w./-]+\.(?:js|ts|mjs|cjs|py|rb|java|go|php)\b/, 'a server file path'],
];

export function leaks(text: string): string | undefined {
  for (const [re, what] of LEAK_PATTERNS) if (re.test(text)) return what;
  return undefined;
}

export function evaluatorsFor(spec: SpecDocument): { evaluate: TrafficEvaluator; appliesTo: TrafficApplicability }[] {
  return [
    {
      appliesTo: (_op, res) => (res.text.length > 0 ? ['FSAPI-MEDIA-001'] : []),
      evaluate: (_op, res) => {
        if (res.text.length === 0) return [];
        if (!isJsonMedia(res.contentType)) {
          // An answer is judged by the type the suite asked for: where the document gives the operation's answers
          // only in types the suite has no judge for (text/plain, a PDF), it asked for those, and an answer in
          // one of them is not held to JSON (the observer records why it could not judge it).
          const asked = askedTypes(res);
          if (asked.length && !asked.some(isJsonMedia) && asked.some((a) => sameType(a, res.contentType))) {
            throw new Error(`the document gives ${asked.join(', ')} as the only answer type, which the suite has no judge for: ask the vendor to document a JSON answer`);
          }
          return [{ requirement: 'FSAPI-MEDIA-001', message: `${res.status} body labelled ${res.contentType || 'with no Content-Type'}, not JSON` }];
        }
        if (res.jsonError) return [{ requirement: 'FSAPI-MEDIA-001', message: `${res.status} body is labelled JSON but does not parse: ${res.jsonError}` }];
        return [];
      },
    },
    {
      // A status the spec does not document (a proxy's 502, say) has no schema, media type or headers to hold it to:
      // it counts for CONTRACT-002 (or -101 for a probe's 4xx) alone, so those checks never pass on answers they could not judge.
      appliesTo: (op, res, probe) => {
        const status = provoked(res, probe) ? 'FSAPI-CONTRACT-101' : 'FSAPI-CONTRACT-002';
        return spec.responseFor(op, res.status) ? ['FSAPI-CONTRACT-001', status, 'FSAPI-CONTRACT-003', 'FSAPI-CONTRACT-005'] : [status];
      },
      evaluate: (op, res, probe) => contractFindings(spec, op, res, probe),
    },
    {
      appliesTo: (_op, res) => (isError(res) ? ['FSAPI-ERR-001', 'FSAPI-ERR-002'] : []),
      evaluate: (_op, res) => (isError(res) ? errorFindings(res) : []),
    },
  ];
}

/** The media types a request asked for (its Accept), without parameters. */
function askedTypes(res: HttpResponse): string[] {
  const accept = Object.entries(res.exchange.request.headers).find(([k]) => k.toLowerCase() === 'accept')?.[1] ?? '';
  return accept
    .split(',')
    .map((a) => a.split(';')[0]!.trim().toLowerCase())
    .filter((a) => a !== '' && a !== '*/*');
}

/** Whether an answer's type is one asked for (`text/*` takes `text/plain`). */
const sameType = (asked: string, got: string): boolean => {
  const type = got.split(';')[0]!.trim().toLowerCase();
  return asked === type || (asked.endsWith('/*') && type.startsWith(asked.slice(0, -1)));
};

function contractFindings(spec: SpecDocument, op: Operation, res: HttpResponse, probe?: Probe): TrafficFinding[] {
  const out: TrafficFinding[] = [];
  const documented = spec.responseFor(op, res.status);
  if (!documented) {
    const listed = op.responses.map((r) => r.status).join(', ');
    out.push(
      provoked(res, probe)
        ? { requirement: 'FSAPI-CONTRACT-101', message: `${op.operationId} answers ${PROBED[probe]} with ${res.status}, which its document does not list (documented: ${listed}): document the ${res.status}` }
        : { requirement: 'FSAPI-CONTRACT-002', message: `status ${res.status} is not documented for ${op.operationId} (documented: ${listed})` },
    );
    return out;
  }
  for (const h of documented.headers) {
    if (h.required && res.headers[h.name] === undefined) {
      out.push({ requirement: 'FSAPI-CONTRACT-005', message: `${res.status} lacks the required header ${h.name}` });
    }
  }
  if (res.text.length === 0) {
    // A 204 or 304 carries no body by HTTP (RFC 9110 15.3.5, 15.4.5), whatever media type its document gives it
    // (Adyen documents `204: {content: {application/json: {}}}`): the document's slip, not the target's.
    if (documented.content.length > 0 && res.status !== 204 && res.status !== 304) out.push({ requirement: 'FSAPI-CONTRACT-003', message: `${res.status} has no body; the spec documents ${documented.content.map((c) => c.mediaType).join(', ')}` });
    return out;
  }
  const body = res.json !== undefined ? res.json : res.text;
  let verdict: ResponseVerdict;
  try {
    verdict = spec.validateResponse(op, res.status, res.contentType, body);
  } catch (e) {
    // A pattern the suite cannot run leaves the body's schema unjudged; the status, media type and headers are judged.
    if (e instanceof UnsupportedPattern) throw new PartlyJudged(e.message, ['FSAPI-CONTRACT-001'], out);
    throw e;
  }
  if (verdict.kind === 'undocumented-media-type') {
    out.push({ requirement: 'FSAPI-CONTRACT-003', message: `${res.status} media type ${verdict.mediaType} is not documented (documented: ${verdict.documented.join(', ')})` });
  } else if (verdict.kind === 'schema') {
    const first = verdict.problems.slice(0, 3).map((p) => `${p.pointer} ${p.message}`).join('; ');
    out.push({ requirement: 'FSAPI-CONTRACT-001', message: `${res.status} body breaks the ${op.operationId} schema: ${first}${verdict.problems.length > 3 ? ` (+${verdict.problems.length - 3} more)` : ''}` });
  }
  return out;
}

function errorFindings(res: HttpResponse): TrafficFinding[] {
  const out: TrafficFinding[] = [];
  const leak = res.text ? leaks(res.text) : undefined;
  if (leak) out.push({ requirement: 'FSAPI-ERR-002', message: `${res.status} error body reveals ${leak}` });
  const problem = (): string | undefined => {
    if (res.contentType !== 'application/problem+json') return `is labelled ${res.contentType || 'with no Content-Type'}, not application/problem+json`;
    const j = res.json;
    if (typeof j !== 'object' || j === null || Array.isArray(j)) return 'is not a JSON object';
    const p = j as Record<string, unknown>;
    for (const m of ['type', 'title', 'detail', 'instance']) if (p[m] !== undefined && typeof p[m] !== 'string') return `member ${m} is not a string`;
    if (p['status'] !== undefined && p['status'] !== res.status) return `member status is ${JSON.stringify(p['status'])}, the HTTP status is ${res.status}`;
    return undefined;
  };
  const why = problem();
  if (why) out.push({ requirement: 'FSAPI-ERR-001', message: `${res.status} error body ${why}` });
  return out;
}

/** One check per operation and requirement over the traffic observed; run after every other check of the suite. */
const OBSERVED: { requirement: string; variant: string; title: string; family: CheckDef['family'] }[] = [
  { requirement: 'FSAPI-MEDIA-001', variant: 'observed-json', title: 'every response body observed is JSON', family: 'headers' },
  { requirement: 'FSAPI-CONTRACT-001', variant: 'observed-schema', title: 'every response body observed conforms to its schema', family: 'schema' },
  { requirement: 'FSAPI-CONTRACT-002', variant: 'observed-status', title: 'every status observed, but a 4xx to a deliberately invalid request, is documented', family: 'schema' },
  { requirement: 'FSAPI-CONTRACT-101', variant: 'observed-probe-status', title: 'every 4xx observed in answer to a deliberately invalid request is documented', family: 'schema' },
  { requirement: 'FSAPI-CONTRACT-003', variant: 'observed-media-type', title: 'every media type observed is documented', family: 'schema' },
  { requirement: 'FSAPI-CONTRACT-005', variant: 'observed-headers', title: 'every required response header observed is present', family: 'schema' },
  { requirement: 'FSAPI-ERR-001', variant: 'observed-problem', title: 'every error observed is a problem document', family: 'schema' },
  { requirement: 'FSAPI-ERR-002', variant: 'observed-no-internals', title: 'no error observed reveals internals', family: 'schema' },
];

export const trafficFamily: CheckFamily = {
  name: 'observed traffic',
  forOperation(op) {
    if (!op.group) return [];
    return OBSERVED.map((o) => ({
      requirement: o.requirement,
      family: o.family,
      group: op.group!,
      operation: op.operationId,
      variant: o.variant,
      title: o.title,
      last: true,
      async run(ctx) {
        const seen = ctx.observed.responses(op.operationId);
        if (seen === 0) ctx.skip(`no response to ${op.operationId} was observed in this suite`);
        const applicable = ctx.observed.applicable(op.operationId, o.requirement);
        const unjudged = ctx.observed.unjudged(op.operationId, o.requirement);
        if (applicable === 0) ctx.skip(unjudged ? `no response to ${op.operationId} could be judged against the document: ${unjudged}` : `none of the ${seen} responses observed for ${op.operationId} is one this requirement applies to`);
        const findings = ctx.observed.findings(op.operationId, o.requirement);
        for (const f of findings) ctx.attach(f.exchange);
        if (findings.length) {
          const more = findings.length - 1 + ctx.observed.overflow(op.operationId, o.requirement);
          throw new CheckFailure(`${findings[0]!.message}${more ? ` (and ${more} more of ${applicable} responses)` : ''}`);
        }
        ctx.observe(`${applicable} responses judged${unjudged ? `; others could not be: ${unjudged}` : ''}`);
      },
    }));
  },
};

/** The variants of the observed-traffic checks, which `verify` re-judges over the recorded traffic. */
export const OBSERVED_VARIANTS: ReadonlySet<string> = new Set(OBSERVED.map((o) => o.variant));

/**
 * The observed-traffic judgement of one operation and requirement over a set of answers, with the evaluators the
 * live observer uses: how many answers it applies to and what it finds, in order.
 */
export function judgeTraffic(spec: SpecDocument, op: Operation, requirement: string, answers: readonly { res: HttpResponse; probe?: Probe | undefined }[]): { applicable: number; findings: { message: string; res: HttpResponse }[] } {
  let applicable = 0;
  const findings: { message: string; res: HttpResponse }[] = [];
  for (const ev of evaluatorsFor(spec)) {
    for (const { res, probe } of answers) {
      if (!ev.appliesTo(op, res, probe).includes(requirement)) continue;
      let found: ReturnType<typeof ev.evaluate>;
      try {
        found = ev.evaluate(op, res, probe);
      } catch (e) {
        // As the live observer: an answer the suite cannot judge for this requirement counts neither way.
        if (!(e instanceof PartlyJudged) || e.unjudged.includes(requirement)) continue;
        found = e.found;
      }
      applicable++;
      for (const f of found) if (f.requirement === requirement) findings.push({ message: f.message, res });
    }
  }
  return { applicable, findings };
}
