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
import { sign, verify } from '../../src/webhooks/signature.js';
import { makeCert } from '../helpers/servers.js';
import { isOffsetList, type OffsetListShape } from './definitions.js';
import { foreignQueryValue, isObject, problemToVendor, queryToReference, responseToVendor, translatePath, translateValue, type Dialect, type JsonValue, type JsonObject, type RefOperation } from './dialect.js';

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

function parseJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
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

interface Upstreamed {
  status: number;
  headers: Record<string, string | string[]>;
  raw: Buffer;
  json: JsonValue | undefined;
}

async function forward(origin: string, agent: Agent, method: string, path: string, query: string, headers: string[], body: Buffer | string | undefined): Promise<Upstreamed> {
  const upstream = await request(`${origin}${path}${query ? `?${query}` : ''}`, { method: method as 'GET', headers, body, dispatcher: agent });
  const raw = Buffer.from(await upstream.body.arrayBuffer());
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(upstream.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
  const json = raw.length > 0 && isJson(out['content-type']) ? parseJson(raw.toString('utf8')) : undefined;
  return { status: upstream.statusCode, headers: out, raw, json };
}

/** An answer of the sandbox in the dialect's terms: body (success or error), its media type, Location. */
function answerToVendor(d: Dialect, op: RefOperation | undefined, up: Upstreamed): { headers: Record<string, string | string[]>; body: Buffer | string } {
  const headers = { ...up.headers };
  if (typeof headers['location'] === 'string') headers['location'] = locationToVendor(d, headers['location']);
  if (up.json === undefined) return { headers, body: up.raw };
  if (up.status < 300 && op) return { headers, body: JSON.stringify(responseToVendor(d, op, up.json)) };
  if (up.status >= 400) {
    // A vendor with its own error shape labels it plain JSON (its document says so too).
    if (d.def.errors) headers['content-type'] = 'application/json';
    return { headers, body: JSON.stringify(problemToVendor(d, up.json)) };
  }
  return { headers, body: JSON.stringify(translateValue(d, up.json, 'toVendor')) };
}

/** The most sandbox pages one offset list reads (a list that never ends, as a fault can make it, stops there). */
const OFFSET_WALK_CAP = 500;
/** Pages read at the size asked for, before the rest of a list is read a hundred at a time (only to be held). */
const FAITHFUL_PAGES = 10;

interface Snapshot {
  items: JsonValue[];
  total: number;
}

/**
 * An offset/limit list served from the sandbox's cursor pages. Like vendors that page by offset over a list that
 * grows at its head (newest first), the proxy holds a snapshot of the list from the walk's first page (offset 0)
 * and serves the later offsets of the same query from it, so objects created meanwhile do not shift the pages.
 * The first pages are read at the page size asked for, so a fault of the cursor walk shows in the offsets too.
 */
async function offsetList(d: Dialect, list: OffsetListShape, send: (query: URLSearchParams) => Promise<Upstreamed>, params: URLSearchParams, walk: string, snapshots: Map<string, Snapshot>): Promise<Upstreamed> {
  const given = params.get(list.offset_param);
  const offset = given === null ? 0 : Number(given);
  const query = queryToReference(d, params);
  if (!/^[0-9]+$/.test(given ?? '0') || !Number.isSafeInteger(offset)) {
    const problem = { type: 'https://problems.fsapi.example/validation-error', title: 'Request validation failed', status: 400, detail: `${list.offset_param} must be a whole number from 0.`, code: 'validation_error', errors: [{ field: list.offset_param, message: 'must be a whole number from 0' }] };
    return { status: 400, headers: { 'content-type': 'application/problem+json' }, raw: Buffer.from(JSON.stringify(problem)), json: problem };
  }
  const key = `${walk} ?${query.toString()}`;
  const first = await send(query);
  const page = (u: Upstreamed) => (isObject(u.json) && Array.isArray(u.json['data']) ? u.json : undefined);
  const firstPage = page(first);
  if (first.status >= 300 || !firstPage) return first;
  const limit = query.get('limit');
  const size = limit !== null ? Number(limit) : firstPage['has_more'] === true ? (firstPage['data'] as JsonValue[]).length : Number.MAX_SAFE_INTEGER;
  let snap = offset === 0 ? undefined : snapshots.get(key);
  if (!snap) {
    const items: JsonValue[] = [...(firstPage['data'] as JsonValue[])];
    let cur = firstPage;
    for (let n = 1; n < OFFSET_WALK_CAP && cur['has_more'] === true && typeof cur['next_cursor'] === 'string'; n++) {
      const next = new URLSearchParams(query);
      next.set('cursor', cur['next_cursor']);
      if (n >= FAITHFUL_PAGES && items.length >= offset + size) next.set('limit', '100');
      const got = page(await send(next));
      if (!got) break;
      items.push(...(got['data'] as JsonValue[]));
      cur = got;
    }
    snap = { items, total: items.length };
    snapshots.set(key, snap);
    // A bounded memory: the oldest walks go first.
    if (snapshots.size > 500) snapshots.delete(snapshots.keys().next().value!);
  }
  const body: JsonObject = { data: snap.items.slice(offset, offset + size), total: snap.total };
  return { ...first, raw: Buffer.from(JSON.stringify(body)), json: body };
}

function handler(d: Dialect, origin: string, agent: Agent, forwarded: DialectProxy['forwarded']) {
  const snapshots = new Map<string, Snapshot>();
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      const method = req.method ?? 'GET';
      const url = new URL(req.url ?? '/', 'https://proxy.invalid');
      const { path, op } = requestToReference(d, method, url.pathname);
      forwarded.push({ method, path: url.pathname, referencePath: path });
      let body: Buffer | string = await readBody(req);
      const parsed = body.length > 0 && isJson(req.headers['content-type']) ? parseJson(body.toString('utf8')) : undefined;
      if (parsed !== undefined) body = JSON.stringify(translateValue(d, parsed, 'toReference'));
      const headers = forwardHeaders(req);
      const foreign = foreignQueryValue(d, url.searchParams);
      if (foreign !== undefined) {
        // The vendor validates its enums: a value in the reference's spelling is not one of them.
        const problem = { type: 'https://problems.fsapi.example/validation-error', title: 'Request validation failed', status: 400, detail: `${foreign} is not one of its values.`, code: 'validation_error', errors: [{ field: foreign, message: 'must be equal to one of the allowed values' }] };
        const out = answerToVendor(d, op, { status: 400, headers: { 'content-type': 'application/problem+json' }, raw: Buffer.from(JSON.stringify(problem)), json: problem });
        res.writeHead(400, { ...out.headers, 'content-length': String(Buffer.byteLength(out.body)) });
        res.end(method === 'HEAD' ? undefined : out.body);
        return;
      }
      const sendBody = body.length > 0 || method === 'POST' || method === 'PATCH' || method === 'PUT' ? body : undefined;
      const send = (query: URLSearchParams) => forward(origin, agent, method, path, query.toString(), headers, sendBody);
      const list = d.def.list;
      // A walk is one client's, of one list: its snapshot is keyed by the credentials and the list's path.
      const walk = `${String(req.headers['api-key'] ?? '')} ${String(req.headers['x-tenant-id'] ?? '')} ${path}`;
      const up = op && op.kind === 'list' && op.paged && method === 'GET' && isOffsetList(list) ? await offsetList(d, list, send, url.searchParams, walk, snapshots) : await send(queryToReference(d, url.searchParams));
      const out = answerToVendor(d, op, up);
      res.writeHead(up.status, { ...out.headers, 'content-length': String(Buffer.byteLength(out.body)) });
      res.end(method === 'HEAD' ? undefined : out.body);
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
  const serve = handler(d, base.origin, agent, forwarded);
  const https = createHttps({ cert: cert.cert, key: cert.key }, (req, res) => void serve(req, res));
  const port = await listen(https);
  let plain: Server | undefined;
  let plainPort: number | undefined;
  if (upstream.plainHttpUrl) {
    const servePlain = handler(d, new URL(upstream.plainHttpUrl!).origin, agent, forwarded);
    plain = createHttp((req, res) => void servePlain(req, res));
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

export interface WebhookForwarder {
  /** Where the sandbox delivers (http://127.0.0.1:PORT/webhooks). */
  url: string;
  close(): Promise<void>;
}

/**
 * Webhook deliveries in the dialect's terms: the sandbox delivers here, and each event goes on to the suite's
 * receiver as the vendor would send it (member names, ids, enum and event values). A delivery whose signature
 * verifies is signed again over the translated body with the same id and timestamp; any other keeps its headers,
 * so an unsigned or wrongly signed delivery stays so. The receiver's answer goes back to the sandbox (retries).
 */
export async function startWebhookForwarder(d: Dialect, receiverUrl: string, secret: string): Promise<WebhookForwarder> {
  const server = createHttp((req, res) => {
    void (async () => {
      try {
        const raw = (await readBody(req)).toString('utf8');
        const parsed = parseJson(raw);
        const body = parsed === undefined ? raw : JSON.stringify(translateValue(d, parsed, 'toVendor'));
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !HOP_BY_HOP.has(k)) headers[k] = v;
        if (verify(secret, headers, raw, { toleranceSeconds: Number.MAX_SAFE_INTEGER }).ok) {
          headers['webhook-signature'] = sign(secret, headers['webhook-id']!, Number(headers['webhook-timestamp']), body);
        }
        const out = await request(receiverUrl, { method: 'POST', headers, body });
        const text = await out.body.text();
        res.writeHead(out.statusCode, { 'content-type': String(out.headers['content-type'] ?? 'text/plain') }).end(text);
      } catch (e) {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end((e as Error).message);
      }
    })();
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}/webhooks`, close: () => close(server) };
}
