import { positional } from '../params.js';
import type { MethodSpec } from './types.js';

export const eth_accounts: MethodSpec = {
  name: 'eth_accounts',
  canister: [],
  blockTags: '-',
  limits: '-',
  differences: 'Always `[]`: the gateway holds no keys (not in SPEC\'s table; answered because Hardhat and web3.js call it). Sign locally and use eth_sendRawTransaction.',
  async handler(params) {
    positional(params, 'eth_accounts', 0, 0);
    return [];
  },
};
