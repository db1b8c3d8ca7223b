/** Features: check feature eligibility and activate product features for customers. */
import { check } from '../src/harness/assert.js';
import type { CheckDef } from '../src/harness/check.js';
import { defineSuite } from '../src/vitest-suite/suite.js';
import { callCase, caseAnswer, idOf, jsonOf } from '../src/world/flow-support.js';
import { textFact } from '../src/harness/judge.js';

const FEATURE = 'cards';
/** The fact naming the customer the flow made (for its judge's messages). */
const CUSTOMER = 'customer';
const base = { family: 'flow', group: 'features', operation: 'activateFeature', writes: true } as const;

export const flows: CheckDef[] = [
  {
    ...base,
    requirement: 'FSAPI-FEAT-001',
    variant: 'before-kyc',
    title: 'before KYC approval a feature reads eligible=false and activation is refused, leaving it inactive',
    uses: ['getFeatureEligibility', 'listFeatures'],
    async run(ctx) {
      const cid = idOf(await ctx.world.newCustomer());
      ctx.fact(CUSTOMER, cid);
      const pathParams = { customer_id: cid, feature: FEATURE };
      await callCase(ctx, 'before', 'getFeatureEligibility', { pathParams });
      await callCase(ctx, 'list', 'listFeatures', { pathParams: { customer_id: cid } });
      await callCase(ctx, 'activate', 'activateFeature', { pathParams, body: {} });
      await callCase(ctx, 'after', 'getFeatureEligibility', { pathParams });
    },
    judge(answers, facts) {
      const cid = textFact(facts, CUSTOMER);
      const before = jsonOf(caseAnswer(answers, 'before'));
      check(before['eligible'] === false, `${FEATURE} reads eligible=${JSON.stringify(before['eligible'])} for ${cid}, whose KYC is not started`);
      const all = jsonOf(caseAnswer(answers, 'list'));
      const eligible = (Array.isArray(all['data']) ? (all['data'] as Record<string, unknown>[]) : []).filter((f) => f['eligible'] !== false);
      check(eligible.length === 0, `GET /customers/${cid}/features lists ${eligible.map((f) => String(f['name'])).join(', ')} as eligible before KYC`);
      const res = caseAnswer(answers, 'activate');
      check(res.status === 422 || res.status === 409, `activating ${FEATURE} before KYC approval answered ${res.status}; expected 422 (409 accepted)`);
      const after = jsonOf(caseAnswer(answers, 'after'));
      check(after['status'] !== 'active', `${FEATURE} reads active for ${cid} after the refused activation`);
    },
  },
  {
    ...base,
    requirement: 'FSAPI-FEAT-002',
    variant: 'after-kyc',
    title: 'after KYC approval a feature is eligible, activates once to active, and a second activation is refused with 409',
    uses: ['getFeatureEligibility', 'submitKyc', 'getKycStatus', 'uploadKycDocument'],
    async run(ctx) {
      const cid = idOf(await ctx.world.newVerifiedCustomer());
      ctx.fact(CUSTOMER, cid);
      const pathParams = { customer_id: cid, feature: FEATURE };
      await callCase(ctx, 'before', 'getFeatureEligibility', { pathParams });
      await callCase(ctx, 'activate', 'activateFeature', { pathParams, body: {} });
      await callCase(ctx, 'read', 'getFeatureEligibility', { pathParams });
      await callCase(ctx, 'again', 'activateFeature', { pathParams, body: {} });
    },
    judge(answers, facts) {
      const cid = textFact(facts, CUSTOMER);
      const before = jsonOf(caseAnswer(answers, 'before'));
      check(before['eligible'] === true, `${FEATURE} reads eligible=${JSON.stringify(before['eligible'])} for ${cid}, whose KYC is approved`);
      check(before['status'] !== 'active', `${FEATURE} reads active for ${cid} before any activation`);
      const activated = jsonOf(caseAnswer(answers, 'activate'));
      check(activated['status'] === 'active', `the activation answered status ${JSON.stringify(activated['status'])}, not active`);
      const read = jsonOf(caseAnswer(answers, 'read'));
      check(read['status'] === 'active', `${FEATURE} reads ${JSON.stringify(read['status'])} for ${cid} after its activation`);
      const again = caseAnswer(answers, 'again');
      check(again.status === 409, `activating ${FEATURE} a second time answered ${again.status}; expected 409`);
    },
  },
];

await defineSuite('features', flows);
