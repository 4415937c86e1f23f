// Every database read of the explorer's pages, on the indexer's tables (src/indexer/schema.ts). Each query walks
// an index (primary keys, the *_newest indexes, logs_tx, receipts_contract_address) and pages with a keyset
// cursor (block number, index within the block) instead of OFFSET, so a page costs the same on the millionth row
// as on the first. Token holders are read from the indexer's token_balances (maintained with the transfers), not summed.
// Internal transactions and contract creators are read from the archive's tables in the same database
// (archive_internal_txs, archive_contract_creators), when the archive has created them.
import type { Queryable } from '../../indexer/db.js';

export interface BlockRow {
  number: bigint;
  hash: Uint8Array;
  parent_hash: Uint8Array;
  timestamp: bigint;
  gas_used: bigint;
  gas_limit: bigint;
  base_fee: string;
  tx_count: number;
  miner: Uint8Array;
  state_root: Uint8Array;
  transactions_root: Uint8Array;
  receipts_root: Uint8Array;
  size: number;
}

export interface TxRow {
  eth_tx_hash: Uint8Array;
  tx_id: Uint8Array;
  block_number: bigint;
  tx_index: number;
  type: number;
  origin: 'EthSigned' | 'IcSynthetic' | 'Impersonated';
  caller_principal: string | null;
  from_address: Uint8Array;
  to_address: Uint8Array | null;
  value: string;
  nonce: bigint;
  gas_limit: bigint;
  gas_price: string | null;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  input: Uint8Array;
  receipt_status: number;
  // From the receipt (joined).
  gas_used: bigint | null;
  effective_gas_price: string | null;
  contract_address: Uint8Array | null;
  failure_code: string | null;
}

export interface LogRow {
  block_number: bigint;
  log_index: number;
  tx_hash: Uint8Array;
  tx_index: number;
  address: Uint8Array;
  topic0: Uint8Array | null;
  topic1: Uint8Array | null;
  topic2: Uint8Array | null;
  topic3: Uint8Array | null;
  data: Uint8Array;
}

export interface TransferRow {
  tx_hash: Uint8Array;
  block_number: bigint;
  log_index: number;
  token_address: Uint8Array;
  from_address: Uint8Array;
  to_address: Uint8Array;
  amount: string;
  token_id: string | null;
}

/** A frame below a transaction's top call (the archive's archive_internal_txs, filled during its replay). */
export interface InternalTxRow {
  block: bigint;
  tx_index: number;
  trace_address: number[];
  tx_hash: Uint8Array;
  type: string;
  from_address: Uint8Array;
  to_address: Uint8Array | null;
  value: string;
  gas: bigint;
  gas_used: bigint;
  error: string | null;
  selector: Uint8Array | null;
  reverted: boolean;
}

/** Who created a contract (archive_contract_creators): the sender of a top-level creation, else the creating contract. */
export interface CreatorRow {
  address: Uint8Array;
  block: bigint;
  tx_index: number;
  /** Empty for the transaction's own creation, else the creating frame's trace address. */
  trace_address: number[];
  tx_hash: Uint8Array;
  creator: Uint8Array;
}

/** A position in a newest-first list of internal transactions: rows strictly before (block, index, trace address). */
export interface InternalCursor extends Cursor {
  readonly traceAddress: readonly number[];
}

/** Frame kinds that move value from `from_address` to `to_address` (a DELEGATECALL's or CALLCODE's value stays where it is). */
export const VALUE_MOVING_TYPES = ['CALL', 'CREATE', 'CREATE2', 'SELFDESTRUCT'] as const;

export interface MetricsSample {
  sampled_at: Date | string;
  head_block: bigint;
  metrics: unknown;
  prune_status: unknown;
}

/** A position in a newest-first list: items strictly before (block, index). */
export interface Cursor {
  readonly block: bigint;
  readonly index: number;
}

export function parseCursor(s: string | null): Cursor | undefined {
  if (s === null) return undefined;
  const m = /^(\d{1,19})-(\d{1,9})$/.exec(s);
  if (m === null) return undefined;
  return { block: BigInt(m[1]!), index: Number(m[2]) };
}

