// Process-level crash safety: an indexer child process is killed with SIGKILL at several random points of a
// backfill (after a random number of commits, plus a random delay into the next one) and restarted each
// time; the final tables equal those of a clean run. On PostgreSQL and on PGlite (the devnet's default).
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/indexer/db.js';
import { Indexer } from '../../src/indexer/indexer.js';
import { projectTempDir } from '../../src/host/paths.js';
import { crashTestChain, CRASH_CHAIN_BLOCKS } from '../support/crash_chain.js';
import { dumpTables, testIndexerConfig } from '../support/indexer.js';
import { postgresTestDb } from '../support/postgres.js';
import { randomBytes } from '../support/random.js';

const dir = projectTempDir('indexer-crash-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CHILD = join(import.meta.dirname, '../support/indexer_child.ts');
/**
 * Children started to be killed before the one that finishes: two in `npm test` (each start is seconds of
 * tsx and database start-up, the file's whole cost), more in the soak run after it (.ci/run sets 4). Two
 * always both kill: each stops within 25 commits, and the crash chain takes more than 50.
 */
const KILL_ROUNDS = Math.max(2, Number(process.env.INDEXER_CRASH_KILL_ROUNDS ?? 2));

/** Runs the child until it prints "done", or kills it with SIGKILL after `killAfterCommits` commits (+ delay). */
function runChild(env: Record<string, string>, kill?: { afterCommits: number; delayMs: number }): Promise<{ done: boolean; commits: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let commits = 0;
    let done = false;
    let err = '';
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const l of lines) {
        if (l.startsWith('commit ')) commits++;
        if (l === 'done') done = true;
        if (kill !== undefined && commits === kill.afterCommits && l.startsWith('commit ')) setTimeout(() => child.kill('SIGKILL'), kill.delayMs);
      }
    });
    child.stderr.on('data', (d: Buffer) => void (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL' || code === 0) resolve({ done, commits });
      else reject(new Error(`indexer child exited with ${code}: ${err}`));
    });
  });
}

type Target = { env: Record<string, string>; open: () => Promise<Db>; cleanup: () => Promise<void> } | string;
const targets: [string, () => Promise<Target>][] = [
  [
    'postgres',
    async () => {
      const t = await postgresTestDb('crash');
      if (typeof t === 'string') return t;
      await t.db.close();
      return { env: { INDEXER_DATABASE_URL: t.url }, open: () => openDb({ url: t.url, poolMax: 2 }), cleanup: t.drop };
    },
  ],
  [
    'pglite',
    async () => {
      const d = join(dir, `pglite-${Date.now()}`);
      return { env: { INDEXER_PGLITE_DIR: d }, open: () => openDb({ dataDir: d }), cleanup: async () => {} };
    },
  ],
];

describe.each(targets)('indexer killed with SIGKILL during a backfill (%s)', (name, make) => {
  it('ends with the same tables as a clean run', async (t) => {
    const target = await make();
    if (typeof target === 'string') {
      console.warn(`skipped on ${name}: ${target}`);
      t.skip();
      return;
    }
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
      const seed = Number(process.env.INDEXER_CRASH_SEED ?? Date.now() % 1_000_000);
      const bytes = randomBytes(8, seed);
      let k = 0;
      const rnd = (): number => bytes[k++ % bytes.length]! / 256;
      let kills = 0;
      let totalCommits = 0;
      for (let i = 0; i < KILL_ROUNDS; i++) {
        const r = await runChild(env, { afterCommits: 1 + Math.floor(rnd() * 25), delayMs: Math.floor(rnd() * 40) });
        totalCommits += r.commits;
        if (r.done) break;
        kills++;
      }
      const last = await runChild(env);
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
