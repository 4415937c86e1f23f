// The stable layout version and the migration from layout 1 (no version key, history_bytes without the index
// maps) to layout 2, on the core with the FakeEngine: an "upgrade" is a new EvmCore over the same maps, as
// post_upgrade builds it. The same migration over real layout-1 stable memory made by the old wasm is
// tests/wasm/canister-upgrade-golden-v1.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { EvmCore } from '../../src/core/index.js';
import type { MemoryCoreHost } from '../../src/core/host.js';
import { MemoryId } from '../../src/core/store/memory_ids.js';
import { LAYOUT_VERSION, LayoutStore } from '../../src/core/store/layout.js';
import { commitmentVersionOf, storedCommitmentVersion } from '../../src/core/chain/commitments.js';
import { MetaKey, metaKey } from '../../src/core/store/meta_keys.js';
import { decodeCounters, encodeCounters } from '../../src/core/ops/meter.js';
import { addr, errCode, okValue, PRICE, sign1559 } from '../support/chain_testkit.js';
import { A, B, chain, mineBlocks, type Chain } from '../support/lifecycle_kit.js';

const BODY_MAPS = [MemoryId.Txs, MemoryId.Blocks, MemoryId.Receipts, MemoryId.BlockLogs];
const INDEX_MAPS = [MemoryId.BlockHashToNumber, MemoryId.TxHashToId, MemoryId.TxStatus, MemoryId.BlockFeeSummary];

function bytesOf(host: MemoryCoreHost, ids: readonly number[]): bigint {
  let n = 0;
  for (const id of ids) for (const [k, v] of host.openMap(id).items()) n += k.length + v.length;
  return BigInt(n);
}

const meta = (c: Chain) => c.host.openMap(MemoryId.Meta);
const layout = (c: Chain) => new LayoutStore(meta(c));

/** What a layout-1 canister has in stable memory: no layout key, history_bytes counting the body maps only. */
function makeLayout1(c: Chain): void {
  meta(c).remove(new TextEncoder().encode('layout'));
  const key = new TextEncoder().encode('metrics');
  const m = decodeCounters(meta(c).get(key));
  m.historyBytes = bytesOf(c.host, BODY_MAPS);
  meta(c).insert(key, encodeCounters(m));
}

/** post_upgrade: a fresh core over the same stable maps. */
function upgrade(c: Chain): EvmCore {
  // The FakeEngine keeps its state on the heap: the same engine stands for the state maps that survive.
  const core = new EvmCore(c.host, c.engine);
  (c as { core: EvmCore }).core = core;
  return core;
}

describe('stable layout version', () => {
  it('is written at install; an upgrade of current data changes nothing', async () => {
    const c = await chain();
    expect(layout(c).stored()).toBe(LAYOUT_VERSION);
    await mineBlocks(c, 3);
    const before = c.core.metrics().historyBytes;
    expect(upgrade(c).checkLayout()).toEqual({ kind: 'Current' });
    expect(c.core.opsStatus().mode).toBe('Normal');
    expect(c.core.metrics().historyBytes).toBe(before);
    expect(before).toBe(bytesOf(c.host, [...BODY_MAPS, ...INDEX_MAPS]));
  });

  it('a newer layout than the code knows is refused with a message naming both versions, and nothing is written', async () => {
    const c = await chain();
    await mineBlocks(c, 2);
    layout(c).setStored(LAYOUT_VERSION + 1);
    const snapshot = JSON.stringify(meta(c).items().map(([k, v]) => [Buffer.from(k).toString('hex'), Buffer.from(v).toString('hex')]));
    const r = upgrade(c).checkLayout();
    expect(r.kind).toBe('Refused');
    if (r.kind !== 'Refused') return;
    expect(r.message).toContain(`layout version ${LAYOUT_VERSION + 1}`);
    expect(r.message).toContain(`up to ${LAYOUT_VERSION}`);
    expect(JSON.stringify(meta(c).items().map(([k, v]) => [Buffer.from(k).toString('hex'), Buffer.from(v).toString('hex')]))).toBe(snapshot);
  });
});

describe('layout 2 -> 3 (the commitment version key)', () => {
  it('a layout-2 chain migrates to 3 in one step that rewrites nothing and keeps commitment version 1', async () => {
    const c = await chain();
    await mineBlocks(c, 3);
    // What a layout-2 canister holds: layout 2, no commitment key (its chain commits with keccak256).
    meta(c).remove(metaKey(MetaKey.Commitment));
    layout(c).setStored(2);
    const snapshot = (): string => JSON.stringify(meta(c).items().filter(([k]) => !['layout', 'layout_migration', 'metrics'].includes(Buffer.from(k).toString())).map(([k, v]) => [Buffer.from(k).toString('hex'), Buffer.from(v).toString('hex')]));
    const before = snapshot();
    const core = upgrade(c);
    expect(core.checkLayout()).toEqual({ kind: 'Migrating', from: 2, target: LAYOUT_VERSION });
    expect(core.opsStatus()).toMatchObject({ mode: 'Migration', writesAllowed: false });
    expect(core.migrationStep(10)).toMatchObject({ done: true, ended: true, visited: 0 });
    expect(layout(c).stored()).toBe(3);
    expect(core.opsStatus().mode).toBe('Normal');
    expect(storedCommitmentVersion(meta(c))).toBeUndefined();
    expect(commitmentVersionOf(meta(c))).toBe(1);
    expect(snapshot()).toBe(before);
  });

  it('a chain installed now is layout 3 with commitment version 2, which a layout-2 wasm refuses (the refusal: "a newer layout" above)', async () => {
    const c = await chain();
    expect(layout(c).stored()).toBe(3);
    expect(storedCommitmentVersion(meta(c))).toBe(2);
  });
});

