// Lifecycle through the real canister wasm: admin methods refuse non-controllers; export_blocks of a whole
// chain in small chunks rebuilds every block, transaction and receipt equal to the canister's own views;
// the prune timer with a small policy (at most max_ops_per_tick deletions a tick) and every lookup state at
// and around the boundary; export from a pruned cursor; metrics.
import { Principal } from '@dfinity/principal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExportAssembler, type ExportedBlock } from '../../src/core/export/decode.js';
import { EXPORT_FORMAT_VERSION } from '../../src/core/export/format.js';
import { COMMITMENT_VERSION, receiptsRoot, transactionsRoot } from '../../src/core/chain/commitments.js';
import { exportedBlockViews } from '../support/export_views.js';
import { blockToCandid, receiptToCandid, txToCandid } from '../../src/canister/convert.js';
import { STORE_INIT, STORED_TOPIC } from '../fixtures/contracts/index.js';
import { word } from '../support/asm.js';
import { Evm, unwrap, type CandidResult, type IcTxInput, type Opt } from '../support/canister.js';
import type { UpdateMethod } from '../../src/client/schema.js';
import { selfAuthenticating, syntheticHash, syntheticSender } from '../support/ic.js';
import { ETH, GWEI, createAddress } from '../support/eth.js';

const CONTROLLER = selfAuthenticating(0x51);
const STRANGER = selfAuthenticating(0x52);
const USER = selfAuthenticating(0x53);
const SENDER = syntheticSender(USER);
const TO = new Uint8Array(20).fill(0x42);
const BLOCKS = 262;
const KEEP = 256n;
const OPS_PER_TICK = 40;

interface Chunk {
  block_number: bigint;
  segment: number;
  byte_offset: number;
  segment_len: number;
  data: Uint8Array;
}
interface ExportOk {
  format_version: number;
  chunks: Chunk[];
  next_cursor: { block_number: bigint; segment: number; byte_offset: number };
  head_block: bigint;
  first_available_block: bigint;
}
type ExportResult = { Ok: ExportOk } | { Err: Record<string, unknown> };

let evm: Evm;
const mined: { txId: Uint8Array; hash: Uint8Array; block: bigint }[] = [];

const icTx = (nonce: bigint, to: Uint8Array | undefined, data: Uint8Array, gas = 21000n): IcTxInput => ({
  to: to === undefined ? [] : [to],
  value: to === undefined || data.length > 0 ? 0n : 1n,
  gas_limit: gas,
  nonce,
  max_fee_per_gas: 1000n * GWEI,
  max_priority_fee_per_gas: 250n * GWEI,
  data,
});

beforeAll(async () => {
  evm = await Evm.start({
    genesis: [{ address: SENDER, balance: 1000n * ETH }],
    controllers: [CONTROLLER],
    prunePolicy: { keep_recent_blocks: 0n, max_history_bytes: 0n, timer_interval_ms: 1000n, max_ops_per_tick: OPS_PER_TICK },
  });
  // A chain of 262 blocks: a Store contract, then a transfer a block and every third block a Store call (logs).
  const store = createAddress(SENDER, 0n);
  for (let i = 0; i < BLOCKS; i++) {
    const nonce = BigInt(i);
    const tx = i === 0 ? icTx(nonce, undefined, STORE_INIT, 300_000n) : i % 3 === 0 ? icTx(nonce, store, word(BigInt(i)), 100_000n) : icTx(nonce, TO, new Uint8Array(0));
    const id = unwrap(await evm.submitIc(tx, USER));
    await evm.mine();
    mined.push({ txId: id, hash: syntheticHash(SENDER, tx), block: BigInt(i + 1) });
  }
}, 600_000);
afterAll(() => evm?.close());

const exportBlocks = (cursor: ExportOk['next_cursor'] | undefined, maxBytes: number): ExportResult =>
  evm.query<ExportResult>('export_blocks', cursor === undefined ? [] : [cursor], maxBytes);

