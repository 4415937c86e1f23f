// export_blocks and the reference decoder: every block rebuilt from small chunks equals the core's own
// views; cursors (resume mid-block, invalid, pruned), the byte clamp and the instruction stop.
import { describe, expect, it } from 'vitest';
import { ExportAssembler, ExportFormatError, decodeBlockSegment, type ExportedBlock } from '../../src/core/export/decode.js';
import { exportedBlockViews } from '../support/export_views.js';
import { EXPORT_MAX_BYTES, type ExportCursor, type ExportResponse } from '../../src/core/export/format.js';
import { MAX_PRUNE_OPS_PER_TICK } from '../../src/core/prune/store.js';
import type { EvmCore } from '../../src/core/index.js';
import { addr, okValue, sign1559 } from '../support/chain_testkit.js';
import { A, chain, mineBlocks } from '../support/lifecycle_kit.js';
import { concatBytes } from '../../src/core/codec/bytes.js';

function exportOk(core: EvmCore, cursor: ExportCursor | undefined, maxBytes: number): ExportResponse {
  const r = core.exportBlocks(cursor, maxBytes);
  if (!r.ok) throw new Error(`export failed: ${JSON.stringify(r.error, (_, v) => (typeof v === 'bigint' ? String(v) : v))}`);
  return r.value;
}

/** Pulls until caught up; returns the blocks and the number of calls. */
function pullAll(core: EvmCore, maxBytes: number, start?: ExportCursor): { blocks: ExportedBlock[]; calls: number } {
  const asm = new ExportAssembler(start ?? { blockNumber: core.pruneStatus().prunedBeforeBlock, segment: 0, byteOffset: 0 });
  const blocks: ExportedBlock[] = [];
  let cursor = start;
  let calls = 0;
  for (;;) {
    const r = exportOk(core, cursor, maxBytes);
    calls++;
    if (r.chunks.length === 0) return { blocks, calls };
    for (const c of r.chunks) {
      expect(c.data.length).toBeLessThanOrEqual(maxBytes);
      blocks.push(...asm.push(c));
    }
    expect(asm.cursor).toEqual(r.nextCursor);
    cursor = r.nextCursor;
  }
}

function expectSameAsCore(core: EvmCore, b: ExportedBlock): void {
  const v = exportedBlockViews(b);
  expect(v.block).toEqual(core.getBlockByNumber(b.block.number, true));
  b.txs.forEach((t, i) => {
    expect(v.txs[i]).toEqual(core.getTransactionByTxId(t.txId));
    expect(v.receipts[i]).toEqual(core.getReceipt(t.txId));
  });
}

