import { positional } from '../params.js';
import type { MethodSpec } from './types.js';

export const net_listening: MethodSpec = {
  name: 'net_listening',
  canister: [],
  blockTags: '-',
  limits: '-',
  differences: 'Always `true` (not in SPEC\'s table; answered because web3.js and some wallets call it).',
  async handler(params) {
    positional(params, 'net_listening', 0, 0);
    return true;
  },
};
