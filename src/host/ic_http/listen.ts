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

/** First allocation of a body's buffer; it grows to the announced length (or doubles) as bytes arrive. */
const FIRST_BODY_BUFFER = 64 * 1024;

/**
 * A request body copied once, chunk by chunk, into one buffer (no list of chunks joined at the end): the part
 * received so far is always one contiguous view, for the early refusal.
 */
class BodyBuffer {
  private buf: Buffer;
  size = 0;
  constructor(private readonly announced: number | undefined) {
    this.buf = Buffer.allocUnsafe(Math.min(announced ?? FIRST_BODY_BUFFER, FIRST_BODY_BUFFER));
  }
  push(chunk: Buffer): void {
    const end = this.size + chunk.length;
    if (end > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(end, this.announced ?? 2 * this.buf.length));
      this.buf.copy(next, 0, 0, this.size);
      this.buf = next;
    }
    chunk.copy(this.buf, this.size);
    this.size = end;
  }
  view(): Uint8Array {
    return new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.size);
  }
}

/**
 * Reads the body within MAX_BODY_BYTES and the server's in-flight budget (`budget.inflight`, bytes being
 * read over all connections). The route is decided first: a request refused by its path or headers is
 * answered without reading its body, an oversized Content-Length before any byte of it. While the body
 * arrives, the part received so far is given to the handler's prefix check (after the first chunk, then
 * each time the body has doubled: at most twice the body's decoding in all); a body its beginning already
 * refuses (4,096 CBOR items in the first kilobytes) is answered at once, and the rest is dropped as it
 * arrives instead of being copied, kept and decoded.
 */
async function serve(handler: IcHttpHandler, req: IncomingMessage, res: ServerResponse, log: (l: string) => void, budget: { inflight: number; readonly max: number }): Promise<void> {
  const send = (r: Reply, close = false): void => {
    if (res.headersSent) return;
    const body = typeof r.body === 'string' ? Buffer.from(r.body, 'utf8') : Buffer.from(r.body);
    res.writeHead(r.status, { ...CORS, 'content-type': r.contentType ?? 'text/plain; charset=utf-8', 'content-length': body.length, ...(close ? { connection: 'close' } : {}) });
    res.end(body);
  };
  /**
   * Answers without keeping (the rest of) the body, which is read and dropped as it arrives (the request
   * stream flows with no listener). `then`: `close` the connection after the answer, `cut` it at once when
   * the answer is out, or `keep` it for the sender's next request.
   */
  const refuseUnread = (r: Reply, then: 'close' | 'cut' | 'keep' = 'close'): void => {
    send(r, then !== 'keep');
    if (then === 'cut') res.once('finish', () => req.destroy());
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
    const announced = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
    const declared = announced ?? 0;
    if (!(declared <= MAX_BODY_BYTES)) return refuseUnread({ status: 413, body: `Request body of ${req.headers['content-length']} bytes exceeds the limit of ${MAX_BODY_BYTES} bytes.` }, 'cut');
    const full = (): Reply => ({ status: 503, body: 'The devnet is reading too many request bodies at once; retry shortly.' });
    if (budget.inflight + declared > budget.max) return refuseUnread(full());
    reserved = declared;
    budget.inflight += reserved;
    const body = new BodyBuffer(announced);
    let nextCheck = 0;
    const refused = await new Promise<Reply | undefined>((resolve, reject) => {
      const stop = (r: Reply | undefined): void => {
        req.off('data', onData);
        resolve(r);
      };
      const onData = (chunk: Buffer): void => {
        const size = body.size + chunk.length;
        if (size > MAX_BODY_BYTES) return stop({ status: 413, body: `Request body exceeds the limit of ${MAX_BODY_BYTES} bytes.` });
        if (size > reserved) {
          // A chunked body (no Content-Length) reserves as it arrives.
          if (budget.inflight + (size - reserved) > budget.max) return stop(full());
          budget.inflight += size - reserved;
          reserved = size;
        }
        body.push(chunk);
        if (size >= nextCheck && size !== announced) {
          nextCheck = 2 * size;
          const early = handler.prefixRefusal(route, body.view(), announced);
          if (early !== undefined) stop(early);
        }
      };
      req.on('data', onData);
      req.once('end', () => stop(undefined));
      req.once('error', reject);
      req.once('close', () => {
        if (!req.complete) reject(new Error('the client closed the connection before its body ended'));
      });
    });
    if (refused !== undefined) {
      budget.inflight -= reserved;
      reserved = 0;
      // A body of announced length (at most MAX_BODY_BYTES) is dropped as the rest arrives: the sender reads
      // its answer whole (closing under a sender still writing would reset the connection and lose the
      // answer) and may reuse the connection. A body past a limit, or of no announced length, is cut off.
      return refuseUnread(refused, announced !== undefined && refused.status === 400 ? 'keep' : 'cut');
    }
    budget.inflight -= reserved;
    reserved = 0;
    send(await handler.run(route, body.view()));
  } catch (e) {
    log(`ic http: ${req.method} ${req.url}: ${e instanceof Error ? e.message : String(e)}`);
    send({ status: 500, body: 'Internal error in the devnet (logged).' });
  } finally {
    budget.inflight -= reserved;
  }
}
