// The pending pool. Stable maps are the truth (they survive upgrades); a heap index of per-sender queues
// is rebuilt from the compact Pending summaries on first use after (re)start and kept in step with every
// write. All lookups on the maps are point gets by key.
//
// Maps and encodings:
//   Pending (10)              tx_id[8] -> sender[20] || eth_tx_hash[32] || nonce u64 || gas_limit u64 || max_fee big
//                                         || max_priority big || u8 len(principal) || principal
//                                         || arrival_ns u64 || value big   (appended later; records
//                                         written before read as arrival = first load, value = 0)
//   PendingBySenderNonce (11) sender[20] || nonce u64 -> tx_id[8];  sender[20] -> u32 pending count
//   PendingByPrincipal (12)   principal -> u32 pending count (only IcSynthetic submissions count)
//   TxStatus (13)             tx_id -> TxStatus (see tx/stored.ts)
//   DroppedStatusByTime (14)  drop_ns u64 || tx_id -> empty (dropped statuses, removed after their lifetime)
//   Txs (22)                  tx_id -> StoredTx (written at submit; removed if the tx is dropped)
//   TxHashToId (23)           eth_tx_hash -> tx_id

import type { Address, Bytes32 } from '../engine.js';
import { ErrorCode } from '../errors.js';
import type { KvMap } from '../host.js';
import { ByteReader, ByteWriter, bytesEqual, concatBytes, readU64be, toHex, u64be } from '../codec/bytes.js';
import { decodeTxStatus, encodeStoredTx, encodeTxStatus, type StoredTx, type TxStatus } from '../tx/stored.js';

export interface PendingEntry {
  readonly txId: Uint8Array;
  /** Arrival order (the tx_id's sequence number). */
  readonly seq: bigint;
  readonly sender: Address;
  readonly ethHash: Bytes32;
  readonly nonce: bigint;
  readonly gasLimit: bigint;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
  /** IC principal that submitted it through submit_ic_tx; empty otherwise. */
  readonly principal: Uint8Array;
  /** ic0.time at admission (the lifetime of a not-executable transaction runs from here). */
  readonly arrivalNs: bigint;
  /** Value transferred (a sender's pending transactions must be affordable together). */
  readonly value: bigint;
}

export interface PoolMaps {
  readonly pending: KvMap;
  readonly bySenderNonce: KvMap;
  readonly byPrincipal: KvMap;
  readonly status: KvMap;
  readonly txs: KvMap;
  readonly hashToId: KvMap;
  /** Dropped statuses by drop time (MemoryId.DroppedStatusByTime), so they can be removed after their lifetime. */
  readonly droppedByTime?: KvMap;
}

function encodeEntry(e: PendingEntry): Uint8Array {
  return new ByteWriter(120)
    .fixed(e.sender)
    .fixed(e.ethHash)
    .u64(e.nonce)
    .u64(e.gasLimit)
    .big(e.maxFeePerGas)
    .big(e.maxPriorityFeePerGas)
    .short(e.principal)
    .u64(e.arrivalNs)
    .big(e.value)
    .finish();
}

function decodeEntry(txId: Uint8Array, b: Uint8Array, loadedNs: bigint): PendingEntry {
  const r = new ByteReader(b);
  const e = {
    txId: txId.slice(),
    seq: readU64be(txId),
    sender: r.fixed(20).slice(),
    ethHash: r.fixed(32).slice(),
    nonce: r.u64(),
    gasLimit: r.u64(),
    maxFeePerGas: r.big(),
    maxPriorityFeePerGas: r.big(),
    principal: r.short().slice(),
  };
  // Fields appended later: absent in records written before them.
  const arrivalNs = r.remaining >= 8 ? r.u64() : loadedNs;
  const value = r.remaining > 0 ? r.big() : 0n;
  return { ...e, arrivalNs, value };
}

