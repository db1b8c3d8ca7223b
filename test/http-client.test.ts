/** The HTTP client against misbehaving servers: it never follows redirects, times out, caps bodies, verifies TLS. */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { getEventListeners } from 'node:events';
import { Worker } from 'node:worker_threads';
import { StallWatch } from '../src/http/loop-stall.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimited, TargetClient, TransportError } from '../src/http/client.js';
import { RateLimiter } from '../src/http/rate-limiter.js';
import type { RecordedExchange } from '../src/results/model.js';
import { Redactor } from '../src/http/redact.js';
import { httpServer, httpsServer, json, makeCert, type TestServer } from './helpers/servers.js';

const KEY = 'sk_sandbox_canary_4f1d9a7c2b8e';
const redactor = new Redactor([{ name: 'FSAPI_API_KEY', value: KEY }]);
const servers: TestServer[] = [];
afterAll(async () => Promise.all(servers.map((s) => s.close())));

async function client(server: TestServer & { cert?: { cert: string } }, opts: Partial<ConstructorParameters<typeof TargetClient>[0]> = {}) {
  return new TargetClient({ baseUrl: server.url, ...(server.cert ? { caPem: server.cert.cert } : {}), timeoutMs: 30_000, maxResponseBytes: 64 * 1024, redactor, ...opts });
}

