// Pruning: deletes the oldest blocks' history, a bounded number of deletions at a time.
//
// What goes for a pruned block n with transactions t_0..t_{k-1} (in this order, one "op" per map removal,
// so a tick can stop and resume at any op):
//   for each t_i: Receipts[tx_id], Txs[tx_id], TxStatus[tx_id], TxHashToId[eth_tx_hash]   (4 ops)
//   then BlockLogs[n], the read API's per-block fee summary (BlockFeeSummary[n], when the store has that
//   map), BlockHashToNumber[hash], Blocks[n]                                                 (4 ops)
// The block record goes last because it lists the transactions a resumed tick still has to delete.
// Account state (accounts, code, storage) is never pruned. Statuses of dropped transactions belong to no
// block and are kept (a few dozen bytes each).
//
// Boundary: when block n starts, pruned_before becomes n + 1 and max_pruned_tx_seq takes in n's tx_ids, in
// the same message; so from then on every lookup treats n as pruned, even while its entries are still being
// deleted by later ticks. Lookup rules (SPEC "Receipt lookup states", docs/lifecycle.md):
//   block n           n < pruned_before: Pruned; else Found or NotFound.
//   receipt by tx_id  a status entry exists: Included in a block below pruned_before -> Pruned; Included ->
//                     Found; Queued or Dropped -> NotFound. No status entry: the sequence number is in
//                     [1, max_pruned_tx_seq] -> Pruned (every accepted tx_id has a status entry until its
//                     block is pruned, and dropped ones keep theirs); otherwise NotFound.
//   receipt by hash   the hash index knows it -> the tx_id rule. It does not, and pruning has happened ->
//                     PossiblyPruned (the index entry of a pruned transaction is gone, so a hash never seen
//                     and a pruned one look the same); before any pruning -> NotFound.

import { bytesEqual, readU64be, u64be } from '../codec/bytes.js';
import type { ChainStore, StoredBlock } from '../chain/store.js';
import type { PendingPool } from '../mempool/pool.js';
import type { KvMap } from '../host.js';
import type { PruneState, PruneStore } from './store.js';

export interface PruneDeps {
  readonly store: ChainStore;
  readonly pool: PendingPool;
  readonly txs: KvMap;
  readonly prune: PruneStore;
}

export interface PruneTickResult {
  /** Deletions done (map removals). */
  readonly ops: number;
  /** Blocks whose deletion finished in this tick. */
  readonly blocksCompleted: number;
  /** The first available block after the tick. */
  readonly prunedBefore: bigint;
  /** True when nothing more is wanted (the target was reached and no block is half deleted). */
  readonly done: boolean;
}

/** Number of ops it takes to prune a block with k transactions. */
export const opsForBlock = (txCount: number): number => 4 * txCount + 4;

/**
 * One bounded step: finishes the block in progress, then starts the next blocks while `wantNext(n)` says
 * so, doing at most `maxOps` removals. State is written once at the end (same message as the removals).
 */
export function pruneStep(d: PruneDeps, wantNext: (n: bigint) => boolean, maxOps: number, nowNs: bigint): PruneTickResult {
  const s: PruneState = { ...d.prune.getState() };
  let ops = 0;
  let blocksCompleted = 0;
  let block: StoredBlock | undefined;
  for (;;) {
    if (s.inProgress !== undefined) {
      const { block: n } = s.inProgress;
      let next = s.inProgress.nextOp;
      if (block === undefined || block.number !== n) block = d.store.getBlock(n);
      if (block === undefined) {
        // The block record (deleted last) is gone: the block is fully deleted.
        s.inProgress = undefined;
        continue;
      }
      const total = opsForBlock(block.txs.length);
      while (next < total && ops < maxOps) {
        removeOp(d, block, next);
        next++;
        ops++;
      }
      if (next < total) {
        s.inProgress = { block: n, nextOp: next };
        break;
      }
      s.inProgress = undefined;
      s.prunedBlocks += 1n;
      blocksCompleted++;
      continue;
    }
    if (ops >= maxOps) break;
    const n = s.prunedBefore;
    if (!wantNext(n)) break;
    block = d.store.getBlock(n);
    if (block === undefined) break; // nothing there (the integrity check reports a hole)
    let maxSeq = s.maxPrunedTxSeq;
    for (const t of block.txs) {
      const seq = readU64be(t.txId);
      if (seq > maxSeq) maxSeq = seq;
    }
    s.maxPrunedTxSeq = maxSeq;
    s.prunedBefore = n + 1n;
    s.inProgress = { block: n, nextOp: 0 };
  }
  s.totalOps += BigInt(ops);
  s.lastTickNs = nowNs;
  s.lastTickOps = ops;
  d.prune.setState(s);
  return { ops, blocksCompleted, prunedBefore: s.prunedBefore, done: s.inProgress === undefined && !wantNext(s.prunedBefore) };
}

function removeOp(d: PruneDeps, b: StoredBlock, op: number): void {
  const k = b.txs.length;
  if (op < 4 * k) {
    const t = b.txs[op >> 2]!;
    switch (op & 3) {
      case 0:
        d.store.maps.receipts.remove(t.txId);
        return;
      case 1:
        d.txs.remove(t.txId);
        return;
      case 2:
        d.pool.maps.status.remove(t.txId);
        return;
      default: {
        const id = d.pool.maps.hashToId.get(t.ethHash);
        if (id !== undefined && bytesEqual(id, t.txId)) d.pool.maps.hashToId.remove(t.ethHash);
        return;
      }
    }
  }
  const key = u64be(b.number);
  if (op === 4 * k) d.store.maps.blockLogs.remove(key);
  else if (op === 4 * k + 1) (d.store.maps as { readonly blockFeeSummary?: KvMap }).blockFeeSummary?.remove(key);
  else if (op === 4 * k + 2) d.store.maps.blockHashToNumber.remove(b.hash);
  else d.store.maps.blocks.remove(key);
}

/**
 * Which block the next prune may start, given the head: never inside the last PRUNE_MIN_KEEP_BLOCKS blocks.
 * Returns the first block number that must be kept.
 */
export function pruneFloor(head: bigint, minKeep: bigint): bigint {
  const f = head + 1n - minKeep;
  return f < 0n ? 0n : f;
}
