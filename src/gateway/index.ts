// The JSON-RPC gateway (docs/gateway.md): SPEC's method table over the canister's Candid API.
export { createAgentClient } from './agent.js';
export { ConfigError, DEFAULT_CONFIG, loadConfig, type GatewayConfig } from './config.js';
export { METHODS, UNSUPPORTED } from './methods/index.js';
export { startGateway, type Gateway, type GatewayOptions } from './server.js';
