import type { SpecDocument } from '../../src/catalogue/index.js';
import { accounts } from './accounts.js';
import { activity } from './activity.js';
import { cards } from './cards.js';
import { collections } from './collections.js';
import type { Handler, Handlers } from './context.js';
import { customers } from './customers.js';
import { features } from './features.js';
import { fx } from './fx.js';
import { kyc } from './kyc.js';
import { transfers } from './transfers.js';
import { wallets } from './wallets.js';

/** Every operation's handler, by operationId (tsc holds each to what its operation answers). */
const HANDLERS: Handlers = {
  ...customers,
  ...kyc,
  ...features,
  ...accounts,
  ...transfers,
  ...cards,
  ...collections,
  ...wallets,
  ...fx,
  ...activity,
};

/** Every handler by the operationId a request resolved to. */
export const HANDLER_OF: Readonly<Record<string, Handler | undefined>> = HANDLERS;

/** The spec and the handlers must name the same operations; a mismatch is a defect of the sandbox, found at start. */
export function checkHandlers(spec: SpecDocument): void {
  const missing = spec.operations.filter((op) => !HANDLER_OF[op.operationId]).map((op) => op.operationId);
  const extra = Object.keys(HANDLERS).filter((id) => !spec.byId.has(id));
  if (missing.length || extra.length) {
    throw new Error(`sandbox handlers out of step with the spec: missing ${missing.join(', ') || '-'}; unknown ${extra.join(', ') || '-'}`);
  }
}

export type { Context, Handler, Result } from './context.js';
