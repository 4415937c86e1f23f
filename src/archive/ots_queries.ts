// Otterscan's lookups (docs/traces.md, "JSON-RPC"): the transactions touching an address, a sender's
// transaction by nonce and a contract's creator, answered from the database the archive shares with the
// indexer: the indexer's txs and receipts (top-level sender, callee, created contract) and the archive's
// internal transactions and contract creators (an address that only appears inside a call). Every query walks
// an (address, block DESC, tx_index DESC) index from one end and stops after a page, so its cost follows the
// page, not the table.
import type { Queryable } from '../indexer/db.js';

/** The failures these lookups name (mapped to JSON-RPC answers by the gateway's one error table). */
export const OtsErrorCode = {
  /** The database has no indexer tables (an archive configured without an indexer). */
  IndexerMissing: 'ots_indexer_missing',
} as const;
export type OtsErrorCode = (typeof OtsErrorCode)[keyof typeof OtsErrorCode];

export class OtsQueryError extends Error {
  constructor(
    readonly code: OtsErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'OtsQueryError';
  }
}

/** One transaction found by a search: where it is and its chain hash. */
export interface OtsTxRef {
  readonly block: bigint;
  readonly txIndex: number;
  readonly hash: Uint8Array;
}

/** ots_searchTransactionsBefore/After's page: whole blocks, newest first, and the two flags as anvil sets them. */
export interface OtsSearchPage {
  readonly txs: readonly OtsTxRef[];
  readonly firstPage: boolean;
  readonly lastPage: boolean;
}

export interface OtsCreator {
  readonly hash: Uint8Array;
  readonly creator: Uint8Array;
}

type Dir = 'before' | 'after';

interface Row {
  block: bigint | string | number;
  tx_index: number;
  hash: Uint8Array;
}

const refOf = (r: Row): OtsTxRef => ({ block: BigInt(r.block), txIndex: Number(r.tx_index), hash: new Uint8Array(r.hash) });
const newestFirst = (a: OtsTxRef, b: OtsTxRef): number => (a.block === b.block ? b.txIndex - a.txIndex : a.block > b.block ? -1 : 1);

/**
 * The transactions touching `address` in blocks [lo, hi], each source read through its own index in the
 * search's direction, distinct transactions, at most `limit` from each (the `limit` nearest overall are then
 * among them). Without `limit`: every one (used for a single block). Exported for the test of its plan.
 */
export function matchesSql(dir: Dir, limit: boolean): string {
  const order = dir === 'before' ? 'DESC' : 'ASC';
  const lim = limit ? 'LIMIT $4' : '';
  const src = (table: string, block: string, index: string, hash: string, column: string): string =>
    `(SELECT DISTINCT ${block} AS block, ${index} AS tx_index, ${hash} AS hash FROM ${table} WHERE ${column} = $1 AND ${block} BETWEEN $2 AND $3 ORDER BY ${block} ${order}, ${index} ${order} ${lim})`;
  return [
    src('txs', 'block_number', 'tx_index', 'eth_tx_hash', 'from_address'),
    src('txs', 'block_number', 'tx_index', 'eth_tx_hash', 'to_address'),
    src('archive_internal_txs', 'block', 'tx_index', 'tx_hash', 'from_address'),
    src('archive_internal_txs', 'block', 'tx_index', 'tx_hash', 'to_address'),
    // A contract is created once (again only after a self-destruct in its creation): a handful of rows.
    `(SELECT t.block_number AS block, t.tx_index, t.eth_tx_hash AS hash FROM receipts r JOIN txs t ON t.eth_tx_hash = r.tx_hash WHERE r.contract_address = $1 AND r.block_number BETWEEN $2 AND $3)`,
  ].join(' UNION ');
}

/** A sender's transaction with a nonce, the newest if several (as anvil walks from the head). */
export const TX_BY_SENDER_AND_NONCE_SQL = 'SELECT eth_tx_hash AS hash FROM txs WHERE from_address = $1 AND nonce = $2 ORDER BY block_number DESC, tx_index DESC LIMIT 1';

export class OtsQueries {
  private indexerSeen = false;

  constructor(private readonly db: Queryable) {}

  /** The indexer's tables must be there (they are created by the indexer, not by the archive). */
  private async requireIndexer(): Promise<void> {
    if (this.indexerSeen) return;
    const r = await this.db.query<{ txs: string | null; receipts: string | null }>("SELECT to_regclass('txs')::text AS txs, to_regclass('receipts')::text AS receipts");
    const row = r.rows[0];
    if (row?.txs === null || row?.txs === undefined || row.receipts === null) {
      throw new OtsQueryError(OtsErrorCode.IndexerMissing, "the archive's database has no indexer tables: Otterscan's searches need the indexer running into the same database (INDEXER_DATABASE_URL = RPC_GATEWAY_ARCHIVE_DATABASE_URL)");
    }
    this.indexerSeen = true;
  }