export const formatCursor = (c: Cursor): string => `${c.block}-${c.index}`;

export function parseInternalCursor(s: string | null): InternalCursor | undefined {
  if (s === null) return undefined;
  const m = /^(\d{1,19})-(\d{1,9})-(\d{1,9}(?:\.\d{1,9}){0,1023})$/.exec(s);
  if (m === null) return undefined;
  return { block: BigInt(m[1]!), index: Number(m[2]), traceAddress: m[3]!.split('.').map(Number) };
}

export const formatInternalCursor = (c: InternalCursor): string => `${c.block}-${c.index}-${c.traceAddress.join('.')}`;

const MAX_CURSOR: Cursor = { block: 2n ** 63n - 1n, index: 2 ** 31 - 1 };

const INTERNAL_COLUMNS = 'block, tx_index, trace_address, tx_hash, type, from_address, to_address, value, gas, gas_used, error, selector, reverted';

const TX_COLUMNS = `t.eth_tx_hash, t.tx_id, t.block_number, t.tx_index, t.type, t.origin, t.caller_principal, t.from_address,
  t.to_address, t.value, t.nonce, t.gas_limit, t.gas_price, t.max_fee_per_gas, t.max_priority_fee_per_gas, t.input,
  t.receipt_status, r.gas_used, r.effective_gas_price, r.contract_address, r.failure_code`;

const BLOCK_COLUMNS = `number, hash, parent_hash, timestamp, gas_used, gas_limit, base_fee, tx_count, miner, state_root,
  transactions_root, receipts_root, size`;

export class ExplorerQueries {
  /** Set once the archive's tables are seen (they exist from the archive's first start on; never dropped). */
  private archiveTables = false;

  constructor(private readonly db: Queryable) {}

  /**
   * Whether the archive's internal-transaction tables exist in this database: the explorer reads them, the
   * archive creates them, and an explorer on a database without an archive shows no internal transactions.
   */
  async hasArchiveTables(): Promise<boolean> {
    if (this.archiveTables) return true;
    const r = await this.db.query<{ ok: boolean }>(
      "SELECT to_regclass('archive_internal_txs') IS NOT NULL AND to_regclass('archive_contract_creators') IS NOT NULL AS ok",
    );
    this.archiveTables = r.rows[0]?.ok === true;
    return this.archiveTables;
  }

  /** Internal transactions from or to an address, newest first (within a transaction, the last frame first). */
  async addressInternalTxs(address: Uint8Array, before: InternalCursor | undefined, limit: number): Promise<InternalTxRow[]> {
    if (!(await this.hasArchiveTables())) return [];
    const c = before ?? { ...MAX_CURSOR, traceAddress: [2 ** 31 - 1] };
    // The (block, tx_index) bound walks the address index; the full row bound then skips the frames already shown.
    const side = (column: string): string => `(SELECT ${INTERNAL_COLUMNS} FROM archive_internal_txs WHERE ${column} = $1
      AND (block, tx_index) <= ($2, $3) AND (block, tx_index, trace_address) < ($2, $3, $4::int[])
      ORDER BY block DESC, tx_index DESC, trace_address DESC LIMIT $5)`;
    const r = await this.db.query<InternalTxRow>(
      `SELECT * FROM (${side('from_address')} UNION ${side('to_address')}) i ORDER BY block DESC, tx_index DESC, trace_address DESC LIMIT $5`,
      [address, c.block, c.index, c.traceAddress, limit],
    );
    return r.rows;
  }

  /** The internal transactions of one transaction that moved value to or from an address (and lasted). */
  async internalTransfersOf(address: Uint8Array, txHashes: readonly Uint8Array[]): Promise<InternalTxRow[]> {
    if (txHashes.length === 0 || !(await this.hasArchiveTables())) return [];
    const r = await this.db.query<InternalTxRow>(
      `SELECT ${INTERNAL_COLUMNS} FROM archive_internal_txs WHERE tx_hash IN (${txHashes.map((_, i) => `$${i + 2}`).join(', ')})
       AND (from_address = $1 OR to_address = $1) AND value > 0 AND NOT reverted AND type IN (${VALUE_MOVING_TYPES.map((t) => `'${t}'`).join(', ')})
       ORDER BY block, tx_index, trace_address`,
      [address, ...txHashes],
    );
    return r.rows;
  }

