/** Recorded exchanges made up for a judge, and the judge's outcome on them: a check judged as `verify` judges it. */
import type { CheckDef } from '../../src/harness/check.js';
import { answerOf, judgeOutcome, type Outcome } from '../../src/harness/judge.js';
import type { HttpResponse } from '../../src/http/client.js';
import type { RecordedExchange } from '../../src/http/exchange.js';
import type { Level } from '../../src/catalogue/requirements.js';
import type { Facts } from '../../src/results/model.js';

export type Made = Partial<RecordedExchange> & { requestBody?: unknown; requestHeaders?: Record<string, string>; responseHeaders?: Record<string, string> };

/** One recorded exchange, as a report holds it (a JSON answer unless its headers say otherwise). */
export function exchange(method: string, url: string, status: number | undefined, body?: unknown, extra: Made = {}): RecordedExchange {
  const { requestBody, requestHeaders, responseHeaders, ...rest } = extra;
  const text = (b: unknown) => (typeof b === 'string' ? b : JSON.stringify(b));
  return {
    started_at: '2026-11-27T10:00:00.000Z',
    duration_ms: 3,
    request: { method, url, headers: requestHeaders ?? {}, ...(requestBody !== undefined ? { body: text(requestBody) } : {}) },
    ...(status !== undefined ? { response: { status, headers: responseHeaders ?? { 'content-type': 'application/json' }, size_bytes: 10, ...(body !== undefined ? { body: text(body) } : {}) } } : {}),
    ...rest,
  };
}

/** The answers a judge is given, rebuilt from recorded exchanges as `verify` rebuilds them. */
export const answers = (...xs: RecordedExchange[]): HttpResponse[] => xs.map((x) => answerOf(x)!);

/** The judge's outcome on recorded exchanges, at `level` (MUST unless told). */
export const judged = (judge: CheckDef['judge'] | ((a: readonly HttpResponse[], f: Facts) => void), xs: RecordedExchange[], facts: Facts = {}, level: Level = 'MUST'): Outcome =>
  judgeOutcome(judge!, answers(...xs), level, false, facts);
