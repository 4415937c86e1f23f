// The shared database layer on both back ends: value normalisation, transactions, and versioned migrations.
import { afterAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/indexer/db.js';
import { migrate, SchemaTooNewError } from '../../src/indexer/migrate.js';
import { postgresTestDb } from '../support/postgres.js';

const backends: [string, () => Promise<{ db: Db; drop: () => Promise<void> } | string>][] = [
  ['pglite', async () => ({ db: await openDb({ memory: true }), drop: async () => {} })],
  ['postgres', () => postgresTestDb('db')],
];

describe.each(backends)('database layer on %s', (_name, open) => {
  let ctx: { db: Db; drop: () => Promise<void> } | string;
  afterAll(async () => {
    if (typeof ctx !== 'string') {
      await ctx.db.close();
      await ctx.drop();
    }
  });

  it('normalises int8, numeric and bytea, rolls back a failed transaction, and migrates in order', async (t) => {
    ctx = await open();
    if (typeof ctx === 'string') {
      console.warn(`skipped: ${ctx}`);
      t.skip();
      return;
    }
    const { db } = ctx;
    const steps = [
      { version: 1, name: 'a', sql: 'CREATE TABLE t (n bigint PRIMARY KEY, v numeric(78,0), b bytea);' },
      { version: 2, name: 'b', sql: 'ALTER TABLE t ADD COLUMN s text;\nCREATE INDEX t_s ON t (s);' },
    ];
    expect(await migrate(db, 'test', steps.slice(0, 1))).toEqual([1]);
    expect(await migrate(db, 'test', steps)).toEqual([2]);
    expect(await migrate(db, 'test', steps)).toEqual([]);
    await expect(migrate(db, 'test', steps.slice(0, 1))).rejects.toBeInstanceOf(SchemaTooNewError);

    const big = 2n ** 255n + 7n;
    await db.query('INSERT INTO t (n, v, b, s) VALUES ($1, $2, $3, $4)', [2n ** 62n, big, new Uint8Array([0, 255]), 'x']);
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO t (n) VALUES ($1)', [1n]);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const r = await db.query<{ n: bigint; v: string; b: Uint8Array }>('SELECT n, v, b FROM t ORDER BY n');
    expect(r.rows).toHaveLength(1);
    expect(r.rows[0]!.n).toBe(2n ** 62n);
    expect(r.rows[0]!.v).toBe(big.toString());
    expect(r.rows[0]!.b).toBeInstanceOf(Uint8Array);
    expect([...r.rows[0]!.b]).toEqual([0, 255]);
  });
});
