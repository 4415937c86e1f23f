// The indexer's configuration, parsed once from the environment at the edge (SPEC "Limits / Indexer"). Names
// and defaults are SPEC's; a bad value fails at start with a ConfigError naming the variable. Two additions:
// INDEXER_PGLITE_DIR (the embedded database when INDEXER_DATABASE_URL is unset) and INDEXER_IDENTITY_PEM_PATH.
import { resolve } from 'node:path';
import { ConfigError } from '../client/errors.js';
import { envReaders, type Env } from '../client/env.js';
import type { FollowTiming } from '../client/follow.js';
import { CHAIN_ID } from '../core/constants.js';
import { EXPORT_MAX_BYTES, EXPORT_MAX_SEGMENT } from '../core/export/format.js';

/** SPEC's {ic_host} placeholder: the IC's public boundary nodes. */
export const DEFAULT_INDEXER_IC_HOST = 'https://icp-api.io';

/** What each follower of the export stream is configured with: the indexer (below) and the archive (src/archive/config.ts). */
export interface ExportFollowerConfig extends FollowTiming {
  /** A PostgreSQL server; undefined: PGlite in pgliteDir. */
  readonly databaseUrl: string | undefined;
  readonly pgliteDir: string;
  readonly icHost: string;
  readonly fetchRootKey: boolean;
  readonly identityPemPath: string | undefined;
  readonly dbPoolMax: number;
  /** Per export_blocks call. */
  readonly maxBytes: number;
  /** Must equal the canister's. */
  readonly chainId: bigint;
}

export interface IndexerConfig extends ExportFollowerConfig {
  /** Required for the agent; the devnet passes its in-process client and ignores it. */
  readonly canisterId: string | undefined;
  readonly retentionDays: number;
  readonly retentionEnabled: boolean;
  readonly retentionDryRun: boolean;
  readonly archiveGcDeleteOrphans: boolean;
  readonly prunePollMs: number;
  readonly metricsPollMs: number;
  readonly archiveDir: string;
  readonly zstdLevel: number;
  readonly maxSegment: number;
}

export const DEFAULT_INDEXER_CONFIG: IndexerConfig = {
  canisterId: undefined,
  databaseUrl: undefined,
  pgliteDir: './indexer-db',
  icHost: DEFAULT_INDEXER_IC_HOST,
  fetchRootKey: false,
  identityPemPath: undefined,
  dbPoolMax: 10,
  retentionDays: 90,
  retentionEnabled: true,
  retentionDryRun: false,
  archiveGcDeleteOrphans: false,
  maxBytes: 1_200_000,
  backoffInitialMs: 200,
  backoffMaxMs: 5000,
  idlePollMs: 1000,
  prunePollMs: 30_000,
  metricsPollMs: 30_000,
  archiveDir: './archive',
  chainId: BigInt(CHAIN_ID),
  zstdLevel: 3,
  maxSegment: 2,
};

const { present, int, bool, url, canisterId: canisterIdOf } = envReaders((variable, message) => new ConfigError(variable, message), { signedInts: true });



/**
 * Parses the environment. `requireCanisterId`: the standalone indexer talks to a canister through the agent
 * and needs EVM_CANISTER_ID; the devnet's indexer uses its in-process canister.
 */
export function loadIndexerConfig(env: Env = process.env, opts: { requireCanisterId?: boolean; defaults?: Partial<IndexerConfig> } = {}): IndexerConfig {
  const d: IndexerConfig = { ...DEFAULT_INDEXER_CONFIG, ...opts.defaults };
  const canisterId = canisterIdOf(env, 'EVM_CANISTER_ID') ?? d.canisterId;
  if (opts.requireCanisterId === true && canisterId === undefined) throw new ConfigError('EVM_CANISTER_ID', 'required: the id of the evm canister to index');
  const backoffInitialMs = int(env, 'INDEXER_BACKOFF_INITIAL_MS', d.backoffInitialMs, 1, 3_600_000);
  const backoffMaxMs = int(env, 'INDEXER_BACKOFF_MAX_MS', d.backoffMaxMs, 1, 3_600_000);
  if (backoffMaxMs < backoffInitialMs) throw new ConfigError('INDEXER_BACKOFF_MAX_MS', `must be at least INDEXER_BACKOFF_INITIAL_MS (${backoffInitialMs}), got ${backoffMaxMs}`);
  const chainIdText = present(env, 'INDEXER_CHAIN_ID');
  let chainId = d.chainId;
  if (chainIdText !== undefined) {
    if (!/^[0-9]{1,19}$/.test(chainIdText)) throw new ConfigError('INDEXER_CHAIN_ID', `expected a chain id (decimal), got ${JSON.stringify(chainIdText)}`);
    chainId = BigInt(chainIdText);
  }
  const maxSegment = int(env, 'INDEXER_MAX_SEGMENT', d.maxSegment, 0, 255);
  if (maxSegment !== EXPORT_MAX_SEGMENT) {
    throw new ConfigError('INDEXER_MAX_SEGMENT', `is ${maxSegment} but the export format's segment limit is ${EXPORT_MAX_SEGMENT} (docs/export-format.md); set it to ${EXPORT_MAX_SEGMENT}`);
  }
  const identityPemPath = present(env, 'INDEXER_IDENTITY_PEM_PATH') ?? d.identityPemPath;
  return {
    canisterId,
    databaseUrl: url(env, 'INDEXER_DATABASE_URL', ['postgres:', 'postgresql:']) ?? d.databaseUrl,
    pgliteDir: resolve(present(env, 'INDEXER_PGLITE_DIR') ?? d.pgliteDir),
    icHost: url(env, 'INDEXER_IC_HOST', ['http:', 'https:']) ?? d.icHost,
    fetchRootKey: bool(env, 'INDEXER_FETCH_ROOT_KEY', d.fetchRootKey),
    identityPemPath,
    dbPoolMax: int(env, 'INDEXER_DB_POOL_MAX', d.dbPoolMax, 1, 1000),
    retentionDays: int(env, 'INDEXER_RETENTION_DAYS', d.retentionDays, 1, 1_000_000),
    retentionEnabled: bool(env, 'INDEXER_RETENTION_ENABLED', d.retentionEnabled),
    retentionDryRun: bool(env, 'INDEXER_RETENTION_DRY_RUN', d.retentionDryRun),
    archiveGcDeleteOrphans: bool(env, 'INDEXER_ARCHIVE_GC_DELETE_ORPHANS', d.archiveGcDeleteOrphans),
    // The canister answers at most EXPORT_MAX_BYTES per call whatever is asked; more is allowed but pointless.
    maxBytes: int(env, 'INDEXER_MAX_BYTES', d.maxBytes, 1024, Math.max(EXPORT_MAX_BYTES, 0xffff_ffff)),
    backoffInitialMs,
    backoffMaxMs,
    idlePollMs: int(env, 'INDEXER_IDLE_POLL_MS', d.idlePollMs, 1, 3_600_000),
    prunePollMs: int(env, 'INDEXER_PRUNE_STATUS_POLL_MS', d.prunePollMs, 100, 86_400_000),
    metricsPollMs: int(env, 'INDEXER_OPS_METRICS_POLL_MS', d.metricsPollMs, 100, 86_400_000),
    archiveDir: resolve(present(env, 'INDEXER_ARCHIVE_DIR') ?? d.archiveDir),
    chainId,
    zstdLevel: int(env, 'INDEXER_ZSTD_LEVEL', d.zstdLevel, 1, 22),
    maxSegment,
  };
}