describe('TargetClient', () => {
  let api: Awaited<ReturnType<typeof httpsServer>>;
  let elsewhere: TestServer;
  beforeAll(async () => {
    elsewhere = await httpServer((_req, res) => json(res, 200, { stolen: true }));
    api = await httpsServer((req, res) => {
      const u = new URL(req.url ?? '/', 'https://x');
      if (u.pathname === '/v1/echo') return json(res, 200, { key: req.headers['api-key'] }, { 'x-echo': String(req.headers['api-key']) });
      if (u.pathname === '/v1/redirect') return res.writeHead(307, { location: `${elsewhere.url}steal` }).end();
      if (u.pathname === '/v1/hang') return; // never answers
      if (u.pathname === '/v1/headers-then-nothing') return res.writeHead(200, { 'content-type': 'application/json' }).write('{"partial":');
      if (u.pathname === '/v1/trickle') {
        // A byte every 50 ms, for ever: never idle long enough for an inactivity timeout, so only a deadline ends it.
        res.writeHead(200, { 'content-type': 'application/json' }).write('[');
        const drip = setInterval(() => res.write(' '), 50);
        res.on('close', () => clearInterval(drip));
        return;
      }
      if (u.pathname === '/v1/huge') {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 'a');
        let sent = 0;
        const pump = () => {
          while (sent < 50 && res.write(chunk)) sent++;
          if (sent < 50) res.once('drain', pump);
          else res.end();
        };
        res.on('close', () => (sent = 50));
        return pump();
      }
      if (u.pathname === '/v1/bad-utf8') return res.writeHead(200, { 'content-type': 'application/json' }).end(Buffer.from([0x22, 0xff, 0xfe, 0x22]));
      if (u.pathname === '/v1/busy-once') {
        if (api.requests.filter((r) => r.url === '/v1/busy-once').length === 1) return json(res, 503, { title: 'busy' }, { 'retry-after': '1' });
        return json(res, 200, { ok: true });
      }
      if (u.pathname === '/v1/limited') {
        const n = Number(u.searchParams.get('n'));
        if (api.requests.filter((r) => r.url.startsWith('/v1/limited')).length <= n) return json(res, 429, { title: 'slow down' }, { 'retry-after': '0' });
        return json(res, 200, { ok: true });
      }
      // The connection closes under the request before any answer: on its first arrival only, or on every one.
      if (u.pathname === '/v1/closes-once' || u.pathname === '/v1/closes-always') {
        const seen = api.requests.filter((r) => r.url === req.url && r.method === req.method).length;
        if (u.pathname === '/v1/closes-always' || seen === 1) return req.socket.destroy();
        return json(res, 200, { seen });
      }
      // The answer begins, then the connection closes: a reset mid-answer, never sent again.
      if (u.pathname === '/v1/closes-mid-answer') {
        res.writeHead(200, { 'content-type': 'application/json' }).write('{"partial":');
        return void setImmediate(() => req.socket.destroy());
      }
      json(res, 404, { title: 'nope' });
    });
    servers.push(api, elsewhere);
  });

  it('records every exchange with the key redacted, in request and response alike', async () => {
    const c = await client(api);
    const recorded: unknown[] = [];
    const res = await c.send({ method: 'GET', path: 'echo', headers: { 'Api-Key': KEY }, query: { api_key: KEY } }, (x) => recorded.push(x));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ key: KEY });
    const text = JSON.stringify(recorded);
    expect(text).not.toContain(KEY);
    expect(text).toContain('[REDACTED:FSAPI_API_KEY]');
    await c.close();
  });

  it('never follows a redirect: the other host receives nothing', async () => {
    const c = await client(api);
    const res = await c.send({ method: 'GET', path: 'redirect', headers: { 'Api-Key': KEY } });
    expect(res.status).toBe(307);
    expect(res.headers['location']).toContain(elsewhere.url);
    expect(elsewhere.requests).toHaveLength(0);
    await c.close();
  });

  it('times out a server that never answers, one that stops mid-body, and one whose body trickles for ever', async () => {
    const c = await client(api, { timeoutMs: 300 });
    for (const path of ['hang', 'headers-then-nothing', 'trickle']) {
      const e = await c.send({ method: 'GET', path }).then(() => undefined, (x: unknown) => x);
      expect(e, path).toBeInstanceOf(TransportError);
      expect((e as TransportError).kind, path).toBe('timeout');
      expect((e as TransportError).message).toMatch(/within 300 ms/);
    }
    await c.close();
  });

  it("ends a request in flight when the run is cancelled, and every request after it, as 'aborted'", async () => {
    const cancel = new AbortController();
    const c = await client(api, { timeoutMs: 60_000, signal: cancel.signal });
    const arrived = new Promise((resolve) => api.server.once('request', resolve));
    const hanging = c.send({ method: 'GET', path: 'hang' }).then(() => undefined, (x: unknown) => x);
    // Cancelled once the server holds the request.
    await arrived;
    cancel.abort();
    for (const e of [await hanging, await c.send({ method: 'GET', path: 'echo' }).then(() => undefined, (x: unknown) => x)]) {
      expect(e).toBeInstanceOf(TransportError);
      expect((e as TransportError).kind).toBe('aborted');
    }
    await c.close();
  });

  it('leaves no listener on a cancellation signal that outlives it (a process running many runs)', async () => {
    const cancel = new AbortController();
    for (let i = 0; i < 3; i++) {
      const c = await client(api, { signal: cancel.signal });
      expect(getEventListeners(cancel.signal, 'abort')).toHaveLength(1);
      await c.close();
    }
    expect(getEventListeners(cancel.signal, 'abort')).toHaveLength(0);
  });

  it('builds exactly the URL the WHATWG resolver gives, plain paths and odd ones alike, and sends its path and query', async () => {
    const c = await client(api);
    const cases: [string, Record<string, string | number | boolean | undefined>?][] = [
      ['customers'], ['/customers'], ['customers/cus_123/kyc'], ['customers/', { limit: 5, cursor: 'a b+c/d&e', skip: undefined }], ['fx/rates', { base: 'USD', ok: true }],
      ['../v2/customers'], ['./customers'], ['customers/../accounts'], ['customers/%2E%2E/x'], ['customers/.%2e/x'], ['customers/café'], ['customers/a b'], ['customers//x'],
      ['customers/a?b'], ['customers/a#b'], [`${api.url}echo`, { a: 1 }], ['', { q: 'é' }], ['.hidden'], ['a.b/c.d'], ['a%20b/c'],
      // A long segment, then a character outside the plain set: decided in one pass (the old pattern's 2^n splits
      // of the segment never ended on such a path).
      [`accounts/${'a1-'.repeat(40)} x`], [`accounts/${'b'.repeat(5000)}:`],
    ];
    for (const [path, query] of cases) {
      const u = /^https?:\/\//.test(path) ? new URL(path) : new URL(path.replace(/^\//, ''), api.url);
      for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.append(k, String(v));
      expect(c.url({ path, ...(query ? { query } : {}) }), path).toBe(u.toString());
      // What reaches the server: that URL's path and query, as undici's request(url) would send them.
      const before = api.requests.length;
      await c.send({ method: 'GET', path, ...(query ? { query } : {}) });
      expect(api.requests[before]?.url, path).toBe(`${u.pathname}${u.search}`);
    }
    await c.close();
  });

  it('sends a replayable request again, once, when its connection closed before any answer; the evidence says so', async () => {
    const c = await client(api);
    const sentTo = (url: string, method: string) => api.requests.filter((r) => r.url === url && r.method === method).length;
    const recorded: RecordedExchange[] = [];
    // An idempotent method, and a POST with its Idempotency-Key: each answered on the second attempt.
    const get = await c.send({ method: 'GET', path: 'closes-once' }, (x) => recorded.push(x));
    expect(get.status).toBe(200);
    expect(get.exchange.resent_after).toMatch(/^(UND_ERR_SOCKET|ECONNRESET|EPIPE): the connection closed before any answer$/);
    expect(get.exchange.response?.status).toBe(200);
    const post = await c.send({ method: 'POST', path: 'closes-once', headers: { 'Idempotency-Key': 'k-1' }, json: {} });
    expect(post.status).toBe(200);
    expect(post.exchange.resent_after).toBeDefined();
    expect([sentTo('/v1/closes-once', 'GET'), sentTo('/v1/closes-once', 'POST')]).toEqual([2, 2]);
    expect(c.requestsSent).toBe(4);
    // One exchange recorded per request: the attempt that was answered.
    expect(recorded).toHaveLength(1);
    await c.close();
  });

  it('never sends again a POST without an Idempotency-Key, nor anything after the answer began; a second close is the answer', async () => {
    const c = await client(api);
    const sentTo = (url: string, method: string) => api.requests.filter((r) => r.url === url && r.method === method).length;
    const failure = (p: Promise<unknown>) => p.then(() => expect.fail('answered'), (e: unknown) => e as TransportError);
    const keyless = await failure(c.send({ method: 'POST', path: 'closes-once', query: { key: 'none' }, json: {} }));
    expect(keyless).toBeInstanceOf(TransportError);
    expect(keyless.kind).toBe('reset');
    expect(keyless.exchange.resent_after).toBeUndefined();
    expect(sentTo('/v1/closes-once?key=none', 'POST')).toBe(1);
    const mid = await failure(c.send({ method: 'GET', path: 'closes-mid-answer' }));
    expect([mid.kind, mid.exchange.resent_after, sentTo('/v1/closes-mid-answer', 'GET')]).toEqual(['reset', undefined, 1]);
    const always = await failure(c.send({ method: 'GET', path: 'closes-always' }));
    expect(always.kind).toBe('reset');
    expect(always.exchange.resent_after).toBeDefined();
    expect(always.exchange.error).toMatch(/closed before the response was complete/);
    expect(sentTo('/v1/closes-always', 'GET')).toBe(2);
    await c.close();
  });

  it('cuts a huge body at the cap and says so', async () => {
    // A timeout far above what reading 64 KiB takes, so only the cap can end this request.
    const c = await client(api, { timeoutMs: 60_000 });
    const e = (await c.send({ method: 'GET', path: 'huge' }).catch((x: unknown) => x)) as TransportError;
    expect(e).toBeInstanceOf(TransportError);
    expect(e.kind).toBe('too-large');
    expect(e.exchange.response?.status).toBe(200);
    expect(e.message).toMatch(/exceeds the 65536-byte cap/);
    await c.close();
  });

  it('flags a body that is not valid UTF-8 instead of parsing it', async () => {
    const c = await client(api);
    const res = await c.send({ method: 'GET', path: 'bad-utf8' });
    expect(res.json).toBeUndefined();
    expect(res.jsonError).toMatch(/UTF-8/);
    await c.close();
  });

  it('resends after a 429 until it is served; one that outlasts the retries throws RateLimited, never returns the 429', async () => {
    const c = await client(api);
    // A run under way: its measured rate is what the first 429 halves.
    await Promise.all(Array.from({ length: 50 }, () => c.send({ method: 'GET', path: 'echo' })));
    const recorded: RecordedExchange[] = [];
    const res = await c.send({ method: 'GET', path: 'limited', query: { n: 2 } }, (x) => recorded.push(x));
    expect(res.status).toBe(200);
    expect(recorded.map((x) => x.response?.status)).toEqual([429, 429, 200]);
    const e = await c.send({ method: 'GET', path: 'limited', query: { n: 99 }, retries: 2 }).then(() => undefined, (x: unknown) => x);
    expect(e).toBeInstanceOf(RateLimited);
    expect((e as RateLimited).status).toBe(429);
    expect((e as RateLimited).message).toMatch(/^rate limited: GET \S+\/v1\/limited\?n=99 still answered 429 \(Retry-After "0"\) after 3 attempts.*Lower FSAPI_RATE_LIMIT/);
    // Five 429s seen in all, and the run (this client) paced from then on.
    expect(c.limiter.figures.responses).toBe(5);
    expect(c.limiter.rate).toBeGreaterThan(0);
    await c.close();
  });

  it("pauses every request of the run for one answer's Retry-After, across threads sharing the state", async () => {
    // Two clients over one shared state stand for two workers of a run.
    const shared = RateLimiter.shared(0);
    const first = await client(api, { limiter: new RateLimiter(shared) });
    const second = await client(api, { limiter: new RateLimiter(shared) });
    // A run under way, so that the halved rate spaces requests by milliseconds: only the pause can hold one a second.
    await Promise.all(Array.from({ length: 50 }, () => second.send({ method: 'GET', path: 'echo' })));
    let other: Promise<number> | undefined;
    const res = await first.send({ method: 'GET', path: 'busy-once' }, (x) => {
      // Once the 503 has been handled (its continuation runs before the next turn of the event loop), the other
      // client sends a request of its own: it starts only when the Retry-After second has passed.
      if (x.response?.status === 503) {
        other = new Promise((resolve) => setImmediate(() => {
          const t0 = performance.now();
          void second.send({ method: 'GET', path: 'echo' }).then(() => resolve(performance.now() - t0));
        }));
      }
    });
    expect(res.status).toBe(200);
    expect(await other).toBeGreaterThanOrEqual(950);
    expect(new RateLimiter(shared).figures).toEqual({ responses: 1, waited_ms: 1000 });
    await Promise.all([first.close(), second.close()]);
  });

  it('AIMD: without a cap, half the measured rate on the first 429; halved once per round; an eighth more each quiet second, never past a cap', async () => {
    let t = 1_700_000_000_000_000n; // microseconds: a clock the test moves
    const ms = (n: number) => (t += BigInt(n * 1000));
    const l = new RateLimiter(RateLimiter.shared(0), () => t);
    expect(l.rate).toBe(0);
    const sentBefore = await l.acquire();
    for (let i = 0; i < 39; i++) await l.acquire();
    ms(500);
    // 39 starts in the half second since the measuring window opened (the first start opened it): 78 per second.
    l.throttled(0, sentBefore);
    expect(l.rate).toBe(39);
    // Another answer to a request sent before that decrease: the same round, not halved again.
    l.throttled(0, sentBefore);
    expect(l.rate).toBe(39);
    ms(100);
    l.throttled(0, await l.acquire());
    expect(l.rate).toBe(19.5);
    ms(500);
    l.answered();
    expect(l.rate).toBe(19.5);
    ms(500);
    l.answered();
    expect(l.rate).toBe(21.937);

    const capped = new RateLimiter(RateLimiter.shared(10), () => t);
    capped.throttled(0, await capped.acquire());
    expect(capped.rate).toBe(5);
    for (let i = 0; i < 20; i++) {
      ms(1000);
      capped.answered();
    }
    expect(capped.rate).toBe(10);
  });

  it('adaptive: from 20/s and 8 in flight, doubles what held requests back while answers are healthy, then an eighth (and one) after a 429; never past a ceiling', async () => {
    let t = 1_700_000_000_000_000n; // microseconds: a clock the test moves
    const ms = (n: number) => (t += BigInt(n * 1000));
    const adaptive = (ceilings: { rate: number; inFlight: number } = { rate: 0, inFlight: 0 }) =>
      new RateLimiter(RateLimiter.shared({ kind: 'adaptive', rate: 20, inFlight: 8, rateCeiling: ceilings.rate, inFlightCeiling: ceilings.inFlight }), () => t);
    /** `n` requests over `spanMs`, each answered after `latencyMs`; the pacing takes its step with the last answer. */
    const traffic = async (l: RateLimiter, n: number, spanMs: number, latencyMs = 5) => {
      for (let i = 0; i < n; i++) {
        await l.acquire();
        ms(spanMs / n);
        l.release();
        l.answered(latencyMs);
      }
    };
    const l = adaptive();
    l.answered(5); // the first answer opens the first step
    expect(l.current).toMatchObject({ rate: 20, inFlight: 8, heldBack: false });
    // Half a second at the full 20/s: the rate held the run back and the answers were healthy: doubled.
    await traffic(l, 10, 500);
    expect(l.current).toMatchObject({ rate: 40, inFlight: 8 });
    // Half a second well below 40/s: the rate held nothing back, so it stays.
    await traffic(l, 4, 500);
    expect(l.current.rate).toBe(40);
    // The ninth request in flight waits for a place; once one is freed it goes, and the next step doubles the places.
    // (At the rate's pace, so that only the places in flight can hold the ninth.)
    const eight: bigint[] = [];
    for (let i = 0; i < 8; i++) {
      eight.push(await l.acquire());
      ms(25);
    }
    let ninthStarted = false;
    const ninth = l.acquire().then(() => (ninthStarted = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(ninthStarted).toBe(false);
    expect(l.current.heldBack).toBe(true);
    l.release();
    await ninth;
    for (let i = 0; i < eight.length; i++) l.release();
    ms(500);
    l.answered(5);
    expect(l.current.inFlight).toBe(16);
    // At its pace, but the answers take 80 times as long as the fastest step's (and past the slack): not healthy,
    // so nothing rises.
    await traffic(l, 20, 500, 400);
    await traffic(l, 20, 500, 400);
    expect(l.current).toMatchObject({ rate: 40, inFlight: 16 });
    // Healthy again at its pace: doubled.
    await traffic(l, 20, 500);
    expect(l.current.rate).toBe(80);
    // A 429 halves both (the rate from the 40/s it was going at) and ends the doubling: then an eighth more rate
    // per healthy second at its pace.
    l.throttled(0, await l.acquire());
    l.release();
    expect(l.current).toMatchObject({ rate: 20, inFlight: 8 });
    await traffic(l, 20, 1000);
    expect(l.current).toMatchObject({ rate: 22.5, inFlight: 8 });

    // FSAPI_ENVIRONMENT=live: however healthy, never past the polite ceiling.
    const live = adaptive({ rate: 20, inFlight: 8 });
    live.answered(5);
    await traffic(live, 10, 500);
    expect(live.current).toMatchObject({ rate: 20, inFlight: 8 });
  });

  it('counts 429/503 answers and the pause they caused, overlapping pauses once', () => {
    let t = 1_700_000_000_000_000n;
    const l = new RateLimiter(RateLimiter.shared(0), () => t);
    l.throttled(1000, t);
    t += 500_000n;
    l.throttled(1000, t);
    l.throttled(200, t);
    expect(l.figures).toEqual({ responses: 3, waited_ms: 1500 });
  });

  it('verifies TLS: an untrusted, an expired and a wrong-host certificate are refused', async () => {
    const untrusted = await httpsServer((_q, r) => json(r, 200, {}));
    const expired = await httpsServer((_q, r) => json(r, 200, {}), await makeCert({ expired: true }));
    const wrongHost = await httpsServer((_q, r) => json(r, 200, {}), await makeCert({ names: ['api.example.test'], ips: ['10.9.8.7'] }));
    servers.push(untrusted, expired, wrongHost);
    const cases: [TestServer & { cert?: { cert: string } }, RegExp, boolean][] = [
      [untrusted, /self-signed|not trusted|not signed/, false],
      [expired, /expired/, true],
      [wrongHost, /does not name this host|altname|IP/i, true],
    ];
    for (const [server, re, trustCa] of cases) {
      const c = new TargetClient({ baseUrl: server.url, ...(trustCa ? { caPem: server.cert!.cert } : {}), timeoutMs: 30_000, maxResponseBytes: 1024, redactor });
      const e = (await c.send({ method: 'GET', path: 'x' }).catch((x: unknown) => x)) as TransportError;
      expect(e, server.url).toBeInstanceOf(TransportError);
      expect(e.kind).toBe('tls');
      expect(e.message).toMatch(re);
      await c.close();
    }
  });

  it('with caOnly trusts the given CA: its server answers, another certificate is refused', async () => {
    const own = await httpsServer((_q, r) => json(r, 200, { ok: true }));
    const other = await httpsServer((_q, r) => json(r, 200, {}));
    servers.push(own, other);
    const c = new TargetClient({ baseUrl: own.url, caPem: own.cert!.cert, caOnly: true, timeoutMs: 30_000, maxResponseBytes: 1024, redactor });
    expect((await c.send({ method: 'GET', path: 'x' })).json).toEqual({ ok: true });
    await c.close();
    // Another server's certificate is not signed by that CA: refused, as an untrusted one is.
    const d = new TargetClient({ baseUrl: other.url, caPem: own.cert!.cert, caOnly: true, timeoutMs: 30_000, maxResponseBytes: 1024, redactor });
    const e = (await d.send({ method: 'GET', path: 'x' }).catch((x: unknown) => x)) as TransportError;
    expect(e).toBeInstanceOf(TransportError);
    expect(e.kind).toBe('tls');
    await d.close();
  });
});

