// The one read of new logs shared by every `logs` subscription. The head follower reads each block's logs once,
// without criteria, in eth_getLogs's pages and byte budget, and hands every log to the subscriptions whose
// address and topics it matches: the canister's cost per block does not grow with the number of subscriptions.
// A subscription remembers the last log it was sent, so when the shared read has to go back for a newer
// subscription (one armed while a read was running), the older ones are not sent a log twice.
import type { LogCursorView, LogFilterView, LogView, Opt } from '../client/schema.js';
import { MAX_LOG_BLOCK_RANGE } from '../core/constants.js';
import { formatLog } from './format.js';
import { toHex } from './hex.js';
import { GATEWAY_MAX_LOG_BYTES, GATEWAY_MAX_LOGS, readLogPages } from './methods/eth_getLogs.js';
import type { LogCriteria } from './methods/filters.js';
import type { MethodContext } from './methods/types.js';

export interface LogListener {
  readonly criteria: LogCriteria;
  /** First block whose logs it wants. */
  readonly from: bigint;
  /** Block number and log index of the last log sent. */
  last: readonly [bigint, number] | undefined;
  /** false when the listener is gone (its connection closed or was cut off as too slow). */
  deliver(log: Record<string, unknown>): boolean;
}


/** A filter's address and topics as sets of hex strings: one log is matched against many filters by lookups. */
interface Matcher {
  /** undefined: any address. */
  readonly addresses: ReadonlySet<string> | undefined;
  /** Per topic position; undefined: any topic there. */
  readonly topics: readonly (ReadonlySet<string> | undefined)[];
}

export function compileCriteria(c: LogCriteria): Matcher {
  const addresses = c.address[0];
  return {
    addresses: addresses === undefined || addresses.length === 0 ? undefined : new Set(addresses.map(toHex)),
    topics: (c.topics[0] ?? []).map((p) => (p[0] === undefined || p[0].length === 0 ? undefined : new Set(p[0].map(toHex)))),
  };
}

/** A log's address and topics in hex, computed once for all the filters it is matched against. */
interface HexLog {
  readonly address: string;
  readonly topics: readonly string[];
}

/**
 * Whether a log satisfies a filter's address and topics, as eth_getLogs reads them (geth's rule, the canister's
 * too): any of the addresses (none or an empty list: any); a log needs at least as many topics as the filter has
 * positions, trailing nulls included; per position null (any) or one of the given topics.
 */
function matches(m: Matcher, l: HexLog): boolean {
  if (m.addresses !== undefined && !m.addresses.has(l.address)) return false;
  if (l.topics.length < m.topics.length) return false;
  for (let i = 0; i < m.topics.length; i++) {
    const want = m.topics[i];
    if (want === undefined) continue;
    const t = l.topics[i];
    if (t === undefined || !want.has(t)) return false;
  }
  return true;
}

export function logMatches(c: LogCriteria, log: LogView): boolean {
  return matches(compileCriteria(c), { address: toHex(log.address), topics: log.topics.map(toHex) });
}

const after = (l: LogView, last: readonly [bigint, number] | undefined): boolean =>
  last === undefined || l.block_number > last[0] || (l.block_number === last[0] && l.log_index > last[1]);

/**
 * Matcher evaluations between two yields to the event loop while a tick hands out logs: 1,024 subscriptions
 * over a 10,000-log block are 10 M evaluations, which must not hold the loop that also serves every request
 * (bench: rpc.gateway.logs_dispatch.max_hold_ms).
 */
