import { qty } from '../hex.js';
import { positional } from '../params.js';
import { unwrap } from './common.js';
import type { MethodSpec } from './types.js';

export const eth_gasPrice: MethodSpec = {
  name: 'eth_gasPrice',
  canister: ['rpc_eth_gas_price'],
  blockTags: '-',
  limits: '-',
  differences:
    'max(next base fee + max(priority estimate, min priority fee), min gas price): a legacy gas price that submit accepts and the next block includes (500 gwei on a fresh chain), not the raw base fee.',
  async handler(params, ctx) {
    positional(params, 'eth_gasPrice', 0, 0);
    return qty(unwrap(ctx, await ctx.client.query('rpc_eth_gas_price', [])));
  },
};
