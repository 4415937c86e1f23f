import { qty } from '../hex.js';
import { address, positional } from '../params.js';
import { archiveBlock, fromArchive } from './archive_state.js';
import { stateTag, unwrap } from './common.js';
import { ARCHIVE_READS, STATE_TAGS, type MethodSpec } from './types.js';

export const eth_getBalance: MethodSpec = {
  name: 'eth_getBalance',
  canister: ['rpc_eth_get_balance'],
  blockTags: STATE_TAGS,
  limits: '-',
  differences: ARCHIVE_READS,
  async handler(params, ctx) {
    const [a, b] = positional(params, 'eth_getBalance', 1, 2);
    const addr = address(a);
    const n = await archiveBlock(ctx, b);
    if (n !== undefined) return qty(fromArchive(ctx, await ctx.archive!.account(addr, n)).balance);
    const tag = await stateTag(ctx, b);
    return qty(unwrap(ctx, await ctx.client.query('rpc_eth_get_balance', [addr, tag])));
  },
};
