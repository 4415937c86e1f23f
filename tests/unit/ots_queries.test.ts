// Otterscan's lookups on the indexer's and the archive's tables (src/archive/ots_queries.ts), in PGlite: which
// transactions an address search finds (sender, callee, created contract, a frame inside a call only), whole
// blocks per page with anvil's firstPage/lastPage, the newest-first order, a sender's nonce, a contract's
// creator, the error when the indexer's tables are missing, and that the searches use their indexes.
import { describe, expect, it } from 'vitest';
import { matchesSql, OtsErrorCode, TX_BY_SENDER_AND_NONCE_SQL, OtsQueries, OtsQueryError, type OtsSearchPage } from '../../src/archive/ots_queries.js';
import { writeInternalRows, type InternalTxRow } from '../../src/archive/internal_rows.js';
import { ensureArchiveSchema } from '../../src/archive/schema.js';
import { ArchiveReader } from '../../src/archive/reader.js';
import { CanisterClient } from '../../src/client/index.js';
import { DEFAULT_CONFIG } from '../../src/gateway/config.js';
import { handleRequest } from '../../src/gateway/rpc.js';
import { createContext } from '../../src/gateway/server.js';
import { openDb, type Db } from '../../src/indexer/db.js';
import { migrate } from '../../src/indexer/migrate.js';
import { INDEXER_COMPONENT, INDEXER_MIGRATIONS } from '../../src/indexer/schema.js';
import { ensureSchema } from '../../src/indexer/store.js';

const addr = (n: number): Uint8Array => new Uint8Array(20).fill(n);
const hashOf = (block: number, index: number): Uint8Array => {
  const h = new Uint8Array(32);
  h[0] = block;
  h[1] = index;
  return h;
};
const X = addr(0xaa);
const OTHER = addr(0x11);
const C = addr(0xcc);

interface Tx {
  from: Uint8Array;
  to: Uint8Array | null;
  nonce: number;
  created?: Uint8Array;
}

async function chain(db: Db, blocks: Tx[][]): Promise<void> {
  for (const [n, txs] of blocks.entries()) {
    await db.query(
      `INSERT INTO blocks (number, hash, parent_hash, timestamp, gas_used, gas_limit, base_fee, tx_count, miner, state_root, transactions_root, receipts_root, logs_bloom, size)
       VALUES ($1, $2, $3, $4, 0, 30000000, 0, $5, $6, $6, $6, $6, $6, 0)`,
      [n, hashOf(n, 255), hashOf(n - 1, 255), 1000 + n, txs.length, new Uint8Array(32)],
    );
    for (const [i, t] of txs.entries()) {
      await db.query(
        `INSERT INTO txs (eth_tx_hash, tx_id, block_number, tx_index, type, origin, from_address, to_address, value, nonce, gas_limit, input, receipt_status)
         VALUES ($1, $1, $2, $3, 2, 'EthSigned', $4, $5, 0, $6, 21000, $7, 1)`,
        [hashOf(n, i), n, i, t.from, t.to, t.nonce, new Uint8Array(0)],
      );
      await db.query('INSERT INTO receipts (tx_hash, block_number, status, gas_used, cumulative_gas_used, effective_gas_price, contract_address) VALUES ($1, $2, 1, 21000, 21000, 1, $3)', [hashOf(n, i), n, t.created ?? null]);
    }
  }
}

const frame = (block: number, txIndex: number, traceAddress: number[], from: Uint8Array, to: Uint8Array, type = 'CALL'): InternalTxRow => ({
  block: BigInt(block), txIndex, txHash: hashOf(block, txIndex), traceAddress, type, from, to, value: 0n, gas: 1000n, gasUsed: 10n, error: undefined, selector: undefined, reverted: false,
});

/** The page as [block, index] pairs and the flags. */
const shape = (p: OtsSearchPage): { txs: string[]; firstPage: boolean; lastPage: boolean } => ({
  txs: p.txs.map((t) => {
    expect(t.hash).toEqual(hashOf(Number(t.block), t.txIndex));
    return `${t.block}:${t.txIndex}`;
  }),
  firstPage: p.firstPage,
  lastPage: p.lastPage,
});

