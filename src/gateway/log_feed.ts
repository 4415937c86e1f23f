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

export class SharedLogRead {
  private readonly listeners = new Map<LogListener, Matcher>();
  /** Next block whose logs have not been read, and the canister's cursor inside it after a read that stopped at a limit. */
  private next: bigint | undefined;
  private cursor: Opt<LogCursorView> = [];

  constructor(private readonly ctx: MethodContext) {}

  get size(): number {
    return this.listeners.size;
  }

  add(l: LogListener): void {
    this.listeners.set(l, compileCriteria(l.criteria));
    // A listener that starts below the read position makes the read go back for it; the others skip what
    // they were already sent.
    if (this.next === undefined || l.from < this.next) {
      this.next = l.from;
      this.cursor = [];
    }
  }

  remove(l: LogListener): void {
    this.listeners.delete(l);
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
    const { logs, next } = await readLogPages(this.ctx, view, before, GATEWAY_MAX_LOGS, GATEWAY_MAX_LOG_BYTES);
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
    this.dispatch(logs);
  }

  private dispatch(logs: readonly LogView[]): void {
    for (const l of logs) {
      let formatted: Record<string, unknown> | undefined;
      const h: HexLog = { address: toHex(l.address), topics: l.topics.map(toHex) };
      for (const [s, m] of this.listeners) {
        if (l.block_number < s.from || !after(l, s.last) || !matches(m, h)) continue;
        formatted ??= formatLog(l);
        if (!s.deliver(formatted)) continue;
        s.last = [l.block_number, l.log_index];
      }
    }
  }
}
