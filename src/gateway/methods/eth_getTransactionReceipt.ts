import { RpcCode, RpcError } from '../errors.js';
import { formatReceipt } from '../format.js';
import { toPrefixedHex } from '../hex.js';
import { hash32, positional } from '../params.js';
import type { MethodSpec } from './types.js';

export const eth_getTransactionReceipt: MethodSpec = {
  name: 'eth_getTransactionReceipt',
  canister: ['rpc_eth_get_transaction_receipt_with_status_by_eth_hash'],
  blockTags: '-',
  limits: '-',
  differences:
    '`null` while not included (queued, dropped, unknown before any pruning). Pruned: -32001 naming the first available block. PossiblyPruned (a hash the canister does not know once pruning has started: unknown, or its block was pruned): -32001 too, since `null` would make clients poll forever. No `blobGasUsed`/`blobGasPrice`.',
  async handler(params, ctx) {
    const [h] = positional(params, 'eth_getTransactionReceipt', 1, 1);
    const hash = hash32(h, 'transactionHash');
    const key = `receipt:${toPrefixedHex(hash)}`;
    const cached = ctx.cache.get(key);
    if (cached !== undefined) return cached;
    const r = await ctx.client.query('rpc_eth_get_transaction_receipt_with_status_by_eth_hash', [hash]);
    if ('NotFound' in r) return null;
    if ('Pruned' in r) {
      throw new RpcError(RpcCode.NotFound, `receipt pruned: its block is below the first available block ${r.Pruned.pruned_before_block}`);
    }
    if ('PossiblyPruned' in r) {
      throw new RpcError(
        RpcCode.NotFound,
        `receipt not found: the transaction is unknown or its block was pruned (first available block ${r.PossiblyPruned.pruned_before_block})`,
      );
    }
    const out = formatReceipt(r.Found);
    ctx.cache.set(key, out);
    return out;
  },
};