/** sender || u64be(nonce), in one array (made for every submit and included transaction). */
function senderNonceKey(sender: Address, nonce: bigint): Uint8Array {
  const out = new Uint8Array(sender.length + 8);
  out.set(sender, 0);
  new DataView(out.buffer).setBigUint64(sender.length, nonce);
  return out;
}

function readCount(m: KvMap, key: Uint8Array): number {
  const b = m.get(key);
  return b === undefined ? 0 : new DataView(b.buffer, b.byteOffset, 4).getUint32(0);
}

function writeCount(m: KvMap, key: Uint8Array, n: number): void {
  if (n <= 0) m.remove(key);
  else m.insert(key, Uint8Array.of(n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255));
}

export class PendingPool {
  /** sender hex -> that sender's pending entries sorted by nonce. */
  private queues: Map<string, PendingEntry[]> | undefined;
  /**
   * tx_id hex of the entries that cannot run in the next block (a nonce gap before them, or a max fee below
   * the base fee): heap only, recomputed by every block-production pass and kept up by submit. Empty after a
   * restart until the first pass (the limits it feeds are then briefly looser, never stricter).
   */
  readonly notExecutable = new Map<string, PendingEntry>();
  /** Set when the dropped-status index was last seen empty and nothing was dropped since (heap only). */
  private noDroppedStatuses = false;

  constructor(
    readonly maps: PoolMaps,
    private readonly nowNs: () => bigint = () => 0n,
  ) {}

  size(): number {
    return Number(this.maps.pending.len());
  }

  senderCount(sender: Address): number {
    return readCount(this.maps.bySenderNonce, sender);
  }

  principalCount(principal: Uint8Array): number {
    return principal.length === 0 ? 0 : readCount(this.maps.byPrincipal, principal);
  }

  getBySenderNonce(sender: Address, nonce: bigint): PendingEntry | undefined {
    const id = this.maps.bySenderNonce.get(senderNonceKey(sender, nonce));
    if (id === undefined) return undefined;
    const b = this.maps.pending.get(id);
    return b === undefined ? undefined : decodeEntry(id, b, this.nowNs());
  }

  hasSenderNonce(sender: Address, nonce: bigint): boolean {
    return this.maps.bySenderNonce.containsKey(senderNonceKey(sender, nonce));
  }

  /** tx_id of a known transaction by eth_tx_hash (the index is removed when a tx is dropped). */
  idByHash(ethHash: Bytes32): Uint8Array | undefined {
    return this.maps.hashToId.get(ethHash);
  }

  getStatus(txId: Uint8Array): TxStatus | undefined {
    const b = this.maps.status.get(txId);
    return b === undefined ? undefined : decodeTxStatus(b);
  }

  /** Adds an accepted transaction: body, hash index, status, pool summary and counters. */
  add(entry: PendingEntry, tx: StoredTx): void {
    const m = this.maps;
    m.txs.insert(entry.txId, encodeStoredTx(tx));
    m.hashToId.insert(tx.ethHash, entry.txId);
    m.status.insert(entry.txId, encodeTxStatus({ kind: 'Queued' }));
    m.pending.insert(entry.txId, encodeEntry(entry));
    m.bySenderNonce.insert(senderNonceKey(entry.sender, entry.nonce), entry.txId);
    writeCount(m.bySenderNonce, entry.sender, this.senderCount(entry.sender) + 1);
    if (entry.principal.length > 0) writeCount(m.byPrincipal, entry.principal, this.principalCount(entry.principal) + 1);
    if (this.queues !== undefined) {
      const k = toHex(entry.sender);
      const q = this.queues.get(k) ?? [];
      let i = q.length;
      while (i > 0 && q[i - 1]!.nonce > entry.nonce) i--;
      q.splice(i, 0, entry);
      this.queues.set(k, q);
    }
  }

