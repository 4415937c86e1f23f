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
