// Pruning, lookup states at the prune boundary, operational states, the integrity check and metrics, on the
// core with the FakeEngine.
import { beforeAll, describe, expect, it } from 'vitest';
import { MemoryKvMap, type MemoryCoreHost } from '../../src/core/host.js';
import { MemoryId } from '../../src/core/store/memory_ids.js';
import { u64be } from '../../src/core/codec/bytes.js';
import { opsForBlock } from '../../src/core/prune/pruner.js';
import { MAX_PRUNE_OPS_PER_TICK, validatePolicy } from '../../src/core/prune/store.js';
import { OPS_CYCLE_LOW_THRESHOLD, OPS_CYCLE_RESUME_THRESHOLD } from '../../src/core/ops/state.js';
import { addr, errCode, okValue, PRICE, sign1559 } from '../support/chain_testkit.js';
import { A, chain, mineBlocks, type Chain } from '../support/lifecycle_kit.js';

const policy = (p: Partial<{ keepRecentBlocks: bigint; maxHistoryBytes: bigint; timerIntervalMs: bigint; maxOpsPerTick: number }>) => ({
  keepRecentBlocks: 0n,
  maxHistoryBytes: 0n,
  timerIntervalMs: 1000n,
  maxOpsPerTick: 5000,
  ...p,
});

function historyBytesOf(host: MemoryCoreHost): bigint {
  let n = 0;
  // The history maps of stable layout 2 (src/core/ops/meter.ts): bodies, and the index and status maps.
  const maps = [MemoryId.Txs, MemoryId.Blocks, MemoryId.Receipts, MemoryId.BlockLogs, MemoryId.BlockHashToNumber, MemoryId.TxHashToId, MemoryId.TxStatus, MemoryId.BlockFeeSummary];
  for (const id of maps) {
    for (const [k, v] of host.openMap(id).items()) n += k.length + v.length;
  }
  return BigInt(n);
}

describe('prune policy validation', () => {
  it('accepts 0 or >= 256 recent blocks, rounds the interval up to whole seconds, bounds ops per tick', () => {
    expect(errCode(validatePolicy(policy({ keepRecentBlocks: 255n })))).toBe('arg.invalid');
    expect(okValue(validatePolicy(policy({ keepRecentBlocks: 256n }))).keepRecentBlocks).toBe(256n);
    expect(errCode(validatePolicy(policy({ timerIntervalMs: 999n })))).toBe('arg.invalid');
    expect(okValue(validatePolicy(policy({ timerIntervalMs: 1500n }))).timerIntervalMs).toBe(2000n);
    expect(okValue(validatePolicy(policy({ timerIntervalMs: 3_600_000n }))).timerIntervalMs).toBe(3_600_000n);
    expect(errCode(validatePolicy(policy({ maxOpsPerTick: 0 })))).toBe('arg.invalid');
    expect(errCode(validatePolicy(policy({ maxOpsPerTick: MAX_PRUNE_OPS_PER_TICK + 1 })))).toBe('arg.invalid');
    expect(okValue(validatePolicy(policy({ maxOpsPerTick: 1 }))).maxOpsPerTick).toBe(1);
  });
});

