// Process-level crash safety of the archive: a follower child process is killed with SIGKILL at random points
// of a replay (after a random number of commits, plus a random delay into the next one) and restarted each
// time; it resumes and its history tables (internal transactions and contract creators included) end equal to
// a clean run's. On PostgreSQL and on PGlite.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ArchiveFollower } from '../../src/archive/follower.js';
import { projectTempDir } from '../../src/host/paths.js';
import { openDb, type Db } from '../../src/indexer/db.js';
import { ArchiveTestChain } from '../support/archive_chain.js';
import { crashTargets, runCrashChild, seededKillPoints, targetOrSkip } from '../support/crash_harness.js';

const dir = projectTempDir('archive-crash-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CHILD = join(import.meta.dirname, '../support/archive_child.ts');
const BLOCKS = 30;


async function dump(db: Db): Promise<Record<string, string[]>> {
  const q = async (sql: string) => (await db.query(sql)).rows.map((r) => JSON.stringify(r, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : typeof v === 'bigint' ? v.toString() : v)));
  return {
    meta: await q('SELECT cursor_block, state_root, alarm FROM archive_meta'),
    blocks: await q('SELECT * FROM archive_blocks ORDER BY number'),
    accounts: await q('SELECT * FROM archive_accounts ORDER BY address, block'),
    storage: await q('SELECT * FROM archive_storage ORDER BY skey, block'),
    code: await q('SELECT * FROM archive_code ORDER BY hash'),
    internal: await q('SELECT * FROM archive_internal_txs ORDER BY block, tx_index, trace_address'),
    creators: await q('SELECT * FROM archive_contract_creators ORDER BY block, tx_index, trace_address'),
  };
}

const targets = crashTargets('archive_crash', dir, { url: 'ARCHIVE_TEST_DATABASE_URL', pgliteDir: 'ARCHIVE_TEST_PGLITE_DIR' });

describe.each(targets)('archive killed with SIGKILL during a replay (%s)', (name, make) => {
  it('resumes and ends with the same history as a clean run', async (t) => {
    const target = await targetOrSkip(name, make, t);
    if (target === undefined) return;
    try {
      const chain = await ArchiveTestChain.create();
      await chain.runScenario(BLOCKS);
      const cleanDb = await openDb({ memory: true });
      await new ArchiveFollower({ client: chain.client(), db: cleanDb, chainId: 4801360n, log: () => {} }).run({ untilCaughtUp: true });
      const want = await dump(cleanDb);
      await cleanDb.close();
      // The scenario's self-destructs are internal transactions, its creations have creators.
      expect(want.internal!.length).toBeGreaterThan(0);
      expect(want.creators!.length).toBeGreaterThan(0);

      const { seed, next: rnd } = seededKillPoints('ARCHIVE_CRASH_SEED');
      let kills = 0;
      for (let i = 0; i < 2; i++) {
        const r = await runCrashChild(CHILD, target.env, { afterCommits: 1 + Math.floor(rnd() * 12), delayMs: Math.floor(rnd() * 30) });
        if (r.done) break;
        kills++;
      }
      const last = await runCrashChild(CHILD, target.env);
      expect(last.done).toBe(true);
      expect(kills).toBe(2);
      const db = await target.open();
      try {
        expect(await dump(db)).toEqual(want);
      } finally {
        await db.close();
      }
      console.log(`${name}: seed ${seed}, ${kills} kills, then a clean finish`);
    } finally {
      await target.cleanup();
    }
  }, 600_000);
});
