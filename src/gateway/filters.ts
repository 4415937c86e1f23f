// Filters held by the gateway, as geth holds them (eth_newFilter, eth_newBlockFilter,
// eth_newPendingTransactionFilter, polled with eth_getFilterChanges). A filter is a position, not a buffer:
// a log filter remembers the next block to read (and the canister's log cursor inside it when a poll stopped
// at its result limit), a block filter the next block, a pending filter its place in the pending feed. So a
// filter costs a few hundred bytes however long it goes unpolled, and each poll answers exactly what came
// since the last one: blocks are final (one producer, no reorganisation), so nothing is delivered twice or
// skipped. Filters unpolled for the configured lifetime (default 5 minutes, as geth) are dropped; the number
// of live filters is bounded in all and per client (the owner key the transport gives: a remote address over
// HTTP, a connection over WebSocket), so one client cannot take the whole pool.
import { randomBytes } from 'node:crypto';
import type { LogCursorView, LogFilterView, Opt } from '../client/schema.js';
import { RpcCode, RpcError } from './errors.js';

export interface LogsFilterState {
  readonly kind: 'logs';
  /** The filter as the client sent it, for eth_getFilterLogs. */
  readonly raw: Readonly<Record<string, unknown>>;
  /** address and topics (the range is set per poll). */
  readonly criteria: Pick<LogFilterView, 'address' | 'topics'>;
  /** Next block whose logs have not been delivered. */
  next: bigint;
  /** Last block to deliver (an explicit toBlock); undefined follows the head. */
  readonly to: bigint | undefined;
  /** The canister's cursor inside block `next` when the last poll stopped at its limit. */
  cursor: Opt<LogCursorView>;
}
export interface BlocksFilterState {
  readonly kind: 'blocks';
  next: bigint;
}
export interface PendingFilterState {
  readonly kind: 'pending';
  /** Sequence number in the pending feed. */
  next: number;
}
export type FilterState = LogsFilterState | BlocksFilterState | PendingFilterState;

interface Entry {
  readonly state: FilterState;
  /** The client that installed it (its quota). */
  readonly owner: string;
  lastUsed: number;
  /** Polls of one filter run one after the other, so two concurrent polls cannot deliver the same logs. */
  queue: Promise<unknown>;
}

export const filterNotFound = (): RpcError => new RpcError(RpcCode.Server, 'filter not found');

/** The owner of filters installed without a client key (in-process callers and tests). */
export const LOCAL_CLIENT = 'local';

export class FilterStore {
  private readonly filters = new Map<string, Entry>();
  /** Live filters per owner. */
  private readonly owned = new Map<string, number>();

  constructor(
    readonly timeoutMs: number,
    readonly max: number,
    private readonly now: () => number = Date.now,
    readonly maxPerClient: number = max,
  ) {}

  /** Live filters of one client. */
  ownedBy(owner: string): number {
    this.sweep();
    return this.owned.get(owner) ?? 0;
  }

  private drop(id: string, e: Entry): void {
    this.filters.delete(id);
    const n = (this.owned.get(e.owner) ?? 1) - 1;
    if (n <= 0) this.owned.delete(e.owner);
    else this.owned.set(e.owner, n);
  }

  get size(): number {
    this.sweep();
    return this.filters.size;
  }

  /** Drops every filter unused for longer than the lifetime. */
  sweep(): void {
    const limit = this.now() - this.timeoutMs;
    for (const [id, e] of this.filters) if (e.lastUsed < limit) this.drop(id, e);
  }

  /** Installs a filter for `owner`; -32005 when the owner has `maxPerClient` live filters or all have `max`. */
  add(state: FilterState, owner: string = LOCAL_CLIENT): string {
    this.sweep();
    if ((this.owned.get(owner) ?? 0) >= this.maxPerClient) {
      throw new RpcError(RpcCode.LimitExceeded, `too many filters: at most ${this.maxPerClient} live filters per client; uninstall unused ones (eth_uninstallFilter)`);
    }
    if (this.filters.size >= this.max) {
      throw new RpcError(RpcCode.LimitExceeded, `too many filters: at most ${this.max} live filters; uninstall unused ones (eth_uninstallFilter)`);
    }
    let id: string;
    do id = `0x${randomBytes(16).toString('hex')}`;
    while (this.filters.has(id));
    this.filters.set(id, { state, owner, lastUsed: this.now(), queue: Promise.resolve() });
    this.owned.set(owner, (this.owned.get(owner) ?? 0) + 1);
    return id;
  }

  private live(id: string): Entry | undefined {
    const e = this.filters.get(id);
    if (e === undefined) return undefined;
    if (e.lastUsed < this.now() - this.timeoutMs) {
      this.drop(id, e);
      return undefined;
    }
    return e;
  }

  /**
   * Runs `fn` on the filter's state after any poll of it still running; a poll refreshes the lifetime.
   * Unknown or expired: -32000 "filter not found" (geth's answer; viem and ethers then install a new filter).
   */
  use<T>(id: string, fn: (state: FilterState) => Promise<T>): Promise<T> {
    const e = this.live(id);
    if (e === undefined) return Promise.reject(filterNotFound());
    e.lastUsed = this.now();
    const run = e.queue.then(
      () => fn(e.state),
      () => fn(e.state),
    );
    e.queue = run.catch(() => undefined);
    return run.finally(() => {
      e.lastUsed = this.now();
    });
  }

  remove(id: string): boolean {
    const e = this.live(id);
    if (e === undefined) return false;
    this.drop(id, e);
    return true;
  }
}
