// The HTTP server in front of an IcHttpHandler (server.ts): Node's http server with the limits of limits.ts,
// CORS, and a request body read within MAX_BODY_BYTES and the server's in-flight budget.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Principal } from '@icp-sdk/core/principal';
import type { IcHost } from '../index.js';
import type { SubnetKeys } from './keys.js';
import { KEEP_ALIVE_TIMEOUT_MS, type IcHttpLimits } from './limits.js';
import { IcHttpHandler, isReply, MAX_BODY_BYTES, type Reply } from './server.js';

export interface IcHttpOptions {
  readonly host: IcHost;
  readonly keys: SubnetKeys;
  /** Default 127.0.0.1. */
  readonly hostname?: string;
  /** Default 4943 (the local replica's port); 0 picks a free port. */
  readonly port?: number;
  readonly log?: (line: string) => void;
  /** The data folder: the replay window (request ids seen) is kept there across restarts (replay.ts). */
  readonly dataDir?: string;
  /** The bounds of limits.ts (tests set small ones). */
  readonly limits?: Partial<IcHttpLimits>;
}

export interface IcHttpServer {
  readonly url: string;
  readonly port: number;
  readonly canisterId: Principal;
  readonly rootKey: Uint8Array;
  /** The handler behind the server (its sweep, held statuses and signature count). */
  readonly handler: IcHttpHandler;
  close(): Promise<void>;
}

/** Starts the HTTP server in front of `handler`'s canister. */
export async function startIcHttp(opts: IcHttpOptions): Promise<IcHttpServer> {
  const handler = new IcHttpHandler(opts.host, opts.keys, { ...(opts.dataDir === undefined ? {} : { dataDir: opts.dataDir }), ...(opts.limits === undefined ? {} : { limits: opts.limits }) });
  const log = opts.log ?? (() => {});
  const l = handler.limits;
  const budget = { inflight: 0, max: l.maxInflightBodyBytes };
  const server: Server = createServer(
    {
      requestTimeout: l.requestTimeoutMs,
      headersTimeout: Math.min(l.headersTimeoutMs, l.requestTimeoutMs),
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      // Node checks the two timeouts only this often (default 30 s, which would triple the headers' one).
      connectionsCheckingInterval: Math.min(1_000, Math.ceil(l.headersTimeoutMs / 2)),
    },
    (req, res) => void serve(handler, req, res, log, budget),
  );
  server.maxConnections = l.maxConnections;
  // Old statuses are dropped once a minute (their window is 5.5 minutes), bounding memory without a client.
  const sweeper = setInterval(() => handler.sweep(), 60_000);
  sweeper.unref();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 4943, opts.hostname ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const hostPart = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${hostPart}:${addr.port}`,
    port: addr.port,
    canisterId: handler.canisterId,
    rootKey: opts.keys.rootKeyDer,
    handler,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(sweeper);
        server.close(() => {
          handler.close();
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST',
  'access-control-allow-headers': 'Authorization, Accept, Content-Type',
};

/**
 * Reads the body within MAX_BODY_BYTES and the server's in-flight budget (`budget.inflight`, bytes being
 * read over all connections). The route is decided first: a request refused by its path or headers is
 * answered without reading its body, an oversized Content-Length before any byte of it.
 */
async function serve(handler: IcHttpHandler, req: IncomingMessage, res: ServerResponse, log: (l: string) => void, budget: { inflight: number; readonly max: number }): Promise<void> {
  const send = (r: Reply, close = false): void => {
    if (res.headersSent) return;
    const body = typeof r.body === 'string' ? Buffer.from(r.body, 'utf8') : Buffer.from(r.body);
    res.writeHead(r.status, { ...CORS, 'content-type': r.contentType ?? 'text/plain; charset=utf-8', 'content-length': body.length, ...(close ? { connection: 'close' } : {}) });
    res.end(body);
  };
  /** Answers without reading the body; the connection closes after the answer (an oversized body is cut off). */
  const refuseUnread = (r: Reply, cut = false): void => {
    send(r, true);
    if (cut) res.once('finish', () => req.destroy());
    else req.resume();
  };
  let reserved = 0;
  try {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS);
      res.end();
      return;
    }
    const path = (req.url ?? '/').split('?')[0]!;
    const route = handler.route(req.method ?? 'GET', path, req.headers['content-type']);
    if (isReply(route)) return refuseUnread(route);
    const declared = Number(req.headers['content-length'] ?? '0');
    if (!(declared <= MAX_BODY_BYTES)) return refuseUnread({ status: 413, body: `Request body of ${req.headers['content-length']} bytes exceeds the limit of ${MAX_BODY_BYTES} bytes.` }, true);
    const full = (): Reply => ({ status: 503, body: 'The devnet is reading too many request bodies at once; retry shortly.' });
    if (budget.inflight + declared > budget.max) return refuseUnread(full());
    reserved = declared;
    budget.inflight += reserved;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) {
        send({ status: 413, body: `Request body exceeds the limit of ${MAX_BODY_BYTES} bytes.` }, true);
        req.destroy();
        return;
      }
      if (size > reserved) {
        // A chunked body (no Content-Length) reserves as it arrives.
        if (budget.inflight + (size - reserved) > budget.max) {
          send(full(), true);
          req.destroy();
          return;
        }
        budget.inflight += size - reserved;
        reserved = size;
      }
      chunks.push(chunk as Buffer);
    }
    // One copy: the concatenation is viewed, not copied again into another array.
    const joined = Buffer.concat(chunks, size);
    const body = new Uint8Array(joined.buffer, joined.byteOffset, joined.byteLength);
    budget.inflight -= reserved;
    reserved = 0;
    send(await handler.run(route, body));
  } catch (e) {
    log(`ic http: ${req.method} ${req.url}: ${e instanceof Error ? e.message : String(e)}`);
    send({ status: 500, body: 'Internal error in the devnet (logged).' });
  } finally {
    budget.inflight -= reserved;
  }
}
