// A fresh database on the PostgreSQL server at 127.0.0.1:5432 for one test file, dropped afterwards; a
// string (the reason) where no server answers, so the test can say why it is skipped.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDb, type Db } from '../../src/indexer/db.js';

export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export async function postgresTestDb(prefix: string): Promise<{ db: Db; url: string; drop: () => Promise<void> } | string> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (e) {
    return `no PostgreSQL server answers at ${POSTGRES_ADMIN_URL} (${(e as Error).message})`;
  }
  const name = `icp_evm_test_${prefix}_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  const db = await openDb({ url: url.toString(), poolMax: 4 });
  return {
    db,
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
