// JSON-RPC over WebSocket on the HTTP server's port (an upgrade, as geth and anvil serve it): every method of
// the table, plus eth_subscribe / eth_unsubscribe. One head follower reads the canister's head every
// headPollMs while any block-driven subscription exists and advances each newHeads subscription from its own
// next block; the logs of new blocks are read once for all logs subscriptions (src/gateway/log_feed.ts). Every
// subscriber sees every block and log once, in order, however many blocks arrive between reads. Bounds:
// connections, subscriptions per connection and in all, requests in flight per connection, message size
// (the HTTP body limit), and output queued per connection (a slow consumer is disconnected, never buffered
// without limit). Dead peers are found with ping/pong.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { RpcCode, RpcError } from './errors.js';
import { SharedLogRead, type LogListener } from './log_feed.js';
import { readBlock } from './methods/blocks.js';
import { headNumber } from './methods/common.js';
import { MAX_BLOCKS_PER_POLL, type LogCriteria } from './methods/filters.js';
import type { MethodContext, SubscriptionKind, SubscriptionSession } from './methods/types.js';
import { answerBody } from './rpc.js';
import { forClient } from './client_key.js';

/** Ping every connection this often; one that has not answered the previous ping is closed. */
export const WS_PING_INTERVAL_MS = 30_000;
/** Requests of one connection being answered at once; more closes it (1008). */
export const WS_MAX_IN_FLIGHT = 64;

/** geth's header: a block without its body fields. */
export function headerOf(block: Record<string, unknown>): Record<string, unknown> {
  const { transactions: _t, uncles: _u, withdrawals: _w, size: _s, totalDifficulty: _d, ...header } = block;
  return header;
}

type Send = (result: unknown) => boolean;

/** A newHeads subscription: advances with the chain from its own next block. */
interface BlockSub {
  readonly id: string;
  next: bigint;
  readonly send: Send;
  closed: boolean;
}

class HeadFollower {
  private readonly subs = new Set<BlockSub>();
  /** Every logs subscription reads through this one read of each block's logs. */
  private readonly logRead: SharedLogRead;
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(private readonly ctx: MethodContext) {
    this.logRead = new SharedLogRead(ctx);
  }

  private start(): void {
    this.timer ??= setInterval(() => void this.tick(), this.ctx.config.headPollMs);
  }

  add(s: BlockSub): void {
    this.subs.add(s);
    this.start();
  }

  addLogs(l: LogListener): void {
    this.logRead.add(l);
    this.start();
  }

  remove(s: BlockSub): void {
    this.subs.delete(s);
    if (this.subs.size === 0 && this.logRead.size === 0) this.stop();
  }

