/**
 * A write refused for want of a valid key is not processed (seed, Authentication > Keys, rule 4): the 401 itself
 * is judged by the auth family; here, whether the write happened anyway. Each check owns a fresh scope and
 * compares it (the driver's effect count, or the resource re-read) before and after.
 */
import type { Operation } from '../catalogue/openapi.js';
import { notServerError } from '../harness/assert.js';
import { probeAnswer } from '../harness/judge.js';
import type { CheckDef } from '../harness/check.js';
import type { CheckFamily } from './plan.js';
import { expectUnchanged, isWrite, readerOf, scoped, skipEffects, stateProbe } from './support.js';
import type { CallOptions } from '../http/request-parts.js';

const UNKNOWN_KEY = 'sk_sandbox_fsapi_conformance_unknown_key_0000';

const CASES: { variant: string; title: string; headers: CallOptions['headers']; what: string }[] = [
  { variant: 'no-key-no-effect', title: 'a write without Api-Key changes nothing', headers: { 'Api-Key': undefined }, what: 'the write without Api-Key' },
  { variant: 'unknown-key-no-effect', title: 'a write with an unknown Api-Key changes nothing', headers: { 'Api-Key': UNKNOWN_KEY }, what: 'the write with an unknown Api-Key' },
];

function unauthenticatedWrite(op: Operation, c: (typeof CASES)[number], uses: string[]): CheckDef {
  return {
    requirement: 'FSAPI-AUTH-007',
    family: 'auth',
    group: op.group!,
    operation: op.operationId,
    variant: c.variant,
    title: c.title,
    writes: true,
    ...(uses.length ? { uses } : {}),
    async run(ctx) {
      const s = await scoped(ctx, op, { fresh: true });
      const probe = stateProbe(ctx, s);
      if (typeof probe === 'string') {
        // Nothing to compare: the request is not even worth sending.
        skipEffects(ctx, 'nothing judged', probe);
      }
      const before = await probe.read();
      const res = await ctx.call(op, s.parts, { headers: c.headers, probe: c.headers?.['Api-Key'] === undefined ? 'no-key' : 'bad-key' });
      await expectUnchanged(probe, before, `${c.what} (answered ${res.status})`);
    },
    judge: (answers) => notServerError(probeAnswer(answers, ['no-key', 'bad-key'])),
    comparesState: true,
  };
}

export const authWritesFamily: CheckFamily = {
  name: 'auth (unauthenticated writes)',
  forOperation(op, plan) {
    // Every request needs the Api-Key (seed rule 2), whether or not the document declares security on it.
    if (!op.group || !isWrite(op)) return [];
    const reader = op.method === 'PATCH' || op.method === 'DELETE' ? readerOf(plan.spec, op) : undefined;
    return CASES.map((c) => unauthenticatedWrite(op, c, reader ? [reader.operationId] : []));
  },
};
