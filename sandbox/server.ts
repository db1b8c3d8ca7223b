/**
 * The listeners. HTTPS: fastify, with every framework answer replaced (not found, errors, body parsing, client
 * errors) so that no response names the framework or carries a stack. Plain HTTP: a bare node:http server that
 * refuses everything with 403 and reads nothing.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { FaultSet } from './faults.js';
import { BODY_LIMIT_BYTES, type Pipeline, type SandboxRequest, type SandboxResponse } from './pipeline.js';
import { problemBody } from './problem.js';

/** Under the no-413 fault bodies are kept up to this size. */
const NO_413_LIMIT_BYTES = 16 * 1024 * 1024;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

interface PlainReply {
  code(status: number): PlainReply;
  header(name: string, value: string): PlainReply;
  send(payload: string): unknown;
}

interface ReadBody {
  data: Buffer | undefined;
  tooLarge: boolean;
}

function problemText(status: number, code: string, title: string, detail: string): string {
  return JSON.stringify(problemBody(status, code, title, detail));
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


export async function startHttps(
  pipeline: Pipeline,
  faults: FaultSet,
  opts: { host: string; port: number; key: string; cert: string },
): Promise<{ app: FastifyInstance; port: number }> {
  const limit = faults.has('no-413') ? NO_413_LIMIT_BYTES : BODY_LIMIT_BYTES;
  const app = Fastify({
    https: { key: opts.key, cert: opts.cert },
    logger: false,
    exposeHeadRoutes: false,
    return503OnClosing: false,
    forceCloseConnections: true,
    // Malformed URLs and the like: answer a problem document, not the framework's own error body.
    frameworkErrors: (_error, _req, reply) => {
      // The option's reply type is instantiated with no route generics, which rejects every status; it is a plain reply.
      void (reply as unknown as PlainReply)
        .code(400)
        .header('content-type', 'application/problem+json; charset=utf-8')
        .send(problemText(400, 'bad_request', 'Bad request', 'The request line or headers are malformed.'));
    },
  });
  // Requests the HTTP parser rejects never reach fastify; answer them without naming anything.
  app.server.removeAllListeners('clientError');
  app.server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const body = problemText(status, 'bad_request', status === 431 ? 'Request header fields too large' : 'Bad request', 'The request could not be parsed.');
    socket.end(
      `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });

  // Every body is collected raw: the pipeline decides 415, 413 and malformed JSON, in its own order.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, payload, done) => {
    collect(payload, limit, (body) => done(null, body), (e) => done(e, undefined));
  });

  const handle = (request: FastifyRequest): Promise<SandboxResponse> => {
    const body = request.body as ReadBody | undefined;
    const req: SandboxRequest = {
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: body?.data,
      bodyTooLarge: body?.tooLarge ?? false,
    };
    return pipeline.handle(req);
  };
  app.route({
    method: [...METHODS],
    url: '/*',
    handler: async (request, reply) => {
      const res = await handle(request);
      return reply.code(res.status).headers(res.headers).send(res.body ?? '');
    },
  });
  // Methods fastify has no route for (TRACE, PROPFIND, ...) still go through the pipeline.
  app.setNotFoundHandler(async (request, reply) => {
    const res = await handle(request);
    return reply.code(res.status).headers(res.headers).send(res.body ?? '');
  });
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    // Reached only when reading the request failed (an aborted upload, say); nothing of the error is echoed.
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? 400 : 500;
    void reply
      .code(status)
      .header('content-type', 'application/problem+json; charset=utf-8')
      .send(problemText(status, status === 400 ? 'bad_request' : 'internal_error', status === 400 ? 'Bad request' : 'Internal error', 'The request could not be processed.'));
  });

  await app.listen({ host: opts.host, port: opts.port });
  const address = app.server.address();
  return { app, port: typeof address === 'object' && address ? address.port : opts.port };
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
  const refuse = (res: ServerResponse): void => {
    const body = problemText(403, 'https_required', 'HTTPS required', 'This API is served over HTTPS only; nothing sent over plain HTTP is processed.');
    res.writeHead(403, { 'content-type': 'application/problem+json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (faults.has('plain-http-redirect')) {
      res.writeHead(301, { location: `${opts.httpsOrigin()}${req.url ?? '/'}`, 'content-length': 0 });
      res.end();
      return;
    }
    if (!faults.has('plain-http-processed')) {
      refuse(res);
      return;
    }
    collect(
      req,
      faults.has('no-413') ? NO_413_LIMIT_BYTES : BODY_LIMIT_BYTES,
      (body) => {
        void pipeline
          .handle({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: body.data, bodyTooLarge: body.tooLarge })
          .then((out) => {
            res.writeHead(out.status, out.headers);
            res.end(out.body ?? '');
          });
      },
      () => res.destroy(),
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : opts.port };
}
