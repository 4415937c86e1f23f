// The explorer's HTTP layer: one route table that every API module (and later the pages) adds its routes
// to, bounded request bodies, and answers that never carry a stack trace. A handler throws VerifyError for
// bad input; the route's own `onError` renders it in that API's shape.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { asVerifyError, VerifyError } from './errors.js';

export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
  readonly contentType?: string;
  /** Extra response headers (the pages' Location, Content-Security-Policy). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface RequestCtx {
  readonly method: string;
  readonly url: URL;
  readonly headers: IncomingMessage['headers'];
  /** The client's address (the socket's peer: per-client quotas). */
  readonly client: string;
  /**
   * The body, read once and bounded by the explorer's maxRequestBytes, or by `limit` when smaller
   * (request_too_large beyond).
   */
  body(limit?: number): Promise<Buffer>;
}

export interface Route {
  /** GET routes also answer HEAD. */
  readonly methods: readonly string[];
  /** Matched against the path; capture groups become `params`. */
  readonly path: RegExp;
  handle(req: RequestCtx, params: string[]): Promise<HttpAnswer>;
  /** How this API renders an error (default: `{ error: { code, message } }` with the code's HTTP status). */
  onError?(e: VerifyError): HttpAnswer;
}

export const json = (status: number, value: unknown): HttpAnswer => ({ status, body: JSON.stringify(value), contentType: 'application/json; charset=utf-8' });