describe('Otterscan lookups on the indexer and archive tables', () => {
  it('finds every way an address takes part, page by whole blocks, flags as anvil sets them', async () => {
    const db = await openDb({ memory: true });
    await ensureSchema(db);
    await ensureArchiveSchema(db, 4801360n);
    // Block 1: X sends (nonce 0) and creates C; block 2: OTHER calls C, which calls X inside (internal only),
    // and OTHER pays X; block 3: nothing of X; block 4: X sends twice (nonces 1, 2); block 5: C self-destructs
    // to X in a call by OTHER.
    await chain(db, [
      [],
      [{ from: X, to: OTHER, nonce: 0 }, { from: X, to: null, nonce: 1, created: C }],
      [{ from: OTHER, to: C, nonce: 0 }, { from: OTHER, to: X, nonce: 1 }],
      [{ from: OTHER, to: OTHER, nonce: 2 }],
      [{ from: X, to: OTHER, nonce: 2 }, { from: OTHER, to: OTHER, nonce: 3 }, { from: X, to: OTHER, nonce: 3 }],
      [{ from: OTHER, to: C, nonce: 4 }],
    ]);
    await writeInternalRows(db, [
      frame(2, 0, [0], C, X),
      frame(2, 0, [0, 0], X, OTHER), // a second frame of the same transaction: still one match
      frame(5, 0, [0], C, X, 'SELFDESTRUCT'),
    ], [{ address: C, block: 1n, txIndex: 1, traceAddress: [], txHash: hashOf(1, 1), creator: X }]);
    const q = new OtsQueries(db);
    const head = 5n;

    // Before, from the head: block 5 (internal), block 4 (two), block 2 (internal + callee), block 1.
    expect(shape(await q.search('before', X, 0n, 25, head))).toEqual({ txs: ['5:0', '4:2', '4:0', '2:1', '2:0', '1:1', '1:0'], firstPage: true, lastPage: true });
    // A page of 2 fills in block 4 (whole): the walk stops above block 1, so not the last page.
    expect(shape(await q.search('before', X, 0n, 2, head))).toEqual({ txs: ['5:0', '4:2', '4:0'], firstPage: true, lastPage: false });
    // The next page: below block 4.
    expect(shape(await q.search('before', X, 4n, 2, head))).toEqual({ txs: ['2:1', '2:0'], firstPage: false, lastPage: false });
    expect(shape(await q.search('before', X, 2n, 2, head))).toEqual({ txs: ['1:1', '1:0'], firstPage: false, lastPage: true });
    expect(shape(await q.search('before', X, 1n, 2, head))).toEqual({ txs: [], firstPage: false, lastPage: false });
    expect(shape(await q.search('before', X, 0n, 0, head))).toEqual({ txs: [], firstPage: true, lastPage: false });
    // After, from block 0: oldest blocks first, answered newest first.
    expect(shape(await q.search('after', X, 0n, 2, head))).toEqual({ txs: ['1:1', '1:0'], firstPage: false, lastPage: true });
    expect(shape(await q.search('after', X, 1n, 2, head))).toEqual({ txs: ['2:1', '2:0'], firstPage: false, lastPage: false });
    expect(shape(await q.search('after', X, 2n, 2, head))).toEqual({ txs: ['4:2', '4:0'], firstPage: false, lastPage: false });
    expect(shape(await q.search('after', X, 4n, 2, head))).toEqual({ txs: ['5:0'], firstPage: true, lastPage: false });
    expect(shape(await q.search('after', X, 5n, 2, head))).toEqual({ txs: [], firstPage: true, lastPage: false });
    // The contract: its creation (receipts), the calls to it, and its self-destruct (internal from).
    expect(shape(await q.search('before', C, 0n, 25, head)).txs).toEqual(['5:0', '2:0', '1:1']);
    expect(shape(await q.search('before', addr(0x99), 0n, 25, head))).toEqual({ txs: [], firstPage: true, lastPage: true });

    expect(await q.txBySenderAndNonce(X, 0n)).toEqual(hashOf(1, 0));
    expect(await q.txBySenderAndNonce(X, 3n)).toEqual(hashOf(4, 2));
    expect(await q.txBySenderAndNonce(X, 4n)).toBeUndefined();
    expect(await q.txBySenderAndNonce(addr(0x99), 0n)).toBeUndefined();
    expect(await q.contractCreator(C)).toEqual({ hash: hashOf(1, 1), creator: X });
    expect(await q.contractCreator(X)).toBeUndefined();

    // Index-driven: every source of a search is read through its address index in the search's direction and
    // stops after the page (Limit over an incremental sort of the index's order), never a table scan.
    await db.query('SET enable_seqscan = off');
    for (const dir of ['before', 'after'] as const) {
      const plan = (await db.query<Record<string, string>>(`EXPLAIN SELECT DISTINCT block, tx_index, hash FROM (${matchesSql(dir, true)}) m LIMIT $4`, [X, 1n, 5n, 25]))
        .rows.map((r) => Object.values(r)[0]).join('\n');
      for (const index of ['txs_from_newest', 'txs_to_newest', 'archive_internal_txs_from', 'archive_internal_txs_to', 'receipts_contract_address']) expect(plan, `${dir} ${index}`).toContain(index);
      expect(plan).not.toMatch(/Seq Scan/);
      expect(plan.match(/Presorted Key/g)).toHaveLength(4);
    }
    await db.close();
  });

  it("a sender's nonce: one probe of txs_from_nonce, which the migration adds to a database indexed before it", async () => {
    const db = await openDb({ memory: true });
    // A database at the indexer's schema before the index, holding transactions.
    const before = INDEXER_MIGRATIONS.findIndex((m) => m.name === 'sender and nonce index');
    expect(before).toBeGreaterThan(0);
    await migrate(db, INDEXER_COMPONENT, INDEXER_MIGRATIONS.slice(0, before));
    await ensureArchiveSchema(db, 4801360n);
    await chain(db, [[], [{ from: X, to: OTHER, nonce: 0 }], [{ from: OTHER, to: X, nonce: 0 }, { from: X, to: OTHER, nonce: 1 }]]);
    const q = new OtsQueries(db);
    expect(await q.txBySenderAndNonce(X, 1n)).toEqual(hashOf(2, 1));
    const indexes = async (): Promise<string[]> => (await db.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE tablename = 'txs'")).rows.map((r) => r.indexname);
    expect(await indexes()).not.toContain('txs_from_nonce');

    expect(await ensureSchema(db)).toEqual(INDEXER_MIGRATIONS.slice(before).map((m) => m.version));
    expect(await indexes()).toContain('txs_from_nonce');
    expect(await q.txBySenderAndNonce(X, 0n)).toEqual(hashOf(1, 0));
    expect(await q.txBySenderAndNonce(X, 1n)).toEqual(hashOf(2, 1));
    expect(await q.txBySenderAndNonce(OTHER, 0n)).toEqual(hashOf(2, 0));
    await db.query('SET enable_seqscan = off');
    const plan = (await db.query<Record<string, string>>(`EXPLAIN ${TX_BY_SENDER_AND_NONCE_SQL}`, [X, 1n])).rows.map((r) => Object.values(r)[0]).join('\n');
    expect(plan).toContain('txs_from_nonce');
    expect(plan).not.toMatch(/Sort/);
    await db.close();
  });

  it('names the missing indexer tables instead of failing on them', async () => {
    const db = await openDb({ memory: true });
    await ensureArchiveSchema(db, 4801360n);
    const q = new OtsQueries(db);
    const e = await q.search('before', X, 0n, 25, 3n).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OtsQueryError);
    expect((e as OtsQueryError).code).toBe(OtsErrorCode.IndexerMissing);
    await expect(q.txBySenderAndNonce(X, 0n)).rejects.toThrow(/no indexer tables/);
    // The creators are the archive's own table: answered.
    expect(await q.contractCreator(C)).toBeUndefined();
    await db.close();
  });

  it('through the gateway: a clear -32000 without the indexer tables, -32601 without an archive, never a crash', async () => {
    const db = await openDb({ memory: true });
    await ensureArchiveSchema(db, 4801360n);
    const client = new CanisterClient({
      kind: 'host',
      call: async (_mode, method) => {
        if (method === 'rpc_eth_block_number') return 3n;
        throw new Error(`${method} not served`);
      },
    });
    const logs: string[] = [];
    const ctx = createContext({ config: DEFAULT_CONFIG, client, archive: new ArchiveReader(db), log: (l) => logs.push(l) });
    const rpc = async (method: string, params: unknown[], c = ctx) => handleRequest({ jsonrpc: '2.0', id: 1, method, params }, c);
    const X_HEX = `0x${'aa'.repeat(20)}`;
    const missing = { error: { code: -32000, message: expect.stringMatching(/^indexer unavailable: the archive's database has no indexer tables/) } };
    expect(await rpc('ots_searchTransactionsBefore', [X_HEX, 0, 25])).toMatchObject(missing);
    expect(await rpc('ots_searchTransactionsAfter', [X_HEX, 0, 25])).toMatchObject(missing);
    expect(await rpc('ots_getTransactionBySenderAndNonce', [X_HEX, 0])).toMatchObject(missing);
    expect(await rpc('ots_getContractCreator', [X_HEX])).toMatchObject({ result: null });
    // Parameters are checked before any lookup.
    expect(await rpc('ots_searchTransactionsBefore', [X_HEX, 0, 101])).toMatchObject({ error: { code: -32602, message: 'pageSize: at most 100, got 101' } });
    expect(await rpc('ots_searchTransactionsBefore', [X_HEX, '0x1', 5.5])).toMatchObject({ error: { code: -32602 } });
    expect(await rpc('ots_getTransactionBySenderAndNonce', ['0x12', 0])).toMatchObject({ error: { code: -32602 } });
    expect(logs).toEqual([]);

    const plain = createContext({ config: DEFAULT_CONFIG, client, log: () => {} });
    for (const m of ['ots_getBlockDetails', 'ots_getBlockDetailsByHash', 'ots_getBlockTransactions', 'ots_searchTransactionsBefore', 'ots_searchTransactionsAfter', 'ots_getTransactionBySenderAndNonce', 'ots_getContractCreator']) {
      expect(await rpc(m, [], plain), m).toMatchObject({ error: { code: -32601, message: `the method ${m} does not exist/is not available` } });
    }
    await db.close();
  });
});
