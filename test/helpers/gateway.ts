/**
 * A reverse proxy on loopback (HTTPS, port 0, a certificate of its own) in front of a target, as vendors deploy
 * one: optionally a token-bucket rate limit answering 429 with Retry-After, an intermittent fault (a share of one
 * status's answers broken at random), the answer to a duplicate POST in flight chosen at random (409, or the
 * upstream's replay), and a 502 whenever the upstream cannot be reached (a dead upstream process).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Faker, en } from '@faker-js/faker';
import { Agent, request, type Dispatcher } from 'undici';
import { problemBody } from '../../sandbox/problem.js';
import { makeCert, type Cert } from './servers.js';

export interface GatewayOptions {
  /** Base URL of the upstream, ending in /v1/; its path is replaced by the gateway's own /v1/. */
  upstream: string;
  /** PEM of the CA the upstream's certificate is signed by. */
  upstreamCa?: string;
  /** Token bucket: tokens added per second and bucket size. Without it, every request is forwarded. */
  limit?: { perSecond: number; burst: number };
  /**
   * An intermittent fault: an upstream answer of status `status` is replaced, with probability `rate`, by a 403
   * problem (the draws are seeded; which answer draws which depends on the order requests arrive in).
   */
  flaky?: { status: number; rate: number; seed: number };
  /**
   * A POST whose Idempotency-Key (for the same business, method and path) is in flight through the gateway is a
   * duplicate in flight: answered 409 with probability `conflict` (as a conforming target may), else held until the
   * first is answered and then forwarded (so the upstream replays it, as a conforming target may too). Seeded draws.
   */
  inFlight?: { conflict: number; seed: number };
  /** Plays a target with integer ids: each id the upstream answers becomes a number, and is mapped back on the way in. */
  integerIds?: boolean;
}

export interface Gateway {
  url: string;
  cert: Cert;
  /** Requests answered 429 by the bucket, and forwarded upstream. */
  counts: { limited: number; forwarded: number; badGateway: number; flakyCandidates: number; flakyBroken: number; duplicatesConflicted: number; duplicatesHeld: number };
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110 section 7.6.1) a proxy does not forward. */
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host']);

function forwardable(h: IncomingMessage['headers'] | Dispatcher.ResponseData['headers']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(h)) if (typeof v === 'string' || Array.isArray(v)) if (!HOP.has(k.toLowerCase())) out[k] = v;
  return out;
}