describe('pruning a chain of 262 blocks', () => {
  let c: Chain;
  let dropped: Uint8Array;
  let replacement: Uint8Array;
  beforeAll(async () => {
    c = await chain();
    // A transaction replaced before mining (Dropped pool.replaced): its status outlives pruning.
    dropped = okValue(c.core.submitRawTx(sign1559(A, { nonce: 0n, to: addr(9), value: 5n })));
    replacement = okValue(c.core.submitRawTx(sign1559(A, { nonce: 0n, to: addr(9), value: 5n, maxFee: 3n * PRICE, tip: 2n * PRICE })));
    expect((await c.core.produceBlock()).kind).toBe('Produced');
    c.nonceA = 1n;
    await mineBlocks(c, 261);
  }, 60_000);

  it('history bytes are counted exactly; nothing is pruned while disabled or by the default policy', () => {
    expect(c.core.blockNumber()).toBe(262n);
    expect(c.core.getPending(dropped)).toEqual({ kind: 'Dropped', code: 'pool.replaced' });
    const m = c.core.metrics();
    expect(m.historyBytes).toBe(historyBytesOf(c.host));
    expect(m.blocksProduced).toBe(262n);
    expect(m.txsProduced).toBe(BigInt(c.mined.length + 1));
    expect(m.drops).toEqual([{ code: 'pool.replaced', count: 1n }]);
    expect(c.core.pruneTick()).toBeUndefined();
    okValue(c.core.setPruningEnabled(true));
    expect(c.core.pruneTick()).toBeUndefined(); // default policy keeps everything
    expect(c.core.pruneStatus().prunedBeforeBlock).toBe(0n);
  });

  it('a tick never does more than max_ops_per_tick deletions; lookups read Pruned as soon as a block starts', () => {
    okValue(c.core.setPrunePolicy(policy({ keepRecentBlocks: 256n, maxOpsPerTick: 3 })));
    // Block 0 (genesis, no txs) takes 4 ops: the first tick leaves it half deleted, already Pruned.
    const t1 = c.core.pruneTick()!;
    expect(t1.ops).toBe(3);
    expect(t1.prunedBefore).toBe(1n);
    expect(c.core.pruneStatus().inProgressBlock).toBe(0n);
    expect(c.core.getBlockByNumberWithStatus(0n, false)).toEqual({ kind: 'Pruned', prunedBeforeBlock: 1n });
    expect(c.host.openMap(MemoryId.Blocks).get(u64be(0n))).toBeDefined(); // the record goes last
    // Block 1 (the replacement, 4 + 4 ops): after the next tick it is in progress, its receipt half deleted.
    const t2 = c.core.pruneTick()!;
    expect(t2.ops).toBe(3);
    expect(t2.blocksCompleted).toBe(1);
    expect(c.core.pruneStatus().inProgressBlock).toBe(1n);
    expect(opsForBlock(1)).toBe(8);
    expect(c.host.openMap(MemoryId.Receipts).get(replacement)).toBeUndefined();
    expect(c.host.openMap(MemoryId.TxStatus).get(replacement)).toBeDefined();
    expect(c.core.getTransactionReceiptWithStatusByTxId(replacement)).toEqual({ kind: 'Pruned', prunedBeforeBlock: 2n });
    expect(c.core.getReceipt(replacement)).toBeUndefined();
    expect(c.core.getTransactionByTxId(replacement)).toBeUndefined();
    let ticks = 0;
    for (;;) {
      const t = c.core.pruneTick();
      if (t === undefined) break;
      expect(t.ops).toBeLessThanOrEqual(3);
      if (++ticks > 1000) throw new Error('pruning does not finish');
      if (t.done) break;
    }
    expect(c.core.pruneTick()).toBeUndefined();
  });

  it('every lookup state at and around the boundary (first available block 7)', () => {
    const first = 262n + 1n - 256n;
    const s = c.core.pruneStatus();
    expect(s.prunedBeforeBlock).toBe(first);
    expect(s.inProgressBlock).toBeUndefined();
    expect(s.prunedBlocks).toBe(first);
    const lastPruned = c.mined.filter((m) => m.block < first);
    expect(s.maxPrunedTxSeq).toBe(BigInt(Math.max(...lastPruned.map((m) => Number(new DataView(m.txId.buffer, m.txId.byteOffset).getBigUint64(0))))));
    // Blocks.
    for (let n = 0n; n < first; n++) expect(c.core.getBlockByNumberWithStatus(n, true)).toEqual({ kind: 'Pruned', prunedBeforeBlock: first });
    expect(c.core.getBlockByNumberWithStatus(first, false).kind).toBe('Found');
    expect(c.core.getBlockByNumberWithStatus(263n, false)).toEqual({ kind: 'NotFound' });
    expect(c.core.getBlockByNumber(first - 1n, false)).toBeUndefined();
    // Receipts of pruned blocks: Pruned by tx_id, PossiblyPruned by hash (the hash index entry is gone).
    for (const t of lastPruned) {
      expect(c.core.getTransactionReceiptWithStatusByTxId(t.txId)).toEqual({ kind: 'Pruned', prunedBeforeBlock: first });
      expect(c.core.getTransactionReceiptWithStatusByEthHash(t.hash)).toEqual({ kind: 'PossiblyPruned', prunedBeforeBlock: first });
      expect(c.core.getTransactionByEthHash(t.hash)).toBeUndefined();
      expect(c.core.getPending(t.txId)).toEqual({ kind: 'Unknown' });
    }
    // The first kept block: Found by both ids.
    for (const t of c.mined.filter((m) => m.block === first)) {
      expect(c.core.getTransactionReceiptWithStatusByTxId(t.txId).kind).toBe('Found');
      expect(c.core.getTransactionReceiptWithStatusByEthHash(t.hash).kind).toBe('Found');
    }
    // The dropped transaction keeps its status: NotFound, not Pruned, though its sequence number is below the boundary.
    expect(c.core.getTransactionReceiptWithStatusByTxId(dropped)).toEqual({ kind: 'NotFound' });
    // A hash never seen: ambiguous once pruning happened. A tx_id never issued: NotFound.
    expect(c.core.getTransactionReceiptWithStatusByEthHash(new Uint8Array(32).fill(7))).toEqual({ kind: 'PossiblyPruned', prunedBeforeBlock: first });
    expect(c.core.getTransactionReceiptWithStatusByTxId(u64be(1_000_000n))).toEqual({ kind: 'NotFound' });
    // Entries are gone from every history map; account state is untouched.
    const pruned = lastPruned[0]!;
    for (const id of [MemoryId.Txs, MemoryId.Receipts, MemoryId.TxStatus]) expect(c.host.openMap(id).get(pruned.txId)).toBeUndefined();
    expect(c.host.openMap(MemoryId.TxHashToId).get(pruned.hash)).toBeUndefined();
    expect(c.host.openMap(MemoryId.Blocks).get(u64be(0n))).toBeUndefined();
    expect(c.engine.getBalance(addr(9))).toBe(5n * 262n);
    expect(c.core.metrics().historyBytes).toBe(historyBytesOf(c.host));
    expect(c.core.runIntegrityCheck()).toBeUndefined();
  });

  it('a queued transaction reads NotFound; pruning never enters the last 256 blocks, even by prune_blocks', async () => {
    const q = okValue(c.core.submitRawTx(sign1559(A, { nonce: c.nonceA + 50n, to: addr(9), value: 5n })));
    expect(c.core.getTransactionReceiptWithStatusByTxId(q)).toEqual({ kind: 'NotFound' });
    const r = okValue(c.core.pruneBlocks(1_000_000n, 100));
    expect(r.ops).toBe(0);
    expect(r.prunedBefore).toBe(7n);
    expect(errCode(c.core.pruneBlocks(10n, 0))).toBe('arg.invalid');
    await mineBlocks(c, 3); // head 265
    const r2 = okValue(c.core.pruneBlocks(9n, MAX_PRUNE_OPS_PER_TICK));
    expect(r2.prunedBefore).toBe(9n);
    expect(r2.done).toBe(true);
  });

  it('a size budget prunes the oldest blocks until history fits (still never the last 256)', async () => {
    await mineBlocks(c, 10); // head 275: blocks 9..19 are prunable
    const before = c.core.metrics().historyBytes;
    okValue(c.core.setPrunePolicy(policy({ maxHistoryBytes: before - 2000n, maxOpsPerTick: 5000 })));
    const t = c.core.pruneTick()!;
    expect(t.ops).toBeGreaterThan(0);
    const after = c.core.metrics().historyBytes;
    expect(after).toBeLessThanOrEqual(before - 2000n);
    expect(after).toBe(historyBytesOf(c.host));
    okValue(c.core.setPrunePolicy(policy({ maxHistoryBytes: 1n })));
    c.core.pruneTick();
    expect(c.core.pruneStatus().prunedBeforeBlock).toBe(c.core.blockNumber() + 1n - 256n);
  });
});

