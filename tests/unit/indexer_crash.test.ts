// Process-level crash safety: an indexer child process is killed with SIGKILL at several random points of a
// backfill (after a random number of commits, plus a random delay into the next one) and restarted each
// time; the final tables equal those of a clean run. On PostgreSQL and on PGlite (the devnet's default).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/indexer/db.js';
import { Indexer } from '../../src/indexer/indexer.js';
import { projectTempDir } from '../../src/host/paths.js';
import { crashTestChain, CRASH_CHAIN_BLOCKS } from '../support/crash_chain.js';
import { dumpTables, testIndexerConfig } from '../support/indexer.js';
import { crashTargets, runCrashChild, seededKillPoints, targetOrSkip } from '../support/crash_harness.js';

const dir = projectTempDir('indexer-crash-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CHILD = join(import.meta.dirname, '../support/indexer_child.ts');
/**
 * Children started to be killed before the one that finishes: two in `npm test` (each start is seconds of
 * tsx and database start-up, the file's whole cost), more in the soak run after it (.ci/run sets 4). Two
 * always both kill: each stops within 25 commits, and the crash chain takes more than 50.
 */
const KILL_ROUNDS = Math.max(2, Number(process.env.INDEXER_CRASH_KILL_ROUNDS ?? 2));

const targets = crashTargets('crash', dir, { url: 'INDEXER_DATABASE_URL', pgliteDir: 'INDEXER_PGLITE_DIR' });

describe.each(targets)('indexer killed with SIGKILL during a backfill (%s)', (name, make) => {
  it('ends with the same tables as a clean run', async (t) => {
    const target = await targetOrSkip(name, make, t);
    if (target === undefined) return;
    try {
      // The clean run, in this process, into PGlite in memory.
      const cleanDb = await openDb({ memory: true });
      const clean = new Indexer({ config: testIndexerConfig(join(dir, `clean-${name}`), { maxBytes: 4096 }), client: (await crashTestChain()).client(), db: cleanDb, log: () => {} });
      await clean.run({ untilCaughtUp: true });
      const want = await dumpTables(cleanDb);
      await cleanDb.close();
      expect(want.blocks).toHaveLength(CRASH_CHAIN_BLOCKS);

      const env = { ...target.env, INDEXER_ARCHIVE_DIR: join(dir, `crash-${name}`), INDEXER_MAX_BYTES: '4096', INDEXER_OPS_METRICS_POLL_MS: '100', INDEXER_BACKOFF_INITIAL_MS: '5', INDEXER_BACKOFF_MAX_MS: '20' };
      // Random kill points, reproducible from the printed seed (INDEXER_CRASH_SEED reruns one).
      const { seed, next: rnd } = seededKillPoints('INDEXER_CRASH_SEED');
      let kills = 0;
      let totalCommits = 0;
      for (let i = 0; i < KILL_ROUNDS; i++) {
        const r = await runCrashChild(CHILD, env, { afterCommits: 1 + Math.floor(rnd() * 25), delayMs: Math.floor(rnd() * 40) });
        totalCommits += r.commits;
        if (r.done) break;
        kills++;
      }
      const last = await runCrashChild(CHILD, env);
      expect(last.done).toBe(true);
      expect(kills).toBeGreaterThanOrEqual(2);
      const db = await target.open();
      try {
        expect(await dumpTables(db)).toEqual(want);
      } finally {
        await db.close();
      }
      console.log(`${name}: seed ${seed}, ${kills} kills after ${totalCommits} commits, then a clean finish`);
    } finally {
      await target.cleanup();
    }
  }, 600_000);
});
