import { accountDrivers } from './accounts.js';
import { cardDrivers } from './cards.js';
import { collectionDrivers } from './collections.js';
import { customerDrivers } from './customers.js';
import { externalAccountDrivers } from './external-accounts.js';
import { featureDrivers } from './features.js';
import { fxDrivers } from './fx.js';
import { kycDrivers } from './kyc.js';
import { transactionDrivers } from './transactions.js';
import { transferDrivers } from './transfers.js';
import type { OperationDriver } from './types.js';
import { walletDrivers } from './wallets.js';
import { webhookDrivers } from './webhooks.js';

/** Drivers of the reference profile's operations, by operationId (one module per group adds its own). */
export const DRIVERS = new Map<string, OperationDriver>();

export function registerDrivers(list: OperationDriver[]): void {
  for (const d of list) DRIVERS.set(d.operationId, d);
}

registerDrivers([
  ...customerDrivers,
  ...kycDrivers,
  ...featureDrivers,
  ...accountDrivers,
  ...externalAccountDrivers,
  ...transferDrivers,
  ...cardDrivers,
  ...collectionDrivers,
  ...walletDrivers,
  ...fxDrivers,
  ...transactionDrivers,
  ...webhookDrivers,
]);

export type { DriverScope, OperationDriver } from './types.js';
