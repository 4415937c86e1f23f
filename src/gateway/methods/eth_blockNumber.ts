import { qty } from '../hex.js';
import { positional } from '../params.js';
import { headNumber } from './common.js';
import type { MethodSpec } from './types.js';

export const eth_blockNumber: MethodSpec = {
  name: 'eth_blockNumber',
  canister: ['rpc_eth_block_number'],
  blockTags: '-',
  limits: '-',
  differences: 'None. Blocks are produced only while transactions are pending (no empty blocks; on the devnet `evm_mine` makes one).',
  async handler(params, ctx) {
    positional(params, 'eth_blockNumber', 0, 0);
    return qty(await headNumber(ctx));
  },
};
