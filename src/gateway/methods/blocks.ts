// Blocks by hash, transactions by block position, transaction counts and a block's receipts. Blocks are final
// (one producer, no reorganisation): every found answer is cached by number and by hash.
import type { BlockView, CandidBlockRef, ReceiptView } from '../../client/schema.js';
import { RpcCode, RpcError } from '../errors.js';
import { formatBlock, formatReceipt, formatTx } from '../format.js';
import { toPrefixedHex, qty } from '../hex.js';
import { blockParam, bool, hash32, positional, u64 } from '../params.js';
import { headNumber, tagNumber } from './common.js';
import type { MethodContext, MethodSpec } from './types.js';

const pruned = (what: string, first: bigint): RpcError => new RpcError(RpcCode.NotFound, `${what} is pruned: the first available block is ${first}`);

/** A block named by a block parameter (tag, number, or EIP-1898 `{ blockHash }`) as the canister's BlockRef. */
export async function blockRef(ctx: MethodContext, v: unknown, name = 'block'): Promise<CandidBlockRef> {
  const p = blockParam(v, name);
  if ('hash' in p) return { Hash: p.hash };
  return { Number: await tagNumber(p, () => headNumber(ctx)) };
}

function cacheBlock(ctx: MethodContext, b: BlockView, full: boolean): Record<string, unknown> {
  const out = formatBlock(b);
  ctx.cache.set(`block:${b.number}:${full}`, out);
  ctx.cache.set(`blockhash:${toPrefixedHex(b.hash)}:${full}`, out);
  return out;
}

/** The formatted block, or null when the canister has no such block; a pruned block is -32001. */
export async function readBlock(ctx: MethodContext, ref: CandidBlockRef, full: boolean): Promise<Record<string, unknown> | null> {
  const key = 'Number' in ref ? `block:${ref.Number}:${full}` : `blockhash:${toPrefixedHex(ref.Hash)}:${full}`;
  const cached = ctx.cache.get(key);
  if (cached !== undefined) return cached as Record<string, unknown>;
  const r =
    'Number' in ref
      ? await ctx.client.query('rpc_eth_get_block_by_number_with_status', [ref.Number, full])
      : await ctx.client.query('rpc_eth_get_block_by_hash_with_status', [ref.Hash, full]);
  if ('NotFound' in r) return null;
  if ('Pruned' in r) throw pruned('Number' in ref ? `block ${ref.Number}` : 'the block', r.Pruned.pruned_before_block);
  return cacheBlock(ctx, r.Found, full);
}

const BLOCK_DIFF =
  'A pruned block is -32001; an unknown one is `null`. Roots: see docs/execution.md (transactionsRoot/receiptsRoot/stateRoot are not Merkle-Patricia roots). `totalDifficulty` 0, `uncles`/`withdrawals` empty.';

export const eth_getBlockByHash: MethodSpec = {
  name: 'eth_getBlockByHash',
  canister: ['rpc_eth_get_block_by_hash_with_status'],
  blockTags: '-',
  limits: '-',
  differences: `Any stored block, through the canister's hash index, in one query. ${BLOCK_DIFF}`,
  async handler(params, ctx) {
    const [h, fullParam] = positional(params, 'eth_getBlockByHash', 1, 2);
    const hash = hash32(h, 'blockHash');
    const full = fullParam === undefined || fullParam === null ? false : bool(fullParam, 'fullTransactions');
    return readBlock(ctx, { Hash: hash }, full);
  },
};

function index(v: unknown): number {
  const i = u64(v, 'index');
  // No block holds more than MAX_TXS_PER_BLOCK transactions; a larger index simply finds nothing.
  return i > 0xffffffffn ? -1 : Number(i);
}

async function txAt(ctx: MethodContext, ref: CandidBlockRef, i: number): Promise<unknown> {
  const b = await readBlock(ctx, ref, true);
  if (b === null || i < 0) return null;
  return (b.transactions as unknown[])[i] ?? null;
}

export const eth_getTransactionByBlockHashAndIndex: MethodSpec = {
  name: 'eth_getTransactionByBlockHashAndIndex',
  canister: ['rpc_eth_get_block_by_hash_with_status'],
  blockTags: '-',
  limits: '-',
  differences: '`null` for an unknown block or an index past its last transaction; a pruned block is -32001. The transaction as eth_getTransactionByHash shows it.',
  async handler(params, ctx) {
    const [h, i] = positional(params, 'eth_getTransactionByBlockHashAndIndex', 2, 2);
    return txAt(ctx, { Hash: hash32(h, 'blockHash') }, index(i));
  },
};

