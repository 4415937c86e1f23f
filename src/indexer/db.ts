// One database interface for the indexer and the explorer, with two back ends that run the same SQL:
// a PostgreSQL server through `pg` (INDEXER_DATABASE_URL) and PGlite, real Postgres in WebAssembly, in a data
// folder (the embedded default). Values come back normalised the same way from both: int8 as bigint, numeric as
// a decimal string, bytea as Uint8Array, so callers never branch on the back end.
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import pg from 'pg';

export interface QueryResult<R> {
  readonly rows: R[];
  /** Rows inserted, updated or deleted (0 for a SELECT on PGlite). */
  readonly affected: number;
}

export interface Queryable {
  /** One statement with $1.. parameters (bigint, string, number, boolean, Uint8Array, null). */
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs fn inside BEGIN .. COMMIT; any throw rolls back and is rethrown. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

export type DbTarget = { readonly url: string; readonly poolMax?: number } | { readonly dataDir: string } | { readonly memory: true };

const INT8 = 20;
const BYTEA = 17;

export async function openDb(target: DbTarget): Promise<Db> {
  if ('url' in target) return openPostgres(target.url, target.poolMax ?? 10);
  return openPglite('dataDir' in target ? target.dataDir : undefined);
}

/** Where a URL points, without its password, for logs and banners. */
export function describeDbUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable database URL)';
  }
}

function toParam(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  return v;
}

async function openPostgres(url: string, poolMax: number): Promise<Db> {
  const typeParsers = {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === INT8) return (s: string) => BigInt(s);
      if (oid === BYTEA) {
        const parse = pg.types.getTypeParser(BYTEA, 'text') as (s: string) => Buffer;
        return (s: string) => {
          const b = parse(s);
          return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
        };
      }
      return pg.types.getTypeParser(oid, format as never);
    },
  };
  const pool = new pg.Pool({ connectionString: url, max: poolMax, types: typeParsers as never });
  // An idle client's connection error (server restart) must not end the process; the next query reconnects.
  pool.on('error', () => {});
  const run = async <R>(c: pg.Pool | pg.PoolClient, sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> => {
    const r = await c.query(sql, params === undefined ? undefined : params.map(toParam));
    return { rows: r.rows as R[], affected: r.rowCount ?? 0 };
  };
  // Fail early with the server's own message (wrong URL, no server, no database).
  await run(pool, 'SELECT 1');
  return {
    kind: 'postgres',
    query: (sql, params) => run(pool, sql, params),
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const out = await fn({ query: (sql, params) => run(client, sql, params) });
        await client.query('COMMIT');
        return out;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        throw e;
      } finally {
        client.release();
      }
    },
    async exec(sql) {
      await pool.query(sql);
    },
    close: () => pool.end(),
  };
}

async function openPglite(dataDir: string | undefined): Promise<Db> {
  const parsers = { [pgliteTypes.INT8]: (s: string) => BigInt(s) };
  const db = await PGlite.create(dataDir === undefined ? { parsers } : { dataDir, parsers });
  const serialize = (params?: readonly unknown[]): unknown[] | undefined => params?.map(toParam);
  return {
    kind: 'pglite',
    async query<R>(sql: string, params?: readonly unknown[]) {
      const r = await db.query<R>(sql, serialize(params));
      return { rows: r.rows, affected: r.affectedRows ?? 0 };
    },
    async transaction(fn) {
      return db.transaction(async (tx) =>
        fn({
          async query<R>(sql: string, params?: readonly unknown[]) {
            const r = await tx.query<R>(sql, serialize(params));
            return { rows: r.rows, affected: r.affectedRows ?? 0 };
          },
        }),
      );
    },
    async exec(sql) {
      await db.exec(sql);
    },
    close: () => db.close(),
  };
}
