// The indexer's writes and reads of its own state. Every commit of rows carries the new cursor in the same
// transaction and checks the cursor it started from, so a crash at any instant leaves the rows and the cursor
// in step (no gap, no duplicate), and a second indexer on the same database fails instead of doubling rows.
import type { ArchivedBlock } from './archive.js';
import type { Db, Queryable } from './db.js';
import { migrate, SchemaTooNewError } from './migrate.js';
import { BLOCK_COLUMNS, LOG_COLUMNS, RECEIPT_COLUMNS, SKIPPED_COLUMNS, TRANSFER_COLUMNS, TX_COLUMNS, type BlockRows, type Row } from './rows.js';
import { INDEXER_COMPONENT, INDEXER_MIGRATIONS, tokenBalanceDeltas } from './schema.js';

export interface IndexerState {
  readonly chainId: bigint;
  /** The next block to pull (the indexer commits whole blocks only, so segment and offset are 0). */
  readonly cursorBlock: bigint;
  readonly headBlock: bigint | null;
  readonly firstAvailableBlock: bigint | null;
}

export class IndexerStateError extends Error {
  override name = 'IndexerStateError';
}

export { SchemaTooNewError };

/** Creates or upgrades the tables; refuses a database made by a newer release. */
export async function ensureSchema(db: Db): Promise<number[]> {
  return migrate(db, INDEXER_COMPONENT, INDEXER_MIGRATIONS);
}

export async function loadState(db: Queryable): Promise<IndexerState | undefined> {
  const r = await db.query<{ chain_id: bigint; cursor_block: bigint; head_block: bigint | null; first_available_block: bigint | null }>(
    'SELECT chain_id, cursor_block, head_block, first_available_block FROM indexer_state WHERE id = 1',
  );
  const s = r.rows[0];
  return s === undefined ? undefined : { chainId: s.chain_id, cursorBlock: s.cursor_block, headBlock: s.head_block, firstAvailableBlock: s.first_available_block };
}

/** The state row for a chain: created at `start` on first use; a database of another chain is refused. */
export async function openState(db: Db, chainId: bigint, start: bigint): Promise<IndexerState> {
  const s = await loadState(db);
  if (s !== undefined) {
    if (s.chainId !== chainId) throw new IndexerStateError(`the database holds chain ${s.chainId}, not ${chainId} (INDEXER_CHAIN_ID); use another database`);
    return s;
  }
  await db.query('INSERT INTO indexer_state (id, chain_id, cursor_block, cursor_segment, cursor_offset) VALUES (1, $1, $2, 0, 0) ON CONFLICT (id) DO NOTHING', [chainId, start]);
  const again = await loadState(db);
  if (again === undefined || again.chainId !== chainId) throw new IndexerStateError('could not create the indexer state row');
  return again;
}

/** The tables whose rows belong to a block (by block_number), children first: deleted before the block. */
const BLOCK_CHILD_TABLES = ['token_transfers', 'logs', 'receipts', 'txs', 'skipped_transfer_logs'] as const;

/**
 * Adds (sign 1) or subtracts (sign -1) the ERC-20 transfers of blocks [from, to] to token_balances; the
 * transfers must still be in token_transfers. Rows left at zero are deleted.
 */
async function applyTokenBalances(q: Queryable, from: bigint, to: bigint, sign: 1 | -1): Promise<void> {
  const r = await q.query<{ token_address: Uint8Array }>(
    `INSERT INTO token_balances AS b (token_address, holder, balance)
     SELECT token_address, holder, delta * $3::int FROM (${tokenBalanceDeltas('block_number BETWEEN $1 AND $2')}) d
     ON CONFLICT (token_address, holder) DO UPDATE SET balance = b.balance + EXCLUDED.balance
     RETURNING token_address, balance = 0 AS zero`,
    [from, to, sign],
  );
  const tokens = new Map<string, Uint8Array>();
  for (const row of r.rows as { token_address: Uint8Array; zero: boolean }[]) if (row.zero) tokens.set(Buffer.from(row.token_address).toString('hex'), row.token_address);
  // Through token_balances_top: (token, balance = 0) is one index range per token.
  if (tokens.size > 0) await q.query('DELETE FROM token_balances WHERE token_address = ANY($1::bytea[]) AND balance = 0', [[...tokens.values()]]);
}

/** Rebuilds token_balances from every indexed transfer (a bulk fill outside commitBlocks: bench, repair). */
export async function recomputeTokenBalances(q: Queryable): Promise<void> {
  await q.query('DELETE FROM token_balances');
  await q.query(`INSERT INTO token_balances (token_address, holder, balance) ${tokenBalanceDeltas('true')}`);
}

