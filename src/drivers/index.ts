import type { OperationDriver } from './types.js';

/** Drivers of the reference profile's operations, by operationId (one module per group adds its own). */
export const DRIVERS = new Map<string, OperationDriver>();

export function registerDrivers(list: OperationDriver[]): void {
  for (const d of list) DRIVERS.set(d.operationId, d);
}

export type { DriverScope, OperationDriver } from './types.js';
