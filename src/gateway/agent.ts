// The gateway's canister client on the IC agent (`npm run gateway`): RPC_GATEWAY_* settings onto the client's
// agent transport. The devnet passes its in-process host client instead.
import { agentClient, type CanisterClient } from '../client/index.js';
import { ConfigError, type GatewayConfig } from './config.js';

export async function createAgentClient(config: GatewayConfig, opts: { fetch?: typeof fetch } = {}): Promise<CanisterClient> {
  if (config.canisterId === undefined) throw new ConfigError('EVM_CANISTER_ID', 'required: the id of the evm canister the gateway talks to');
  return agentClient({
    icHost: config.icHost,
    canisterId: config.canisterId,
    fetchRootKey: config.fetchRootKey,
    identityPemPath: config.identityPemPath,
    variables: { identityPemPath: 'RPC_GATEWAY_IDENTITY_PEM_PATH', icHost: 'RPC_GATEWAY_IC_HOST' },
    ...(opts.fetch === undefined ? {} : { fetch: opts.fetch }),
  });
}
