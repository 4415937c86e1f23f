import { positional } from '../params.js';
import type { MethodSpec } from './types.js';

export const web3_clientVersion: MethodSpec = {
  name: 'web3_clientVersion',
  canister: [],
  blockTags: '-',
  limits: '-',
  differences: 'The configured RPC_GATEWAY_CLIENT_VERSION (default `icp-evm/phase2-gateway/v0.1.0`).',
  async handler(params, ctx) {
    positional(params, 'web3_clientVersion', 0, 0);
    return ctx.config.clientVersion;
  },
};
