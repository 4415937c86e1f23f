// Process-level crash safety of the archive: a follower child process is killed with SIGKILL at random points
// of a replay (after a random number of commits, plus a random delay into the next one) and restarted each
// time; it resumes and its history tables (internal transactions and contract creators included) end equal to
// a clean run's. On PostgreSQL and on PGlite.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ArchiveFollower } from '../../src/archive/follower.js';
import { projectTempDir } from '../../src/host/paths.js';
import { openDb, type Db } from '../../src/indexer/db.js';
import { ArchiveTestChain } from '../support/archive_chain.js';
import { postgresTestDb } from '../support/postgres.js';
import { randomBytes } from '../support/random.js';

const dir = projectTempDir('archive-crash-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CHILD = join(import.meta.dirname, '../support/archive_child.ts');
const BLOCKS = 30;

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
      else reject(new Error(`archive child exited with ${code}: ${err}`));
    });
  });
}

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

type Target = { env: Record<string, string>; open: () => Promise<Db>; cleanup: () => Promise<void> } | string;
const targets: [string, () => Promise<Target>][] = [
  [
    'postgres',
    async () => {
      const t = await postgresTestDb('archive_crash');
      if (typeof t === 'string') return t;
      await t.db.close();
      return { env: { ARCHIVE_TEST_DATABASE_URL: t.url }, open: () => openDb({ url: t.url, poolMax: 2 }), cleanup: t.drop };
    },
  ],
  [
    'pglite',
    async () => {
      const d = join(dir, `pglite-${Date.now()}`);
      return { env: { ARCHIVE_TEST_PGLITE_DIR: d }, open: () => openDb({ dataDir: d }), cleanup: async () => {} };
    },
  ],
];

describe.each(targets)('archive killed with SIGKILL during a replay (%s)', (name, make) => {
  it('resumes and ends with the same history as a clean run', async (t) => {
    const target = await make();
    if (typeof target === 'string') {
      console.warn(`skipped on ${name}: ${target}`);
      t.skip();
      return;
    }
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

      const seed = Number(process.env.ARCHIVE_CRASH_SEED ?? Date.now() % 1_000_000);
      const bytes = randomBytes(8, seed);
      let k = 0;
      const rnd = (): number => bytes[k++ % bytes.length]! / 256;
      let kills = 0;
      for (let i = 0; i < 2; i++) {
        const r = await runChild(target.env, { afterCommits: 1 + Math.floor(rnd() * 12), delayMs: Math.floor(rnd() * 30) });
        if (r.done) break;
        kills++;
      }
      const last = await runChild(target.env);
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
