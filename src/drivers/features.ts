/** Features: list, eligibility, activation (visible as status active). */
import type { OperationDriver } from './types.js';
import { consumable, idOf, pathParam, readOk } from './shared.js';

export const FEATURE_UNDER_TEST = 'cards';

export const featureDrivers: OperationDriver[] = [
  {
    operationId: 'listFeatures',
    kind: 'read',
    async build(scope, { fresh }) {
      const c = fresh ? await scope.world.newCustomer() : await scope.world.customer();
      return { pathParams: { customer_id: idOf(c) } };
    },
  },
  {
    operationId: 'getFeatureEligibility',
    kind: 'read',
    async build(scope, { fresh }) {
      const c = fresh ? await scope.world.newCustomer() : await scope.world.customer();
      return { pathParams: { customer_id: idOf(c), feature: FEATURE_UNDER_TEST } };
    },
  },
  {
    operationId: 'activateFeature',
    kind: 'action',
    async build(scope, { fresh }) {
      // Eligible (KYC approved) and not yet active; activation happens once, so never shared with another check.
      const c = await consumable(scope, fresh, 'activateFeature', () => scope.world.newVerifiedCustomer());
      return { pathParams: { customer_id: idOf(c), feature: FEATURE_UNDER_TEST }, body: {} };
    },
    effects(parts) {
      const pathParams = { customer_id: pathParam(parts, 'customer_id'), feature: pathParam(parts, 'feature') };
      return { kind: 'read', read: 'getFeatureEligibility', pathParams, count: (res) => (readOk(res, `read feature ${pathParams.feature} of ${pathParams.customer_id}`)['status'] === 'active' ? 1 : 0) };
    },
    // The body is an empty object by schema: there is no other valid body to vary to.
  },
];
