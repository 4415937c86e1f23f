import { toPrefixedHex } from '../hex.js';
import { address, positional } from '../params.js';
import { stateTag, unwrap } from './common.js';
import { STATE_TAGS, type MethodSpec } from './types.js';

export const eth_getCode: MethodSpec = {
  name: 'eth_getCode',
  canister: ['rpc_eth_get_code'],
  blockTags: STATE_TAGS,
  limits: '-',
  differences: 'Historical code is unavailable (-32000).',
  async handler(params, ctx) {
    const [a, b] = positional(params, 'eth_getCode', 1, 2);
    const addr = address(a);
    const tag = await stateTag(ctx, b);
    return toPrefixedHex(unwrap(ctx, await ctx.client.query('rpc_eth_get_code', [addr, tag])));
  },
};
