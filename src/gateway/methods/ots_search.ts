// Otterscan's address searches as anvil serves them (docs/traces.md): the transactions that touch an address
// (sender, callee, created contract, or any frame inside a call), a sender's transaction by nonce and a
// contract's creator, found in the indexer's and the archive's tables (src/archive/ots_queries.ts) and answered
// in the gateway's own eth_getTransactionByHash / eth_getTransactionReceipt shapes.
import { toPrefixedHex } from '../hex.js';
import { RpcCode, RpcError } from '../errors.js';
import { address, positional } from '../params.js';
import { readBlock } from './blocks.js';
import { headNumber } from './common.js';
import { eth_getTransactionByHash } from './eth_getTransactionByHash.js';
import { eth_getTransactionReceipt } from './eth_getTransactionReceipt.js';
import { ONLY_WITH_ARCHIVE, OTS_MAX_PAGE_SIZE, otsInteger, otsLookup, otsPageSize, withTimestamp } from './ots_blocks.js';
import { archiveOf } from './trace_source.js';
import type { MethodContext, MethodSpec } from './types.js';

const FOUND_IN = "the indexer's txs (sender, callee) and receipts (created contract) and the archive's internal transactions (any frame's from or to), in the archive's database";

async function search(ctx: MethodContext, method: string, dir: 'before' | 'after', params: unknown): Promise<unknown> {
  const archive = archiveOf(ctx, method);
  const [a, b, ps] = positional(params, method, 3, 3);
  const who = address(a, 'address');
  const block = otsInteger(b, 'blockNumber');
  const pageSize = otsPageSize(ps);
  const head = await headNumber(ctx);
  const page = await otsLookup(ctx, () => archive.ots.search(dir, who, block, pageSize, head));
  const txs: unknown[] = [];
  const receipts: unknown[] = [];
  for (const t of page.txs) {
    const hash = toPrefixedHex(t.hash);
    const [tx, receipt, blk] = await Promise.all([
      eth_getTransactionByHash.handler([hash], ctx),
      eth_getTransactionReceipt.handler([hash], ctx),
      readBlock(ctx, { Number: t.block }, false),
    ]);
    // The canister no longer has it (pruned below the indexer's history): say so rather than answer a hole.
    if (tx === null || receipt === null || blk === null) throw new RpcError(RpcCode.NotFound, `transaction ${hash} of block ${t.block} is not available from the chain (pruned)`);
    txs.push(tx);
    receipts.push(withTimestamp(receipt as Record<string, unknown>, blk.timestamp as string));
  }
  return { txs, receipts, firstPage: page.firstPage, lastPage: page.lastPage };
}

const SEARCH_LIMITS = `pageSize at most ${OTS_MAX_PAGE_SIZE} (else -32602); whole blocks, so a page may pass it by the last block's other matches`;

export const ots_searchTransactionsBefore: MethodSpec = {
  name: 'ots_searchTransactionsBefore',
  canister: ['rpc_eth_block_number', 'rpc_eth_get_transaction_by_eth_hash', 'rpc_eth_get_transaction_receipt_with_status_by_eth_hash', 'rpc_eth_get_block_by_number_with_status'],
  blockTags: 'number (JSON or hex; 0 = from the head)',
  limits: SEARCH_LIMITS,
  differences: `${ONLY_WITH_ARCHIVE} Transactions touching the address in blocks below the one given, newest first, whole blocks until \`pageSize\` is reached, with receipts carrying \`timestamp\`; \`firstPage\`/\`lastPage\` as anvil sets them. Found in ${FOUND_IN}; -32000 when that database has no indexer tables.`,
  async handler(params, ctx) {
    return search(ctx, 'ots_searchTransactionsBefore', 'before', params);
  },
};

export const ots_searchTransactionsAfter: MethodSpec = {
  name: 'ots_searchTransactionsAfter',
  canister: ['rpc_eth_block_number', 'rpc_eth_get_transaction_by_eth_hash', 'rpc_eth_get_transaction_receipt_with_status_by_eth_hash', 'rpc_eth_get_block_by_number_with_status'],
  blockTags: 'number (JSON or hex; 0 = from block 0)',
  limits: SEARCH_LIMITS,
  differences: `${ONLY_WITH_ARCHIVE} Transactions touching the address in blocks above the one given, oldest blocks first until \`pageSize\` is reached, answered newest first (anvil orders the transactions of one block oldest first here); \`firstPage\`/\`lastPage\` as anvil sets them. Found in ${FOUND_IN}; -32000 when that database has no indexer tables.`,
  async handler(params, ctx) {
    return search(ctx, 'ots_searchTransactionsAfter', 'after', params);
  },
};

export const ots_getTransactionBySenderAndNonce: MethodSpec = {
  name: 'ots_getTransactionBySenderAndNonce',
  canister: [],
  blockTags: '-',
  limits: "two index lookups: the sender's newest transaction and the one with this nonce",
  differences: `${ONLY_WITH_ARCHIVE} The hash of the sender's transaction with this nonce, from the indexer's txs table; \`null\` when none is indexed. -32000 when the archive's database has no indexer tables.`,
  async handler(params, ctx) {
    const archive = archiveOf(ctx, 'ots_getTransactionBySenderAndNonce');
    const [a, n] = positional(params, 'ots_getTransactionBySenderAndNonce', 2, 2);
    const sender = address(a, 'address');
    const nonce = otsInteger(n, 'nonce');
    const hash = await otsLookup(ctx, () => archive.ots.txBySenderAndNonce(sender, nonce));
    return hash === undefined ? null : toPrefixedHex(hash);
  },
};

export const ots_getContractCreator: MethodSpec = {
  name: 'ots_getContractCreator',
  canister: [],
  blockTags: '-',
  limits: '-',
  differences: `${ONLY_WITH_ARCHIVE} \`{ hash, creator }\` of the contract's newest lasting creation (by a transaction or by a contract's CREATE/CREATE2), from the archive's contract creators; \`null\` when none is known.`,
  async handler(params, ctx) {
    const archive = archiveOf(ctx, 'ots_getContractCreator');
    const [a] = positional(params, 'ots_getContractCreator', 1, 1);
    const c = await otsLookup(ctx, () => archive.ots.contractCreator(address(a, 'address')));
    return c === undefined ? null : { hash: toPrefixedHex(c.hash), creator: toPrefixedHex(c.creator) };
  },
};
