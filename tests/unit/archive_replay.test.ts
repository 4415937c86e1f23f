// The archive's replay-and-verify engine against a chain run by the canister's own core: every block
// re-executed with stock EthereumJS agrees with what the canister exported (receipts, roots, state root); a
// deliberately altered receipt, log, header root or genesis state is caught at that block, naming the
// transaction and the first differing field.
import { describe, expect, it } from 'vitest';
import { Replayer, type GenesisEntry } from '../../src/archive/replay.js';
import { encodeStateChanges } from '../../src/core/export/state_changes.js';
import type { ExportedBlock } from '../../src/core/export/decode.js';
import { ArchiveTestChain, GENESIS } from '../support/archive_chain.js';
import { ETH } from '../support/chain_testkit.js';
import { Common } from '@ethereumjs/common';
import { archiveCommon, archiveTxCommon } from '../../src/archive/evm_context.js';
import { COMMITMENT_VERSION, transactionsRoot } from '../../src/core/chain/commitments.js';

async function replayAll(blocks: readonly ExportedBlock[], fallbackGenesis: GenesisEntry[] = []) {
  const r = new Replayer();
  r.setFallbackGenesis(fallbackGenesis);
  for (const b of blocks) {
    const out = await r.replay(b);
    if (!out.ok) return out.mismatch;
  }
  return undefined;
}

describe('archive replay', () => {
  it("answers isActivatedEIP as EthereumJS's own lookup does, for every EIP number", () => {
    for (const c of [archiveCommon(), archiveTxCommon()]) {
      const active: number[] = [];
      for (let eip = 0; eip < 10_000; eip++) {
        const own = Common.prototype.isActivatedEIP.call(c, eip);
        expect(c.isActivatedEIP(eip)).toBe(own);
        if (own) active.push(eip);
      }
      expect(active).toContain(7702); // Prague
    }
  });

  let chain: ArchiveTestChain;
  let blocks: ExportedBlock[];

  it('re-executes every block and agrees with the canister', async () => {
    chain = await ArchiveTestChain.create();
    await chain.runScenario();
    blocks = chain.exportedBlocks();
    expect(blocks.length).toBe(7);
    expect(blocks.reduce((n, b) => n + b.txs.length, 0)).toBeGreaterThan(15);
    // the scenario has a failed transaction and a revert
    expect(blocks.some((b) => b.receipts.some((r) => r.status === 0))).toBe(true);
    expect(await replayAll(blocks)).toBeUndefined();
  }, 60_000);

  it('verifies each block by its own commitment version: BLAKE3 on a chain installed now, keccak256 on an older one', async () => {
    expect(blocks.every((b) => b.block.commitment === COMMITMENT_VERSION)).toBe(true);
    // The same blocks claimed as version 1: block 0's state root no longer recomputes.
    const relabelled = blocks.map((b) => ({ ...b, block: { ...b.block, commitment: 1 as const } }));
    expect(await replayAll(relabelled)).toMatchObject({ block: 0n, field: 'block.stateRoot' });
    // A chain installed before commitment versions (keccak256 roots) still replays clean.
    const old = await ArchiveTestChain.create({ commitmentVersion: 1 });
    await old.runScenario();
    const oldBlocks = old.exportedBlocks();
    expect(oldBlocks.every((b) => b.block.commitment === 1)).toBe(true);
    expect(await replayAll(oldBlocks)).toBeUndefined();
    // Its transaction and receipt roots are not version 2's.
    const b1 = oldBlocks[1]!;
    expect(transactionsRoot(b1.txs.map((t) => t.ethHash), 2)).not.toEqual(b1.block.transactionsRoot);
  }, 60_000);

  it('catches an altered receipt (gas used) at its block and transaction', async () => {
    const altered = blocks.map((b) => (b.block.number !== 2n ? b : { ...b, receipts: b.receipts.map((r, i) => (i === 1 ? { ...r, gasUsed: r.gasUsed + 1n } : r)) }));
    const m = await replayAll(altered);
    expect(m).toMatchObject({ block: 2n, txIndex: 1, field: 'receipt.gasUsed' });
    expect(m!.txHash).toMatch(/^0x[0-9a-f]{64}$/);
  }, 60_000);

  it('catches an altered log byte and an altered status', async () => {
    const logAltered = blocks.map((b) =>
      b.block.number !== 2n ? b : { ...b, receipts: b.receipts.map((r, i) => (i === 0 ? { ...r, logs: r.logs.map((l) => ({ ...l, data: l.data.map((x, j) => (j === 31 ? x ^ 1 : x)) })) } : r)) },
    );
    expect(await replayAll(logAltered)).toMatchObject({ block: 2n, txIndex: 0, field: 'receipt.logs[0].data' });
    const statusAltered = blocks.map((b) => (b.block.number !== 3n ? b : { ...b, receipts: b.receipts.map((r, i) => (i === 2 ? { ...r, status: 1 as const } : r)) }));
    expect(await replayAll(statusAltered)).toMatchObject({ block: 3n, txIndex: 2, field: 'receipt.status' });
  }, 60_000);

  it('catches an altered state change: a stateRoot that commits to other writes, and a different genesis state', async () => {
    const rootAltered = blocks.map((b) => (b.block.number !== 4n ? b : { ...b, block: { ...b.block, stateRoot: b.block.stateRoot.map((x, i) => (i === 0 ? x ^ 0xff : x)) } }));
    expect(await replayAll(rootAltered)).toMatchObject({ block: 4n, field: 'block.stateRoot' });
    // Block 0's state changes (the genesis allocations and code) altered with their bytes: caught at block 0.
    const b0 = blocks[0]!;
    expect(b0.stateChanges.length).toBe(GENESIS.length);
    const changes = b0.stateChanges.map((c, i) => (i === 1 ? { ...c, balance: 5n * ETH + 1n } : c));
    const genesisAltered = [{ ...b0, stateChanges: changes, block: { ...b0.block, stateChanges: encodeStateChanges(changes) } }, ...blocks.slice(1)];
    expect(await replayAll(genesisAltered)).toMatchObject({ block: 0n, field: 'block.stateRoot' });
    // Only the decoded list altered (the root still matches its bytes): the next block that touches B is caught.
    const listAltered = [{ ...b0, stateChanges: changes }, ...blocks.slice(1)];
    expect(await replayAll(listAltered)).toMatchObject({ block: 1n, field: 'block.stateRoot' });
    // A genesis given for a block 0 without state changes is chained the pre-format-2 way (one entry at a time),
    // which is not how this chain committed it: caught at block 0, so a wrong fallback never passes unnoticed.
    expect(await replayAll([{ ...b0, stateChanges: [], block: { ...b0.block, stateChanges: undefined } }], GENESIS)).toMatchObject({ block: 0n, field: 'block.stateRoot' });
  }, 60_000);

  it('catches an altered receiptsRoot and a header gasUsed', async () => {
    const rr = blocks.map((b) => (b.block.number !== 1n ? b : { ...b, block: { ...b.block, receiptsRoot: new Uint8Array(32) } }));
    expect(await replayAll(rr)).toMatchObject({ block: 1n, field: 'block.receiptsRoot' });
    const gu = blocks.map((b) => (b.block.number !== 5n ? b : { ...b, block: { ...b.block, gasUsed: b.block.gasUsed - 1n } }));
    expect(await replayAll(gu)).toMatchObject({ block: 5n, field: 'block.gasUsed' });
  }, 60_000);
});
