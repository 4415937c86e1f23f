import { RpcCode, RpcError } from '../errors.js';
import { formatBlock } from '../format.js';
import { blockParam, bool, positional } from '../params.js';
import { headNumber } from './common.js';
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
    if ('hash' in p) throw new RpcError(RpcCode.InvalidParams, 'block: expected a block number or tag (eth_getBlockByHash is not supported)');
    const full = fullParam === undefined || fullParam === null ? false : bool(fullParam, 'fullTransactions');
    let n: bigint;
    if ('number' in p) n = p.number;
    else if (p.tag === 'earliest') n = 0n;
    else n = await headNumber(ctx);
    const key = `block:${n}:${full}`;
    const cached = ctx.cache.get(key);
    if (cached !== undefined) return cached;
    const r = await ctx.client.query('rpc_eth_get_block_by_number_with_status', [n, full]);
    if ('NotFound' in r) return null;
    if ('Pruned' in r) {
      throw new RpcError(RpcCode.NotFound, `block ${n} is pruned: the first available block is ${r.Pruned.pruned_before_block}`);
    }
    // Blocks are final when produced: cache every found block.
    const out = formatBlock(r.Found);
    ctx.cache.set(key, out);
    return out;
  },
};
