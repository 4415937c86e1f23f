// The gateway in front of a canister on the IC (or a local replica): `npm run gateway`.
// Configuration from the environment (SPEC "Limits / Gateway"); EVM_CANISTER_ID is required.
import { createAgentClient } from './agent.js';
import { ConfigError, loadConfig } from './config.js';
import { installLastResortHandler, startGateway } from './server.js';
import { openArchiveReader } from '../archive/open.js';

installLastResortHandler();

try {
  const config = loadConfig(process.env, { requireCanisterId: true });
  const client = await createAgentClient(config);
  const archive = config.archiveDatabaseUrl === undefined ? undefined : await openArchiveReader(config.archiveDatabaseUrl);
  const gw = await startGateway({ config, client, ...(archive === undefined ? {} : { archive: archive.reader }) });
  console.log(`JSON-RPC gateway for canister ${config.canisterId} at ${config.icHost}: ${gw.url}`);
  console.log(archive === undefined ? 'historical state: none (reads below the head are -32000; RPC_GATEWAY_ARCHIVE_DATABASE_URL names an archive)' : `historical state: the archive in ${archive.where}`);
  const stop = (): void => {
    void gw.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (e) {
  console.error(e instanceof ConfigError ? `configuration error: ${e.message}` : `gateway failed to start: ${(e as Error).message}`);
  process.exit(1);
}
