import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FAIL_FIRST_MARKER, type ReceivedDelivery } from '../webhooks/delivery.js';
import { setIoDeadline, type IoDeadline } from '../http/io-deadline.js';

const MAX_KEPT = 5000;
const MAX_BODY = 1_048_576;

/**
 * The suite's webhook receiver. It runs in the CLI process (so a target can be configured to deliver to a
 * fixed address), records every attempt, and answers 2xx except the first attempt of an event whose object
 * carries metadata `fsapi_webhook: fail-first`. Workers read what arrived through a long-poll endpoint under a
 * random path, so nothing else on the network can read it.
 */
export class WebhookReceiver {
  private readonly server: Server;
  private readonly deliveries: ReceivedDelivery[] = [];
  /** Long-polls waiting for deliveries: each is told of every new one, so none rescans what it has counted. */
  private readonly waiters = new Set<(d: ReceivedDelivery) => void>();
  private readonly webhookIds = new Set<string>();
  private readonly token = randomBytes(12).toString('hex');
  private readonly inspectPath = `/__fsapi/${this.token}/deliveries`;
  private seq = 0;

  constructor() {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.keepAliveTimeout = 5_000;
  }

  async listen(host: string, port: number): Promise<{ url: string; inspectUrl: string }> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const a = this.server.address() as AddressInfo;
    const h = a.family === 'IPv6' ? `[${a.address}]` : a.address;
    const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : h;
    return { url: `http://${reachable}:${a.port}/webhooks`, inspectUrl: `http://${reachable}:${a.port}${this.inspectPath}` };
  }

  get count(): number {
    return this.deliveries.length;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    // Only the workers' reads have a query to parse; a delivery (some 1300 in a full run) needs no URL object.
    if (req.method === 'GET' && req.url?.startsWith(this.inspectPath)) {
      const url = new URL(req.url, 'http://receiver');
      if (url.pathname === this.inspectPath) return this.inspect(url, res);
    }
    // Events rather than an async iterator: cheaper per delivery, and deliveries are most of this thread's requests.
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      if (size > MAX_BODY) return;
      size += c.length;
      if (size <= MAX_BODY) return void chunks.push(c);
      chunks.length = 0;
      // Refused at once, and not recorded; the connection closes once the answer is out.
      res.writeHead(413, { connection: 'close' }).end(() => req.destroy());
    });
    req.on('end', () => {
      if (size <= MAX_BODY) this.record(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  }

  /** Records one delivery attempt and answers it. */
  private record(req: IncomingMessage, res: ServerResponse, body: string): void {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    let eventType: string | undefined;
    let objectId: string | undefined;
    let failFirst = false;
    try {
      const j = JSON.parse(body) as { type?: unknown; data?: { object?: { id?: unknown; metadata?: Record<string, unknown> } } };
      if (typeof j.type === 'string') eventType = j.type;
      if (typeof j.data?.object?.id === 'string') objectId = j.data.object.id;
      failFirst = j.data?.object?.metadata?.['fsapi_webhook'] === FAIL_FIRST_MARKER;
    } catch {
      // Not JSON: recorded as is; the checks judge it.
    }
    const webhookId = headers['webhook-id'];
    const seenBefore = webhookId !== undefined && this.webhookIds.has(webhookId);
    if (webhookId !== undefined) this.webhookIds.add(webhookId);
    const answered = failFirst && !seenBefore ? 503 : 200;
    const delivery: ReceivedDelivery = {
      seq: ++this.seq,
      received_at: new Date().toISOString(),
      method: req.method ?? 'POST',
      path: req.url ?? '/',
      headers,
      body,
      answered,
      ...(webhookId ? { webhook_id: webhookId } : {}),
      ...(eventType ? { event_type: eventType } : {}),
      ...(objectId ? { object_id: objectId } : {}),
    };
    this.deliveries.push(delivery);
    if (this.deliveries.length > MAX_KEPT) this.deliveries.splice(0, this.deliveries.length - MAX_KEPT);
    res.writeHead(answered, { 'content-type': 'text/plain' }).end(answered === 200 ? 'ok' : 'try again');
    for (const w of [...this.waiters]) w(delivery);
  }

  /**
   * GET ...?object_id=&type=&min=N&timeout_ms=&limit=: answers when at least N matching attempts arrived, or at the
   * timeout, with the newest `limit` matches (default 100), oldest first, so an answer stays far below a response cap.
   */
  private inspect(url: URL, res: ServerResponse): void {
    const objectId = url.searchParams.get('object_id');
    const type = url.searchParams.get('type');
    const min = Number(url.searchParams.get('min') ?? '1');
    const limit = Math.max(1, Math.min(Number(url.searchParams.get('limit') ?? '100') || 100, 1000));
    const timeout = Math.min(Number(url.searchParams.get('timeout_ms') ?? '0'), 120_000);
    const matches = (d: ReceivedDelivery) => (!objectId || d.object_id === objectId) && (!type || d.event_type === type);
    let count = this.deliveries.filter(matches).length;
    let timer: IoDeadline | undefined;
    const answer = () => {
      timer?.clear();
      this.waiters.delete(arrived);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(this.deliveries.filter(matches).slice(-limit)));
    };
    const arrived = (d: ReceivedDelivery) => {
      if (matches(d) && ++count >= min) answer();
    };
    if (count >= min) return answer();
    // The wait is counted in this thread's attention, and a delivery that came in while it was busy past the wait
    // (writing reports, say) is read before the wait is judged over (setIoDeadline).
    timer = setIoDeadline(answer, timeout);
    this.waiters.add(arrived);
    res.on('close', () => {
      timer?.clear();
      this.waiters.delete(arrived);
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
