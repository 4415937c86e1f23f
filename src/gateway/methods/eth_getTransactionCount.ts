import { qty } from '../hex.js';
import { address, positional } from '../params.js';
import { stateTag, unwrap } from './common.js';
import { STATE_TAGS, type MethodSpec } from './types.js';

export const eth_getTransactionCount: MethodSpec = {
  name: 'eth_getTransactionCount',
  canister: ['rpc_eth_get_transaction_count_at'],
  blockTags: STATE_TAGS,
  limits: '-',
  differences: '`pending` is the account nonce plus its run of consecutive pending nonces; `earliest` and historical nonces are unavailable (-32000).',
  async handler(params, ctx) {
    const [a, b] = positional(params, 'eth_getTransactionCount', 1, 2);
    const addr = address(a);
    const tag = await stateTag(ctx, b);
    return qty(unwrap(ctx, await ctx.client.query('rpc_eth_get_transaction_count_at', [addr, tag])));
  },
};
