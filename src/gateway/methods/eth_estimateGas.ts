import { qty } from '../hex.js';
import { positional } from '../params.js';
import { archiveBlock, archiveCallObject, fromArchive } from './archive_state.js';
import { callObject, stateTag, unwrap } from './common.js';
import { CALL_DIFFERENCES } from './eth_call.js';
import { STATE_TAGS, type MethodSpec } from './types.js';

export const eth_estimateGas: MethodSpec = {
  name: 'eth_estimateGas',
  canister: ['rpc_eth_estimate_gas_object'],
  blockTags: STATE_TAGS,
  limits: 'at most the block gas limit; the whole search within 4.5 B instructions (else -32000)',
  differences: `Returns the minimum gas limit that succeeds (not \`gas_used\`). ${CALL_DIFFERENCES}`,
  async handler(params, ctx) {
    const [o, b] = positional(params, 'eth_estimateGas', 1, 2);
    const call = callObject(o);
    const n = await archiveBlock(ctx, b);
    try {
      if (n !== undefined) return qty(fromArchive(ctx, await ctx.archive!.estimateGas(archiveCallObject(call), n)));
      const tag = await stateTag(ctx, b);
      return qty(unwrap(ctx, await ctx.client.query('rpc_eth_estimate_gas_object', [call, tag])));
    } finally {
      ctx.calls?.called('eth_estimateGas', call, n);
    }
  },
};
