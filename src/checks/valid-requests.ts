/**
 * The contract's positive side: a valid request built from the spec in use (driver data, or the spec's own
 * examples for a vendor's document) is accepted with a success the spec documents. What the responses look
 * like is judged on all traffic (src/checks/traffic.ts).
 */
import { check, describeRequest, summariseBody } from '../harness/assert.js';
import type { CheckFamily } from './plan.js';
import { lastAnswer } from '../harness/judge.js';
import { validRequest } from './requests.js';
import { documented2xx, documentedSuccesses, isWrite } from './support.js';

export const validRequestFamily: CheckFamily = {
  name: 'contract (valid requests)',
  forOperation(op) {
    if (!op.group) return [];
    return [
      {
        requirement: 'FSAPI-CONTRACT-004',
        family: 'schema',
        group: op.group,
        operation: op.operationId,
        variant: 'valid-request',
        title: 'a valid request is accepted with a documented 2xx',
        writes: isWrite(op),
        async run(ctx) {
          // Writes change state: a fresh scope keeps the shared prerequisites as other checks expect them.
          const parts = await validRequest(ctx, op, { fresh: isWrite(op) });
          await ctx.call(op, parts);
        },
        judge(answers) {
          const res = lastAnswer(answers);
          // A "not found" for ids made up from the document is no verdict (ctx.call skips it: src/values/made-up.ts);
          // a refusal of a body valid for the document is the target's answer, its own words quoted.
          check(documented2xx(op, res.status), `${describeRequest(res)} answered ${res.status}${summariseBody(res)}; documented successes: ${documentedSuccesses(op)}`);
        },
      },
    ];
  },
};
