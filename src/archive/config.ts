// The standalone archive's configuration (`npm run archive`, docs/archive.md "Running it"), parsed once from the
// environment at the edge with the indexer's conventions (src/indexer/config.ts): ARCHIVE_* names beside the
// shared EVM_CANISTER_ID, a PostgreSQL URL or PGlite in a folder, and a bad value stops the start with a
// ConfigError naming the variable.
import { resolve } from 'node:path';
import { ConfigError } from '../client/errors.js';
import { envReaders, type Env } from '../client/env.js';
import { CHAIN_ID } from '../core/constants.js';
import { EXPORT_MAX_BYTES } from '../core/export/format.js';
import { DEFAULT_INDEXER_IC_HOST, type ExportFollowerConfig } from '../indexer/config.js';

/** The database (databaseUrl) is the one a gateway's RPC_GATEWAY_ARCHIVE_DATABASE_URL reads. */
export interface ArchiveConfig extends ExportFollowerConfig {
  readonly canisterId: string;
  /** Blocks of history kept below the verified head; undefined: from genesis. */
  readonly keepBlocks: number | undefined;
}

const { present, int, bool, url, canisterId: canisterIdOf } = envReaders((variable, message) => new ConfigError(variable, message));


export function loadArchiveConfig(env: Env = process.env): ArchiveConfig {
  const canisterId = canisterIdOf(env, 'EVM_CANISTER_ID');
  if (canisterId === undefined) throw new ConfigError('EVM_CANISTER_ID', 'required: the id of the evm canister to follow');
  const backoffInitialMs = int(env, 'ARCHIVE_BACKOFF_INITIAL_MS', 200, 1, 3_600_000);
  const backoffMaxMs = int(env, 'ARCHIVE_BACKOFF_MAX_MS', 5000, 1, 3_600_000);
  if (backoffMaxMs < backoffInitialMs) throw new ConfigError('ARCHIVE_BACKOFF_MAX_MS', `must be at least ARCHIVE_BACKOFF_INITIAL_MS (${backoffInitialMs}), got ${backoffMaxMs}`);
  const chainIdText = present(env, 'ARCHIVE_CHAIN_ID');
  if (chainIdText !== undefined && !/^[0-9]{1,19}$/.test(chainIdText)) throw new ConfigError('ARCHIVE_CHAIN_ID', `expected a chain id (decimal), got ${JSON.stringify(chainIdText)}`);
  const keep = present(env, 'ARCHIVE_KEEP_BLOCKS');
  return {
    canisterId,
    databaseUrl: url(env, 'ARCHIVE_DATABASE_URL', ['postgres:', 'postgresql:']),
    pgliteDir: resolve(present(env, 'ARCHIVE_PGLITE_DIR') ?? './archive-db'),
    icHost: url(env, 'ARCHIVE_IC_HOST', ['http:', 'https:']) ?? DEFAULT_INDEXER_IC_HOST,
    fetchRootKey: bool(env, 'ARCHIVE_FETCH_ROOT_KEY', false),
    identityPemPath: present(env, 'ARCHIVE_IDENTITY_PEM_PATH'),
    dbPoolMax: int(env, 'ARCHIVE_DB_POOL_MAX', 10, 1, 1000),
    // At least 1: the state after the head and the block before it (a fork before the head's transaction).
    keepBlocks: keep === undefined ? undefined : int(env, 'ARCHIVE_KEEP_BLOCKS', 0, 1, 1_000_000_000),
    maxBytes: int(env, 'ARCHIVE_MAX_BYTES', 1_200_000, 1024, Math.max(EXPORT_MAX_BYTES, 0xffff_ffff)),
    backoffInitialMs,
    backoffMaxMs,
    idlePollMs: int(env, 'ARCHIVE_IDLE_POLL_MS', 1000, 1, 3_600_000),
    chainId: chainIdText === undefined ? BigInt(CHAIN_ID) : BigInt(chainIdText),
  };
}
