// The archive's replay-and-verify engine against a chain run by the canister's own core: every block
// re-executed with stock EthereumJS agrees with what the canister exported (receipts, roots, state root); a
// deliberately altered receipt, log, header root or genesis state is caught at that block, naming the
// transaction and the first differing field.
import { describe, expect, it } from 'vitest';
import { Replayer } from '../../src/archive/replay.js';
import type { ExportedBlock } from '../../src/core/export/decode.js';
import { ArchiveTestChain, GENESIS } from '../support/archive_chain.js';
import { ETH } from '../support/chain_testkit.js';

async function replayAll(blocks: readonly ExportedBlock[], genesis = GENESIS) {
  const r = new Replayer();
  r.applyGenesis(genesis);
  for (const b of blocks) {
    const out = await r.replay(b);
    if (!out.ok) return out.mismatch;
  }
  return undefined;
}

describe('archive replay', () => {
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
    const genesis = GENESIS.map((g, i) => (i === 1 ? { address: g.address, balance: 5n * ETH + 1n } : g));
    expect(await replayAll(blocks, genesis)).toMatchObject({ block: 0n, field: 'block.stateRoot' });
  }, 60_000);

  it('catches an altered receiptsRoot and a header gasUsed', async () => {
    const rr = blocks.map((b) => (b.block.number !== 1n ? b : { ...b, block: { ...b.block, receiptsRoot: new Uint8Array(32) } }));
    expect(await replayAll(rr)).toMatchObject({ block: 1n, field: 'block.receiptsRoot' });
    const gu = blocks.map((b) => (b.block.number !== 5n ? b : { ...b, block: { ...b.block, gasUsed: b.block.gasUsed - 1n } }));
    expect(await replayAll(gu)).toMatchObject({ block: 5n, field: 'block.gasUsed' });
  }, 60_000);
});