describe('admin methods', () => {
  it('refuse every caller that is not a controller with auth.not_controller', async () => {
    const calls: [Parameters<Evm['client']['update']>[0], unknown[]][] = [
      ['set_block_gas_limit', [4_000_000n]],
      ['set_instruction_soft_limit', [5_000_000_000n]],
      ['set_prune_policy', [{ keep_recent_blocks: 300n, max_history_bytes: 0n, timer_interval_ms: 5000n, max_ops_per_tick: 10 }]],
      ['set_pruning_enabled', [true]],
      ['set_log_filter', [{ Debug: null }]],
      ['prune_blocks', [5n, 10]],
      ['set_ops_mode', [{ Migration: null }, ['x']]],
    ];
    for (const caller of [STRANGER, Principal.anonymous(), USER]) {
      for (const [method, args] of calls) {
        // Ingress is refused by canister_inspect_message with the same code; a call from a canister (no
        // inspection) gets the method's own Err.
        const ingress = await evm.client.as({ caller }).transport.call('update', method, args).then(() => '', (e: Error) => e.message);
        expect(ingress, `${method} by ${caller.toText()}`).toContain('evm.refused[auth.not_controller]');
        const r = (await evm.client.as({ caller, fromCanister: true }).transport.call('update', method, args)) as CandidResult<unknown>;
        expect('Err' in r && r.Err.code, `${method} by ${caller.toText()}`).toBe('auth.not_controller');
      }
    }
    // Nothing changed.
    expect(evm.query<{ mode: object }>('get_ops_status').mode).toEqual({ Normal: null });
    expect(evm.query<{ enabled: boolean; policy: { keep_recent_blocks: bigint } }>('get_prune_status')).toMatchObject({ enabled: false, policy: { keep_recent_blocks: 0n } });
  });

  it('validate their arguments for a controller', async () => {
    const call = async (method: UpdateMethod, ...args: unknown[]) =>
      (await evm.client.as({ caller: CONTROLLER }).transport.call('update', method, args)) as CandidResult<unknown>;
    const code = (r: CandidResult<unknown>) => ('Err' in r ? r.Err.code : 'Ok');
    expect(code(await call('set_block_gas_limit', 0n))).toBe('arg.invalid');
    expect(code(await call('set_instruction_soft_limit', 0n))).toBe('arg.invalid');
    expect(code(await call('set_instruction_soft_limit', 16_000_000_001n))).toBe('arg.invalid');
    expect(code(await call('set_instruction_soft_limit', 16_000_000_000n))).toBe('Ok');
    expect(code(await call('set_instruction_soft_limit', 4_000_000_000n))).toBe('Ok');
    expect(code(await call('set_block_gas_limit', 3_000_000n))).toBe('Ok');
    expect(code(await call('set_prune_policy', { keep_recent_blocks: 100n, max_history_bytes: 0n, timer_interval_ms: 1000n, max_ops_per_tick: 10 }))).toBe('arg.invalid');
    expect(code(await call('set_prune_policy', { keep_recent_blocks: 0n, max_history_bytes: 0n, timer_interval_ms: 999n, max_ops_per_tick: 10 }))).toBe('arg.invalid');
    expect(code(await call('set_prune_policy', { keep_recent_blocks: 0n, max_history_bytes: 0n, timer_interval_ms: 1000n, max_ops_per_tick: 0 }))).toBe('arg.invalid');
    expect(code(await call('prune_blocks', 5n, 0))).toBe('arg.invalid');
    expect(code(await call('set_log_filter', { Debug: null }))).toBe('Ok');
    expect(evm.query<{ log_level: object }>('metrics').log_level).toEqual({ Debug: null });
    expect(code(await call('set_log_filter', { Info: null }))).toBe('Ok');
  });
});