/**
 * A server in its own thread, so that it answers while the test's thread is blocked. flags[0] is set by the test once
 * its thread stalls; the server then sends what it held back and sets flags[1] once that is handed to the kernel.
 */
const STALL_SERVER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const flags = new Int32Array(workerData);
const sent = () => { Atomics.store(flags, 1, 1); Atomics.notify(flags, 1); };
const server = http.createServer((req, res) => {
  if (req.url === '/v1/warm') return res.end('{}');
  if (req.url === '/v1/answer-in-stall') {
    Atomics.wait(flags, 0, 0);
    return res.writeHead(200, { 'content-type': 'application/json' }).end('{"answered":"in the stall"}', sent);
  }
  if (req.url === '/v1/body-in-stall') {
    res.writeHead(200, { 'content-type': 'application/json' }).flushHeaders();
    Atomics.wait(flags, 0, 0);
    return res.end('{"body":"in the stall"}', sent);
  }
  if (req.url === '/v1/nothing-in-stall') { Atomics.wait(flags, 0, 0); return sent(); }
  if (req.url === '/v1/answer-soon') return void setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"answered":"soon"}'), 100);
  if (req.url === '/v1/never') return;
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

describe('TargetClient, in a thread blocked past the time limit', () => {
  const shared = new SharedArrayBuffer(8);
  const flags = new Int32Array(shared);
  let worker: Worker;
  let baseUrl: string;
  beforeAll(async () => {
    worker = new Worker(STALL_SERVER, { eval: true, workerData: shared });
    baseUrl = `http://127.0.0.1:${await new Promise<number>((resolve) => worker.once('message', resolve))}/v1/`;
  });
  afterAll(() => worker.terminate());

  /**
   * Sends GET path with a 300 ms limit and blocks this thread at `channel` (the request sent, or the answer's headers
   * read) until the server has sent the rest and the limit has fallen due `pastMs` ago: what a worker busy for
   * seconds (compiling a validator, starved of CPU) does to the requests it has in flight.
   */
  async function stalled(path: string, channel: string, pastMs: number) {
    Atomics.store(flags, 0, 0);
    Atomics.store(flags, 1, 0);
    const c = new TargetClient({ baseUrl, timeoutMs: 300, maxResponseBytes: 1024, redactor });
    await c.send({ method: 'GET', path: 'warm' }); // the request below leaves at once, on this kept-alive connection
    const stall = (message: unknown) => {
      if (!(message as { request: { path: string } }).request.path.endsWith(path)) return;
      // This callback runs after the request's limit was set: past this moment plus 300 ms, it has fallen due.
      const due = performance.now() + 300;
      Atomics.store(flags, 0, 1);
      Atomics.notify(flags, 0);
      expect(Atomics.wait(flags, 1, 0, 30_000)).not.toBe('timed-out');
      while (performance.now() < due + pastMs);
    };
    subscribe(channel, stall);
    try {
      const recorded: RecordedExchange[] = [];
      const out = await c.send({ method: 'GET', path, unpaced: true }, (x) => recorded.push(x)).then((r) => r, (e: unknown) => e);
      return { out, recorded };
    } finally {
      unsubscribe(channel, stall);
      await c.close();
    }
  }

  it('reads an answer that arrived while it was blocked instead of calling it a timeout, headers and body alike', async () => {
    const whole = await stalled('answer-in-stall', 'undici:request:bodySent', 100);
    expect(whole.out).not.toBeInstanceOf(Error);
    expect((whole.out as { json: unknown }).json).toEqual({ answered: 'in the stall' });
    expect(whole.recorded[0]!.error).toBeUndefined();
    const body = await stalled('body-in-stall', 'undici:request:headers', 100);
    expect(body.out).not.toBeInstanceOf(Error);
    expect((body.out as { json: unknown }).json).toEqual({ body: 'in the stall' });
  });

  it('still times out when nothing had arrived, with the time it gave back for its own stall, at most the limit again', async () => {
    const t0 = performance.now();
    const { out, recorded } = await stalled('nothing-in-stall', 'undici:request:bodySent', 700);
    expect(out).toBeInstanceOf(TransportError);
    expect((out as TransportError).kind).toBe('timeout');
    expect((out as TransportError).message).toMatch(/^no complete response within 300 ms \(and 300 ms more, given back for the time this process was too busy to send or read\)$/);
    expect(recorded[0]!.error).toBe((out as TransportError).message);
    // The stall (1 s) was more than the limit: what is given back stops at the limit, so a silent target is judged.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(1_300);
  });

  it('gives back the time this thread was too busy to connect and send: a target that answers in time is read', async () => {
    // A new connection: the request cannot leave before this thread turns its loop again. The server answers 100 ms
    // after the request reaches it, long after the two turns a limit that fell due during the stall would wait.
    const c = new TargetClient({ baseUrl, timeoutMs: 1_000, maxResponseBytes: 1024, redactor });
    try {
      const busy = (ms: number) => {
        const end = performance.now() + ms;
        while (performance.now() < end);
      };
      const answered = c.send({ method: 'GET', path: 'answer-soon', unpaced: true }).then((r) => r, (e: unknown) => e);
      busy(1_500);
      const out = await answered;
      expect(out).not.toBeInstanceOf(Error);
      expect((out as { json: unknown }).json).toEqual({ answered: 'soon' });
      // A target that never answers still times out, and the message says what was given back.
      const silent = c.send({ method: 'GET', path: 'never', unpaced: true }).then((r) => r, (e: unknown) => e);
      busy(400);
      const timedOut = await silent;
      expect(timedOut).toBeInstanceOf(TransportError);
      expect((timedOut as TransportError).message).toMatch(/^no complete response within 1000 ms \(and \d+ ms more, given back for the time this process was too busy to send or read\)$/);
    } finally {
      await c.close();
    }
  });
});

describe('StallWatch (src/http/loop-stall.ts)', () => {
  it("counts the time this thread's loop could not turn, as soon as the stall ends, and nothing before it began", async () => {
    const before = new StallWatch();
    const end = performance.now() + 400;
    while (performance.now() < end);
    const after = new StallWatch();
    // Read at once, before any timer ran: the stall just ended is not counted by a watch opened after it...
    expect(after.ms).toBeLessThan(200);
    // ...and already is by the watch open through it.
    expect(before.ms).toBeGreaterThanOrEqual(300);
    before.end();
    after.end();
    before.end(); // ending twice is harmless
  });
});

describe("undici's parts, each from its own file", () => {
  it('are the classes and function the index gives, and come from the index should a file move', async () => {
    const index = await import('undici');
    const { Agent, errors, undiciPart } = await import('../src/http/undici.js');
    expect(Agent).toBe(index.Agent);
    expect(errors.SocketError).toBe(index.errors.SocketError);
    expect(undiciPart('undici/lib/no-such-file.js', (u) => u.Agent)).toBe(index.Agent);
  });
});