describe('export_blocks', () => {
  it('rebuilds every block, transaction and receipt (with logs) from 37-byte chunks', async () => {
    const c = await chain();
    await mineBlocks(c, 12);
    const { blocks, calls } = pullAll(c.core, 37);
    expect(blocks.map((b) => b.block.number)).toEqual(Array.from({ length: 13 }, (_, i) => BigInt(i)));
    expect(calls).toBeGreaterThan(50);
    let logs = 0;
    for (const b of blocks) {
      expectSameAsCore(c.core, b);
      for (const r of b.receipts) logs += r.logs.length;
    }
    expect(logs).toBeGreaterThan(0);
    // Sender and ids are carried as stored.
    const t = blocks[1]!.txs[0]!;
    expect(t.from).toEqual(A.address);
    expect(t.txId).toEqual(c.mined[0]!.txId);
    // One big call returns the same bytes.
    const one = pullAll(c.core, 1_000_000);
    expect(one.calls).toBe(2);
    expect(one.blocks).toEqual(blocks);
  });

  it('resumes at any byte offset: a new assembler restored from a snapshot continues mid-segment', async () => {
    const c = await chain();
    await mineBlocks(c, 4);
    const asm = new ExportAssembler({ blockNumber: 0n, segment: 0, byteOffset: 0 });
    let r = exportOk(c.core, undefined, 1000);
    const got: ExportedBlock[] = [];
    for (const ch of r.chunks) got.push(...asm.push(ch));
    const snap = asm.snapshot();
    expect(snap.cursor).toEqual(r.nextCursor);
    expect(snap.cursor.byteOffset).toBeGreaterThan(0);
    const resumed = new ExportAssembler(snap.cursor, snap);
    // A bare mid-block cursor cannot rebuild the block.
    const bare = new ExportAssembler(snap.cursor);
    r = exportOk(c.core, snap.cursor, 100_000);
    expect(() => bare.push(r.chunks[0]!)).toThrow(ExportFormatError);
    for (const ch of r.chunks) got.push(...resumed.push(ch));
    expect(got.map((b) => b.block.number)).toEqual([0n, 1n, 2n, 3n, 4n]);
    for (const b of got) expectSameAsCore(c.core, b);
  });

  it('answers clear errors for invalid cursors and max_bytes, and an empty page when caught up', async () => {
    const c = await chain();
    await mineBlocks(c, 2);
    const e = (cur: ExportCursor | undefined, max = 100) => {
      const r = c.core.exportBlocks(cur, max);
      return r.ok ? undefined : r.error;
    };
    expect(e({ blockNumber: 0n, segment: 3, byteOffset: 0 })).toMatchObject({ kind: 'InvalidCursor' });
    expect(e({ blockNumber: 4n, segment: 0, byteOffset: 0 })).toMatchObject({ kind: 'InvalidCursor' });
    expect(e({ blockNumber: 3n, segment: 1, byteOffset: 0 })).toMatchObject({ kind: 'InvalidCursor' });
    expect(e({ blockNumber: 1n, segment: 0, byteOffset: 1_000_000 })).toMatchObject({ kind: 'InvalidCursor' });
    expect(e(undefined, 0)).toMatchObject({ kind: 'InvalidArgument' });
    const end = exportOk(c.core, { blockNumber: 3n, segment: 0, byteOffset: 0 }, 100);
    expect(end.chunks).toEqual([]);
    expect(end.nextCursor).toEqual({ blockNumber: 3n, segment: 0, byteOffset: 0 });
    expect(end.headBlock).toBe(2n);
    // byte_offset at a segment's end is the start of the next segment.
    const seg0 = exportOk(c.core, { blockNumber: 1n, segment: 0, byteOffset: 0 }, 100_000).chunks[0]!;
    const next = exportOk(c.core, { blockNumber: 1n, segment: 0, byteOffset: seg0.segmentLength }, 10);
    expect(next.chunks[0]).toMatchObject({ blockNumber: 1n, segment: 1, byteOffset: 0 });
    expect(decodeBlockSegment(seg0.data).number).toBe(1n);
  });

  it('clamps max_bytes to EXPORT_MAX_BYTES and stops at the instruction soft limit', async () => {
    const c = await chain({});
    // 100 KB of zero calldata a transaction (EIP-7623 floor 1,021,000 gas): 25 blocks hold 2.5 MB.
    for (let i = 0; i < 25; i++) {
      okValue(c.core.submitRawTx(sign1559(A, { nonce: BigInt(i), to: addr(4), value: 0n, data: new Uint8Array(100_000), gasLimit: 1_100_000n })));
      expect((await c.core.produceBlock()).kind).toBe('Produced');
    }
    const r = exportOk(c.core, undefined, 2 ** 31);
    const total = r.chunks.reduce((n, ch) => n + ch.data.length, 0);
    expect(total).toBe(EXPORT_MAX_BYTES);
    expect(r.nextCursor.blockNumber).toBeLessThan(25n);
    // Past the soft limit a response still makes progress (one segment), then stops.
    c.host.instructions = 4_000_000_000n;
    const slow = exportOk(c.core, undefined, 2 ** 31);
    expect(slow.chunks.length).toBe(1);
  });

  it('a cursor in pruned history answers Pruned with the first available block; absent cursor starts there', async () => {
    const c = await chain();
    await mineBlocks(c, 260);
    okValue(c.core.pruneBlocks(3n, MAX_PRUNE_OPS_PER_TICK));
    const r = c.core.exportBlocks({ blockNumber: 1n, segment: 2, byteOffset: 5 }, 100);
    expect(r).toEqual({ ok: false, error: { kind: 'Pruned', firstAvailableBlock: 3n } });
    const page = exportOk(c.core, undefined, 100_000);
    expect(page.firstAvailableBlock).toBe(3n);
    expect(page.chunks[0]).toMatchObject({ blockNumber: 3n, segment: 0, byteOffset: 0 });
  }, 60_000);

  it('the decoder refuses another format version and non-contiguous chunks', async () => {
    const c = await chain();
    await mineBlocks(c, 1);
    const r = exportOk(c.core, undefined, 100_000);
    const bad = r.chunks[0]!.data.slice();
    bad[0] = 4;
    expect(() => decodeBlockSegment(bad)).toThrow(/version 4/);
    const asm = new ExportAssembler({ blockNumber: 0n, segment: 0, byteOffset: 0 });
    expect(() => asm.push(r.chunks[1]!)).toThrow(ExportFormatError);
  });

  it('a segment begun in format 2 and continued in format 3 (an upgrade between pages) pulls the block again from its start', async () => {
    const c = await chain();
    await mineBlocks(c, 3);
    const b1 = pullAll(c.core, 1_000_000).blocks[1]!;
    const s0 = b1.segments[0];
    // Block 1 in format 2: segment 0 without the commitment byte (before its empty state-change list).
    expect([...s0.subarray(s0.length - 4)]).toEqual([0, 0, 0, 0]);
    const v2 = concatBytes(s0.subarray(0, s0.length - 5), s0.subarray(s0.length - 4));
    v2[0] = 2;
    const half = v2.length >> 1;
    const asm = new ExportAssembler({ blockNumber: 1n, segment: 0, byteOffset: 0 });
    expect(asm.pushResponse([{ blockNumber: 1n, segment: 0, byteOffset: 0, segmentLength: v2.length, data: v2.subarray(0, half) }], 2)).toEqual([]);
    expect(asm.cursor).toEqual({ blockNumber: 1n, segment: 0, byteOffset: half });
    // The upgraded canister continues the same cursor in format 3: the partial block is dropped, not spliced.
    const page = exportOk(c.core, asm.cursor, 100_000);
    expect(page.chunks[0]!.segmentLength).toBe(v2.length + 1);
    expect(asm.pushResponse(page.chunks, 3)).toEqual([]);
    expect(asm.cursor).toEqual({ blockNumber: 1n, segment: 0, byteOffset: 0 });
    const again = asm.pushResponse(exportOk(c.core, asm.cursor, 100_000).chunks, 3);
    expect(again.map((b) => b.block.number)).toEqual([1n, 2n, 3n]);
    expect(again[0]).toEqual(b1);
    expectSameAsCore(c.core, again[0]!);

    // Same length, other format (segment 1 differs only in its header byte): also pulled again.
    const s1 = b1.segments[1].slice();
    s1[0] = 2;
    const asm1 = new ExportAssembler({ blockNumber: 1n, segment: 1, byteOffset: 0 }, { segments: [s0], partial: new Uint8Array() });
    asm1.pushResponse([{ blockNumber: 1n, segment: 1, byteOffset: 0, segmentLength: s1.length, data: s1.subarray(0, 10) }], 2);
    expect(asm1.pushResponse(exportOk(c.core, asm1.cursor, 100_000).chunks, 3)).toEqual([]);
    expect(asm1.cursor).toEqual({ blockNumber: 1n, segment: 0, byteOffset: 0 });

    // A genuinely malformed chunk of the same encoding is still refused: one running past its segment, and
    // corrupt bytes (an unknown commitment version where format 3 has it).
    const asm2 = new ExportAssembler({ blockNumber: 1n, segment: 0, byteOffset: 0 });
    asm2.pushResponse([{ blockNumber: 1n, segment: 0, byteOffset: 0, segmentLength: s0.length, data: s0.subarray(0, half) }], 3);
    expect(() => asm2.pushResponse([{ blockNumber: 1n, segment: 0, byteOffset: half, segmentLength: s0.length, data: new Uint8Array(s0.length) }], 3)).toThrow(/runs past its segment/);
    const bad = s0.slice();
    bad[bad.length - 5] = 99;
    const asm3 = new ExportAssembler({ blockNumber: 1n, segment: 0, byteOffset: 0 });
    const rest = exportOk(c.core, { blockNumber: 1n, segment: 1, byteOffset: 0 }, 100_000).chunks;
    expect(() => asm3.pushResponse([{ blockNumber: 1n, segment: 0, byteOffset: 0, segmentLength: bad.length, data: bad }, ...rest], 3)).toThrow(ExportFormatError);
  });
});