export const DISPATCH_SLICE = 16_384;

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class SharedLogRead {
  /** Each listener's compiled criteria, and the read that armed it (see `tick`). */
  private readonly listeners = new Map<LogListener, { readonly matcher: Matcher; readonly armedAt: number }>();
  /** Counts reads; a listener armed during a read is not handed that read's logs. */
  private reads = 0;
  /** True from the start of a read until its position is taken. */
  private reading = false;
  /** Listeners that name addresses, by address: a log is matched only against those naming its address ... */
  private readonly byAddress = new Map<string, Set<LogListener>>();
  /** ... and those that take any address. */
  private readonly anyAddress = new Set<LogListener>();
  /** Next block whose logs have not been read, and the canister's cursor inside it after a read that stopped at a limit. */
  private next: bigint | undefined;
  private cursor: Opt<LogCursorView> = [];

  constructor(private readonly ctx: MethodContext) {}

  get size(): number {
    return this.listeners.size;
  }

  add(l: LogListener): void {
    const m = compileCriteria(l.criteria);
    this.listeners.set(l, { matcher: m, armedAt: this.reads });
    if (m.addresses === undefined) this.anyAddress.add(l);
    else
      for (const a of m.addresses) {
        let set = this.byAddress.get(a);
        if (set === undefined) this.byAddress.set(a, (set = new Set()));
        set.add(l);
      }
    // A listener that starts below the read position makes the read go back for it; the others skip what
    // they were already sent. One armed while a read is in flight is not handed that read's logs (tick), so the
    // read starts again (a new cursor array tells tick its position was moved).
    if (this.next === undefined || l.from < this.next) {
      this.next = l.from;
      this.cursor = [];
    } else if (this.reading) this.cursor = [];
  }

  remove(l: LogListener): void {
    const m = this.listeners.get(l)?.matcher;
    this.listeners.delete(l);
    this.anyAddress.delete(l);
    for (const a of m?.addresses ?? []) {
      const set = this.byAddress.get(a);
      set?.delete(l);
      if (set?.size === 0) this.byAddress.delete(a);
    }
    if (this.listeners.size === 0) {
      this.next = undefined;
      this.cursor = [];
    }
  }

  /**
   * One read up to `head`: at most MAX_LOG_BLOCK_RANGE blocks, eth_getLogs's count and byte limits (the rest on
   * the next tick, from the canister's cursor). Not advanced when the read fails: tried again next tick.
   */
  async tick(head: bigint): Promise<void> {
    const from = this.next;
    if (from === undefined || from > head) return;
    let to = head;
    if (to - from + 1n > MAX_LOG_BLOCK_RANGE) to = from + MAX_LOG_BLOCK_RANGE - 1n;
    const view: LogFilterView = { address: [], topics: [], from_block: [{ Number: from }], to_block: [{ Number: to }], block_hash: [] };
    const before = this.cursor;
    // Listeners armed from here on read from their own start: the position moves back for them (add), and they
    // are not handed this read's logs, which could start after their first block.
    const read = this.reads++;
    this.reading = true;
    let page: Awaited<ReturnType<typeof readLogPages>>;
    try {
      page = await readLogPages(this.ctx, view, before, GATEWAY_MAX_LOGS, GATEWAY_MAX_LOG_BYTES);
    } finally {
      this.reading = false;
    }
    const { logs, next } = page;
    // A listener added during the read moved the position back: keep that, the next tick reads from there.
    if (this.next === from && this.cursor === before) {
      if (next.length === 0) {
        this.next = to + 1n;
        this.cursor = [];
      } else {
        this.next = next[0].block_number;
        this.cursor = next;
      }
    }
    await this.dispatch(logs, read);
  }

  /** Hands each log to the listeners it matches, yielding to the event loop every DISPATCH_SLICE evaluations. */
  private async dispatch(logs: readonly LogView[], read: number): Promise<void> {
    let work = 0;
    for (const l of logs) {
      let formatted: Record<string, unknown> | undefined;
      const h: HexLog = { address: toHex(l.address), topics: l.topics.map(toHex) };
      const named = this.byAddress.get(h.address);
      for (const group of named === undefined ? [this.anyAddress] : [this.anyAddress, named]) {
        // Listeners may come and go while the dispatch waits for the loop: a Set's iteration skips the removed
        // ones, and the ones armed since the read are skipped by their read count.
        for (const s of group) {
          if (++work % DISPATCH_SLICE === 0) await yieldToLoop();
          const e = this.listeners.get(s);
          if (e === undefined || e.armedAt > read || l.block_number < s.from || !after(l, s.last) || !matches(e.matcher, h)) continue;
          formatted ??= formatLog(l);
          if (!s.deliver(formatted)) continue;
          s.last = [l.block_number, l.log_index];
        }
      }
    }
  }
}
