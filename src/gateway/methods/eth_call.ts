import { toPrefixedHex } from '../hex.js';
import { runCallObject } from './archive_state.js';
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
    const out = await runCallObject(ctx, 'eth_call', params, {
      archive: (archive, call, n) => archive.call(call, n),
      canister: (call, tag) => ctx.client.query('rpc_eth_call_object', [call, tag]),
    });
    return toPrefixedHex(out);
  },
};
