/**
 * The listeners, both bare node servers in front of the pipeline. HTTPS: every request goes through the pipeline,
 * and requests the HTTP parser rejects get a problem document that names nothing. Plain HTTP: refuses everything
 * with 403 and reads nothing.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { FaultSet } from './faults.js';
import { BODY_LIMIT_BYTES, type Pipeline, type SandboxRequest, type SandboxResponse } from './pipeline.js';
import { problemBody } from './problem.js';
import { SANDBOX_IDENTITY_HEADER, sandboxIdentity } from './identity.js';

/** Under the no-413 fault bodies are kept up to this size. */
const NO_413_LIMIT_BYTES = 16 * 1024 * 1024;
interface ReadBody {
  data: Buffer | undefined;
  tooLarge: boolean;
}

function problemText(status: number, code: string, title: string, detail: string): string {
  return JSON.stringify(problemBody(status, code, title, detail));
}

/** An answer the listener gives itself, as a problem document. */
function problemAnswer(status: number, code: string, title: string, detail: string): SandboxResponse {
  return { status, headers: { 'content-type': 'application/problem+json; charset=utf-8' }, body: problemText(status, code, title, detail) };
}

/** Reads a body up to `limit` bytes; beyond that the rest is drained and dropped, and the body marked too large. */
function collect(stream: NodeJS.ReadableStream, limit: number, done: (body: ReadBody) => void, fail: (e: Error) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  stream.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      tooLarge = true;
      chunks.length = 0;
    } else chunks.push(chunk);
  });
  stream.on('end', () => done({ data: tooLarge ? undefined : Buffer.concat(chunks), tooLarge }));
  stream.on('error', fail);
}


/** A pipeline answer, with its length stated (never chunked), as a framework would send it, and the sandbox's identity. */
function send(res: ServerResponse, out: SandboxResponse, identity: string): void {
  const body = out.body ?? '';
  res.writeHead(out.status, { ...out.headers, [SANDBOX_IDENTITY_HEADER]: identity, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Every request goes through the pipeline, whatever its method or path; nothing answers on its own. */
function serve(pipeline: Pipeline, limit: number, identity: string) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    collect(
      req,
      limit,
      (body) => {
        const request: SandboxRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: body.data, bodyTooLarge: body.tooLarge };
        pipeline.handle(request).then(
          (out) => send(res, out, identity),
          () => send(res, problemAnswer(500, 'internal_error', 'Internal error', 'The request could not be processed.'), identity),
        );
      },
      // Reading the request failed (an aborted upload, say): nothing of the error is echoed.
      () => {
        if (res.headersSent || res.destroyed) return void res.destroy();
        send(res, problemAnswer(400, 'bad_request', 'Bad request', 'The request could not be read.'), identity);
      },
    );
  };
}

/**
 * The HTTPS listener: node:https and the pipeline, nothing between. (It was fastify, every one of whose own
 * answers (not found, body parsing, bad URLs, errors) was replaced so that none named the framework; what was
 * left of it cost the busiest thread of a run a tenth of its time.)
 */
export async function startHttps(
  pipeline: Pipeline,
  faults: FaultSet,
  opts: { host: string; port: number; key: string; cert: string },
): Promise<{ server: HttpsServer; port: number }> {
  const identity = sandboxIdentity(faults);
  const server = createHttpsServer({ key: opts.key, cert: opts.cert }, serve(pipeline, faults.has('no-413') ? NO_413_LIMIT_BYTES : BODY_LIMIT_BYTES, identity));
  // Clients keep connections for a while; the server keeps them longer, so a request never meets a closing socket.
  server.keepAliveTimeout = 72_000;
  // Requests the HTTP parser rejects never reach the pipeline; answer them without naming anything.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const body = problemText(status, 'bad_request', status === 431 ? 'Request header fields too large' : 'Bad request', 'The request could not be parsed.');
    socket.end(
      `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/problem+json\r\n${SANDBOX_IDENTITY_HEADER}: ${identity}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  await listen(server, opts.host, opts.port);
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : opts.port };
}

/** Closes a listener and every connection it holds (keep-alive ones included). */
export async function closeServer(server: Server | HttpsServer): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

function listen(server: Server | HttpsServer, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * The plain-HTTP listener: 403 https_required for every request, without routing, parsing or authenticating.
 * Faults: plain-http-processed sends requests through the pipeline; plain-http-redirect answers 301 to HTTPS.
 */
export async function startPlainHttp(
  pipeline: Pipeline,
  faults: FaultSet,
  opts: { host: string; port: number; httpsOrigin: () => string },
): Promise<{ server: Server; port: number }> {
  const refusal = problemAnswer(403, 'https_required', 'HTTPS required', 'This API is served over HTTPS only; nothing sent over plain HTTP is processed.');
  const identity = sandboxIdentity(faults);
  // Under plain-http-processed, requests are served as the HTTPS listener serves them.
  const processed = serve(pipeline, faults.has('no-413') ? NO_413_LIMIT_BYTES : BODY_LIMIT_BYTES, identity);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (faults.has('plain-http-redirect')) {
      res.writeHead(301, { location: `${opts.httpsOrigin()}${req.url ?? '/'}`, [SANDBOX_IDENTITY_HEADER]: identity, 'content-length': 0 });
      res.end();
      return;
    }
    if (!faults.has('plain-http-processed')) return send(res, refusal, identity);
    processed(req, res);
  });
  server.keepAliveTimeout = 5_000;
  await listen(server, opts.host, opts.port);
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : opts.port };
}
