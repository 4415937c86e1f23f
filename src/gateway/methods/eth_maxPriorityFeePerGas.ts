import { qty } from '../hex.js';
import { positional } from '../params.js';
import { unwrap } from './common.js';
import type { MethodSpec } from './types.js';

export const eth_maxPriorityFeePerGas: MethodSpec = {
  name: 'eth_maxPriorityFeePerGas',
  canister: ['rpc_eth_max_priority_fee_per_gas'],
  blockTags: '-',
  limits: '-',
  differences:
    '60th percentile of the lowest effective tip of each of the last 20 blocks with transactions, never below the minimum priority fee (250 gwei by default): with no observations it answers the minimum, so wallets never fall back to a tip submit would reject. -32000 only when the chain is not initialised.',
  async handler(params, ctx) {
    positional(params, 'eth_maxPriorityFeePerGas', 0, 0);
    return qty(unwrap(ctx, await ctx.client.query('rpc_eth_max_priority_fee_per_gas', [])));
  },
};