  /** Removes a transaction from the pool, recording why (Included or Dropped). */
  remove(entry: PendingEntry, status: TxStatus): void {
    const m = this.maps;
    m.pending.remove(entry.txId);
    const snKey = senderNonceKey(entry.sender, entry.nonce);
    const cur = m.bySenderNonce.get(snKey);
    if (cur !== undefined && bytesEqual(cur, entry.txId)) m.bySenderNonce.remove(snKey);
    writeCount(m.bySenderNonce, entry.sender, this.senderCount(entry.sender) - 1);
    if (entry.principal.length > 0) writeCount(m.byPrincipal, entry.principal, this.principalCount(entry.principal) - 1);
    m.status.insert(entry.txId, encodeTxStatus(status));
    // (Hex keys cost a loop each in the canister; most blocks have no not-executable entries.)
    if (this.notExecutable.size > 0) this.notExecutable.delete(toHex(entry.txId));
    if (status.kind === 'Dropped') {
      m.droppedByTime?.insert(concatBytes(u64be(this.nowNs()), entry.txId), new Uint8Array(0));
      this.noDroppedStatuses = false;
      // A dropped tx is forgotten except for its status: the body goes, and the hash index goes so
      // that the same bytes can be submitted again later.
      const id = m.hashToId.get(entry.ethHash);
      if (id !== undefined && bytesEqual(id, entry.txId)) m.hashToId.remove(entry.ethHash);
      m.txs.remove(entry.txId);
    }
    if (this.queues !== undefined) {
      const k = toHex(entry.sender);
      const q = this.queues.get(k);
      if (q !== undefined) {
        // An included entry is the head of its queue (block production passes the queue's own object).
        const i = q[0] === entry ? 0 : q.findIndex((e) => bytesEqual(e.txId, entry.txId));
        if (i >= 0) q.splice(i, 1);
        if (q.length === 0) this.queues.delete(k);
      }
    }
  }

  /**
   * Records a block's included transactions (block order: the status of each names its index) with the writes
   * remove() makes for each, but each sender's and principal's pending count is read and written once for the
   * block, and the (sender, nonce) index entry is removed without reading it first: an included entry is the
   * head of its sender's queue, which that index names (one pending entry per sender and nonce: a replacement
   * removes the one it replaces). Finalisation work (block.finalize.instructions_per_tx). `senderKeys`: each
   * entry's key in senderQueues() when the caller has it (block production does), so no hex is made again.
   */
  removeIncluded(entries: readonly PendingEntry[], blockNumber: bigint, blockHash: Bytes32, senderKeys?: readonly string[]): void {
    const m = this.maps;
    const senders = new Map<string, { readonly sender: Address; n: number }>();
    const principals = new Map<string, { readonly principal: Uint8Array; n: number }>();
    entries.forEach((entry, txIndex) => {
      m.pending.remove(entry.txId);
      m.bySenderNonce.remove(senderNonceKey(entry.sender, entry.nonce));
      m.status.insert(entry.txId, encodeTxStatus({ kind: 'Included', blockNumber, txIndex, blockHash }));
      if (this.notExecutable.size > 0) this.notExecutable.delete(toHex(entry.txId));
      const k = senderKeys?.[txIndex] ?? toHex(entry.sender);
      const s = senders.get(k);
      if (s === undefined) senders.set(k, { sender: entry.sender, n: 1 });
      else s.n++;
      if (entry.principal.length > 0) {
        const pk = toHex(entry.principal);
        const p = principals.get(pk);
        if (p === undefined) principals.set(pk, { principal: entry.principal, n: 1 });
        else p.n++;
      }
      const q = this.queues?.get(k);
      if (q !== undefined) {
        const i = q[0] === entry ? 0 : q.findIndex((e) => bytesEqual(e.txId, entry.txId));
        if (i >= 0) q.splice(i, 1);
        if (q.length === 0) this.queues!.delete(k);
      }
    });
    for (const { sender, n } of senders.values()) writeCount(m.bySenderNonce, sender, this.senderCount(sender) - n);
    for (const { principal, n } of principals.values()) writeCount(m.byPrincipal, principal, this.principalCount(principal) - n);
  }