  /** Every distinct transaction touching `address` in [lo, hi], nearest first in the search's direction (at most `limit` when given). */
  private async matches(dir: Dir, address: Uint8Array, lo: bigint, hi: bigint, limit?: number): Promise<OtsTxRef[]> {
    if (lo > hi) return [];
    const order = dir === 'before' ? 'DESC' : 'ASC';
    const sql = `SELECT DISTINCT block, tx_index, hash FROM (${matchesSql(dir, limit !== undefined)}) m ORDER BY block ${order}, tx_index ${order}${limit === undefined ? '' : ' LIMIT $4'}`;
    const params: unknown[] = [address, lo, hi];
    if (limit !== undefined) params.push(limit);
    return (await this.db.query<Row>(sql, params)).rows.map(refOf);
  }

  /**
   * ots_searchTransactionsBefore (dir 'before': blocks below `block`, or from `head` down when `block` is 0) and
   * ots_searchTransactionsAfter ('after': blocks above `block`, or from block 0 up when it is 0), as anvil walks
   * them: block by block, a block's matches all taken once the page is not yet full, so a page holds at least
   * `pageSize` transactions unless the range ran out, and never part of a block. `firstPage`: the walk reached
   * the head (or started there); `lastPage`: it reached the oldest block (before: block 1; after: it started at
   * block 0). The transactions come newest first (block, then position in the block, descending).
   */
  async search(dir: Dir, address: Uint8Array, block: bigint, pageSize: number, head: bigint): Promise<OtsSearchPage> {
    await this.requireIndexer();
    if (dir === 'before') {
      const from = block === 0n ? head : block - 1n;
      const to = 1n;
      const firstPage = from >= head;
      if (pageSize === 0 || from < to) return { txs: [], firstPage, lastPage: false };
      const near = await this.matches(dir, address, to, from, pageSize);
      if (near.length < pageSize) return { txs: near, firstPage, lastPage: true };
      const k = near[pageSize - 1]!.block;
      const txs = [...near.filter((t) => t.block > k), ...(await this.matches(dir, address, k, k))];
      return { txs, firstPage, lastPage: k === to };
    }
    const from = block === 0n ? 0n : block + 1n;
    const lastPage = block === 0n && from <= head;
    if (pageSize === 0 || from > head) return { txs: [], firstPage: from >= head, lastPage };
    const near = await this.matches(dir, address, from, head, pageSize);
    if (near.length < pageSize) return { txs: near.sort(newestFirst), firstPage: true, lastPage };
    const k = near[pageSize - 1]!.block;
    const txs = [...near.filter((t) => t.block < k), ...(await this.matches(dir, address, k, k))];
    return { txs: txs.sort(newestFirst), firstPage: from >= head || k === head, lastPage };
  }

  /** The hash of `sender`'s transaction with this nonce (the newest, as anvil walks from the head), if indexed. */
  async txBySenderAndNonce(sender: Uint8Array, nonce: bigint): Promise<Uint8Array | undefined> {
    await this.requireIndexer();
    // The next nonce (Otterscan asks it to know whether there is a next transaction) is answered from the
    // sender's newest transaction alone (txs_from_newest); the one asked for is one probe of txs_from_nonce.
    const newest = await this.db.query<{ nonce: string | bigint }>('SELECT nonce FROM txs WHERE from_address = $1 ORDER BY block_number DESC, tx_index DESC LIMIT 1', [sender]);
    const top = newest.rows[0];
    if (top === undefined || BigInt(top.nonce) < nonce) return undefined;
    const r = await this.db.query<{ hash: Uint8Array }>(TX_BY_SENDER_AND_NONCE_SQL, [sender, nonce]);
    const row = r.rows[0];
    return row === undefined ? undefined : new Uint8Array(row.hash);
  }

  /** The creation of the contract now at `address` (the newest, as anvil walks from the head), if known. */
  async contractCreator(address: Uint8Array): Promise<OtsCreator | undefined> {
    const r = await this.db.query<{ tx_hash: Uint8Array; creator: Uint8Array }>(
      'SELECT tx_hash, creator FROM archive_contract_creators WHERE address = $1 ORDER BY block DESC, tx_index DESC, trace_address DESC LIMIT 1',
      [address],
    );
    const row = r.rows[0];
    return row === undefined ? undefined : { hash: new Uint8Array(row.tx_hash), creator: new Uint8Array(row.creator) };
  }
}
