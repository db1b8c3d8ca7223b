/**
 * The parts of undici the suite uses: the Agent, its request function and the error classes, each loaded from its
 * own file. undici's index loads every part of it (fetch, WebSocket, EventSource, mocks, cache stores, proxies,
 * interceptors): ~90 ms of CPU in each thread that imports it, where these three take ~30, and a run has several
 * such threads (each vitest worker; the main thread's preflight; the embedded sandbox's deliveries). undici has no
 * exports map, and these files have kept their paths since undici 5; the types are its public ones. Should a later
 * release (the package takes any 7.x) move one, that part comes from the index instead: slower, never broken.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const load = createRequire(import.meta.url);

/** One part of undici from its own file, or from the index when that file is not where it was. */
export function undiciPart<T>(file: string, fromIndex: (index: typeof Undici) => T): T {
  try {
    return load(file) as T;
  } catch {
    return fromIndex(load('undici') as typeof Undici);
  }
}

export const Agent = undiciPart('undici/lib/dispatcher/agent.js', (u) => u.Agent);
export type Agent = Undici.Agent;
export const errors = undiciPart('undici/lib/core/errors.js', (u) => u.errors);
export type { Dispatcher } from 'undici';

/**
 * undici's Dispatcher#request (the index puts it on every dispatcher's prototype, which is all the index's wiring
 * the suite needs): sends `opts` through `dispatcher`.
 */
const requestOn = undiciPart('undici/lib/api/api-request.js', (u) => u.Dispatcher.prototype.request) as (this: Undici.Dispatcher, opts: Undici.Dispatcher.RequestOptions) => Promise<Undici.Dispatcher.ResponseData>;

export const request = (dispatcher: Undici.Dispatcher, opts: Undici.Dispatcher.RequestOptions): Promise<Undici.Dispatcher.ResponseData> => requestOn.call(dispatcher, opts);