describe('export_blocks', () => {
  it('every block of the chain, pulled 700 bytes at a time and rebuilt with the decoder, equals the canister views', () => {
    const asm = new ExportAssembler({ blockNumber: 0n, segment: 0, byteOffset: 0 });
    const blocks: ExportedBlock[] = [];
    let cursor: ExportOk['next_cursor'] | undefined;
    let calls = 0;
    for (;;) {
      const r = exportBlocks(cursor, 700);
      if (!('Ok' in r)) throw new Error(`export failed: ${JSON.stringify(r.Err)}`);
      calls++;
      expect(r.Ok.format_version).toBe(EXPORT_FORMAT_VERSION);
      const bytes = r.Ok.chunks.reduce((n, c) => n + c.data.length, 0);
      expect(bytes).toBeLessThanOrEqual(700);
      if (r.Ok.chunks.length === 0) break;
      for (const c of r.Ok.chunks) {
        blocks.push(...asm.push({ blockNumber: c.block_number, segment: c.segment, byteOffset: c.byte_offset, segmentLength: c.segment_len, data: c.data }));
      }
      cursor = r.Ok.next_cursor;
      expect(asm.cursor).toEqual({ blockNumber: cursor.block_number, segment: cursor.segment, byteOffset: cursor.byte_offset });
    }
    expect(cursor).toEqual({ block_number: BigInt(BLOCKS + 1), segment: 0, byte_offset: 0 });
    expect(blocks.length).toBe(BLOCKS + 1);
    console.log(`export: ${BLOCKS + 1} blocks in ${calls} calls of 700 bytes`);
    let logs = 0;
    for (const b of blocks) {
      const v = exportedBlockViews(b);
      expect(blockToCandid(v.block)).toEqual(evm.block(b.block.number, true));
      b.txs.forEach((t, i) => {
        expect(t.from).toEqual(SENDER);
        expect(txToCandid(v.txs[i]!)).toEqual(evm.query<Opt<unknown>>('rpc_eth_get_transaction_by_tx_id', t.txId)[0]);
        const receipt = evm.receipt(t.txId);
        expect(receiptToCandid(v.receipts[i]!)).toEqual(receipt);
        logs += receipt!.logs.length;
      });
    }
    // The Store constructor's log plus one per Store call.
    expect(logs).toBe(1 + Math.floor((BLOCKS - 1) / 3));
    // A chain installed now uses COMMITMENT_VERSION, and every root recomputes from the exported records by
    // chain/commitments.ts (the archive replays the state root: tests/unit/archive_replay.test.ts).
    for (const b of blocks) {
      expect(b.block.commitment).toBe(COMMITMENT_VERSION);
      if (b.txs.length === 0) continue;
      expect(transactionsRoot(b.txs.map((t) => t.ethHash), b.block.commitment)).toEqual(b.block.transactionsRoot);
      expect(receiptsRoot(b.receipts, b.block.commitment)).toEqual(b.block.receiptsRoot);
    }
    expect(blocks[4]!.receipts[0]!.logs[0]!.topics[0]).toEqual(STORED_TOPIC);
  });

  it('clear errors for invalid cursors and max_bytes; a huge max_bytes is clamped under the response limit', () => {
    expect(exportBlocks({ block_number: 0n, segment: 3, byte_offset: 0 }, 100)).toMatchObject({ Err: { InvalidCursor: expect.stringContaining('segment') } });
    expect(exportBlocks({ block_number: 10_000n, segment: 0, byte_offset: 0 }, 100)).toMatchObject({ Err: { InvalidCursor: expect.any(String) } });
    expect(exportBlocks({ block_number: 5n, segment: 0, byte_offset: 1_000_000 }, 100)).toMatchObject({ Err: { InvalidCursor: expect.any(String) } });
    expect(exportBlocks(undefined, 0)).toMatchObject({ Err: { InvalidArgument: expect.any(String) } });
    const big = exportBlocks(undefined, 4_000_000_000);
    if (!('Ok' in big)) throw new Error('export failed');
    expect(big.Ok.chunks.reduce((n, c) => n + c.data.length, 0)).toBeLessThanOrEqual(2 * 1024 * 1024);
  });
});

