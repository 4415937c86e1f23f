// Otterscan's block methods as anvil serves them (docs/traces.md): a block's header with its transaction count,
// issuance and fees, and a page of its transactions with their receipts. Built from the gateway's own
// eth_getBlockBy* and eth_getBlockReceipts answers (same shapes, same cache), so they are the chain's blocks.
import type { CandidBlockRef } from '../../client/schema.js';
import { MAX_TXS_PER_BLOCK } from '../../core/constants.js';
import { OtsQueryError } from '../../archive/ots_queries.js';
import { fromCanisterError, invalidParams, RpcCode, RpcError } from '../errors.js';
import { qty } from '../hex.js';
import { blockParam, hash32, MAX_U64, positional, u64 } from '../params.js';
import { blockRef, eth_getBlockReceipts, readBlock } from './blocks.js';
import { archiveOf } from './trace_source.js';
import type { MethodContext, MethodSpec } from './types.js';

export const ONLY_WITH_ARCHIVE = 'Only when the gateway has an archive (`npm start` does; RPC_GATEWAY_ARCHIVE_DATABASE_URL), else -32601.';

/** The largest page ots_getBlockTransactions and ots_searchTransactions* answer (Otterscan asks for 25). */
export const OTS_MAX_PAGE_SIZE = 100;

/** A JSON number (what Otterscan and anvil send) or a hex quantity, as a non-negative integer. */
export function otsInteger(v: unknown, name: string, max: bigint = MAX_U64): bigint {
  let n: bigint;
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || v < 0) throw invalidParams(`${name}: expected a non-negative integer`);
    n = BigInt(v);
  } else n = u64(v, name);
  if (n > max) throw invalidParams(`${name}: at most ${max}`);
  return n;
}

export function otsPageSize(v: unknown): number {
  const n = otsInteger(v, 'pageSize');
  if (n > BigInt(OTS_MAX_PAGE_SIZE)) throw invalidParams(`pageSize: at most ${OTS_MAX_PAGE_SIZE}, got ${n}`);
  return Number(n);
}

/** Runs an Otterscan lookup, its own failures through the gateway's error table. */
export async function otsLookup<T>(ctx: MethodContext, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof OtsQueryError) throw fromCanisterError({ code: e.code, message: e.message, data: [] }, ctx.log);
    throw e;
  }
}

const notFound = (): RpcError => new RpcError(RpcCode.NotFound, 'block not found');

/** Every receipt of block n (eth_getBlockReceipts' answer: cached, paged through the canister). */
async function receiptsOf(ctx: MethodContext, n: string): Promise<Record<string, unknown>[]> {
  const r = (await eth_getBlockReceipts.handler([n], ctx)) as Record<string, unknown>[] | null;
  if (r === null) throw notFound();
  return r;
}

