import { qty } from '../hex.js';
import { runCallObject } from './archive_state.js';
import { CALL_DIFFERENCES } from './eth_call.js';
import { STATE_TAGS, type MethodSpec } from './types.js';

export const eth_estimateGas: MethodSpec = {
  name: 'eth_estimateGas',
  canister: ['rpc_eth_estimate_gas_object'],
  blockTags: STATE_TAGS,
  limits: 'at most the block gas limit; the whole search within 4.5 B instructions (else -32000)',
  differences: `Returns the minimum gas limit that succeeds (not \`gas_used\`). ${CALL_DIFFERENCES}`,
  async handler(params, ctx) {
    const gas = await runCallObject(ctx, 'eth_estimateGas', params, {
      archive: (archive, call, n) => archive.estimateGas(call, n),
      canister: (call, tag) => ctx.client.query('rpc_eth_estimate_gas_object', [call, tag]),
    });
    return qty(gas);
  },
};
