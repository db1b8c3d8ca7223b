/**
 * A small client for the sandbox's own tests (test-only, so not in the build or the package): calls operations by
 * operationId with the right credentials, and holds every response to the spec (documented status, media type,
 * schema, required headers) and to the rule that no response shows a stack trace or names the framework.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as pause } from 'node:timers/promises';
import { Agent, request } from 'undici';
import type { Operation, SpecDocument } from '../../src/catalogue/index.js';
import type { AccountView } from '../../sandbox/handlers/accounts.js';
import type { CollectionView } from '../../sandbox/handlers/collections.js';
import type { CustomerView } from '../../sandbox/handlers/customers.js';
import type { KycDocumentView } from '../../sandbox/handlers/kyc.js';
import type { SandboxInfo, SandboxTenant } from '../../sandbox/index.js';
import type { SandboxRequest } from '../../sandbox/pipeline.js';

export interface CallOptions {
  params?: Record<string, string>;
  query?: Record<string, string | number>;
  body?: unknown;
  /** Sent as is instead of `body`. */
  rawBody?: string | Buffer;
  /** Default application/json when a body is sent; null sends none. */
  contentType?: string | null;
  /** Api-Key; default the client tenant's secret key; null sends none. */
  key?: string | null;
  /** x-tenant-id; default the client's tenant; null sends none. */
  tenantId?: string | null;
  /** Default a fresh UUID on POST; null sends none. */
  idempotencyKey?: string | null;
  headers?: Record<string, string>;
  /** Skip the contract checks (fault tests, where breaking the contract is the point). */
  unchecked?: boolean;
}

export interface ApiResponse<T> {
  status: number;
  headers: Record<string, string>;
  text: string;
  body: T;
}

/** Stack frames, file paths and framework names that must never reach a client. */
export const LEAK_PATTERN = /fastify|FST_[A-Z_]+|(?:\\n|\n)\s+at\s|node:internal|[\w/.-]+\.(?:ts|js|mjs|cjs):\d+/i;

export class SandboxClient {
  /** Statuses seen (and checked) per operationId. */
  readonly seen: Map<string, Set<number>>;

  constructor(
    readonly sandbox: SandboxInfo,
    readonly spec: SpecDocument,
    readonly tenant: SandboxTenant,
    readonly agent: Agent = new Agent({ connect: { ca: sandbox.ca_pem }, pipelining: 1 }),
    seen?: Map<string, Set<number>>,
    /** Hold responses to the contract (off where a fault breaks it on purpose). */
    readonly checked = true,
  ) {
    this.seen = seen ?? new Map();
  }

  /** The same client acting for another tenant (shares connections and the record of what was seen). */
  as(tenant: SandboxTenant): SandboxClient {
    return new SandboxClient(this.sandbox, this.spec, tenant, this.agent, this.seen, this.checked);
  }

  /** The same client without contract checks. */
  unchecked(): SandboxClient {
    return new SandboxClient(this.sandbox, this.spec, this.tenant, this.agent, this.seen, false);
  }

  op(operationId: string): Operation {
    const op = this.spec.byId.get(operationId);
    if (!op) throw new Error(`no operation ${operationId}`);
    return op;
  }

