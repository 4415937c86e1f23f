// Canister queries of all clients pass one gate: at most `maxConcurrent` in flight, the rest wait in a bounded
// queue served round-robin by client (a client's next query waits behind one query of every other waiting
// client, however many it queued), and a query that finds the queue full, or its client's share of it full, is
// refused at once with -32005. So one client sending hundreds of expensive eth_calls holds at most its share of
// the queue and delays another client's read by at most one query per waiting client.
import type { CanisterClient } from '../client/index.js';
import { RpcCode, RpcError } from './errors.js';

export const queriesBusy = (why: string): RpcError => new RpcError(RpcCode.LimitExceeded, `server busy: ${why}; try again later`);

export class QueryGate {
  private inFlight = 0;
  private queued = 0;
  /** Waiting queries by client; the map's order is the round-robin order. */
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(
    readonly maxConcurrent: number,
    readonly maxQueued: number,
    readonly maxQueuedPerClient: number,
  ) {}

  get running(): number {
    return this.inFlight;
  }
  get waitingCount(): number {
    return this.queued;
  }

  async run<T>(client: string, f: () => Promise<T>): Promise<T> {
    await this.acquire(client);
    try {
      return await f();
    } finally {
      this.release();
    }
  }

  private acquire(client: string): Promise<void> | undefined {
    if (this.inFlight < this.maxConcurrent && this.queued === 0) {
      this.inFlight++;
      return undefined;
    }
    const mine = this.waiting.get(client);
    if ((mine?.length ?? 0) >= this.maxQueuedPerClient) throw queriesBusy(`at most ${this.maxQueuedPerClient} queued canister queries per client`);
    if (this.queued >= this.maxQueued) throw queriesBusy(`at most ${this.maxQueued} canister queries queued`);
    return new Promise<void>((resolve) => {
      if (mine === undefined) this.waiting.set(client, [resolve]);
      else mine.push(resolve);
      this.queued++;
    });
  }

  private release(): void {
    this.inFlight--;
    // The client first in line gets the slot and goes to the back of the line if it has more waiting.
    const first = this.waiting.entries().next();
    if (first.done === true) return;
    const [client, queue] = first.value;
    const wake = queue.shift()!;
    this.waiting.delete(client);
    if (queue.length > 0) this.waiting.set(client, queue);
    this.queued--;
    this.inFlight++;
    wake();
  }
}

/** `base` with its queries passed through `gate` as `clientKey`'s (updates are not gated). */
export function gatedClient(base: CanisterClient, gate: QueryGate, clientKey: string): CanisterClient {
  const query: CanisterClient['query'] = (method, args) => gate.run(clientKey, () => base.query(method, args));
  // Everything else is the client's own, called on the client itself (so its private state stays reachable).
  return new Proxy(base, {
    get(target, prop) {
      if (prop === 'query') return query;
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
