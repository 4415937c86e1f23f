// The gateway in front of a canister on the IC (or a local replica): `npm run gateway`.
// Configuration from the environment (SPEC "Limits / Gateway"); EVM_CANISTER_ID is required.
import { createAgentClient } from './agent.js';
import { ConfigError, loadConfig } from './config.js';
import { startGateway } from './server.js';

try {
  const config = loadConfig(process.env, { requireCanisterId: true });
  const client = await createAgentClient(config);
  const gw = await startGateway({ config, client });
  console.log(`JSON-RPC gateway for canister ${config.canisterId} at ${config.icHost}: ${gw.url}`);
  const stop = (): void => {
    void gw.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (e) {
  console.error(e instanceof ConfigError ? `configuration error: ${e.message}` : `gateway failed to start: ${(e as Error).message}`);
  process.exit(1);
}
