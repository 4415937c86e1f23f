// One typed canister client for every Node-side user (docs/client.md): CanisterClient over a Transport.
// The host transport (./host.js) is imported separately so that agent-only users never load the Node IC host.
export { agentClient, AgentTransport, createAgentTransport, identityFromPem, loadIdentity, type AgentOptions } from './agent.js';
export { CanisterClient } from './client.js';
export { CanisterCallError, ConfigError } from './errors.js';
export { isCanisterMethod, METHOD_MODES, type CallMode, type CanisterMethod, type MethodArgs, type MethodResult, type QueryMethod, type UpdateMethod } from './schema.js';
export type { Transport } from './transport.js';