/** The block without its transactions, as anvil's ots_getBlockDetails: count, issuance (none here) and fees. */
async function blockDetails(ctx: MethodContext, ref: CandidBlockRef): Promise<unknown> {
  const b = await readBlock(ctx, ref, false);
  if (b === null) throw notFound();
  const { transactions, ...header } = b;
  const receipts = await receiptsOf(ctx, b.number as string);
  // Each transaction's fee as its receipt states it (gas used times the price paid, tip and base fee together).
  const totalFees = receipts.reduce((s, r) => s + BigInt(r.gasUsed as string) * BigInt(r.effectiveGasPrice as string), 0n);
  return {
    block: { ...header, transactionCount: (transactions as unknown[]).length },
    // No block reward and no uncles on this chain.
    issuance: { blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' },
    totalFees: qty(totalFees),
  };
}

export const ots_getBlockDetails: MethodSpec = {
  name: 'ots_getBlockDetails',
  canister: ['rpc_eth_block_number', 'rpc_eth_get_block_by_number_with_status', 'rpc_eth_get_block_receipts_paged'],
  blockTags: '`latest`, `pending`, `safe`, `finalized` (= head), `earliest` (= 0), number (JSON or hex)',
  limits: "one block and its receipts (eth_getBlockReceipts' pages)",
  differences: `${ONLY_WITH_ARCHIVE} The block without \`transactions\`, with \`transactionCount\`; \`issuance\` all zero (no block reward) and \`totalFees\` the sum of gas used times effective gas price, as anvil. An unknown block is -32001.`,
  async handler(params, ctx) {
    archiveOf(ctx, 'ots_getBlockDetails');
    const [v] = positional(params, 'ots_getBlockDetails', 1, 1);
    const p = typeof v === 'number' ? { number: otsInteger(v, 'block') } : blockParam(v, 'block');
    if ('hash' in p) throw invalidParams('block: expected a block number or tag (use ots_getBlockDetailsByHash)');
    return blockDetails(ctx, await blockRef(ctx, 'number' in p ? qty(p.number) : p.tag));
  },
};

export const ots_getBlockDetailsByHash: MethodSpec = {
  name: 'ots_getBlockDetailsByHash',
  canister: ['rpc_eth_get_block_by_hash_with_status', 'rpc_eth_get_block_receipts_paged'],
  blockTags: '-',
  limits: "one block and its receipts (eth_getBlockReceipts' pages)",
  differences: `${ONLY_WITH_ARCHIVE} ots_getBlockDetails of the block with this hash; an unknown hash is -32001.`,
  async handler(params, ctx) {
    archiveOf(ctx, 'ots_getBlockDetailsByHash');
    const [h] = positional(params, 'ots_getBlockDetailsByHash', 1, 1);
    return blockDetails(ctx, { Hash: hash32(h, 'blockHash') });
  },
};

/** A transaction as Otterscan's block page lists it: its input cut to the selector, as anvil does. */
function listed(tx: Record<string, unknown>): Record<string, unknown> {
  const input = tx.input as string;
  return { ...tx, input: input.slice(0, 10) };
}

/** A receipt with its block's timestamp, as Otterscan's lists carry it. */
export const withTimestamp = (r: Record<string, unknown>, timestamp: string): Record<string, unknown> => ({ ...r, timestamp });

export const ots_getBlockTransactions: MethodSpec = {
  name: 'ots_getBlockTransactions',
  canister: ['rpc_eth_get_block_by_number_with_status', 'rpc_eth_get_block_receipts_paged'],
  blockTags: 'number (JSON or hex)',
  limits: `pageSize at most ${OTS_MAX_PAGE_SIZE}, page at most ${MAX_TXS_PER_BLOCK} (a block's most transactions; else -32602)`,
  differences: `${ONLY_WITH_ARCHIVE} The block with page \`page\` (from 0) of \`pageSize\` transactions (inputs cut to their first 4 bytes) and their receipts with the block's \`timestamp\`, as anvil; \`transactionCount\` is the block's count (Otterscan's page count; anvil counts the page). An unknown block is -32001.`,
  async handler(params, ctx) {
    archiveOf(ctx, 'ots_getBlockTransactions');
    const [b, pg, ps] = positional(params, 'ots_getBlockTransactions', 3, 3);
    const n = otsInteger(b, 'block');
    const page = otsInteger(pg, 'page', BigInt(MAX_TXS_PER_BLOCK));
    const pageSize = otsPageSize(ps);
    const block = await readBlock(ctx, { Number: n }, true);
    if (block === null) throw notFound();
    const all = block.transactions as Record<string, unknown>[];
    const start = Number(page) * pageSize;
    const txs = all.slice(start, start + pageSize);
    const receipts = txs.length === 0 ? [] : (await receiptsOf(ctx, block.number as string)).slice(start, start + pageSize);
    return {
      fullblock: { ...block, transactions: txs.map(listed), transactionCount: all.length },
      receipts: receipts.map((r) => withTimestamp(r, block.timestamp as string)),
    };
  },
};