  async call<T = unknown>(operationId: string, opts: CallOptions = {}): Promise<ApiResponse<T>> {
    const op = this.op(operationId);
    const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const v = opts.params?.[name];
      if (v === undefined) throw new Error(`${operationId} needs ${name}`);
      return encodeURIComponent(v);
    });
    const query = new URLSearchParams(Object.entries(opts.query ?? {}).map(([k, v]): [string, string] => [k, String(v)])).toString();
    const headers: Record<string, string> = {};
    const key = opts.key === undefined ? this.tenant.secret_key : opts.key;
    if (key !== null) headers['api-key'] = key;
    const tenantId = opts.tenantId === undefined ? this.tenant.tenant_id : opts.tenantId;
    if (tenantId !== null) headers['x-tenant-id'] = tenantId;
    if (op.method === 'POST') {
      const idem = opts.idempotencyKey === undefined ? randomUUID() : opts.idempotencyKey;
      if (idem !== null) headers['idempotency-key'] = idem;
    }
    const payload = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
    const contentType = opts.contentType === undefined ? (payload !== undefined ? 'application/json' : null) : opts.contentType;
    if (contentType !== null) headers['content-type'] = contentType;
    Object.assign(headers, opts.headers);
    const res = await this.raw(op.method, `${path.slice(1)}${query ? `?${query}` : ''}`, { headers, body: payload });
    if (this.checked && !opts.unchecked) {
      const problems = contractProblems(this.spec, op, res.status, res.headers, res.text);
      if (problems.length > 0) {
        throw new Error(`${operationId} ${res.status} breaks the contract:\n  ${problems.join('\n  ')}\n  body: ${res.text.slice(0, 500)}`);
      }
      let statuses = this.seen.get(operationId);
      if (!statuses) this.seen.set(operationId, (statuses = new Set()));
      statuses.add(res.status);
    }
    return { ...res, body: parse(res.text) as T };
  }

  /** A request relative to the base URL (or absolute), with nothing added and nothing checked. */
  async raw(method: string, path: string, opts: { headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<ApiResponse<unknown>> {
    const url = /^https?:/.test(path) ? path : `${this.sandbox.base_url}${path}`;
    const res = await request(url, { method: method as 'GET', headers: opts.headers ?? {}, body: opts.body, dispatcher: this.agent });
    const text = await res.body.text();
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    return { status: res.statusCode, headers, text, body: parse(text) };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

function parse(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Everything wrong with one response, measured against the spec; empty when it conforms. */
export function contractProblems(spec: SpecDocument, op: Operation, status: number, headers: Record<string, string>, text: string): string[] {
  const problems: string[] = [];
  const contentType = headers['content-type'];
  let body: unknown;
  try {
    body = text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    problems.push('body is not JSON');
  }
  const verdict = spec.validateResponse(op, status, contentType, body);
  if (verdict.kind === 'undocumented-status') problems.push(`status ${status} is not documented (${verdict.documented.join(', ')})`);
  if (verdict.kind === 'undocumented-media-type') problems.push(`media type ${verdict.mediaType} is not documented (${verdict.documented.join(', ')})`);
  if (verdict.kind === 'schema') for (const p of verdict.problems) problems.push(`${p.pointer} ${p.message}`);
  if (status >= 200 && status < 300 && !/^application\/json; charset=utf-8$/i.test(contentType ?? '')) {
    problems.push(`success Content-Type is ${contentType ?? '(none)'}, not application/json; charset=utf-8`);
  }
  if (status >= 400 && typeof body === 'object' && body !== null && (body as { status?: unknown }).status !== status) {
    problems.push(`problem status ${(body as { status?: unknown }).status} differs from HTTP ${status}`);
  }
  for (const h of spec.responseFor(op, status)?.headers ?? []) {
    if (h.required && !headers[h.name]) problems.push(`required header ${h.name} is missing`);
  }
  if (LEAK_PATTERN.test(text)) problems.push('body shows a stack trace, a file path or the framework');
  return problems;
}

/** A customer body valid for POST /customers; `n` varies the fields. */
export function customerBody(n = 1, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    first_name: 'Ada',
    middle_name: 'King',
    last_name: `Lovelace${String.fromCharCode(65 + (n % 26))}`,
    email: `ada.${n}@example.com`,
    phone: `+1415555${String(1000 + (n % 9000)).padStart(4, '0')}`,
    type: 'individual',
    gender: 'female',
    date_of_birth: '1990-12-10',
    address: { address_line1: '12 Analytical Way', city: 'San Francisco', country: 'US', postal_code: '94105', state: 'US-CA' },
    ...overrides,
  };
}

/** A small PNG, base64, for KYC uploads. */
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** Response bodies the tests read, typed as the sandbox renders them. */
export type { CustomerView } from '../../sandbox/handlers/customers.js';
export type { KycDocumentView, KycVerificationView } from '../../sandbox/handlers/kyc.js';
export type { FeatureView } from '../../sandbox/handlers/features.js';
export type { AccountView, ExternalAccountView } from '../../sandbox/handlers/accounts.js';
export type { TransferView } from '../../sandbox/handlers/transfers.js';
export type { CardView } from '../../sandbox/handlers/cards.js';
export type { CollectionView } from '../../sandbox/handlers/collections.js';
export type { WalletView } from '../../sandbox/handlers/wallets.js';
export type { FxRateView, FxQuoteView, FxTradeView } from '../../sandbox/handlers/fx.js';
export type { TransactionView, EventView, DeliveryView } from '../../sandbox/handlers/activity.js';
export type { ListPage as ListEnvelope } from '../../sandbox/wire.js';
export type { ProblemBody } from '../../sandbox/problem.js';

const ok = (status: number): boolean => status >= 200 && status < 300;

/** The steps most tests need before the thing they test: a customer, approved KYC, features, a funded account. */
export class Flows {
  private n = 0;

  constructor(readonly api: SandboxClient) {}

  async customer(overrides: Record<string, unknown> = {}): Promise<CustomerView> {
    const res = await this.api.call<CustomerView>('createCustomer', { body: customerBody(++this.n + Math.floor(Math.random() * 1e6), overrides) });
    if (!ok(res.status)) throw new Error(`createCustomer answered ${res.status}: ${res.text}`);
    return res.body;
  }

  async document(customerId: string): Promise<KycDocumentView> {
    const res = await this.api.call<KycDocumentView>('uploadKycDocument', {
      params: { customer_id: customerId },
      body: { type: 'passport', side: 'front', file_name: 'passport.png', content_type: 'image/png', content: PNG_BASE64 },
    });
    if (!ok(res.status)) throw new Error(`uploadKycDocument answered ${res.status}: ${res.text}`);
    return res.body;
  }

  /** A customer whose KYC is approved, with the given features active. */
  async approvedCustomer(features: string[] = []): Promise<CustomerView> {
    const c = await this.customer();
    const doc = await this.document(c.id);
    const submitted = await this.api.call('submitKyc', {
      params: { customer_id: c.id },
      body: { id_type: 'passport', id_number: 'P12345678', nationality: 'US', document_ids: [doc.id] },
    });
    if (!ok(submitted.status)) throw new Error(`submitKyc answered ${submitted.status}: ${submitted.text}`);
    for (const feature of features) {
      const res = await this.api.call('activateFeature', { params: { customer_id: c.id, feature }, body: {} });
      if (!ok(res.status)) throw new Error(`activateFeature ${feature} answered ${res.status}: ${res.text}`);
    }
    return c;
  }

  async account(customerId: string, currency = 'USD'): Promise<AccountView> {
    const res = await this.api.call<AccountView>('createAccount', { body: { customer_id: customerId, currency, type: 'checking' } });
    if (!ok(res.status)) throw new Error(`createAccount answered ${res.status}: ${res.text}`);
    return res.body;
  }

  /** Credits an account by a card collection (which settles at once). */
  async fund(account: { id: string; currency: string }, amount: string): Promise<CollectionView> {
    const res = await this.api.call<CollectionView>('createCollection', {
      body: { account_id: account.id, amount, currency: account.currency, method: { type: 'card', card: { number: '4242424242424242', expiry_month: 12, expiry_year: 2030, cvc: '123' } } },
    });
    if (!ok(res.status) || res.body.status !== 'succeeded') throw new Error(`funding collection answered ${res.status}: ${res.text}`);
    return res.body;
  }

  async balance(accountId: string): Promise<string> {
    return String((await this.api.call<AccountView>('getAccount', { params: { account_id: accountId } })).body.balance);
  }
}

export interface Received {
  headers: Record<string, string>;
  body: string;
  /** Milliseconds since the epoch at arrival. */
  at: number;
}

/**
 * A webhook receiver on loopback for the tests: records every delivery, answers what `respond` says, and lets a
 * test wait for deliveries (a promise, resolved by arrival; no fixed sleeps).
 */
export class TestReceiver {
  readonly received: Received[] = [];
  /** The status to answer a delivery with; 200 unless a test says otherwise. */
  respond: (r: Received) => number = () => 200;
  private server: Server | undefined;
  private waiters: { pred: (r: Received) => boolean; count: number; resolve: (r: Received[]) => void }[] = [];

  async listen(): Promise<string> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        const r: Received = { headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        this.received.push(r);
        res.writeHead(this.respond(r)).end();
        this.waiters = this.waiters.filter((w) => {
          const hits = this.received.filter(w.pred);
          if (hits.length < w.count) return true;
          w.resolve(hits);
          return false;
        });
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  }

  /** Resolves once `count` deliveries matching `pred` have arrived (counting those already here). */
  waitFor(pred: (r: Received) => boolean, count = 1): Promise<Received[]> {
    const hits = this.received.filter(pred);
    if (hits.length >= count) return Promise.resolve(hits);
    return new Promise((resolve) => this.waiters.push({ pred, count, resolve }));
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Re-reads until `ok` holds (for state the sandbox records after the fact, such as delivery history). */
export async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(v).slice(0, 400)}`);
    await pause(10);
  }
}

/** A request for the core's pipeline (in-process, no network), as the given fixture tenant. */
export function coreRequest(
  tenant: { sandbox_secret_key: string; tenant_id: string },
  method: string,
  path: string,
  body?: unknown,
  idempotencyKey: string | undefined = method === 'POST' ? randomUUID() : undefined,
): SandboxRequest {
  return {
    method,
    url: `/v1/${path}`,
    headers: {
      'api-key': tenant.sandbox_secret_key,
      'x-tenant-id': tenant.tenant_id,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(idempotencyKey !== undefined ? { 'idempotency-key': idempotencyKey } : {}),
    },
    body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
    bodyTooLarge: false,
  };
}
