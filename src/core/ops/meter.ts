// Lifecycle counters for `metrics`, kept in the Meta map under the key `metrics` (raw bytes, one record):
//
//   metrics = u8 version(1) || blocks_produced u64 || txs_produced u64 || last_block_number u64
//             || last_block_instructions u64 || history_bytes u64 || u16 n || n * (code str || count u64)
//             (str = u8 len + utf8; the n entries are the drops by reason, in first-seen order)
//
// history_bytes is the exact sum of key + value lengths of the history maps: the bodies Txs (22, every
// accepted transaction's body, pending or mined), Blocks (20), Receipts (24) and BlockLogs (25), and since
// stable layout 2 (store/layout.ts) also the index and status maps BlockHashToNumber (21), TxHashToId (23),
// TxStatus (13) and BlockFeeSummary (30), about 130 bytes a transaction. It is what the prune policy's
// `max_history_bytes` budget compares with. Layout 1 did not count the index maps; the migration to layout 2
// (ops/migration.ts) adds their existing entries.
//
// The counting is done by `metered()` wrappers around those maps (the facade opens them through it), so no
// write path needs to know about metrics: an insert adds its size (the body maps are never overwritten in
// place; `meteredIndex` reads the old value first, since TxStatus is), a remove reads the value first to
// subtract it (only drops and pruning remove). Drops are seen
// as TxStatus writes of a Dropped status (first byte 2, then the code). Counters live on the heap and are
// written to Meta by `flush()` at the end of every facade write method, inside the same message, so a trap
// rolls them back with the writes they count.

import type { KvMap } from '../host.js';
import { ByteReader, ByteWriter } from '../codec/bytes.js';
import { MetaKey, metaKey } from '../store/meta_keys.js';

const KEY = metaKey(MetaKey.Metrics);
const dec = new TextDecoder();

export interface LifecycleCounters {
  blocksProduced: bigint;
  txsProduced: bigint;
  lastBlockNumber: bigint;
  lastBlockInstructions: bigint;
  historyBytes: bigint;
  /** Dropped transactions by code, e.g. submit.nonce_too_low, pool.replaced. */
  readonly drops: Map<string, bigint>;
}

export function encodeCounters(c: LifecycleCounters): Uint8Array {
  const w = new ByteWriter(64 + c.drops.size * 40)
    .u8(1)
    .u64(c.blocksProduced)
    .u64(c.txsProduced)
    .u64(c.lastBlockNumber)
    .u64(c.lastBlockInstructions)
    .u64(c.historyBytes < 0n ? 0n : c.historyBytes);
  w.u8(c.drops.size >> 8).u8(c.drops.size & 255);
  for (const [code, n] of c.drops) w.str(code).u64(n);
  return w.finish();
}

export function decodeCounters(b: Uint8Array | undefined): LifecycleCounters {
  const c: LifecycleCounters = { blocksProduced: 0n, txsProduced: 0n, lastBlockNumber: 0n, lastBlockInstructions: 0n, historyBytes: 0n, drops: new Map() };
  if (b === undefined || b[0] !== 1) return c;
  const r = new ByteReader(b);
  r.u8();
  c.blocksProduced = r.u64();
  c.txsProduced = r.u64();
  c.lastBlockNumber = r.u64();
  c.lastBlockInstructions = r.u64();
  c.historyBytes = r.u64();
  const n = (r.u8() << 8) | r.u8();
  for (let i = 0; i < n; i++) {
    const code = r.str();
    c.drops.set(code, r.u64());
  }
  return c;
}

export class Meter {
  private counters: LifecycleCounters | undefined;
  private dirty = false;

  constructor(private readonly meta: KvMap) {}

  get(): LifecycleCounters {
    return (this.counters ??= decodeCounters(this.meta.get(KEY)));
  }

  private touch(): LifecycleCounters {
    this.dirty = true;
    return this.get();
  }

  addHistoryBytes(n: number): void {
    this.touch().historyBytes += BigInt(n);
  }

  countDrop(code: string): void {
    const d = this.touch().drops;
    d.set(code, (d.get(code) ?? 0n) + 1n);
  }

  blockProduced(number: bigint, txCount: number, instructions: bigint): void {
    const c = this.touch();
    c.blocksProduced += 1n;
    c.txsProduced += BigInt(txCount);
    c.lastBlockNumber = number;
    c.lastBlockInstructions = instructions;
  }

  /** Writes the counters to Meta if anything changed in this message. */
  flush(): void {
    if (!this.dirty || this.counters === undefined) return;
    this.meta.insert(KEY, encodeCounters(this.counters));
    this.dirty = false;
  }

  /** Drops the heap copy (after a message that may have been rolled back; queries never flush). */
  reset(): void {
    this.counters = undefined;
    this.dirty = false;
  }

  /** A history map whose inserts and removes are counted in history_bytes. */
  metered(map: KvMap): KvMap {
    return {
      get: (k) => map.get(k),
      containsKey: (k) => map.containsKey(k),
      len: () => map.len(),
      items: (s, l) => map.items(s, l),
      insert: (k, v) => {
        map.insert(k, v);
        this.addHistoryBytes(k.length + v.length);
      },
      remove: (k) => {
        const old = map.get(k);
        if (old === undefined) return;
        map.remove(k);
        this.addHistoryBytes(-(k.length + old.length));
      },
    };
  }

  /** An index or status map, counted in history_bytes like `metered`, whose entries may be overwritten (TxStatus). */
  meteredIndex(map: KvMap): KvMap {
    const m = this.metered(map);
    return {
      ...m,
      insert: (k, v) => {
        // One B-tree call where the map returns what it replaced (block.finalize.instructions_per_tx: a status a transaction).
        let old: Uint8Array | undefined;
        if (map.insertOld !== undefined) old = map.insertOld(k, v);
        else {
          old = map.get(k);
          map.insert(k, v);
        }
        this.addHistoryBytes(v.length - (old === undefined ? -k.length : old.length));
      },
    };
  }

  /** The TxStatus map, watched for Dropped statuses (u8 2 || code str, see tx/stored.ts). */
  watchDrops(map: KvMap): KvMap {
    return {
      get: (k) => map.get(k),
      containsKey: (k) => map.containsKey(k),
      len: () => map.len(),
      items: (s, l) => map.items(s, l),
      remove: (k) => map.remove(k),
      insert: (k, v) => {
        map.insert(k, v);
        if (v[0] === 2 && v.length >= 2) this.countDrop(dec.decode(v.subarray(2, 2 + v[1]!)));
      },
    };
  }
}
