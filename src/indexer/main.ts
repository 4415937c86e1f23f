// `npm run indexer`: the indexer against a canister on the IC (EVM_CANISTER_ID, INDEXER_IC_HOST), into
// INDEXER_DATABASE_URL or, without it, PGlite in INDEXER_PGLITE_DIR. `npm run indexer -- rebuild` rebuilds
// the database from INDEXER_ARCHIVE_DIR instead (no canister needed).
import { agentClient } from '../client/index.js';
import { ConfigError } from '../client/errors.js';
import { stopOnSignals } from '../client/follow.js';
import { loadIndexerConfig } from './config.js';
import { describeDbUrl, openDb } from './db.js';
import { Indexer, IndexerFatalError } from './indexer.js';
import { SchemaTooNewError } from './migrate.js';
import { rebuildFromArchive } from './rebuild.js';
import { IndexerStateError } from './store.js';

const command = process.argv[2] ?? 'run';
if (command !== 'run' && command !== 'rebuild') {
  console.error(`unknown command ${JSON.stringify(command)}: use "run" (default) or "rebuild"`);
  process.exit(2);
}

try {
  const config = loadIndexerConfig(process.env, { requireCanisterId: command === 'run' });
  const db = await openDb(config.databaseUrl === undefined ? { dataDir: config.pgliteDir } : { url: config.databaseUrl, poolMax: config.dbPoolMax });
  const where = config.databaseUrl === undefined ? `PGlite in ${config.pgliteDir}` : describeDbUrl(config.databaseUrl);
  try {
    if (command === 'rebuild') {
      console.log(`indexer: rebuilding ${where} from ${config.archiveDir}`);
      await rebuildFromArchive({ config, db });
    } else {
      const client = await agentClient({
        icHost: config.icHost,
        canisterId: config.canisterId!,
        fetchRootKey: config.fetchRootKey,
        identityPemPath: config.identityPemPath,
        variables: { identityPemPath: 'INDEXER_IDENTITY_PEM_PATH', icHost: 'INDEXER_IC_HOST' },
      });
      const indexer = new Indexer({ config, client, db, tty: process.stdout.isTTY === true });
      console.log(`indexer: canister ${config.canisterId} at ${config.icHost} into ${where}; archive ${config.archiveDir}`);
      stopOnSignals(indexer);
      await indexer.run();
    }
  } finally {
    await db.close();
  }
} catch (e) {
  const known = e instanceof ConfigError || e instanceof IndexerFatalError || e instanceof SchemaTooNewError || e instanceof IndexerStateError;
  console.error(e instanceof ConfigError ? `configuration error: ${e.message}` : known ? `indexer stopped: ${(e as Error).message}` : `indexer failed: ${(e as Error).message}`);
  process.exit(1);
}
