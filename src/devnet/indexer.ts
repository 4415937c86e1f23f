// The devnet's indexer: `npm start` runs it beside the gateway on the in-process canister, into PGlite under
// the data folder (<data>/indexer-db, archive <data>/archive) unless INDEXER_DATABASE_URL names a server;
// `--no-indexer` turns it off. Every INDEXER_* variable applies. It resumes from its cursor after any stop,
// including SIGKILL (docs/indexer.md).
import { join } from 'node:path';
import type { HostClient } from '../client/host.js';
import { loadIndexerConfig, type IndexerConfig } from '../indexer/config.js';
import { describeDbUrl, openDb, type Db } from '../indexer/db.js';
import { Indexer } from '../indexer/indexer.js';
import type { DevnetControl } from './dev.js';

export interface DevnetIndexer {
  readonly indexer: Indexer;
  stop(): Promise<void>;
}

/** The devnet's database (shared by the indexer and the explorer) and where it is, for the banner. */
export interface DevnetDb {
  readonly db: Db;
  readonly where: string;
}

/** The configuration: the environment over the devnet's defaults (throws ConfigError naming a bad variable). */
export function devnetIndexerConfig(dataDir: string, env: Readonly<Record<string, string | undefined>> = process.env): IndexerConfig {
  return loadIndexerConfig(env, { defaults: { pgliteDir: join(dataDir, 'indexer-db'), archiveDir: join(dataDir, 'archive') } });
}

/** Opens the database the configuration names: PGlite under the data folder, or INDEXER_DATABASE_URL's server. */
export async function openDevnetDb(config: IndexerConfig): Promise<DevnetDb> {
  const db: Db = await openDb(config.databaseUrl === undefined ? { dataDir: config.pgliteDir } : { url: config.databaseUrl, poolMax: config.dbPoolMax });
  const where = `${config.databaseUrl === undefined ? `PGlite in ${config.pgliteDir}` : describeDbUrl(config.databaseUrl)} (archive ${config.archiveDir})`;
  return { db, where };
}

/**
 * Starts the pull loop on an open database (the caller owns and closes it). With `dev`, an evm_revert makes the
 * indexer forget the blocks above the restored head (Indexer.requestRewind).
 */
export function startDevnetIndexer(o: { evm: HostClient; config: IndexerConfig; db: Db; log: (line: string) => void; dev?: DevnetControl }): DevnetIndexer {
  const { config, log } = o;
  const indexer = new Indexer({ config, client: o.evm, db: o.db, log });
  const onRevert = (): void => void indexer.requestRewind(o.evm.querySync('rpc_eth_block_number', []));
  o.dev?.onRevert.push(onRevert);
  // Runs in the background; a condition retrying cannot fix stops the indexer, never the devnet.
  const running = indexer.run().catch((e: unknown) => log(`indexer stopped: ${(e as Error).message}`));
  return {
    indexer,
    async stop() {
      const at = o.dev?.onRevert.indexOf(onRevert) ?? -1;
      if (at >= 0) o.dev!.onRevert.splice(at, 1);
      indexer.stop();
      await running;
    },
  };
}