describe('migration from layout 1 (to the current layout) over a pruned chain with pending, queued, dropped transactions', () => {
  let c: Chain;
  let queued: Uint8Array;
  beforeAll(async () => {
    c = await chain();
    // A replaced transaction (Dropped pool.replaced), 270 blocks, a pruned range with a block left half
    // pruned (its entries partly deleted), and a transaction left pending.
    okValue(c.core.submitRawTx(sign1559(A, { nonce: 0n, to: addr(9), value: 5n })));
    okValue(c.core.submitRawTx(sign1559(A, { nonce: 0n, to: addr(9), value: 5n, maxFee: 3n * PRICE, tip: 2n * PRICE })));
    expect((await c.core.produceBlock()).kind).toBe('Produced');
    c.nonceA = 1n;
    await mineBlocks(c, 269);
    okValue(c.core.pruneBlocks(8n, 50_000));
    const partial = okValue(c.core.pruneBlocks(12n, 6));
    expect(partial.done).toBe(false);
    expect(c.core.pruneStatus().inProgressBlock).toBeDefined();
    queued = okValue(c.core.submitRawTx(sign1559(B, { nonce: c.nonceB, to: addr(5), value: 1n })));
    makeLayout1(c);
  }, 120_000);

  it('runs in bounded steps in the Migration state: writes refused, production and pruning paused, reads served', async () => {
    const expected = bytesOf(c.host, [...BODY_MAPS, ...INDEX_MAPS]);
    const layout1Bytes = bytesOf(c.host, BODY_MAPS);
    const head = c.core.blockNumber();
    const block100 = c.core.getBlockByNumber(100n, true);

    const core = upgrade(c);
    expect(core.checkLayout()).toEqual({ kind: 'Migrating', from: 1, target: LAYOUT_VERSION });
    expect(core.metrics().historyBytes).toBe(layout1Bytes);
    const s = core.opsStatus();
    expect(s).toMatchObject({ mode: 'Migration', writesAllowed: false });
    expect(s.reason).toMatch(new RegExp(`^stable layout migration 1 -> ${LAYOUT_VERSION}: 0 records visited in 0 steps`));
    expect(errCode(core.submitRawTx(sign1559(A, { nonce: c.nonceA, to: addr(9), value: 1n })))).toBe('ops.write.migration');
    expect((await core.produceBlock()).kind).not.toBe('Produced');
    expect(errCode(core.pruneBlocks(20n, 100))).toBe('ops.write.migration');
    okValue(core.setPruningEnabled(true));
    expect(core.pruneTick()).toBeUndefined();
    // A controller leaving Migration does not end a layout migration.
    okValue(core.setMigration(false, ''));
    expect(core.opsStatus().mode).toBe('Migration');
    expect(core.getBlockByNumber(100n, true)).toEqual(block100);
    expect(core.getPending(queued)).toEqual({ kind: 'Queued' });

    // 10 records a step; an upgrade in the middle resumes where the migration stopped (no double counting).
    let steps = 0;
    let visited = 0;
    for (; steps < 5; steps++) {
      const r = core.migrationStep(10);
      expect(r).toMatchObject({ done: false, visited: 10 });
      visited += r.visited;
    }
    expect(core.opsStatus().reason).toMatch(new RegExp(`^stable layout migration 1 -> ${LAYOUT_VERSION}: 50 records visited in 5 steps, at block \\d+$`));
    const again = upgrade(c);
    expect(again.checkLayout()).toEqual({ kind: 'Migrating', from: 1, target: LAYOUT_VERSION });
    for (;;) {
      const r = again.migrationStep(10);
      steps++;
      visited += r.visited;
      expect(r.visited).toBeLessThanOrEqual(10);
      if (r.done) break;
      expect(again.opsStatus().mode).toBe('Migration');
      expect(steps).toBeLessThan(1000);
    }
    // Every block from the half-pruned one to the head, and every tx_id ever issued, visited once.
    const txSeqs = BigInt(c.mined.length + 3);
    const fromBlock = 8n;
    expect(BigInt(visited)).toBe(head - fromBlock + 1n + txSeqs);
    expect(steps).toBeGreaterThan(10);

    expect(layout(c).stored()).toBe(LAYOUT_VERSION);
    expect(layout(c).migration()).toBeUndefined();
    expect(again.opsStatus()).toMatchObject({ mode: 'Normal', writesAllowed: true });
    expect(again.metrics().historyBytes).toBe(expected);
    expect(expected).toBeGreaterThan(layout1Bytes);

    // Writes resume, and the count stays exact through blocks, drops and pruning.
    okValue(again.submitRawTx(sign1559(A, { nonce: c.nonceA, to: addr(9), value: 1n })));
    okValue(again.submitRawTx(sign1559(A, { nonce: c.nonceA, to: addr(9), value: 1n, maxFee: 3n * PRICE, tip: 2n * PRICE })));
    expect((await again.produceBlock()).kind).toBe('Produced');
    expect(again.getPending(queued)).toMatchObject({ kind: 'Included' });
    okValue(again.pruneBlocks(14n, 50_000));
    expect(again.metrics().historyBytes).toBe(bytesOf(c.host, [...BODY_MAPS, ...INDEX_MAPS]));
    expect(upgrade(c).checkLayout()).toEqual({ kind: 'Current' });
  });
});