/** Rows per INSERT statement stay under PostgreSQL's 65,535 parameters. */
const MAX_PARAMS = 30_000;

export async function insertRows(q: Queryable, table: string, columns: readonly string[], rows: readonly Row[], suffix = ''): Promise<void> {
  const per = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
  for (let i = 0; i < rows.length; i += per) {
    const batch = rows.slice(i, i + per);
    const params: unknown[] = [];
    const values = batch.map((row) => {
      const start = params.length;
      params.push(...row);
      return `(${row.map((_, j) => `$${start + j + 1}`).join(',')})`;
    });
    await q.query(`INSERT INTO ${table} (${columns.join(',')}) VALUES ${values.join(',')}${suffix}`, params);
  }
}

/** Moves the cursor from `from` to `to` inside a transaction; fails if another writer moved it. */
async function moveCursor(q: Queryable, from: bigint, to: bigint, head: bigint, firstAvailable: bigint): Promise<void> {
  const r = await q.query(
    'UPDATE indexer_state SET cursor_block = $2, cursor_segment = 0, cursor_offset = 0, head_block = $3, first_available_block = $4, updated_at = now() WHERE id = 1 AND cursor_block = $1',
    [from, to, head, firstAvailable],
  );
  if (r.affected !== 1) throw new IndexerStateError(`the cursor is no longer at block ${from}: is another indexer writing to this database?`);
}

export interface Commit {
  readonly fromBlock: bigint;
  readonly blocks: readonly BlockRows[];
  readonly archived: readonly ArchivedBlock[];
  readonly head: bigint;
  readonly firstAvailable: bigint;
}

/** The rows of whole blocks, their archive records and the cursor after the last one, in one transaction. */
export async function commitBlocks(db: Db, c: Commit): Promise<void> {
  const last = c.blocks.at(-1);
  if (last === undefined) return;
  if (c.blocks[0]!.number !== c.fromBlock) throw new IndexerStateError(`commit starts at block ${c.blocks[0]!.number}, the cursor is at ${c.fromBlock}`);
  await db.transaction(async (tx) => {
    await insertRows(tx, 'blocks', BLOCK_COLUMNS, c.blocks.map((b) => b.block));
    await insertRows(tx, 'txs', TX_COLUMNS, c.blocks.flatMap((b) => b.txs));
    await insertRows(tx, 'receipts', RECEIPT_COLUMNS, c.blocks.flatMap((b) => b.receipts));
    await insertRows(tx, 'logs', LOG_COLUMNS, c.blocks.flatMap((b) => b.logs));
    await insertRows(tx, 'token_transfers', TRANSFER_COLUMNS, c.blocks.flatMap((b) => b.transfers));
    if (c.blocks.some((b) => b.transfers.length > 0)) await applyTokenBalances(tx, c.fromBlock, last.number, 1);
    await insertRows(tx, 'skipped_transfer_logs', SKIPPED_COLUMNS, c.blocks.flatMap((b) => b.skipped));
    await insertRows(
      tx,
      'archive_files',
      ['block_number', 'path', 'sha256', 'raw_bytes', 'stored_bytes'],
      c.archived.map((a) => [a.blockNumber, a.path, a.sha256, a.rawBytes, a.storedBytes]),
      // A rebuild from the archive records the same files again.
      ' ON CONFLICT (block_number) DO UPDATE SET path = EXCLUDED.path, sha256 = EXCLUDED.sha256, raw_bytes = EXCLUDED.raw_bytes, stored_bytes = EXCLUDED.stored_bytes',
    );
    await moveCursor(tx, c.fromBlock, last.number + 1n, c.head, c.firstAvailable);
  });
}

/**
 * Forgets every block above `head` (its rows and archive records) and puts the cursor at head + 1 when it was
 * beyond, in one transaction: for a chain that went back (the devnet's evm_revert). Returns the archive paths
 * whose records were removed (the caller deletes the files after the commit; a crash between leaves orphans,
 * which start-up reports: Indexer.collectOrphans) and the new cursor.
 */
