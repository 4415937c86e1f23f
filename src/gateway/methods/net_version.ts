import { positional } from '../params.js';
import { chainId } from './common.js';
import type { MethodSpec } from './types.js';

export const net_version: MethodSpec = {
  name: 'net_version',
  canister: ['rpc_eth_chain_id'],
  blockTags: '-',
  limits: '-',
  differences: 'The chain id as a decimal string (`"4801360"`).',
  async handler(params, ctx) {
    positional(params, 'net_version', 0, 0);
    return (await chainId(ctx)).toString(10);
  },
};