export const defaultError = (e: VerifyError): HttpAnswer => json(e.httpStatus, { error: { code: e.code, message: e.message } });

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > limit) {
      req.resume();
      reject(new VerifyError('request_too_large', `request body of ${declared} bytes is larger than ${limit} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > limit) {
        failed = true;
        reject(new VerifyError('request_too_large', `request body is larger than ${limit} bytes`));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      if (!failed) reject(new VerifyError('invalid_request', `request body could not be read: ${e.message}`));
    });
  });
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new VerifyError('invalid_request', `malformed %-escape in the path: ${JSON.stringify(s.slice(0, 100))}`);
  }
}

export interface ExplorerHttp {
  readonly server: Server;
  readonly url: string;
  close(): Promise<void>;
}

/** What slow or many clients can make the explorer's server hold. */
export interface HttpLimits {
  /** A client must send its complete headers within this (slowloris). */
  readonly headersTimeoutMs: number;
  /** ... and its complete request (up to maxRequestBytes of body) within this. */
  readonly requestTimeoutMs: number;
  /** Open connections at most; more are refused by the server. */
  readonly maxConnections: number;
  /** Open connections from one address at most; more are closed at once. */
  readonly maxConnectionsPerClient: number;
}

export const HTTP_LIMITS: HttpLimits = { headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, maxConnections: 512, maxConnectionsPerClient: 64 };

export async function startHttp(o: {
  host: string;
  port: number;
  routes: readonly Route[];
  maxRequestBytes: number;
  log?: (l: string) => void;
  limits?: Partial<HttpLimits>;
}): Promise<ExplorerHttp> {
  const limits = { ...HTTP_LIMITS, ...o.limits };
  const send = (res: ServerResponse, a: HttpAnswer, head: boolean): void => {
    res.writeHead(a.status, {
      'content-type': a.contentType ?? 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(a.body),
      // Public read and verification APIs, called from browsers (explorer pages, Remix) as well as tools.
      'access-control-allow-origin': '*',
      ...a.headers,
    });
    res.end(head ? undefined : a.body);
  };
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // How often Node checks those timeouts (its default, 30 s, would let a slow client hold on far longer).
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
    },
    (req, res) => {
      const method = (req.method ?? 'GET').toUpperCase();
      let url: URL;
      try {
        url = new URL(req.url ?? '/', 'http://explorer.local');
      } catch {
        send(res, defaultError(new VerifyError('invalid_request', 'malformed request URL')), false);
        return;
      }
      if (method === 'OPTIONS') {
        res.writeHead(204, { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, POST, OPTIONS', 'access-control-allow-headers': 'content-type' });
        res.end();
        return;
      }
      let bodyPromise: Promise<Buffer> | undefined;
      let tooLarge = false;
      const ctx: RequestCtx = {
        method,
        url,
        headers: req.headers,
        client: req.socket.remoteAddress ?? '',
        body: (limit) =>
          (bodyPromise ??= readBody(req, Math.min(limit ?? o.maxRequestBytes, o.maxRequestBytes)).catch((e: unknown) => {
            if (e instanceof VerifyError && e.code === 'request_too_large') tooLarge = true;
            throw e;
          })),
      };
      let route: Route | undefined;
      let params: string[] = [];
      let pathMatched = false;
      for (const r of o.routes) {
        const m = r.path.exec(url.pathname);
        if (m === null) continue;
        pathMatched = true;
        if (r.methods.includes(method) || (method === 'HEAD' && r.methods.includes('GET'))) {
          route = r;
          params = m.slice(1).map((s) => s ?? '');
          break;
        }
      }
      if (route === undefined) {
        req.resume();
        send(res, pathMatched ? json(405, { error: { code: 'method_not_allowed', message: `${method} is not supported on ${url.pathname}` } }) : json(404, { error: { code: 'not_found', message: `no such endpoint: ${url.pathname}` } }), false);
        return;
      }
      const r = route;
      // Decoded here, inside the promise chain: a malformed %-escape is a bad request, never a thrown exception.
      void Promise.resolve()
        .then(() => r.handle(ctx, params.map((p) => decodeSegment(p))))
        .catch((e: unknown) => {
          const err = asVerifyError(e);
          if (err.code === 'internal_error') o.log?.(`[explorer] ${method} ${url.pathname}: ${err.message}`);
          return (r.onError ?? defaultError)(err);
        })
        .then((a) => {
          if (tooLarge) {
            // A body past the limit is not read on: the answer goes out and the connection is closed.
            res.shouldKeepAlive = false;
            res.on('finish', () => req.destroy());
          } else {
            // Drain what the handler did not read, so the connection stays usable.
            req.resume();
          }
          send(res, a, method === 'HEAD');
        })
        .catch(() => res.destroy());
    },
  );
  server.keepAliveTimeout = 5000;
  server.maxConnections = limits.maxConnections;
  const perClient = new Map<string, number>();
  server.on('connection', (socket) => {
    const key = socket.remoteAddress ?? '';
    const n = (perClient.get(key) ?? 0) + 1;
    if (n > limits.maxConnectionsPerClient) {
      socket.destroy();
      return;
    }
    perClient.set(key, n);
    socket.once('close', () => {
      const left = (perClient.get(key) ?? 1) - 1;
      if (left <= 0) perClient.delete(key);
      else perClient.set(key, left);
    });
  });
  server.on('clientError', (_e, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const a = server.address() as AddressInfo;
  const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return {
    server,
    url: `http://${host}:${a.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Form (application/x-www-form-urlencoded) or JSON body fields, for APIs that take either. */
export function parseFields(body: Buffer, contentType: string | undefined): Record<string, unknown> {
  if (body.length === 0) return {};
  const ct = (contentType ?? '').toLowerCase();
  const text = body.toString('utf8');
  if (ct.includes('application/json')) {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      throw new VerifyError('invalid_json', `request body is not valid JSON (${(e as Error).message})`);
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new VerifyError('invalid_json', 'request body must be a JSON object');
    return v as Record<string, unknown>;
  }
  if (ct.includes('multipart/form-data')) throw new VerifyError('invalid_request', 'multipart bodies are not supported; send application/x-www-form-urlencoded or JSON');
  return Object.fromEntries(new URLSearchParams(text));
}

export function parseJsonBody(body: Buffer): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw new VerifyError('invalid_json', `request body is not valid JSON (${(e as Error).message})`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new VerifyError('invalid_json', 'request body must be a JSON object');
  return v as Record<string, unknown>;
}