export const eth_getTransactionByBlockNumberAndIndex: MethodSpec = {
  name: 'eth_getTransactionByBlockNumberAndIndex',
  canister: ['rpc_eth_block_number', 'rpc_eth_get_block_by_number_with_status'],
  blockTags: '`latest`, `pending`, `safe`, `finalized` (= head), `earliest` (= 0), number',
  limits: '-',
  differences: '`null` for a block above the head or an index past its last transaction; a pruned block is -32001.',
  async handler(params, ctx) {
    const [b, i] = positional(params, 'eth_getTransactionByBlockNumberAndIndex', 2, 2);
    const p = blockParam(b, 'block');
    if ('hash' in p) throw new RpcError(RpcCode.InvalidParams, 'block: expected a block number or tag (use eth_getTransactionByBlockHashAndIndex)');
    return txAt(ctx, await blockRef(ctx, b), index(i));
  },
};

async function txCount(ctx: MethodContext, ref: CandidBlockRef): Promise<string | null> {
  const b = await readBlock(ctx, ref, false);
  return b === null ? null : qty((b.transactions as unknown[]).length);
}

export const eth_getBlockTransactionCountByHash: MethodSpec = {
  name: 'eth_getBlockTransactionCountByHash',
  canister: ['rpc_eth_get_block_by_hash_with_status'],
  blockTags: '-',
  limits: '-',
  differences: '`null` for an unknown block; a pruned block is -32001.',
  async handler(params, ctx) {
    const [h] = positional(params, 'eth_getBlockTransactionCountByHash', 1, 1);
    return txCount(ctx, { Hash: hash32(h, 'blockHash') });
  },
};

export const eth_getBlockTransactionCountByNumber: MethodSpec = {
  name: 'eth_getBlockTransactionCountByNumber',
  canister: ['rpc_eth_block_number', 'rpc_eth_get_block_by_number_with_status'],
  blockTags: '`latest`, `pending`, `safe`, `finalized` (= head), `earliest` (= 0), number',
  limits: '-',
  differences: '`null` for a block above the head; a pruned block is -32001. `pending` is the head block (no pending block is assembled).',
  async handler(params, ctx) {
    const [b] = positional(params, 'eth_getBlockTransactionCountByNumber', 1, 1);
    const p = blockParam(b, 'block');
    if ('hash' in p) throw new RpcError(RpcCode.InvalidParams, 'block: expected a block number or tag (use eth_getBlockTransactionCountByHash)');
    return txCount(ctx, await blockRef(ctx, b));
  },
};

/** Pages a block holds at most (MAX_TXS_PER_BLOCK transactions, at least one receipt a page): a guard against a looping canister. */
const MAX_RECEIPT_PAGES = 1024;

export const eth_getBlockReceipts: MethodSpec = {
  name: 'eth_getBlockReceipts',
  canister: ['rpc_eth_block_number', 'rpc_eth_get_block_receipts_paged'],
  blockTags: '`latest`, `pending`, `safe`, `finalized` (= head), `earliest` (= 0), number, block hash, EIP-1898 `{blockNumber}`/`{blockHash}`',
  limits: 'one canister query per page; a page holds at most 150 receipts or 700 logs, so most blocks are one query',
  differences: '`null` for an unknown block; a pruned block (or one being pruned) is -32001. Receipts as eth_getTransactionReceipt returns them.',
  async handler(params, ctx) {
    const [b] = positional(params, 'eth_getBlockReceipts', 1, 1);
    // geth also takes a bare block hash here.
    const ref: CandidBlockRef = typeof b === 'string' && b.length === 66 ? { Hash: hash32(b, 'block') } : await blockRef(ctx, b);
    const key = 'Number' in ref ? `receipts:${ref.Number}` : `receiptshash:${toPrefixedHex(ref.Hash)}`;
    const cached = ctx.cache.get(key);
    if (cached !== undefined) return cached;
    const receipts: ReceiptView[] = [];
    let first = 0;
    let count = 0;
    let number = 0n;
    let hash: Uint8Array = new Uint8Array();
    for (let pages = 0; ; pages++) {
      if (pages >= MAX_RECEIPT_PAGES) throw new Error('eth_getBlockReceipts: the canister kept returning pages');
      const r = await ctx.client.query('rpc_eth_get_block_receipts_paged', [ref, first]);
      if ('NotFound' in r) return null;
      if ('Pruned' in r) throw pruned('Number' in ref ? `block ${ref.Number}` : 'the block', r.Pruned.pruned_before_block);
      const page = r.Found;
      receipts.push(...page.receipts);
      ({ transaction_count: count, block_number: number, block_hash: hash } = page);
      const next = page.next_index[0];
      if (next === undefined || page.receipts.length === 0) break;
      first = next;
    }
    // A block whose records are being deleted gives a short list: it is pruned, not a block with fewer receipts.
    if (receipts.length !== count) throw new RpcError(RpcCode.NotFound, `block ${number} is being pruned`);
    const out = receipts.map(formatReceipt);
    ctx.cache.set(`receipts:${number}`, out);
    ctx.cache.set(`receiptshash:${toPrefixedHex(hash)}`, out);
    return out;
  },
};