  removeLogs(l: LogListener): void {
    this.logRead.remove(l);
    if (this.subs.size === 0 && this.logRead.size === 0) this.stop();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const head = await headNumber(this.ctx);
      for (const s of [...this.subs]) {
        try {
          await this.heads(s, head);
        } catch (e) {
          // Not advanced: the same blocks are tried again on the next tick.
          this.ctx.log(`subscription ${s.id} (newHeads): ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      try {
        await this.logRead.tick(head);
      } catch (e) {
        this.ctx.log(`logs subscriptions: ${e instanceof Error ? e.message : String(e)}`);
      }
    } catch (e) {
      this.ctx.log(`head follower: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.running = false;
    }
  }

  private async heads(s: BlockSub, head: bigint): Promise<void> {
    for (let i = 0; i < MAX_BLOCKS_PER_POLL && s.next <= head && !s.closed; i++) {
      const b = await readBlock(this.ctx, { Number: s.next }, false);
      if (b === null) return;
      if (!s.send(headerOf(b))) return;
      s.next++;
    }
  }
}

/** Subscriptions of all connections together (the bound RPC_GATEWAY_MAX_TOTAL_SUBSCRIPTIONS). */
interface SubscriptionCount {
  live: number;
}

let subCounter = 0n;
const newSubId = (): string => `0x${(++subCounter).toString(16)}${Math.floor(Math.random() * 0xffffffff).toString(16).padStart(8, '0')}`;

let connCounter = 0;

class Connection {
  /** Every live subscription of this connection: how to stop it. */
  private readonly subs = new Map<string, () => void>();
  /** Subscriptions made but not started yet (they count against the bounds). */
  private arming = 0;
  private inFlight = 0;
  alive = true;
  /** The client, for per-client quotas: one WebSocket connection is one client. */
  readonly clientKey = `ws#${++connCounter}`;

  constructor(
    private readonly ws: WebSocket,
    private readonly ctx: MethodContext,
    private readonly follower: HeadFollower,
    private readonly total: SubscriptionCount,
  ) {
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    ws.on('pong', () => (this.alive = true));
    ws.on('close', () => this.dispose());
    ws.on('error', () => this.dispose());
  }

  /** Sends unless the peer is gone or too slow (then it is disconnected); false when not sent. */
  send(text: string): boolean {
    if (this.ws.readyState !== WebSocket.OPEN) return false;
    if (this.ws.bufferedAmount + Buffer.byteLength(text) > this.ctx.config.wsMaxBufferedBytes) {
      this.ctx.log(`websocket: disconnecting a slow consumer (${this.ws.bufferedAmount} bytes queued)`);
      this.ws.terminate();
      this.dispose();
      return false;
    }
    this.ws.send(text);
    return true;
  }

  private notify(id: string, result: unknown): boolean {
    return this.send(JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: id, result } }));
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (++this.inFlight > WS_MAX_IN_FLIGHT) {
      this.ws.close(1008, 'too many requests in flight');
      return;
    }
    const text = isBinary ? '' : Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8');
    // Subscriptions made while answering this message start once its answer is sent, so the id comes first.
    const toArm: (() => void)[] = [];
    const session: SubscriptionSession = {
      subscribe: (kind, criteria) => this.subscribe(toArm, kind, criteria),
      unsubscribe: (id) => this.unsubscribe(id),
    };
    answerBody(text, { ...forClient(this.ctx, this.clientKey), session })
      .then(
        (out) => {
          if (out !== undefined) this.send(out);
        },
        (e: unknown) => {
          this.ctx.log(`unhandled: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
          this.send(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: RpcCode.Internal, message: 'internal error' } }));
        },
      )
      // A failure while sending: logged, the connection keeps serving.
      .catch((e: unknown) => this.ctx.log(`websocket send: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => {
        this.inFlight--;
        for (const a of toArm) a();
      });
  }

  /** The per-connection and the global bound, checked before a subscription is made (-32005). */
  private checkSubscriptionBounds(): void {
    const { maxSubscriptions, maxTotalSubscriptions } = this.ctx.config;
    if (this.subs.size + this.arming >= maxSubscriptions) {
      throw new RpcError(RpcCode.LimitExceeded, `too many subscriptions: at most ${maxSubscriptions} per connection`);
    }
    if (this.total.live >= maxTotalSubscriptions) {
      throw new RpcError(RpcCode.LimitExceeded, `too many subscriptions: the gateway serves at most ${maxTotalSubscriptions}; try again later`);
    }
  }

  private async subscribe(toArm: (() => void)[], kind: SubscriptionKind, criteria: LogCriteria | undefined): Promise<string> {
    this.checkSubscriptionBounds();
    const id = newSubId();
    this.arming++;
    this.total.live++;
    const arm = (start: () => () => void): void => {
      toArm.push(() => {
        this.arming--;
        if (this.ws.readyState !== WebSocket.OPEN) {
          this.total.live--;
          return;
        }
        this.subs.set(id, start());
      });
    };
    if (kind === 'newPendingTransactions') {
      arm(() => this.ctx.pending.listen((hash) => void this.notify(id, hash)));
      return id;
    }
    let next: bigint;
    try {
      next = (await headNumber(this.ctx)) + 1n;
    } catch (e) {
      this.arming--;
      this.total.live--;
      throw e;
    }
    if (kind === 'logs') {
      const l: LogListener = { criteria: criteria!, from: next, last: undefined, deliver: (log) => this.notify(id, log) };
      arm(() => {
        this.follower.addLogs(l);
        return () => this.follower.removeLogs(l);
      });
      return id;
    }
    const s: BlockSub = { id, next, send: (result) => this.notify(id, result), closed: false };
    arm(() => {
      this.follower.add(s);
      return () => {
        s.closed = true;
        this.follower.remove(s);
      };
    });
    return id;
  }

  unsubscribe(id: string): boolean {
    const stop = this.subs.get(id);
    if (stop === undefined) return false;
    stop();
    this.subs.delete(id);
    this.total.live--;
    return true;
  }

  dispose(): void {
    for (const id of [...this.subs.keys()]) this.unsubscribe(id);
  }
}

export interface WebSocketEndpoint {
  readonly connections: number;
  /** Live subscriptions of all connections. */
  readonly subscriptions: number;
  close(): void;
}

/** Serves WebSocket upgrades on `server` with the gateway's context. */
export function attachWebSocket(server: Server, ctx: MethodContext): WebSocketEndpoint {
  const { config } = ctx;
  const wss = new WebSocketServer({ noServer: true, maxPayload: config.maxHttpBodySize });
  const follower = new HeadFollower(ctx);
  const total: SubscriptionCount = { live: 0 };
  const conns = new Map<WebSocket, Connection>();
  const refuse = (socket: Duplex, status: string): void => {
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  };
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    // Browsers send Origin on WebSocket handshakes without CORS: apply the configured origin here.
    const origin = req.headers.origin;
    if (config.corsOrigin !== '*' && origin !== undefined && origin !== config.corsOrigin) return refuse(socket, '403 Forbidden');
    if (conns.size >= config.maxWsConnections) return refuse(socket, '503 Service Unavailable');
    wss.handleUpgrade(req, socket, head, (ws) => {
      const c = new Connection(ws, ctx, follower, total);
      conns.set(ws, c);
      ws.on('close', () => conns.delete(ws));
    });
  };
  server.on('upgrade', onUpgrade);
  const ping = setInterval(() => {
    for (const [ws, c] of conns) {
      if (!c.alive) {
        ws.terminate();
        c.dispose();
        conns.delete(ws);
        continue;
      }
      c.alive = false;
      ws.ping();
    }
  }, WS_PING_INTERVAL_MS);
  ping.unref();
  return {
    get connections() {
      return conns.size;
    },
    get subscriptions() {
      return total.live;
    },
    close() {
      server.off('upgrade', onUpgrade);
      clearInterval(ping);
      follower.stop();
      for (const [ws, c] of conns) {
        c.dispose();
        ws.terminate();
      }
      conns.clear();
      wss.close();
    },
  };
}
