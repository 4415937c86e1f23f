// Indexer ingestion rate: a synthetic chain of 10,000+ transactions (value transfers and ERC-20 transfers with
// their logs), exported by the canister's own export code in-process, pulled, decoded, archived (zstd, fsync)
// and committed into PostgreSQL (127.0.0.1:5432, a fresh database) and into PGlite in a temporary folder.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { projectTempDir } from '../src/host/paths.js';
import { DEFAULT_INDEXER_CONFIG } from '../src/indexer/config.js';
import { openDb, type Db } from '../src/indexer/db.js';
import { Indexer } from '../src/indexer/indexer.js';
import { postgresTestDb } from '../tests/support/postgres.js';
import { SyntheticChain } from '../tests/support/synthetic_chain.js';
import type { Report } from './evm.js';

const BLOCKS = 100;
const TRANSFERS = 60;
const ERC20 = 40;

async function ingest(db: Db, archiveDir: string): Promise<{ txs: number; seconds: number }> {
  const chain = new SyntheticChain();
  for (let i = 0; i < BLOCKS; i++) chain.addBlock({ transfers: TRANSFERS, erc20: ERC20 });
  const config = { ...DEFAULT_INDEXER_CONFIG, archiveDir, metricsPollMs: 3_600_000, prunePollMs: 3_600_000 };
  const ix = new Indexer({ config, client: chain.client(), db, log: () => {} });
  await ix.prepare();
  const t0 = performance.now();
  await ix.run({ untilCaughtUp: true });
  const seconds = (performance.now() - t0) / 1000;
  return { txs: ix.stats.txs, seconds };
}

export async function benchIndexer(report: Report): Promise<void> {
  const dir = projectTempDir('bench-indexer-');
  try {
    const pg = await postgresTestDb('bench');
    if (typeof pg === 'string') console.error(`bench: indexer.ingest.tx_per_s skipped: ${pg}`);
    else {
      try {
        const r = await ingest(pg.db, join(dir, 'archive-pg'));
        report('indexer.ingest.tx_per_s', Math.round(r.txs / r.seconds), `tx/s (PostgreSQL, ${r.txs} txs, archive on)`);
      } finally {
        await pg.db.close();
        await pg.drop();
      }
    }
    const lite = await openDb({ dataDir: join(dir, 'pglite') });
    try {
      const r = await ingest(lite, join(dir, 'archive-pglite'));
      report('indexer.ingest.pglite.tx_per_s', Math.round(r.txs / r.seconds), `tx/s (PGlite, ${r.txs} txs, archive on)`);
    } finally {
      await lite.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