describe('pruning by the timer', () => {
  it('a small policy prunes down to the last 256 blocks, at most max_ops_per_tick deletions a tick', async () => {
    const set = async (method: UpdateMethod, ...args: unknown[]) =>
      unwrap((await evm.client.as({ caller: CONTROLLER }).transport.call('update', method, args)) as CandidResult<unknown>);
    expect(await set('set_prune_policy', { keep_recent_blocks: KEEP, max_history_bytes: 0n, timer_interval_ms: 1500n, max_ops_per_tick: OPS_PER_TICK })).toEqual({
      keep_recent_blocks: KEEP,
      max_history_bytes: 0n,
      timer_interval_ms: 2000n, // rounded up to whole seconds
      max_ops_per_tick: OPS_PER_TICK,
    });
    const historyBefore = evm.query<{ history_bytes: bigint }>('metrics').history_bytes;
    await set('set_pruning_enabled', true);
    const first = BigInt(BLOCKS) + 1n - KEEP;
    let ticks = 0;
    for (;;) {
      const ran = await evm.mine(2000);
      const s = evm.query<{ pruned_before_block: bigint; in_progress_block: Opt<bigint>; last_tick_ops: number; total_ops: bigint }>('get_prune_status');
      expect(s.last_tick_ops).toBeLessThanOrEqual(OPS_PER_TICK);
      for (const m of ran) expect(m.instructions ?? 0n).toBeLessThan(5_000_000_000n);
      if (s.pruned_before_block === first && s.in_progress_block.length === 0) break;
      if (++ticks > 100) throw new Error('pruning did not finish');
    }
    expect(ticks).toBeGreaterThan(0);
    const m = evm.query<{ history_bytes: bigint; blocks_produced: bigint; txs_produced: bigint; prune: { pruned_blocks: bigint } }>('metrics');
    expect(m.history_bytes).toBeLessThan(historyBefore);
    expect(m.prune.pruned_blocks).toBe(first);
    expect(m.blocks_produced).toBe(BigInt(BLOCKS));
    expect(m.txs_produced).toBe(BigInt(BLOCKS));
  });

  it('every lookup state at and around the boundary', () => {
    const first = BigInt(BLOCKS) + 1n - KEEP;
    const pruned = { pruned_before_block: first };
    expect(evm.query('rpc_eth_get_block_by_number_with_status', first - 1n, false)).toEqual({ Pruned: pruned });
    expect(evm.query('rpc_eth_get_block_by_number_with_status', 0n, false)).toEqual({ Pruned: pruned });
    expect(evm.query<{ Found?: unknown }>('rpc_eth_get_block_by_number_with_status', first, false).Found).toBeDefined();
    expect(evm.query('rpc_eth_get_block_by_number_with_status', BigInt(BLOCKS) + 1n, false)).toEqual({ NotFound: null });
    expect(evm.block(first - 1n)).toBeUndefined();
    for (const t of mined) {
      const byId = evm.query<Record<string, unknown>>('rpc_eth_get_transaction_receipt_with_status_by_tx_id', t.txId);
      const byHash = evm.query<Record<string, unknown>>('rpc_eth_get_transaction_receipt_with_status_by_eth_hash', t.hash);
      if (t.block < first) {
        expect(byId).toEqual({ Pruned: pruned });
        expect(byHash).toEqual({ PossiblyPruned: pruned });
        expect(evm.receipt(t.txId)).toBeUndefined();
        expect(evm.query<Opt<unknown>>('rpc_eth_get_transaction_by_eth_hash', t.hash)).toEqual([]);
      } else {
        expect(Object.keys(byId)).toEqual(['Found']);
        expect(Object.keys(byHash)).toEqual(['Found']);
      }
    }
    expect(evm.query('rpc_eth_get_transaction_receipt_with_status_by_eth_hash', new Uint8Array(32).fill(9))).toEqual({ PossiblyPruned: pruned });
    expect(evm.query('rpc_eth_get_transaction_receipt_with_status_by_tx_id', word(1n << 40n).subarray(24))).toEqual({ NotFound: null });
    // Account state is never pruned.
    expect(evm.balance(TO)).toBe(BigInt(mined.filter((_, i) => i > 0 && i % 3 !== 0).length));
  });

  it('export from a pruned cursor answers Pruned with the first available block; no cursor starts there', () => {
    const first = BigInt(BLOCKS) + 1n - KEEP;
    expect(exportBlocks({ block_number: 0n, segment: 1, byte_offset: 10 }, 1000)).toEqual({ Err: { Pruned: { first_available_block: first } } });
    const r = exportBlocks(undefined, 1000);
    if (!('Ok' in r)) throw new Error('export failed');
    expect(r.Ok.first_available_block).toBe(first);
    expect(r.Ok.chunks[0]).toMatchObject({ block_number: first, segment: 0, byte_offset: 0 });
  });
});
