// The indexer's token_balances: maintained with the transfers it commits (the rows summed per token and
// holder), taken back with the blocks a rewind forgets, kept when retention deletes old history, filled for
// existing rows by the migration that adds it; the explorer's holders list reads it instead of summing every
// transfer of the token on each page view.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExplorerQueries } from '../../src/explorer/pages/queries.js';
import { openDb, type Db } from '../../src/indexer/db.js';
import { Indexer } from '../../src/indexer/indexer.js';
import { migrate } from '../../src/indexer/migrate.js';
import { INDEXER_COMPONENT, INDEXER_MIGRATIONS } from '../../src/indexer/schema.js';
import { recomputeTokenBalances, rewindBlocks } from '../../src/indexer/store.js';
import { projectTempDir } from '../../src/host/paths.js';
import { testIndexerConfig } from '../support/indexer.js';
import { SyntheticChain, TOKEN } from '../support/synthetic_chain.js';

const dir = projectTempDir('indexer-balances-');
let db: Db;
beforeAll(async () => {
  db = await openDb({ memory: true });
}, 120_000);
afterAll(() => db.close());

type Balances = Record<string, string>;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** The maintained table, as token:holder -> balance. */
async function maintained(): Promise<Balances> {
  const r = await db.query<{ token_address: Uint8Array; holder: Uint8Array; balance: string }>('SELECT token_address, holder, balance FROM token_balances');
  return Object.fromEntries(r.rows.map((x) => [`${hex(x.token_address)}:${hex(x.holder)}`, String(x.balance)]));
}

/** The same, summed from the transfers now in the table (what the page used to compute per view). */
async function summed(): Promise<Balances> {
  const r = await db.query<{ token_address: Uint8Array; holder: Uint8Array; balance: string }>(
    `SELECT token_address, holder, sum(delta)::numeric(78,0) AS balance FROM (
       SELECT token_address, to_address AS holder, amount AS delta FROM token_transfers WHERE token_id IS NULL
       UNION ALL SELECT token_address, from_address, -amount FROM token_transfers WHERE token_id IS NULL) d
     GROUP BY token_address, holder HAVING sum(delta) <> 0`,
  );
  return Object.fromEntries(r.rows.map((x) => [`${hex(x.token_address)}:${hex(x.holder)}`, String(x.balance)]));
}

describe('token balances', () => {
  it('are maintained on commit, taken back on rewind, kept by retention, and backfilled by the migration', async () => {
    const chain = new SyntheticChain();
    const now = BigInt(Math.floor(Date.now() / 1000));
    for (let i = 0; i < 4; i++) chain.addBlock({ transfers: 1, erc20: 3, erc721: i === 1 }, now - 100n * 86_400n + BigInt(i));
    for (let i = 0; i < 4; i++) chain.addBlock({ erc20: 2 }, now - 10n + BigInt(i));
    const ix = new Indexer({ config: testIndexerConfig(`${dir}/a`), client: chain.client(), db, log: () => {} });
    await ix.run({ untilCaughtUp: true });
    const all = await maintained();
    expect(Object.keys(all).length).toBeGreaterThan(4);
    expect(all).toEqual(await summed());

    // A rewind forgets blocks 6 and 7: their transfers leave the balances too.
    await rewindBlocks(db, 5n);
    const afterRewind = await maintained();
    expect(afterRewind).not.toEqual(all);
    expect(afterRewind).toEqual(await summed());

    // Retention deletes the old blocks' transfers; the balances stay (history gone, holdings unchanged).
    const real = new Indexer({ config: testIndexerConfig(`${dir}/a`), client: chain.client(), db, log: () => {} });
    await real.prepare();
    expect((await real.retention()).blocks).toBe(4);
    expect(await maintained()).toEqual(afterRewind);
    expect(await maintained()).not.toEqual(await summed());

    // The migration fills the table for rows indexed before it existed.
    await recomputeTokenBalances(db);
    const fromRows = await maintained();
    await db.query('DROP TABLE token_balances');
    // Back to version 1 (the later migrations run again: each is repeatable over this schema).
    await db.query('DELETE FROM schema_migrations WHERE component = $1 AND version >= 2', [INDEXER_COMPONENT]);
    expect(await migrate(db, INDEXER_COMPONENT, INDEXER_MIGRATIONS)).toEqual(INDEXER_MIGRATIONS.slice(1).map((m) => m.version));
    expect(await maintained()).toEqual(fromRows);
  });

  it("the holders list reads the maintained balances, not the token's transfers (50,000 of them)", async () => {
    // 50,000 transfers of one token among 500 holders, minted from the zero address.
    await db.exec(`
SET session_replication_role = replica;
INSERT INTO token_transfers SELECT decode(lpad(to_hex(i), 64, '0'), 'hex'), 1000000 + i / 100, i % 100, decode('${hex(TOKEN)}', 'hex'),
  decode(repeat('00', 20), 'hex'), decode(lpad(to_hex(i % 500 + 4096), 40, '0'), 'hex'), 1 + i % 7, NULL FROM generate_series(0, 49999) i;
SET session_replication_role = DEFAULT;`);
    await recomputeTokenBalances(db);
    const q = new ExplorerQueries(db);
    const first = await q.tokenHolders(TOKEN, 0, 25);
    expect(first).toHaveLength(25);
    const expected = (await summed())[`${hex(TOKEN)}:${hex(first[0]!.holder)}`];
    expect(String(first[0]!.balance)).toBe(expected);
    // With the transfers gone the answer is the same: the page no longer sums them per view.
    await db.exec(`SET session_replication_role = replica; DELETE FROM token_transfers WHERE block_number >= 1000000; SET session_replication_role = DEFAULT;`);
    expect(await q.tokenHolders(TOKEN, 0, 25)).toEqual(first);
  });
});
