// The devnet's defaults for the gateway it runs.
import { loadConfig, type GatewayConfig } from '../gateway/config.js';
import type { Env } from '../client/env.js';

/**
 * The devnet's web3_clientVersion. @nomicfoundation/hardhat-network-helpers (loadFixture, time, mine, ...) refuses
 * a node whose version does not start with `HardhatNetwork`, `anvil` or `zksync`, and then calls `hardhat_*` and
 * `evm_*` methods whichever it is; so the devnet names itself after the Hardhat network whose method names it answers.
 */
export const DEVNET_CLIENT_VERSION = 'HardhatNetwork/icp-evm-devnet/v0.1.0';

/** The gateway's configuration from the environment, with the devnet's client version unless RPC_GATEWAY_CLIENT_VERSION is set. */
export function devnetGatewayConfig(env: Env = process.env): GatewayConfig {
  const c = loadConfig(env);
  return env.RPC_GATEWAY_CLIENT_VERSION === undefined ? { ...c, clientVersion: DEVNET_CLIENT_VERSION } : c;
}
