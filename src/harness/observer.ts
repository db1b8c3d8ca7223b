import type { Operation } from '../catalogue/openapi.js';
import type { HttpResponse } from '../http/client.js';
import type { RecordedExchange } from '../results/model.js';
import type { Probe } from '../http/request-parts.js';

/** A judgement on one observed response, made as it arrives (see src/checks/traffic.ts). */
export interface TrafficFinding {
  requirement: string;
  message: string;
}

/**
 * Thrown by an evaluator that judged an answer for some of its requirements only: what it found for the others, and
 * why it could not judge these (a pattern of the document the suite cannot run leaves the schema unjudged, not the
 * status, media type or headers).
 */
export class PartlyJudged extends Error {
  override readonly name = 'PartlyJudged';
  constructor(
    message: string,
    readonly unjudged: readonly string[],
    readonly found: TrafficFinding[],
  ) {
    super(message);
  }
}

/** `probe`: what the request broke on purpose, when the suite made it invalid (see CallOptions.probe). */
export type TrafficEvaluator = (op: Operation, res: HttpResponse, probe?: Probe) => TrafficFinding[];
export type TrafficApplicability = (op: Operation, res: HttpResponse, probe?: Probe) => string[];

interface Tally {
  responses: number;
  /** Responses that the requirement applies to (e.g. error responses for problem-details checks). */
  applicable: Map<string, number>;
  findings: Map<string, { message: string; exchange: RecordedExchange }[]>;
  /** Why responses could not be judged for a requirement (the document's schema does not compile, say). */
  unjudged: Map<string, string>;
}

const KEEP = 5;

/**
 * Every response of a suite that exercised a known operation is judged against the contract and the
 * standards as it arrives; the per-operation "observed traffic" checks, run last, report what was found.
 * Only findings (a few per operation and requirement) are kept, so memory stays flat.
 */
export class TrafficObserver {
  private readonly byOp = new Map<string, Tally>();

  constructor(private readonly evaluators: { evaluate: TrafficEvaluator; appliesTo: TrafficApplicability }[]) {}

  observe(op: Operation, res: HttpResponse, probe?: Probe): void {
    let t = this.byOp.get(op.operationId);
    if (!t) this.byOp.set(op.operationId, (t = { responses: 0, applicable: new Map(), findings: new Map(), unjudged: new Map() }));
    t.responses++;
    for (const ev of this.evaluators) {
      const applies = ev.appliesTo(op, res, probe);
      let found: TrafficFinding[];
      let judged = applies;
      try {
        found = ev.evaluate(op, res, probe);
      } catch (e) {
        // A judgement the document itself prevents (a schema that does not compile) is no finding, and the
        // request that received the answer goes on: the observed-traffic check says why it could not judge.
        const unjudged = e instanceof PartlyJudged ? e.unjudged : applies;
        for (const r of unjudged) t.unjudged.set(r, (e as Error).message);
        if (!(e instanceof PartlyJudged)) continue;
        judged = applies.filter((r) => !unjudged.includes(r));
        found = e.found;
      }
      for (const r of judged) t.applicable.set(r, (t.applicable.get(r) ?? 0) + 1);
      for (const f of found) {
        const list = t.findings.get(f.requirement) ?? [];
        if (!t.findings.has(f.requirement)) t.findings.set(f.requirement, list);
        if (list.length < KEEP) list.push({ message: f.message, exchange: res.exchange });
        else (list as { overflow?: number } & typeof list).overflow = ((list as { overflow?: number }).overflow ?? 0) + 1;
      }
    }
  }

  /** Why some responses could not be judged for the requirement, if any could not. */
  unjudged(operationId: string, requirement: string): string | undefined {
    return this.byOp.get(operationId)?.unjudged.get(requirement);
  }

  responses(operationId: string): number {
    return this.byOp.get(operationId)?.responses ?? 0;
  }

  applicable(operationId: string, requirement: string): number {
    return this.byOp.get(operationId)?.applicable.get(requirement) ?? 0;
  }

  findings(operationId: string, requirement: string): { message: string; exchange: RecordedExchange }[] {
    return this.byOp.get(operationId)?.findings.get(requirement) ?? [];
  }

  /** Findings beyond the ones kept as evidence. */
  overflow(operationId: string, requirement: string): number {
    return (this.byOp.get(operationId)?.findings.get(requirement) as { overflow?: number } | undefined)?.overflow ?? 0;
  }
}