export async function gateway(opts: GatewayOptions): Promise<Gateway> {
  const cert = await makeCert();
  const upstream = new URL(opts.upstream);
  const agent = new Agent({ connect: opts.upstreamCa ? { ca: opts.upstreamCa } : {}, connections: 64 });
  const counts = { limited: 0, forwarded: 0, badGateway: 0, flakyCandidates: 0, flakyBroken: 0, duplicatesConflicted: 0, duplicatesHeld: 0 };
  const duplicates = opts.inFlight && inFlightDuplicates(opts.inFlight, counts);
  const ids = opts.integerIds ? integerIds() : undefined;
  const coin = opts.flaky && new Faker({ locale: en, seed: opts.flaky.seed });
  /** Whether this answer is one the intermittent fault breaks. */
  const breaks = (status: number): boolean => {
    if (!opts.flaky || !coin || status !== opts.flaky.status) return false;
    counts.flakyCandidates++;
    const hit = coin.datatype.boolean({ probability: opts.flaky.rate });
    if (hit) counts.flakyBroken++;
    return hit;
  };
  let tokens = opts.limit?.burst ?? 0;
  let filled = performance.now();

  /** Takes a token, or says how many whole seconds until one is there. */
  const take = (): number | undefined => {
    const l = opts.limit;
    if (!l) return undefined;
    const now = performance.now();
    tokens = Math.min(l.burst, tokens + ((now - filled) / 1000) * l.perSecond);
    filled = now;
    if (tokens >= 1) {
      tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - tokens) / l.perSecond));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const wait = take();
    if (wait !== undefined) {
      counts.limited++;
      res.writeHead(429, { 'content-type': 'application/problem+json', 'retry-after': String(wait) }).end(JSON.stringify({ title: 'Too Many Requests', status: 429 }));
      return;
    }
    const duplicate = duplicates ? await duplicates.enter(req) : undefined;
    if (duplicate === 'conflict') {
      res.writeHead(409, { 'content-type': 'application/problem+json' }).end(JSON.stringify(problemBody(409, 'idempotency_in_flight', 'Request in progress', 'A request with this Idempotency-Key is still being processed.')));
      return;
    }
    try {
      await forward(req, res, body);
    } finally {
      duplicate?.();
    }
  };

  const forward = async (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    let path = (req.url ?? '/').replace(/^\/v1\//, upstream.pathname);
    if (ids) ({ path, body } = ids.inward(path, body));
    try {
      const headers = forwardable(req.headers);
      if (ids) delete headers['content-length'];
      const up = await request(new URL(path, upstream.origin), {
        method: req.method as Dispatcher.HttpMethod,
        headers,
        ...(body.length || !['GET', 'HEAD'].includes(req.method ?? '') ? { body } : {}),
        dispatcher: agent,
      });
      let answer: Buffer = Buffer.from(await up.body.arrayBuffer());
      const out = forwardable(up.headers);
      if (ids && String(up.headers['content-type'] ?? '').includes('json')) {
        answer = ids.outward(answer);
        delete out['content-length'];
      }
      counts.forwarded++;
      if (breaks(up.statusCode)) {
        res.writeHead(403, { 'content-type': 'application/problem+json' }).end(JSON.stringify({ type: 'about:blank', title: 'Forbidden', status: 403 }));
        return;
      }
      res.writeHead(up.statusCode, out).end(answer);
    } catch {
      counts.badGateway++;
      res.writeHead(502, { 'content-type': 'text/html', server: 'test-gateway' }).end('<html><body><h1>502 Bad Gateway</h1></body></html>');
    }
  };

  const server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void handle(req, res, Buffer.concat(chunks)));
  });
  // Idle connections are kept longer than the suite's client keeps them (10 s), as the sandbox and most proxies do:
  // Node's 5 s default closed a connection the client was about to reuse after a 2 s wait on a busy machine.
  server.keepAliveTimeout = 72_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/v1/`,
    cert,
    counts,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await agent.close();
    },
  };
}

/**
 * Tracks the POSTs in flight by Idempotency-Key. `enter` answers 'conflict' for a duplicate drawn to be refused;
 * otherwise (after waiting for the first, for a duplicate drawn to be held) a function to call once it is answered.
 */
function inFlightDuplicates(opts: { conflict: number; seed: number }, counts: { duplicatesConflicted: number; duplicatesHeld: number }) {
  const coin = new Faker({ locale: en, seed: opts.seed });
  const flying = new Map<string, Promise<void>>();
  const header = (req: IncomingMessage, name: string) => String(req.headers[name] ?? '');
  return {
    async enter(req: IncomingMessage): Promise<'conflict' | (() => void) | undefined> {
      const key = header(req, 'idempotency-key');
      if (req.method !== 'POST' || !key) return undefined;
      const id = `${header(req, 'x-tenant-id')} ${req.url ?? ''} ${key}`;
      const first = flying.get(id);
      if (first) {
        if (coin.datatype.boolean({ probability: opts.conflict })) {
          counts.duplicatesConflicted++;
          return 'conflict';
        }
        counts.duplicatesHeld++;
        await first;
        return undefined;
      }
      let done!: () => void;
      flying.set(id, new Promise<void>((resolve) => (done = resolve)));
      return () => {
        flying.delete(id);
        done();
      };
    },
  };
}

/** Names that hold an id: `id`, and references such as `customer_id`. */
const ID_NAME = /(^id$|_id$)/;

/**
 * String ids as integers, both ways: an answer's `id` members get the next number (and any other member naming a
 * known id, that id's number); a request's path segments, id query parameters and id body members go back.
 */
function integerIds() {
  const toInt = new Map<string, number>();
  const toStr = new Map<string, string>();
  const back = (v: unknown): unknown => (typeof v === 'number' || typeof v === 'string' ? (toStr.get(String(v)) ?? v) : v);
  const walk = (v: unknown, key: string, f: (v: unknown, key: string) => unknown): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, key, f));
    if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k, f)]));
    return f(v, key);
  };
  const json = (buf: Buffer, f: (v: unknown, key: string) => unknown): Buffer => {
    try {
      return Buffer.from(JSON.stringify(walk(JSON.parse(buf.toString('utf8')), '', f)));
    } catch {
      return buf;
    }
  };
  return {
    inward(path: string, body: Buffer): { path: string; body: Buffer } {
      const url = new URL(path, 'https://x');
      const segments = url.pathname.split('/').map((s) => (/^\d+$/.test(s) ? (toStr.get(s) ?? s) : s));
      for (const [k, v] of [...url.searchParams]) if (ID_NAME.test(k)) url.searchParams.set(k, String(back(v)));
      return { path: segments.join('/') + url.search, body: body.length ? json(body, (v, k) => (ID_NAME.test(k) ? back(v) : v)) : body };
    },
    outward(answer: Buffer): Buffer {
      return json(answer, (v, k) => {
        if (typeof v !== 'string') return v;
        if (k === 'id' && !toInt.has(v)) {
          toInt.set(v, toInt.size + 1);
          toStr.set(String(toInt.size), v);
        }
        return toInt.get(v) ?? v;
      });
    },
  };
}
