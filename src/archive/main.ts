// `npm run archive`: the archive on its own against a canister on the IC (EVM_CANISTER_ID at ARCHIVE_IC_HOST),
// into ARCHIVE_DATABASE_URL or, without it, PGlite in ARCHIVE_PGLITE_DIR (docs/archive.md "Running it"). SIGTERM
// or SIGINT stops it after the pull in progress is committed; it resumes from there.
import { agentClient } from '../client/index.js';
import { ConfigError } from '../client/errors.js';
import { stopOnSignals } from '../client/follow.js';
import { describeDbUrl, openDb } from '../indexer/db.js';
import { loadArchiveConfig } from './config.js';
import { ArchiveFatalError, ArchiveFollower } from './follower.js';
import { ArchiveStateError } from './schema.js';

try {
  const config = loadArchiveConfig(process.env);
  const client = await agentClient({
    icHost: config.icHost,
    canisterId: config.canisterId,
    fetchRootKey: config.fetchRootKey,
    identityPemPath: config.identityPemPath,
    variables: { identityPemPath: 'ARCHIVE_IDENTITY_PEM_PATH', icHost: 'ARCHIVE_IC_HOST' },
  });
  const db = await openDb(config.databaseUrl === undefined ? { dataDir: config.pgliteDir } : { url: config.databaseUrl, poolMax: config.dbPoolMax });
  const where = config.databaseUrl === undefined ? `PGlite in ${config.pgliteDir}` : describeDbUrl(config.databaseUrl);
  try {
    const follower = new ArchiveFollower({
      client,
      db,
      chainId: config.chainId,
      maxBytes: config.maxBytes,
      idlePollMs: config.idlePollMs,
      backoffInitialMs: config.backoffInitialMs,
      backoffMaxMs: config.backoffMaxMs,
      ...(config.keepBlocks === undefined ? {} : { keepBlocks: config.keepBlocks }),
      tty: process.stdout.isTTY === true,
    });
    const keep = config.keepBlocks === undefined ? 'history from genesis' : `keeping ${config.keepBlocks} blocks of history`;
    console.log(`archive: canister ${config.canisterId} at ${config.icHost} into ${where}; ${keep}`);
    const stoppedBy = stopOnSignals(follower);
    await follower.run();
    const signal = stoppedBy();
    const s = follower.status();
    console.log(`archive: stopped${signal === undefined ? '' : ` (${signal})`} at block ${s.verifiedHead}; it resumes from block ${s.verifiedHead + 1n}`);
  } finally {
    await db.close();
  }
} catch (e) {
  const known = e instanceof ConfigError || e instanceof ArchiveFatalError || e instanceof ArchiveStateError;
  console.error(e instanceof ConfigError ? `configuration error: ${e.message}` : known ? `archive stopped: ${(e as Error).message}` : `archive failed: ${(e as Error).message}`);
  process.exit(1);
}
