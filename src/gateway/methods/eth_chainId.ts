import { qty } from '../hex.js';
import { positional } from '../params.js';
import { chainId } from './common.js';
import type { MethodSpec } from './types.js';

export const eth_chainId: MethodSpec = {
  name: 'eth_chainId',
  canister: ['rpc_eth_chain_id'],
  blockTags: '-',
  limits: '-',
  differences: '`0x494350` (4801360). SPEC writes `0x4944d0`, which is 4801744: a typo (src/core/constants.ts).',
  async handler(params, ctx) {
    positional(params, 'eth_chainId', 0, 0);
    return qty(await chainId(ctx));
  },
};
