/** Features (cards, crypto_wallets, fx): eligible once the customer's KYC is approved; activated once. */
import { conflict, unprocessable } from '../problem.js';
import { FEATURE_NAMES, type CustomerRec, type FeatureName, type TenantState } from '../store.js';
import { emit, find, now, ok, param, type Context, type Handlers } from './context.js';
import type { Schema } from '../wire.js';

export type FeatureView = Schema<'Feature'>;

function ownerOf(ctx: Context, c: CustomerRec): TenantState {
  return ctx.tenant.customers.has(c.id) ? ctx.tenant : ctx.store.ownerOf('customers', c.id)!;
}

export function isEligible(ctx: Context, c: CustomerRec): boolean {
  return c.kyc_status === 'approved' || ctx.faults.has('features-without-kyc');
}

export function isActive(tenant: TenantState, customerId: string, name: FeatureName): boolean {
  return tenant.features.get(customerId)?.has(name) ?? false;
}

function featureView(ctx: Context, c: CustomerRec, name: FeatureName): FeatureView {
  const eligible = isEligible(ctx, c);
  const activated = ownerOf(ctx, c).features.get(c.id)?.get(name) ?? null;
  return {
    object: 'feature',
    name,
    customer_id: c.id,
    eligible,
    status: activated ? 'active' : 'inactive',
    reasons: eligible ? [] : ['kyc_not_approved'],
    activated_at: activated,
  };
}

const customerOf = (ctx: Context): CustomerRec => find(ctx, (t) => t.customers, param(ctx, 'customer_id'), 'customer');
const featureOf = (ctx: Context): FeatureName => param(ctx, 'feature') as FeatureName;

export const features: Handlers = {
  listFeatures: {
    run(ctx) {
      const c = customerOf(ctx);
      return ok({ object: 'list', data: FEATURE_NAMES.map((n) => featureView(ctx, c, n)), has_more: false, next_cursor: null });
    },
  },

  getFeatureEligibility: {
    run: (ctx) => ok(featureView(ctx, customerOf(ctx), featureOf(ctx))),
  },

  activateFeature: {
    run(ctx) {
      const c = customerOf(ctx);
      const name = featureOf(ctx);
      if (!isEligible(ctx, c)) {
        throw unprocessable('not_eligible', 'Not eligible', `Customer ${c.id} is not eligible for ${name}: KYC is not approved.`);
      }
      let active = ctx.tenant.features.get(c.id);
      if (!active) ctx.tenant.features.set(c.id, (active = new Map()));
      if (active.has(name)) {
        if (!ctx.faults.has('features-double-activation')) {
          throw conflict('feature_already_active', 'Feature already active', `${name} is already active for customer ${c.id}.`);
        }
        return ok(featureView(ctx, c, name));
      }
      active.set(name, now());
      const view = featureView(ctx, c, name);
      // Events carry an object with an id; a feature has none of its own, so the event names it by customer and feature.
      emit(ctx, 'feature.activated', { id: `${c.id}:${name}`, ...view });
      return ok(view);
    },
  },
};