  drop(entry: PendingEntry, code: ErrorCode): void {
    this.remove(entry, { kind: 'Dropped', code });
  }

  /**
   * Removes the statuses of transactions dropped at least `lifetimeNs` ago, oldest first, at most `max`
   * (docs/hardening.md, "Operational state"). Statuses dropped before this index existed are not in it and stay.
   */
  pruneDroppedStatuses(lifetimeNs: bigint, max: number): number {
    const idx = this.maps.droppedByTime;
    if (idx === undefined || this.noDroppedStatuses) return 0;
    const now = this.nowNs();
    let n = 0;
    const items = idx.items(0, max);
    // Seen empty: the next blocks skip the stable-memory read until drop() adds an entry.
    if (items.length === 0) this.noDroppedStatuses = true;
    for (const [k] of items) {
      if (readU64be(k) + lifetimeNs > now) break;
      const txId = k.subarray(8);
      const st = this.maps.status.get(txId);
      if (st !== undefined && decodeTxStatus(st).kind === 'Dropped') this.maps.status.remove(txId);
      idx.remove(k);
      n++;
    }
    return n;
  }

  /** A sender's pending entries, nonce order. */
  queueOf(sender: Address): readonly PendingEntry[] {
    return this.senderQueues().get(toHex(sender)) ?? [];
  }

  /** Drops every pending transaction with `code` (a controller's purge); returns how many. */
  purge(code: ErrorCode): number {
    let n = 0;
    for (const q of [...this.senderQueues().values()]) {
      for (const e of [...q]) {
        this.drop(e, code);
        n++;
      }
    }
    return n;
  }

  /**
   * What a full pool gives up for a better executable transaction paying `maxFeePerGas`: the lowest-paying
   * (then oldest) not-executable entry; failing that, the lowest-paying last entry of a sender's queue (a
   * last entry, so no sender is left with a gap) when it pays less than the newcomer. Undefined: nothing.
   */
  evictionCandidate(maxFeePerGas: bigint): PendingEntry | undefined {
    const worse = (a: PendingEntry, b: PendingEntry | undefined): boolean =>
      b === undefined || a.maxFeePerGas < b.maxFeePerGas || (a.maxFeePerGas === b.maxFeePerGas && a.seq < b.seq);
    let best: PendingEntry | undefined;
    for (const e of this.notExecutable.values()) if (worse(e, best)) best = e;
    if (best !== undefined) return best;
    for (const q of this.senderQueues().values()) {
      const last = q[q.length - 1];
      if (last !== undefined && last.maxFeePerGas < maxFeePerGas && worse(last, best)) best = last;
    }
    return best;
  }

  /**
   * Per-sender queues (nonce order). Built from the Pending map once per process: one sequential pass
   * over compact summaries after an upgrade, then maintained incrementally.
   */
  senderQueues(): ReadonlyMap<string, readonly PendingEntry[]> {
    if (this.queues === undefined) {
      const qs = new Map<string, PendingEntry[]>();
      const bad: Uint8Array[] = [];
      const loadedNs = this.nowNs();
      for (const [k, v] of this.maps.pending.items()) {
        let e: PendingEntry;
        try {
          e = decodeEntry(k, v, loadedNs);
        } catch {
          // A summary that no longer decodes would stop every block: it goes (docs/hardening.md, "The pool").
          bad.push(k.slice());
          continue;
        }
        const hk = toHex(e.sender);
        const q = qs.get(hk);
        if (q === undefined) qs.set(hk, [e]);
        else q.push(e);
      }
      for (const q of qs.values()) q.sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0));
      for (const k of bad) {
        this.maps.pending.remove(k);
        this.maps.txs.remove(k);
        this.maps.status.insert(k, encodeTxStatus({ kind: 'Dropped', code: ErrorCode.PoolDroppedFaulty }));
      }
      this.queues = qs;
    }
    return this.queues;
  }
}