  /**
   * The transactions that may have changed an address's balance, newest first: those it sent (value and fee),
   * those sent to it or creating it, and those whose internal transactions moved value to or from it. Calls to
   * it are not filtered by value here (a token contract's zero-value calls would make a page scan them all);
   * the page leaves out the ones that changed nothing.
   */
  async balanceChangingTxs(address: Uint8Array, before: Cursor | undefined, limit: number): Promise<TxRow[]> {
    const c = before ?? MAX_CURSOR;
    const archive = await this.hasArchiveTables();
    const internal = (column: string): string => `(SELECT DISTINCT ON (block, tx_index) block, tx_index, tx_hash FROM archive_internal_txs
      WHERE ${column} = $1 AND (block, tx_index) < ($2, $3) AND value > 0 AND NOT reverted AND type IN (${VALUE_MOVING_TYPES.map((t) => `'${t}'`).join(', ')})
      ORDER BY block DESC, tx_index DESC LIMIT $4)`;
    const r = await this.db.query<TxRow>(
      `SELECT ${TX_COLUMNS} FROM (
         (SELECT block_number AS block, tx_index, eth_tx_hash AS tx_hash FROM txs WHERE from_address = $1 AND (block_number, tx_index) < ($2, $3)
           ORDER BY block_number DESC, tx_index DESC LIMIT $4)
         UNION
         (SELECT block_number, tx_index, eth_tx_hash FROM txs WHERE to_address = $1 AND (block_number, tx_index) < ($2, $3)
           ORDER BY block_number DESC, tx_index DESC LIMIT $4)
         UNION
         (SELECT x.block_number, x.tx_index, x.eth_tx_hash FROM receipts rc JOIN txs x ON x.eth_tx_hash = rc.tx_hash
           WHERE rc.contract_address = $1 AND (x.block_number, x.tx_index) < ($2, $3) AND x.value > 0)
         ${archive ? `UNION ${internal('from_address')} UNION ${internal('to_address')}` : ''}
       ) c JOIN txs t ON t.eth_tx_hash = c.tx_hash LEFT JOIN receipts r ON r.tx_hash = t.eth_tx_hash
       ORDER BY t.block_number DESC, t.tx_index DESC LIMIT $4`,
      [address, c.block, c.index, limit],
    );
    return r.rows;
  }

  /** Who created a contract and in which transaction (the newest creation, for an address created again by CREATE2). */
  async creator(address: Uint8Array): Promise<CreatorRow | undefined> {
    if (!(await this.hasArchiveTables())) return undefined;
    const r = await this.db.query<CreatorRow>(
      'SELECT address, block, tx_index, trace_address, tx_hash, creator FROM archive_contract_creators WHERE address = $1 ORDER BY block DESC, tx_index DESC LIMIT 1',
      [address],
    );
    return r.rows[0];
  }

  async range(): Promise<{ first: bigint | undefined; head: bigint | undefined }> {
    const r = await this.db.query<{ first: bigint | null; head: bigint | null }>(
      'SELECT (SELECT number FROM blocks ORDER BY number ASC LIMIT 1) AS first, (SELECT number FROM blocks ORDER BY number DESC LIMIT 1) AS head',
    );
    const row = r.rows[0];
    return { first: row?.first ?? undefined, head: row?.head ?? undefined };
  }

  async indexerState(): Promise<{ head_block: bigint | null; cursor_block: bigint; first_available_block: bigint | null; chain_id: bigint } | undefined> {
    const r = await this.db.query<{ head_block: bigint | null; cursor_block: bigint; first_available_block: bigint | null; chain_id: bigint }>(
      'SELECT head_block, cursor_block, first_available_block, chain_id FROM indexer_state WHERE id = 1',
    );
    return r.rows[0];
  }

