// Internal transactions and contract creators as the archive stores them (./schema.ts): the rows that the
// replay writes for every transaction it re-executes, and that the explorer's pages and the gateway's
// Otterscan search read. Addresses, hashes and selectors are bytea; values numeric; a trace address is the
// child-index path from the top call (Parity's traceAddress; empty only for a top-level creation's creator row).
import type { Queryable } from '../indexer/db.js';
import type { InternalTx } from './trace/internal_txs.js';

/**
 * One frame below a transaction's top call, placed in its block: trace/internal_txs.ts's InternalTx (its fields
 * say what each holds), with the call type as text (CALL, CALLCODE, DELEGATECALL, STATICCALL, CREATE, CREATE2 or
 * SELFDESTRUCT) as the table stores it.
 */
export interface InternalTxRow extends Readonly<Omit<InternalTx, 'type' | 'traceAddress'>> {
  readonly block: bigint;
  readonly txIndex: number;
  readonly txHash: Uint8Array;
  readonly traceAddress: readonly number[];
  readonly type: string;
}

/** A contract that exists because of this creation (reverted creations are not listed). */
export interface ContractCreatorRow {
  readonly address: Uint8Array;
  readonly block: bigint;
  readonly txIndex: number;
  readonly txHash: Uint8Array;
  /** Empty for the transaction's own creation, else the creating frame's trace address. */
  readonly traceAddress: readonly number[];
  /** The account whose code ran CREATE/CREATE2, or the transaction's sender for a top-level creation. */
  readonly creator: Uint8Array;
}

/** Rows per INSERT statement: 13 parameters a row stays below the protocol's 65,535. */
const ROWS_PER_INSERT = 4000;

async function insertMany(tx: Queryable, table: string, columns: readonly string[], rows: readonly unknown[][]): Promise<void> {
  const width = columns.length;
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const part = rows.slice(i, i + ROWS_PER_INSERT);
    const values = part.map((_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(', ')})`).join(', ');
    await tx.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${values} ON CONFLICT DO NOTHING`, part.flat());
  }
}

/** Writes a batch of rows, inside the caller's transaction (the same commit as the blocks they belong to). */
export async function writeInternalRows(tx: Queryable, internal: readonly InternalTxRow[], creators: readonly ContractCreatorRow[]): Promise<void> {
  if (internal.length > 0) {
    await insertMany(tx, 'archive_internal_txs',
      ['block', 'tx_index', 'trace_address', 'tx_hash', 'type', 'from_address', 'to_address', 'value', 'gas', 'gas_used', 'error', 'selector', 'reverted'],
      internal.map((r) => [r.block, r.txIndex, r.traceAddress, r.txHash, r.type, r.from, r.to ?? null, r.value.toString(), r.gas, r.gasUsed, r.error ?? null, r.selector ?? null, r.reverted]));
  }
  if (creators.length > 0) {
    await insertMany(tx, 'archive_contract_creators',
      ['address', 'block', 'tx_index', 'trace_address', 'tx_hash', 'creator'],
      creators.map((r) => [r.address, r.block, r.txIndex, r.traceAddress, r.txHash, r.creator]));
  }
}

/** Forgets the rows of every block above `head` (a rewind). */
export async function deleteInternalRowsAbove(tx: Queryable, head: bigint): Promise<void> {
  await tx.query('DELETE FROM archive_internal_txs WHERE block > $1', [head]);
  await tx.query('DELETE FROM archive_contract_creators WHERE block > $1', [head]);
}

/**
 * The first block whose rows are stored: blocks below it were archived before the archive wrote them (a
 * database of an older schema, upgraded in place), so a reader can say where its list starts.
 */
export async function internalRowsFromBlock(db: Queryable): Promise<bigint> {
  const r = await db.query<{ internal_from_block: bigint }>('SELECT internal_from_block FROM archive_meta WHERE id = 1');
  return BigInt(r.rows[0]?.internal_from_block ?? 0n);
}
