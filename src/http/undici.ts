/**
 * The parts of undici the suite uses: the Agent, its request function and the error classes, each loaded from its
 * own file. undici's index loads every part of it (fetch, WebSocket, EventSource, mocks, cache stores, proxies,
 * interceptors): ~90 ms of CPU in each thread that imports it, where these three take ~30, and a run has several
 * such threads (each vitest worker; the main thread's preflight; the embedded sandbox's deliveries). undici has no
 * exports map, and these files have kept their paths since undici 5; the types are its public ones. A move in a
 * later release fails at load, in every test of the client.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const load = createRequire(import.meta.url);

export const Agent = load('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
export type Agent = Undici.Agent;
export const errors = load('undici/lib/core/errors.js') as typeof Undici.errors;
export type { Dispatcher } from 'undici';

/**
 * undici's Dispatcher#request (the index puts it on every dispatcher's prototype, which is all the index's wiring
 * the suite needs): sends `opts` through `dispatcher`.
 */
const requestOn = load('undici/lib/api/api-request.js') as (this: Undici.Dispatcher, opts: Undici.Dispatcher.RequestOptions) => Promise<Undici.Dispatcher.ResponseData>;

export const request = (dispatcher: Undici.Dispatcher, opts: Undici.Dispatcher.RequestOptions): Promise<Undici.Dispatcher.ResponseData> => requestOn.call(dispatcher, opts);
