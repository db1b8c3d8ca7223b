/** Webhooks: events and delivery history (reads only). */
import type { OperationDriver } from './types.js';
import { idOf } from './shared.js';

export const webhookDrivers: OperationDriver[] = [
  {
    operationId: 'listWebhookEvents',
    kind: 'read',
    build: async () => ({}),
  },
  {
    operationId: 'getWebhookEvent',
    kind: 'read',
    async build(scope) {
      return { pathParams: { event_id: idOf(await scope.world.event()) } };
    },
  },
  {
    operationId: 'listWebhookDeliveries',
    kind: 'read',
    build: async () => ({}),
  },
  {
    operationId: 'getWebhookDelivery',
    kind: 'read',
    async build(scope) {
      const d = await scope.world.delivery();
      if (!d) return scope.ctx.skip('no webhook delivery to read: the target made none in time (configure FSAPI_WEBHOOK_LISTEN and the target\'s webhook URL)', 'prerequisite');
      return { pathParams: { delivery_id: idOf(d) } };
    },
  },
];
