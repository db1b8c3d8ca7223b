/**
 * The contract's shapes as the sandbox reads and answers them, taken from the types generated out of the reference
 * document (sandbox/wire-types.ts, `npm run wire-types`): a view that answers a member the contract lacks or misses a
 * required one, and a handler that answers another operation's shape, fail `tsc`. At run time the sandbox serves the
 * document in use; these types hold its code to spec/openapi.yaml only. A fault that breaks the contract on purpose
 * says so with a cast at the place it breaks it.
 */
import type { components, operations } from './wire-types.js';

/** A schema of the reference document's components, by name. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

export type OperationId = keyof operations;

type Responses<Op extends OperationId> = operations[Op]['responses'];
type JsonBody<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never;

/** What an operation answers on success: the JSON body of each of its 2xx responses. */
export type Answer<Op extends OperationId> = {
  [Status in keyof Responses<Op>]: Status extends 200 | 201 | 202 ? JsonBody<Responses<Op>[Status]> : never;
}[keyof Responses<Op>];

/** A list page: the contract's envelope (whose list schemas leave the items untyped) with the items' own schema. */
export type ListPage<Item> = Omit<Schema<'ListEnvelope'>, 'data'> & { data: Item[] };
