/**
 * How a run is paced (src/http/rate-limiter.ts does it), and the console's words for it. A remote target is paced
 * adaptively unless FSAPI_RATE_LIMIT says otherwise; the embedded sandbox is not paced.
 */
import { capped, type Pacing } from '../http/rate-limiter.js';

export type { Pacing };

/**
 * Where adaptive pacing starts: what any sandbox takes (the rate was the fixed cap before pacing adapted). A
 * sandbox started apart on this 2-core machine served a full run at about 400 requests/s; doubling each second
 * from here, the pacing is past that within five seconds.
 */
export const ADAPTIVE_START = { rate: 20, inFlight: 8 } as const;
/** FSAPI_ENVIRONMENT=live: the pacing adapts below these, however healthy the answers. */
export const LIVE_CEILING = { rate: 20, inFlight: 8 } as const;

/** The pacing of a run: FSAPI_RATE_LIMIT when given (0: none), else adaptive for a remote target, none for the embedded sandbox. */
export function pacingFor(a: { remote: boolean; live: boolean; rateLimit: number | undefined }): Pacing {
  if (a.rateLimit !== undefined) return capped(a.rateLimit);
  if (!a.remote) return capped(0);
  return { kind: 'adaptive', ...ADAPTIVE_START, rateCeiling: a.live ? LIVE_CEILING.rate : 0, inFlightCeiling: a.live ? LIVE_CEILING.inFlight : 0 };
}

/** The console's line on how the run is paced and how to change it. */
export function describePacing(p: Pacing, embedded: boolean): string {
  if (p.kind === 'fixed') return `pacing: at most ${p.rate} requests/s (FSAPI_RATE_LIMIT), slowed on 429/503 and their Retry-After; unset it to let the pacing adapt, 0 for none`;
  if (p.kind === 'none') {
    return embedded
      ? 'pacing: none (the embedded sandbox); FSAPI_RATE_LIMIT=N caps the rate'
      : 'pacing: none until the target answers 429/503 (FSAPI_RATE_LIMIT=0), then halved and raised again as it allows; unset it to let the pacing adapt, N to cap it';
  }
  const ceiling = p.rateCeiling ? `, up to ${p.rateCeiling} requests/s and ${p.inFlightCeiling} in flight (FSAPI_ENVIRONMENT=live)` : '';
  return (
    `pacing: adaptive, from ${p.rate} requests/s and ${p.inFlight} in flight, raised while the answers stay healthy${ceiling}; ` +
    'halved on 429/503, whose Retry-After every request waits out; FSAPI_RATE_LIMIT=N (--rate-limit N) caps it at N, 0 for none'
  );
}