describe('operational states', () => {
  it('Migration refuses submit, production and pruning with ops.write.migration and is left by the controller', async () => {
    const c = await chain();
    await mineBlocks(c, 1);
    okValue(c.core.setMigration(true, 'moving to a new subnet'));
    expect(c.core.opsStatus()).toMatchObject({ mode: 'Migration', reason: 'moving to a new subnet', writesAllowed: false });
    expect(errCode(c.core.submitRawTx(sign1559(A, { nonce: c.nonceA, to: addr(9) })))).toBe('ops.write.migration');
    expect(errCode(c.core.pruneBlocks(1n, 10))).toBe('ops.write.migration');
    // Admin changes stay possible.
    okValue(c.core.setBlockGasLimit(4_000_000n));
    c.host.nowNs += 5_000_000_000n;
    okValue(c.core.setMigration(false, ''));
    expect(c.core.opsStatus()).toEqual({ mode: 'Normal', reason: undefined, sinceNs: c.host.nowNs, writesAllowed: true });
    await mineBlocks(c, 1);
  });

  it('Cycle mode below the low threshold refuses submit (ops.write.cycle), keeps mining, and is left above the resume threshold', async () => {
    const c = await chain();
    const id = okValue(c.core.submitRawTx(sign1559(A, { nonce: 0n, to: addr(9) })));
    expect(c.core.observeCycles(OPS_CYCLE_LOW_THRESHOLD - 1n)).toBe(true);
    expect(c.core.opsStatus().mode).toBe('Cycle');
    expect(errCode(c.core.submitRawTx(sign1559(A, { nonce: 1n, to: addr(9) })))).toBe('ops.write.cycle');
    expect((await c.core.produceBlock()).kind).toBe('Produced');
    expect(c.core.getReceipt(id)?.status).toBe(1);
    // Hysteresis: between the thresholds it stays.
    expect(c.core.observeCycles(OPS_CYCLE_RESUME_THRESHOLD - 1n)).toBe(false);
    expect(c.core.opsStatus().mode).toBe('Cycle');
    expect(c.core.observeCycles(OPS_CYCLE_RESUME_THRESHOLD)).toBe(true);
    expect(c.core.opsStatus().mode).toBe('Normal');
    okValue(c.core.submitRawTx(sign1559(A, { nonce: 1n, to: addr(9) })));
  });

  it('CriticalCorrupt when the head block is missing or pool counters disagree; cleared when the check passes again', async () => {
    const c = await chain();
    await mineBlocks(c, 2);
    expect(c.core.runIntegrityCheck()).toBeUndefined();
    const blocks = c.host.openMap(MemoryId.Blocks) as MemoryKvMap;
    const key = u64be(2n);
    const saved = blocks.get(key)!;
    blocks.remove(key);
    expect(c.core.runIntegrityCheck()).toBe('head block 2 is missing');
    expect(c.core.opsStatus()).toMatchObject({ mode: 'CriticalCorrupt', reason: 'head block 2 is missing', writesAllowed: false });
    expect(c.core.stateReadable()).toBe(false);
    expect(errCode(c.core.submitRawTx(sign1559(A, { nonce: c.nonceA, to: addr(9) })))).toBe('ops.write.critical_corrupt');
    expect(await c.core.produceBlock()).toMatchObject({ kind: 'Rejected', error: { code: 'ops.write.critical_corrupt' } });
    expect(errCode(c.core.setBlockGasLimit(4_000_000n))).toBe('ops.write.critical_corrupt');
    blocks.insert(key, saved);
    expect(c.core.runIntegrityCheck()).toBeUndefined();
    expect(c.core.opsStatus().mode).toBe('Normal');
    // Pool counters: a sender/nonce entry without its pending transaction.
    c.host.openMap(MemoryId.PendingBySenderNonce).insert(new Uint8Array(28).fill(1), new Uint8Array(8));
    expect(c.core.runIntegrityCheck()).toMatch(/^pool counters inconsistent/);
    c.host.openMap(MemoryId.PendingBySenderNonce).remove(new Uint8Array(28).fill(1));
    expect(c.core.runIntegrityCheck()).toBeUndefined();
  });

  it('states are ordered: CriticalCorrupt over Migration over Cycle', async () => {
    const c = await chain();
    c.core.observeCycles(0n);
    okValue(c.core.setMigration(true, 'm'));
    expect(c.core.opsStatus().mode).toBe('Migration');
    okValue(c.core.setMigration(false, ''));
    expect(c.core.opsStatus().mode).toBe('Cycle');
    expect(c.core.metrics().ops.mode).toBe('Cycle');
  });
});

describe('metrics', () => {
  it('counts blocks, transactions, drops by reason and the last block', async () => {
    const c = await chain();
    okValue(c.core.submitRawTx(sign1559(A, { nonce: 0n, to: addr(9) })));
    c.engine.rejectNext = 'x';
    c.host.instructions = 123n;
    expect((await c.core.produceBlock()).kind).toBe('NoBlock');
    c.nonceA = 0n;
    await mineBlocks(c, 2);
    const m = c.core.metrics();
    expect(m.blocksProduced).toBe(2n);
    expect(m.lastBlockNumber).toBe(2n);
    expect(m.lastBlockInstructions).toBe(123n);
    expect(m.drops).toEqual([{ code: 'submit.insufficient_funds', count: 1n }]);
    expect(m.mapEntries.find((e) => e.name === 'Blocks')?.entries).toBe(3n);
    expect(m.pendingTxs).toBe(0n);
    expect(PRICE).toBeGreaterThan(0n);
  });
});