  async latestBlocks(limit: number, before?: bigint): Promise<BlockRow[]> {
    const r = await this.db.query<BlockRow>(`SELECT ${BLOCK_COLUMNS} FROM blocks WHERE number < $1 ORDER BY number DESC LIMIT $2`, [
      before ?? MAX_CURSOR.block,
      limit,
    ]);
    return r.rows;
  }

  async latestTxs(limit: number): Promise<TxRow[]> {
    const r = await this.db.query<TxRow>(
      `SELECT ${TX_COLUMNS} FROM (SELECT * FROM txs ORDER BY block_number DESC, tx_index DESC LIMIT $1) t
       LEFT JOIN receipts r ON r.tx_hash = t.eth_tx_hash ORDER BY t.block_number DESC, t.tx_index DESC`,
      [limit],
    );
    return r.rows;
  }

  async blockByNumber(n: bigint): Promise<BlockRow | undefined> {
    return (await this.db.query<BlockRow>(`SELECT ${BLOCK_COLUMNS} FROM blocks WHERE number = $1`, [n])).rows[0];
  }

  async blockByHash(hash: Uint8Array): Promise<BlockRow | undefined> {
    return (await this.db.query<BlockRow>(`SELECT ${BLOCK_COLUMNS} FROM blocks WHERE hash = $1`, [hash])).rows[0];
  }

  async blockTxs(n: bigint, afterIndex: number, limit: number): Promise<TxRow[]> {
    const r = await this.db.query<TxRow>(
      `SELECT ${TX_COLUMNS} FROM txs t LEFT JOIN receipts r ON r.tx_hash = t.eth_tx_hash
       WHERE t.block_number = $1 AND t.tx_index > $2 ORDER BY t.tx_index ASC LIMIT $3`,
      [n, afterIndex, limit],
    );
    return r.rows;
  }

  async txByHash(hash: Uint8Array): Promise<TxRow | undefined> {
    const r = await this.db.query<TxRow>(`SELECT ${TX_COLUMNS} FROM txs t LEFT JOIN receipts r ON r.tx_hash = t.eth_tx_hash WHERE t.eth_tx_hash = $1`, [hash]);
    return r.rows[0];
  }

  async txById(txId: Uint8Array): Promise<TxRow | undefined> {
    const r = await this.db.query<TxRow>(`SELECT ${TX_COLUMNS} FROM txs t LEFT JOIN receipts r ON r.tx_hash = t.eth_tx_hash WHERE t.tx_id = $1`, [txId]);
    return r.rows[0];
  }

  async txLogs(txHash: Uint8Array): Promise<LogRow[]> {
    const r = await this.db.query<LogRow>('SELECT * FROM logs WHERE tx_hash = $1 ORDER BY block_number, log_index LIMIT 64', [txHash]);
    return r.rows;
  }

  async txTransfers(txHash: Uint8Array): Promise<TransferRow[]> {
    const r = await this.db.query<TransferRow>('SELECT * FROM token_transfers WHERE tx_hash = $1 ORDER BY block_number, log_index LIMIT 64', [txHash]);
    return r.rows;
  }

  /** Transactions from or to an address (and the one that created it), newest first. */
  async addressTxs(address: Uint8Array, before: Cursor | undefined, limit: number): Promise<TxRow[]> {
    const c = before ?? MAX_CURSOR;
    const r = await this.db.query<TxRow>(
      `SELECT ${TX_COLUMNS} FROM (
         (SELECT * FROM txs WHERE from_address = $1 AND (block_number, tx_index) < ($2, $3) ORDER BY block_number DESC, tx_index DESC LIMIT $4)
         UNION
         (SELECT * FROM txs WHERE to_address = $1 AND (block_number, tx_index) < ($2, $3) ORDER BY block_number DESC, tx_index DESC LIMIT $4)
         UNION
         (SELECT x.* FROM receipts rc JOIN txs x ON x.eth_tx_hash = rc.tx_hash WHERE rc.contract_address = $1 AND (x.block_number, x.tx_index) < ($2, $3))
       ) t LEFT JOIN receipts r ON r.tx_hash = t.eth_tx_hash
       ORDER BY t.block_number DESC, t.tx_index DESC LIMIT $4`,
      [address, c.block, c.index, limit],
    );
    return r.rows;
  }

