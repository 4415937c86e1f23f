import { toPrefixedHex } from '../hex.js';
import { positional } from '../params.js';
import { archiveBlock, archiveCallObject, fromArchive } from './archive_state.js';
import { callObject, stateTag, unwrap } from './common.js';
import { STATE_TAGS, type MethodSpec } from './types.js';

export const CALL_DIFFERENCES =
  'callObject keys: SPEC\'s (`to`, `from`, `gas`, `gasPrice`, `value`, `data`, `nonce`, `maxFeePerGas`, `maxPriorityFeePerGas`, `chainId`, `type` 0x0/0x2, `accessList`) plus `input` (alias of `data`); the web3.js signing hints `chain`, `hardfork`, `networkId`, `common` are ignored; any other key is -32602. No state or block overrides. Revert: -32000, message exactly `execution reverted`, revert bytes in `data` (ethers v6 and viem decode reasons and custom errors). Runs in a query: instruction budget 4.5 B. Below the head: the archive runs it with stock EthereumJS in that block\'s context (number, timestamp, base fee, coinbase, PREVRANDAO, BLOCKHASH), gas capped at that block\'s gas limit, same errors.';

export const eth_call: MethodSpec = {
  name: 'eth_call',
  canister: ['rpc_eth_call_object'],
  blockTags: STATE_TAGS,
  limits: 'gas capped at the block gas limit; 4.5 B instructions',
  differences: CALL_DIFFERENCES,
  async handler(params, ctx) {
    const [o, b] = positional(params, 'eth_call', 1, 2);
    const call = callObject(o);
    const n = await archiveBlock(ctx, b);
    try {
      if (n !== undefined) return toPrefixedHex(fromArchive(ctx, await ctx.archive!.call(archiveCallObject(call), n)));
      const tag = await stateTag(ctx, b);
      return toPrefixedHex(unwrap(ctx, await ctx.client.query('rpc_eth_call_object', [call, tag])));
    } finally {
      ctx.calls?.called('eth_call', call, n);
    }
  },
};
