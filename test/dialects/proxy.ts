/**
 * A translating proxy: serves a dialect (HTTPS on 127.0.0.1, port 0, its own certificate) in front of the
 * reference sandbox. Requests are rewritten to the reference (path, query, body), responses back to the dialect
 * (body: list shape, envelope, names, states; Location: the vendor's path). Status and every other header pass
 * untouched, both ways: Api-Key, x-tenant-id and Idempotency-Key are the seed's and never bound.
 *
 * A path the dialect does not have is made unknown to the sandbox too (so a moved reference path answers 404
 * through the proxy, as the vendor would); a path neither knows is forwarded as it is.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { makeCert } from '../helpers/servers.js';
import { problemToVendor, queryToReference, responseToVendor, translatePath, translateValue, type Dialect, type Json, type RefOperation } from './dialect.js';

export interface Upstream {
  /** The sandbox's base URL (https://127.0.0.1:PORT/v1/). */
  baseUrl: string;
  caPem: string;
  /** The sandbox's plain-HTTP listener, when it has one: the proxy then has one too, translating the same way. */
  plainHttpUrl?: string;
}

export interface DialectProxy {
  baseUrl: string;
  plainHttpUrl?: string;
  caPem: string;
  /** A PEM file of the proxy's certificate (FSAPI_CA_FILE). */
  caFile: string;
  /** Requests the proxy forwarded: the dialect's method and path, and the reference's. */
  forwarded: { method: string; path: string; referencePath: string }[];
  close(): Promise<void>;
}

/** Where a path missing from the dialect goes: a path the sandbox does not serve either. */
const UNKNOWN_PREFIX = '/not-in-this-dialect';
const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade', 'proxy-connection']);

interface Rewritten {
  path: string;
  op?: RefOperation;
}

/** A request path (with its version segment, if any) in the reference's spelling. */
export function requestToReference(d: Dialect, method: string, pathname: string): Rewritten {
  const [, version = '', rest = pathname] = /^(\/v\d+)?(\/.*)?$/.exec(pathname) ?? [];
  const hit = translatePath(d, rest, 'toReference');
  if (hit) return { path: version + hit.path, op: d.operationAt(method, hit.route.refPath) };
  return { path: translatePath(d, rest, 'toVendor') ? `${version}${UNKNOWN_PREFIX}${rest}` : pathname };
}

function locationToVendor(d: Dialect, location: string): string {
  const url = new URL(location, 'https://placeholder.invalid');
  const [, version = '', rest = url.pathname] = /^(\/v\d+)?(\/.*)?$/.exec(url.pathname) ?? [];
  const hit = translatePath(d, rest, 'toVendor');
  if (!hit) return location;
  const path = version + hit.path + url.search;
  return /^https?:/i.test(location) ? `${url.origin}${path}` : path;
}

function parseJson(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

const isJson = (contentType: string | string[] | undefined): boolean => /\bjson\b/i.test(String(contentType ?? ''));

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function forwardHeaders(req: IncomingMessage): string[] {
  const out: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    if (!HOP_BY_HOP.has(name.toLowerCase())) out.push(name, req.rawHeaders[i + 1]!);
  }
  return out;
}

function handler(d: Dialect, origin: string, agent: Agent, forwarded: DialectProxy['forwarded']) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      const method = req.method ?? 'GET';
      const url = new URL(req.url ?? '/', 'https://proxy.invalid');
      const { path, op } = requestToReference(d, method, url.pathname);
      const query = queryToReference(d, url.searchParams).toString();
      forwarded.push({ method, path: url.pathname, referencePath: path });
      let body: Buffer | string = await readBody(req);
      const parsed = body.length > 0 && isJson(req.headers['content-type']) ? parseJson(body.toString('utf8')) : undefined;
      if (parsed !== undefined) body = JSON.stringify(translateValue(d, parsed, 'toReference'));
      const upstream = await request(`${origin}${path}${query ? `?${query}` : ''}`, {
        method: method as 'GET',
        headers: forwardHeaders(req),
        body: body.length > 0 || method === 'POST' || method === 'PATCH' || method === 'PUT' ? body : undefined,
        dispatcher: agent,
      });
      const raw = Buffer.from(await upstream.body.arrayBuffer());
      const headers: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(upstream.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = v;
      if (typeof headers['location'] === 'string') headers['location'] = locationToVendor(d, headers['location']);
      let out: Buffer | string = raw;
      const json = raw.length > 0 && isJson(headers['content-type']) ? parseJson(raw.toString('utf8')) : undefined;
      if (json !== undefined && upstream.statusCode < 300 && op) out = JSON.stringify(responseToVendor(d, op, json));
      else if (json !== undefined && upstream.statusCode >= 400) out = JSON.stringify(problemToVendor(d, json));
      res.writeHead(upstream.statusCode, { ...headers, 'content-length': String(Buffer.byteLength(out)) });
      res.end(method === 'HEAD' ? undefined : out);
    } catch (e) {
      // Only a broken upstream connection lands here (the sandbox is local): a gateway error, as a vendor's would be.
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ type: 'about:blank', title: 'Bad gateway', status: 502, detail: (e as Error).message }));
    }
  };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const close = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

export async function startDialectProxy(d: Dialect, upstream: Upstream): Promise<DialectProxy> {
  const cert = await makeCert();
  const dir = mkdtempSync(join(tmpdir(), `fsapi-dialect-${d.def.name}-`));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, cert.cert);
  const agent = new Agent({ connect: { ca: upstream.caPem } });
  const forwarded: DialectProxy['forwarded'] = [];
  const base = new URL(upstream.baseUrl);
  const https = createHttps({ cert: cert.cert, key: cert.key }, (req, res) => void handler(d, base.origin, agent, forwarded)(req, res));
  const port = await listen(https);
  let plain: Server | undefined;
  let plainPort: number | undefined;
  if (upstream.plainHttpUrl) {
    plain = createHttp((req, res) => void handler(d, new URL(upstream.plainHttpUrl!).origin, agent, forwarded)(req, res));
    plainPort = await listen(plain);
  }
  return {
    baseUrl: `https://127.0.0.1:${port}${base.pathname}`,
    ...(plainPort !== undefined ? { plainHttpUrl: `http://127.0.0.1:${plainPort}${base.pathname}` } : {}),
    caPem: cert.cert,
    caFile,
    forwarded,
    async close() {
      await Promise.all([close(https), ...(plain ? [close(plain)] : [])]);
      await agent.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
