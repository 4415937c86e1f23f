import { qty } from '../hex.js';
import { address, positional } from '../params.js';
import { stateTag, unwrap } from './common.js';
import { STATE_TAGS, type MethodSpec } from './types.js';

export const eth_getBalance: MethodSpec = {
  name: 'eth_getBalance',
  canister: ['rpc_eth_get_balance'],
  blockTags: STATE_TAGS,
  limits: '-',
  differences: 'Only the head state is kept: historical balances are unavailable (-32000).',
  async handler(params, ctx) {
    const [a, b] = positional(params, 'eth_getBalance', 1, 2);
    const addr = address(a);
    const tag = await stateTag(ctx, b);
    return qty(unwrap(ctx, await ctx.client.query('rpc_eth_get_balance', [addr, tag])));
  },
};
