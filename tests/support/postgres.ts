// A fresh database on the PostgreSQL server at 127.0.0.1:5432 for one test file, dropped afterwards. Where no
// server answers: on a developer's machine a string (the reason), so the test can say why it is skipped; in CI
// (`CI` set, as every CI service sets it) an error, so a PostgreSQL-backed test cannot pass without running.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDb, type Db } from '../../src/indexer/db.js';

export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** True under CI: `CI` set to anything but empty, `0` or `false`. */
export function inCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.CI;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

export async function postgresTestDb(
  prefix: string,
  opts: { adminUrl?: string; ci?: boolean } = {},
): Promise<{ db: Db; url: string; drop: () => Promise<void> } | string> {
  const adminUrl = opts.adminUrl ?? POSTGRES_ADMIN_URL;
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (e) {
    const reason = `no PostgreSQL server answers at ${adminUrl} (${(e as Error).message})`;
    if (opts.ci ?? inCi()) throw new Error(`${reason}: CI must run the PostgreSQL-backed tests (README, "Tests")`);
    return reason;
  }
  const name = `icp_evm_test_${prefix}_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = await openDb({ url: url.toString(), poolMax: 4 });
  return {
    db,
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** A test database on one backend, or why it cannot run (see postgresTestDb). */
export type OpenedDb = { db: Db; drop: () => Promise<void> } | string;

/** PGlite in memory and a fresh PostgreSQL database (named from `prefix`), as `describe.each` rows. */
export function dbBackends(prefix: string): [string, () => Promise<OpenedDb>][] {
  return [
    ['pglite', async () => ({ db: await openDb({ memory: true }), drop: async () => {} })],
    ['postgres', () => postgresTestDb(prefix)],
  ];
}

/**
 * Inside a `describe.each(dbBackends(...))` block: opens a database per test, skipping the test with a warning
 * where PostgreSQL is absent outside CI (in CI postgresTestDb throws instead), and closes and drops them all after.
 */
export function backendDbs(name: string, open: () => Promise<OpenedDb>, afterAll: (fn: () => Promise<void>, timeout?: number) => void): (t: { skip: () => void }) => Promise<Db | undefined> {
  const opened: OpenedDb[] = [];
  afterAll(async () => {
    for (const o of opened) {
      if (typeof o === 'string') continue;
      await o.db.close();
      await o.drop();
    }
  }, 120_000);
  return async (t) => {
    const o = await open();
    opened.push(o);
    if (typeof o === 'string') {
      console.warn(`skipped on ${name}: ${o}`);
      t.skip();
      return undefined;
    }
    return o.db;
  };
}
