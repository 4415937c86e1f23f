import { RpcCode, RpcError } from '../errors.js';
import { blockParam, bool, positional } from '../params.js';
import { blockRef, readBlock } from './blocks.js';
import type { MethodSpec } from './types.js';

export const eth_getBlockByNumber: MethodSpec = {
  name: 'eth_getBlockByNumber',
  canister: ['rpc_eth_block_number', 'rpc_eth_get_block_by_number_with_status'],
  blockTags: '`latest`, `pending`, `safe`, `finalized` (= head), `earliest` (= 0), number',
  limits: '-',
  differences:
    '`pending` returns the head block (no pending block is assembled). A pruned block is -32001; a block above the head is `null`. Roots: see docs/execution.md (transactionsRoot/receiptsRoot/stateRoot are not Merkle-Patricia roots). `totalDifficulty` 0, `uncles`/`withdrawals` empty.',
  async handler(params, ctx) {
    const [tagParam, fullParam] = positional(params, 'eth_getBlockByNumber', 1, 2);
    const p = blockParam(tagParam, 'block');
    if ('hash' in p) throw new RpcError(RpcCode.InvalidParams, 'block: expected a block number or tag (use eth_getBlockByHash)');
    const full = fullParam === undefined || fullParam === null ? false : bool(fullParam, 'fullTransactions');
    return readBlock(ctx, await blockRef(ctx, tagParam), full);
  },
};
