// What the process-level crash tests (indexer, archive) share: a child process that prints `commit ...` after
// each durable commit and `done` when caught up, killed with SIGKILL at a chosen point; the two databases they
// run on (PostgreSQL when a server is there, PGlite in a directory); and seeded kill points a printed seed
// reproduces.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { openDb, type Db } from '../../src/indexer/db.js';
import { postgresTestDb } from './postgres.js';
import { randomBytes } from './random.js';

/** Runs `script` until it prints "done", or kills it with SIGKILL `delayMs` after its `afterCommits`-th commit. */
export function runCrashChild(script: string, env: Record<string, string>, kill?: { afterCommits: number; delayMs: number }): Promise<{ done: boolean; commits: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
      else reject(new Error(`${script} exited with ${code}: ${err}`));
    });
  });
}

/** A database a child process reaches through `env`, opened again here to compare, or why it cannot run. */
export type CrashTarget = { env: Record<string, string>; open: () => Promise<Db>; cleanup: () => Promise<void> } | string;

/** PostgreSQL (a fresh database named from `name`) and PGlite (a directory under `dir`), as `describe.each` rows. */
export function crashTargets(name: string, dir: string, vars: { url: string; pgliteDir: string }): [string, () => Promise<CrashTarget>][] {
  return [
    [
      'postgres',
      async () => {
        const t = await postgresTestDb(name);
        if (typeof t === 'string') return t;
        await t.db.close();
        return { env: { [vars.url]: t.url }, open: () => openDb({ url: t.url, poolMax: 2 }), cleanup: t.drop };
      },
    ],
    [
      'pglite',
      async () => {
        const d = join(dir, `pglite-${Date.now()}`);
        return { env: { [vars.pgliteDir]: d }, open: () => openDb({ dataDir: d }), cleanup: async () => {} };
      },
    ],
  ];
}

/**
 * The target a `crashTargets` row makes, or undefined once the test is skipped with the reason (no PostgreSQL
 * server outside CI; in CI postgresTestDb throws instead).
 */
export async function targetOrSkip(name: string, make: () => Promise<CrashTarget>, t: { skip: () => void }): Promise<Exclude<CrashTarget, string> | undefined> {
  const target = await make();
  if (typeof target !== 'string') return target;
  console.warn(`skipped on ${name}: ${target}`);
  t.skip();
  return undefined;
}

/** Kill points from a seed (`seedVariable` in the environment reruns one; else the clock picks it). */
export function seededKillPoints(seedVariable: string): { seed: number; next: () => number } {
  const seed = Number(process.env[seedVariable] ?? Date.now() % 1_000_000);
  const bytes = randomBytes(8, seed);
  let k = 0;
  return { seed, next: () => bytes[k++ % bytes.length]! / 256 };
}
