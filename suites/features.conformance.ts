/** Features: check feature eligibility and activate product features for customers. */
import { check } from '../src/harness/assert.js';
import type { CheckDef } from '../src/harness/check.js';
import { defineSuite } from '../src/suite/suite.js';
import { idOf, jsonOf } from '../src/world/flow-support.js';

const FEATURE = 'cards';
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
      const pathParams = { customer_id: cid, feature: FEATURE };
      const before = jsonOf(await ctx.call('getFeatureEligibility', { pathParams }));
      check(before['eligible'] === false, `${FEATURE} reads eligible=${JSON.stringify(before['eligible'])} for ${cid}, whose KYC is not started`);
      const all = jsonOf(await ctx.call('listFeatures', { pathParams: { customer_id: cid } }));
      const eligible = (Array.isArray(all['data']) ? (all['data'] as Record<string, unknown>[]) : []).filter((f) => f['eligible'] !== false);
      check(eligible.length === 0, `GET /customers/${cid}/features lists ${eligible.map((f) => String(f['name'])).join(', ')} as eligible before KYC`);
      const res = await ctx.call('activateFeature', { pathParams, body: {} });
      check(res.status === 422 || res.status === 409, `activating ${FEATURE} before KYC approval answered ${res.status}; expected 422 (409 accepted)`);
      const after = jsonOf(await ctx.call('getFeatureEligibility', { pathParams }));
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
      const pathParams = { customer_id: cid, feature: FEATURE };
      const before = jsonOf(await ctx.call('getFeatureEligibility', { pathParams }));
      check(before['eligible'] === true, `${FEATURE} reads eligible=${JSON.stringify(before['eligible'])} for ${cid}, whose KYC is approved`);
      check(before['status'] !== 'active', `${FEATURE} reads active for ${cid} before any activation`);
      const activated = jsonOf(await ctx.call('activateFeature', { pathParams, body: {} }));
      check(activated['status'] === 'active', `the activation answered status ${JSON.stringify(activated['status'])}, not active`);
      const read = jsonOf(await ctx.call('getFeatureEligibility', { pathParams }));
      check(read['status'] === 'active', `${FEATURE} reads ${JSON.stringify(read['status'])} for ${cid} after its activation`);
      const again = await ctx.call('activateFeature', { pathParams, body: {} });
      check(again.status === 409, `activating ${FEATURE} a second time answered ${again.status}; expected 409`);
    },
  },
];

await defineSuite('features', flows);
