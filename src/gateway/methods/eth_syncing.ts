import { positional } from '../params.js';
import type { MethodSpec } from './types.js';

export const eth_syncing: MethodSpec = {
  name: 'eth_syncing',
  canister: [],
  blockTags: '-',
  limits: '-',
  differences: 'Always `false`: the canister is the chain; there is nothing to sync.',
  async handler(params) {
    positional(params, 'eth_syncing', 0, 0);
    return false;
  },
};
