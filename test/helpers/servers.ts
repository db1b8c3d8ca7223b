/** Purpose-built servers on loopback (port 0) for the project's own tests. */
import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface TestServer {
  url: string;
  port: number;
  server: Server;
  requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[];
  close(): Promise<void>;
}

async function listen(server: Server, host = '127.0.0.1'): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}

function wrap(server: Server, scheme: 'http' | 'https', port: number, requests: TestServer['requests'], path = '/v1/'): TestServer {
  return {
    url: `${scheme}://127.0.0.1:${port}${path}`,
    port,
    server,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function recording(handler: Handler, requests: TestServer['requests']) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  };
}

export async function httpServer(handler: Handler): Promise<TestServer> {
  const requests: TestServer['requests'] = [];
  const server = createHttp(recording(handler, requests));
  return wrap(server, 'http', await listen(server), requests);
}

export interface Cert {
  cert: string;
  key: string;
}

/** A self-signed certificate for 127.0.0.1/localhost (or other names), optionally already expired. */
export async function makeCert(opts: { names?: string[]; ips?: string[]; expired?: boolean } = {}): Promise<Cert> {
  const now = Date.now();
  const pems = await generate([{ name: 'commonName', value: opts.names?.[0] ?? 'localhost' }], {
    algorithm: 'sha256',
    // EC keys: generating RSA-2048 in JavaScript costs ~0.3 s per certificate.
    keyType: 'ec',
    curve: 'P-256',
    notBeforeDate: new Date(opts.expired ? now - 10 * 86_400_000 : now - 60_000),
    notAfterDate: new Date(opts.expired ? now - 86_400_000 : now + 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      {
        name: 'subjectAltName',
        altNames: [...(opts.names ?? ['localhost']).map((value) => ({ type: 2 as const, value })), ...(opts.ips ?? ['127.0.0.1']).map((ip) => ({ type: 7 as const, ip }))],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

export async function httpsServer(handler: Handler, cert?: Cert): Promise<TestServer & { cert: Cert }> {
  const c = cert ?? (await makeCert());
  const requests: TestServer['requests'] = [];
  const server = createHttps({ cert: c.cert, key: c.key }, recording(handler, requests));
  return { ...wrap(server, 'https', await listen(server), requests), cert: c };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}