export async function rewindBlocks(db: Db, head: bigint): Promise<{ readonly paths: string[]; readonly cursorBlock: bigint; readonly blocks: number }> {
  return db.transaction(async (tx) => {
    // The forgotten transfers leave the balances before their rows go.
    const top = await tx.query<{ n: bigint | null }>('SELECT max(block_number) AS n FROM token_transfers WHERE block_number > $1', [head]);
    if (top.rows[0]?.n !== null && top.rows[0]?.n !== undefined) await applyTokenBalances(tx, head + 1n, BigInt(top.rows[0].n), -1);
    for (const t of BLOCK_CHILD_TABLES) await tx.query(`DELETE FROM ${t} WHERE block_number > $1`, [head]);
    const removed = await tx.query('DELETE FROM blocks WHERE number > $1', [head]);
    const paths = (await tx.query<{ path: string }>('DELETE FROM archive_files WHERE block_number > $1 RETURNING path', [head])).rows.map((r) => r.path);
    await tx.query('DELETE FROM pruned_gaps WHERE from_block > $1', [head]);
    const r = await tx.query<{ cursor_block: bigint }>(
      'UPDATE indexer_state SET cursor_block = LEAST(cursor_block, $1), cursor_segment = 0, cursor_offset = 0, head_block = LEAST(head_block, $2), updated_at = now() WHERE id = 1 RETURNING cursor_block',
      [head + 1n, head],
    );
    const cursor = r.rows[0]?.cursor_block;
    if (cursor === undefined) throw new IndexerStateError('no indexer state row to rewind');
    return { paths, cursorBlock: cursor, blocks: removed.affected };
  });
}

/** `Err Pruned`: blocks [from, firstAvailable) are gone; the gap and the moved cursor commit together. */
export async function recordGap(db: Db, from: bigint, firstAvailable: bigint, head: bigint): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('INSERT INTO pruned_gaps (from_block, to_block) VALUES ($1, $2)', [from, firstAvailable - 1n]);
    await moveCursor(tx, from, firstAvailable, head, firstAvailable);
  });
}

export async function updateHead(db: Queryable, head: bigint, firstAvailable: bigint): Promise<void> {
  await db.query('UPDATE indexer_state SET head_block = $1, first_available_block = $2, updated_at = now() WHERE id = 1', [head, firstAvailable]);
}

/** JSON for jsonb columns: bigint as a decimal string, bytes as 0x hex, one-key null variants as their name. */
export function toJson(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return `0x${Buffer.from(v).toString('hex')}`;
  if (Array.isArray(v)) return v.map(toJson);
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v);
    if (entries.length === 1 && entries[0]![1] === null) return entries[0]![0];
    return Object.fromEntries(entries.map(([k, x]) => [k, toJson(x)]));
  }
  return v;
}

export async function insertMetricsSample(db: Queryable, head: bigint, metrics: unknown, pruneStatus: unknown): Promise<void> {
  await db.query('INSERT INTO ops_metrics_samples (sampled_at, head_block, metrics, prune_status) VALUES (clock_timestamp(), $1, $2, $3) ON CONFLICT (sampled_at) DO NOTHING', [
    head,
    JSON.stringify(toJson(metrics)),
    pruneStatus === undefined ? null : JSON.stringify(toJson(pruneStatus)),
  ]);
}

export interface RetentionResult {
  readonly blocks: number;
  readonly txs: number;
  readonly dryRun: boolean;
}

/**
 * Removes (or with dryRun only counts) blocks older than `cutoff` (seconds, by block timestamp) with their rows
 * (the foreign keys cascade), `batch` blocks per transaction so no statement grows with the table. The
 * archive and its records stay.
 */
export async function applyRetention(db: Db, cutoff: bigint, dryRun: boolean, batch = 500): Promise<RetentionResult> {
  if (dryRun) {
    const r = await db.query<{ blocks: bigint; txs: bigint | null }>('SELECT count(*)::bigint AS blocks, sum(tx_count)::bigint AS txs FROM blocks WHERE timestamp < $1', [cutoff]);
    return { blocks: Number(r.rows[0]?.blocks ?? 0n), txs: Number(r.rows[0]?.txs ?? 0n), dryRun };
  }
  let blocks = 0;
  let txs = 0;
  for (;;) {
    const r = await db.transaction(async (tx) => {
      const sel = await tx.query<{ number: bigint; tx_count: number }>('SELECT number, tx_count FROM blocks WHERE timestamp < $1 ORDER BY number LIMIT $2', [cutoff, batch]);
      if (sel.rows.length === 0) return { blocks: 0, txs: 0 };
      const numbers = sel.rows.map((x) => x.number);
      const lo = numbers[0]!;
      const hi = numbers.at(-1)!;
      // Child tables first by block range (their own indexes), then the blocks.
      for (const t of BLOCK_CHILD_TABLES) await tx.query(`DELETE FROM ${t} WHERE block_number BETWEEN $1 AND $2`, [lo, hi]);
      await tx.query('DELETE FROM blocks WHERE number BETWEEN $1 AND $2', [lo, hi]);
      return { blocks: numbers.length, txs: sel.rows.reduce((n, x) => n + x.tx_count, 0) };
    });
    blocks += r.blocks;
    txs += r.txs;
    if (r.blocks < batch) break;
  }
  return { blocks, txs, dryRun };
}