  /** Token transfers from or to an address, newest first. */
  async addressTransfers(address: Uint8Array, before: Cursor | undefined, limit: number): Promise<TransferRow[]> {
    const c = before ?? MAX_CURSOR;
    const r = await this.db.query<TransferRow>(
      `SELECT * FROM (
         (SELECT * FROM token_transfers WHERE from_address = $1 AND (block_number, log_index) < ($2, $3) ORDER BY block_number DESC, log_index DESC LIMIT $4)
         UNION
         (SELECT * FROM token_transfers WHERE to_address = $1 AND (block_number, log_index) < ($2, $3) ORDER BY block_number DESC, log_index DESC LIMIT $4)
       ) t ORDER BY block_number DESC, log_index DESC LIMIT $4`,
      [address, c.block, c.index, limit],
    );
    return r.rows;
  }

  async tokenTransfers(token: Uint8Array, before: Cursor | undefined, limit: number): Promise<TransferRow[]> {
    const c = before ?? MAX_CURSOR;
    const r = await this.db.query<TransferRow>(
      `SELECT * FROM token_transfers WHERE token_address = $1 AND (block_number, log_index) < ($2, $3)
       ORDER BY block_number DESC, log_index DESC LIMIT $4`,
      [token, c.block, c.index, limit],
    );
    return r.rows;
  }

  /** ERC-20 balances of one token, largest first, from the indexer's token_balances (maintained with the transfers). */
  async tokenHolders(token: Uint8Array, offset: number, limit: number): Promise<{ holder: Uint8Array; balance: string }[]> {
    const r = await this.db.query<{ holder: Uint8Array; balance: string }>(
      `SELECT holder, balance FROM token_balances WHERE token_address = $1 AND balance > 0
       AND holder <> '\\x0000000000000000000000000000000000000000'::bytea
       ORDER BY balance DESC, holder LIMIT $2 OFFSET $3`,
      [token, limit, offset],
    );
    return r.rows;
  }

  async creation(address: Uint8Array): Promise<{ tx_hash: Uint8Array; from_address: Uint8Array; block_number: bigint } | undefined> {
    const r = await this.db.query<{ tx_hash: Uint8Array; from_address: Uint8Array; block_number: bigint }>(
      'SELECT r.tx_hash, t.from_address, r.block_number FROM receipts r JOIN txs t ON t.eth_tx_hash = r.tx_hash WHERE r.contract_address = $1 LIMIT 1',
      [address],
    );
    return r.rows[0];
  }

  async prunedGapContaining(n: bigint): Promise<{ from_block: bigint; to_block: bigint } | undefined> {
    const r = await this.db.query<{ from_block: bigint; to_block: bigint }>(
      'SELECT from_block, to_block FROM pruned_gaps WHERE from_block <= $1 AND to_block >= $1 ORDER BY from_block DESC LIMIT 1',
      [n],
    );
    return r.rows[0];
  }

  async prunedGaps(limit: number): Promise<{ from_block: bigint; to_block: bigint; seen_at: Date | string }[]> {
    const r = await this.db.query<{ from_block: bigint; to_block: bigint; seen_at: Date | string }>(
      'SELECT from_block, to_block, seen_at FROM pruned_gaps ORDER BY from_block DESC LIMIT $1',
      [limit],
    );
    return r.rows;
  }

  async metricsSamples(limit: number): Promise<MetricsSample[]> {
    const r = await this.db.query<MetricsSample>(
      'SELECT sampled_at, head_block, metrics, prune_status FROM ops_metrics_samples ORDER BY sampled_at DESC LIMIT $1',
      [limit],
    );
    return r.rows.reverse();
  }
}
