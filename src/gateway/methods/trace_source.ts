// What the tracing methods (debug_trace*, ots_*, trace_*; docs/traces.md) run on: a block's transactions as the
// canister exported them (export_blocks: each with the sender it carries, its chain hash, and the block's state
// changes outside transactions, export format 2), the archive's state after the block before it and the block's
// own context. They exist only when the gateway has an archive; without one they answer -32601 as any unknown
// method does. A block the archive has not verified (behind, stopped at a mismatch) is -32000 state unavailable.
import { ExportAssembler, ExportFormatError, type ExportedBlock } from '../../core/export/decode.js';
import { ErrorCode, err } from '../../core/errors.js';
import { bytesEqual } from '../../core/codec/bytes.js';
import { archiveCommon, archiveTxCommon, type BlockContext } from '../../archive/evm_context.js';
import { replayTxOf } from '../../archive/replay_tx.js';
import { DEFAULT_TRACE_LIMITS, type BlockTraceRequest, type TraceLimits, type TraceRequest, type TraceTx } from '../../archive/trace/index.js';
import type { ArchiveReader } from '../../archive/reader.js';
import { RpcCode, RpcError } from '../errors.js';
import { blockParam, hash32 } from '../params.js';
import { fromArchive } from './archive_state.js';
import { headNumber, numberOfHash } from './common.js';
import type { MethodContext } from './types.js';

/** The archive, or the answer an unknown method gets (these methods do not exist without one). */
export function archiveOf(ctx: MethodContext, method: string): ArchiveReader {
  if (ctx.archive === undefined) throw new RpcError(RpcCode.MethodNotFound, `the method ${method} does not exist/is not available`);
  return ctx.archive;
}

/** The trace bounds: geth's defaults, the answer no larger than one response may be. */
export function traceLimits(ctx: MethodContext): TraceLimits {
  return { ...DEFAULT_TRACE_LIMITS, maxResultBytes: Math.min(DEFAULT_TRACE_LIMITS.maxResultBytes, ctx.budget?.remaining ?? ctx.config.maxResponseBytes) };
}

const EXPORT_CHUNK_BYTES = 1_200_000;

/** Block n as exported, read whole from the canister (a few export_blocks calls for a large block). */
async function exportedBlock(ctx: MethodContext, n: bigint): Promise<ExportedBlock> {
  const asm = new ExportAssembler({ blockNumber: n, segment: 0, byteOffset: 0 });
  for (;;) {
    const cur = asm.cursor;
    const r = await ctx.client.query('export_blocks', [[{ block_number: cur.blockNumber, segment: cur.segment, byte_offset: cur.byteOffset }], EXPORT_CHUNK_BYTES]);
    if ('Err' in r) {
      if ('Pruned' in r.Err) throw new RpcError(RpcCode.NotFound, `history pruned: block ${n} is below the first available block ${r.Err.Pruned.first_available_block}`);
      throw new RpcError(RpcCode.Server, `state unavailable: block ${n} is not exported`);
    }
    if (r.Ok.chunks.length === 0) throw new RpcError(RpcCode.Server, `state unavailable: block ${n} is not exported`);
    try {
      const done = asm.pushResponse(r.Ok.chunks.map((c) => ({ blockNumber: c.block_number, segment: c.segment, byteOffset: c.byte_offset, segmentLength: c.segment_len, data: c.data })), r.Ok.format_version);
      const b = done.find((x) => x.block.number === n);
      if (b !== undefined) return b;
    } catch (e) {
      if (e instanceof ExportFormatError) {
        ctx.log(`export_blocks at block ${n}: ${e.message}`);
        throw new RpcError(RpcCode.Internal, 'internal error');
      }
      throw e;
    }
  }
}

export interface TracedBlock {
  readonly number: bigint;
  readonly hash: Uint8Array;
  readonly req: BlockTraceRequest;
  /** The chain's hash of each transaction, in block order. */
  readonly hashes: readonly Uint8Array[];
}

/** Block n ready to trace: the state after n - 1, n's context, state changes and transactions. */
export async function tracedBlock(ctx: MethodContext, archive: ArchiveReader, n: bigint): Promise<TracedBlock> {
  if (!(await archive.holds(n))) fromArchive(ctx, await archive.account(new Uint8Array(20), n)); // its state-unavailable error, naming what it holds
  // Tracing starts from the state after n - 1, which a retention floor at n no longer has.
  if (n > 0n && !(await archive.holds(n - 1n))) fromArchive(ctx, await archive.account(new Uint8Array(20), n - 1n));
  const context = (await archive.blockContext(n)) as BlockContext;
  const eb = await exportedBlock(ctx, n);
  // After an evm_revert the archive may still hold the undone block n for a moment: never trace a mix of both.
  if (!bytesEqual(eb.block.hash, context.hash)) fromArchive(ctx, err(ErrorCode.ExecStateUnavailable, `the archive has not followed the chain's block ${n} yet`));
  const common = archiveTxCommon();
  const txs: TraceTx[] = eb.txs.map((t) => ({ tx: replayTxOf(t, common).tx, from: t.from, hash: t.ethHash }));
  return {
    number: n,
    hash: context.hash,
    hashes: eb.txs.map((t) => t.ethHash),
    req: { stateManager: archive.stateAt(n - 1n), common: archiveCommon(), block: context, stateChanges: eb.stateChanges, txs },
  };
}

export interface TracedTx {
  readonly block: TracedBlock;
  readonly index: number;
  readonly req: TraceRequest;
}

/** The transaction of this hash, ready to trace; null when the chain does not know it (or has not included it). */
export async function tracedTx(ctx: MethodContext, archive: ArchiveReader, hashParam: unknown): Promise<TracedTx | null> {
  const hash = hash32(hashParam, 'transactionHash');
  const r = await ctx.client.query('rpc_eth_get_transaction_receipt_with_status_by_eth_hash', [hash]);
  if (!('Found' in r)) {
    if ('NotFound' in r) return null;
    throw new RpcError(RpcCode.NotFound, 'transaction not found: its block was pruned or is unknown');
  }
  const block = await tracedBlock(ctx, archive, r.Found.block_number);
  const index = block.hashes.findIndex((h) => bytesEqual(h, hash));
  if (index < 0) fromArchive(ctx, err(ErrorCode.ExecStateUnavailable, `transaction not in the exported block ${block.number}`));
  const { stateManager, common, block: context, stateChanges, txs } = block.req;
  return { block, index, req: { stateManager, common, block: context, stateChanges, priorTxs: txs.slice(0, index), tx: txs[index]! } };
}

/** The block a block parameter names (tags: the canister's head; hashes: their number). */
export async function blockNumberOf(ctx: MethodContext, archive: ArchiveReader, v: unknown, name = 'block'): Promise<bigint> {
  const p = blockParam(v, name);
  if ('number' in p) return p.number;
  if ('hash' in p) return (await archive.numberOfHash(p.hash)) ?? (await numberOfHash(ctx, p.hash));
  return p.tag === 'earliest' ? 0n : headNumber(ctx);
}
