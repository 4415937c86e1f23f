// The HTTP side: POST with a bounded body, CORS (including OPTIONS preflight), JSON answers.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Lru } from './cache.js';
import type { CanisterClient } from '../client/index.js';
import type { GatewayConfig } from './config.js';
import { RpcCode, type InternalLog } from './errors.js';
import type { DevControl } from './methods/dev.js';
import type { CallWatcher } from './methods/types.js';
import type { Signer } from './signer.js';
import type { MethodContext } from './methods/index.js';
import { answerBody } from './rpc.js';
import { addressKey, forClient } from './client_key.js';
import { approxJsonBytes } from './cache.js';
import { QueryGate } from './query_gate.js';
import { FilterStore } from './filters.js';
import { PendingFeed } from './pending.js';
import { attachWebSocket } from './ws.js';
import type { ArchiveReader } from '../archive/reader.js';

/** Entries in the immutable-answer cache (blocks, transactions, receipts). */
export const DEFAULT_CACHE_ENTRIES = 4096;

export interface GatewayOptions {
  readonly config: GatewayConfig;
  readonly client: CanisterClient;
  /** Server-side log of internal failures (default: stderr). */
  readonly log?: InternalLog;
  readonly cacheEntries?: number;
  /** The devnet's development methods (evm_mine, evm_snapshot, ...); without it they are -32601. */
  readonly dev?: DevControl;
  /** The devnet's development accounts (keys stay in the devnet); without it eth_accounts is [] and the eth_sign* methods are -32601. */
  readonly signer?: Signer;
  /** Limits on what slow or many clients can make the server hold (defaults: SERVER_LIMITS). */
  readonly limits?: Partial<ServerLimits>;
  /** Historical state reads (src/archive); without it reads below the head are -32000 as before. */
  readonly archive?: ArchiveReader;
  /** The devnet's watcher of eth_call / eth_estimateGas (console.log printing); absent in front of a real canister. */
  readonly calls?: CallWatcher;
}

export interface ServerLimits {
  /** A client must send its complete headers within this (slowloris). */
  readonly headersTimeoutMs: number;
  /** ... and its complete request within this. */
  readonly requestTimeoutMs: number;
  /** Open connections at most; more are refused by the server. */
  readonly maxConnections: number;
}

export const SERVER_LIMITS: ServerLimits = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 1024 };

let lastResortInstalled = false;
/**
 * A last-resort handler: an exception or rejection that escaped every handler is logged and the process keeps
 * serving, instead of ending and taking every client's connection with it. Installed once per process, by the
 * process entry points (the gateway's main, `npm start`), never by tests, whose runner must see such failures.
 */
export function installLastResortHandler(log: InternalLog = (m) => console.error(`[gateway] ${m}`)): void {
  if (lastResortInstalled) return;
  lastResortInstalled = true;
  process.on('unhandledRejection', (reason) => log(`unhandled rejection (kept serving): ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`));
  process.on('uncaughtException', (e) => log(`uncaught exception (kept serving): ${e.stack ?? e.message}`));
}

export interface Gateway {
  readonly server: Server;
  readonly url: string;
  readonly port: number;
  readonly context: MethodContext;
  close(): Promise<void>;
}

const jsonError = (code: number, message: string) => JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } });

function corsHeaders(config: GatewayConfig, req: IncomingMessage): Record<string, string> {
  const h: Record<string, string> = { 'Access-Control-Allow-Origin': config.corsOrigin };
  if (config.corsOrigin !== '*') h.Vary = 'Origin';
  if (req.method === 'OPTIONS') {
    h['Access-Control-Allow-Methods'] = 'POST, OPTIONS';
    h['Access-Control-Allow-Headers'] = req.headers['access-control-request-headers'] ?? 'Content-Type';
    h['Access-Control-Max-Age'] = '86400';
  }
  return h;
}

export function createRequestListener(ctx: MethodContext): (req: IncomingMessage, res: ServerResponse) => void {
  const { config } = ctx;
  return (req, res) => {
    const cors = corsHeaders(config, req);
    const send = (status: number, body?: string): void => {
      if (res.headersSent) return;
      const headers: Record<string, string> = { ...cors };
      if (body !== undefined) {
        headers['Content-Type'] = 'application/json';
        headers['Content-Length'] = String(Buffer.byteLength(body));
      }
      res.writeHead(status, headers);
      res.end(body);
    };
    if (req.method === 'OPTIONS') {
      send(204);
      return;
    }
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST, OPTIONS');
      send(405, jsonError(RpcCode.InvalidRequest, 'only POST is supported'));
      return;
    }
    const tooLarge = (): void => {
      send(413, jsonError(RpcCode.InvalidRequest, `request body larger than ${config.maxHttpBodySize} bytes`));
      req.resume();
    };
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > config.maxHttpBodySize) {
      tooLarge();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let aborted = false;
    req.on('data', (c: Buffer) => {
      if (aborted) return;
      size += c.length;
      if (size > config.maxHttpBodySize) {
        aborted = true;
        chunks.length = 0;
        tooLarge();
        return;
      }
      chunks.push(c);
    });
    req.on('error', () => {
      aborted = true;
    });
    req.on('end', () => {
      if (aborted) return;
      const text = Buffer.concat(chunks).toString('utf8');
      const failed = (e: unknown): void => {
        ctx.log(`unhandled: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        if (!res.headersSent) send(500, jsonError(RpcCode.Internal, 'internal error'));
        else res.destroy();
      };
      answerBody(text, forClient(ctx, addressKey(req.socket.remoteAddress))).then((out) => {
        // A failure while sending is answered too, never a request left open.
        try {
          if (out === undefined) send(204);
          else send(200, out);
        } catch (e) {
          failed(e);
        }
      }, failed);
    });
  };
}

export function createContext(opts: GatewayOptions): MethodContext {
  return {
    client: opts.client,
    config: opts.config,
    cache: new Lru<unknown>(opts.cacheEntries ?? DEFAULT_CACHE_ENTRIES, opts.config.cacheBytes, approxJsonBytes),
    log: opts.log ?? ((m) => console.error(`[gateway] ${m}`)),
    ...(opts.dev === undefined ? {} : { dev: opts.dev }),
    ...(opts.signer === undefined ? {} : { signer: opts.signer }),
    ...(opts.archive === undefined ? {} : { archive: opts.archive }),
    ...(opts.calls === undefined ? {} : { calls: opts.calls }),
    filters: new FilterStore(opts.config.filterTimeoutMs, opts.config.maxFilters, Date.now, opts.config.maxFiltersPerClient),
    pending: new PendingFeed(),
    queries: new QueryGate(opts.config.maxConcurrentQueries, opts.config.maxQueuedQueries, opts.config.maxQueuedQueriesPerClient),
  };
}

/** Starts the gateway on config.host:config.port (port 0 = an ephemeral port). */
export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  const context = createContext(opts);
  const limits = { ...SERVER_LIMITS, ...opts.limits };
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // How often Node checks those timeouts (its default, 30 s, would let a slow client hold on far longer).
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
    },
    createRequestListener(context),
  );
  server.keepAliveTimeout = 5000;
  server.maxConnections = limits.maxConnections;
  // JSON-RPC over WebSocket on the same port (src/gateway/ws.ts).
  const ws = attachWebSocket(server, context);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.config.port, opts.config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = opts.config.host.includes(':') ? `[${opts.config.host}]` : opts.config.host;
  return {
    server,
    port,
    url: `http://${host}:${port}`,
    context,
    close: () =>
      new Promise<void>((resolve) => {
        ws.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
