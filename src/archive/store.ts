// Writes and rewinds of the archive's history (./schema.ts): a batch of verified blocks and the new cursor in one
// transaction, so a crash (even SIGKILL) leaves the archive at a block boundary it resumes from.
import type { Db, Queryable } from '../indexer/db.js';
import type { ReplayedBlock } from './replay.js';
import type { Mismatch } from './mismatch.js';
import { deleteInternalRowsAbove, writeInternalRows, type ContractCreatorRow, type InternalTxRow } from './internal_rows.js';

export interface ArchiveMeta {
  /** The next block to replay; every block below it is verified and stored. */
  readonly cursorBlock: bigint;
  readonly stateRoot: Uint8Array;
  readonly alarm: Mismatch | undefined;
  /**
   * The first block whose internal transactions and contract creators are stored (0 for an archive replayed
   * with them from genesis; an archive created before they were written has them from where it stood then).
   */
  readonly internalFromBlock: bigint;
}

export async function readMeta(db: Queryable): Promise<ArchiveMeta> {
  const r = await db.query<{ cursor_block: bigint; state_root: Uint8Array; alarm: string | null; internal_from_block: bigint }>('SELECT cursor_block, state_root, alarm, internal_from_block FROM archive_meta WHERE id = 1');
  const row = r.rows[0]!;
  return { cursorBlock: BigInt(row.cursor_block), stateRoot: row.state_root, alarm: row.alarm === null ? undefined : parseAlarm(row.alarm), internalFromBlock: BigInt(row.internal_from_block) };
}

function parseAlarm(text: string): Mismatch {
  const o = JSON.parse(text) as Record<string, unknown>;
  return { ...(o as unknown as Mismatch), block: BigInt(o.block as string) };
}

/** Rows per INSERT statement (3 parameters a row stays far below the protocol's 65,535). */
const ROWS_PER_INSERT = 5000;

async function insertRows(tx: Queryable, table: string, columns: string, rows: unknown[][], conflict: string): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const part = rows.slice(i, i + ROWS_PER_INSERT);
    const width = part[0]!.length;
    const values = part.map((_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(', ')})`).join(', ');
    await tx.query(`INSERT INTO ${table} (${columns}) VALUES ${values} ${conflict}`, part.flat());
  }
}

/** Stores verified blocks (in order, starting at the cursor) and moves the cursor past them. */
export async function commitReplayed(db: Db, blocks: readonly ReplayedBlock[]): Promise<void> {
  if (blocks.length === 0) return;
  await db.transaction(async (tx) => {
    const accounts: unknown[][] = [];
    const storage: unknown[][] = [];
    const code: unknown[][] = [];
    const rows: unknown[][] = [];
    const internal: InternalTxRow[] = [];
    const creators: ContractCreatorRow[] = [];
    for (const b of blocks) {
      internal.push(...b.internalTxs);
      creators.push(...b.creators);
      const c = b.context;
      rows.push([c.number, c.hash, c.parentHash, c.timestamp, c.baseFeePerGas.toString(), c.gasLimit, c.coinbase, b.stateRoot, b.txCount]);
      for (const [k, v] of b.writes.accounts) accounts.push([k, c.number, v ?? null]);
      for (const [k, v] of b.writes.storage) storage.push([k, c.number, v ?? null]);
      for (const [k, v] of b.writes.code) code.push([k, v]);
    }
    await insertRows(tx, 'archive_blocks', 'number, hash, parent_hash, timestamp, base_fee, gas_limit, coinbase, state_root, tx_count', rows, '');
    if (accounts.length > 0) await insertRows(tx, 'archive_accounts', 'address, block, record', accounts, '');
    if (storage.length > 0) await insertRows(tx, 'archive_storage', 'skey, block, value', storage, '');
    if (code.length > 0) await insertRows(tx, 'archive_code', 'hash, code', code, 'ON CONFLICT (hash) DO NOTHING');
    await writeInternalRows(tx, internal, creators);
    const last = blocks.at(-1)!;
    await tx.query('UPDATE archive_meta SET cursor_block = $1, state_root = $2 WHERE id = 1', [last.context.number + 1n, last.stateRoot]);
  });
}

export async function recordAlarm(db: Db, m: Mismatch): Promise<void> {
  await db.query('UPDATE archive_meta SET alarm = $1 WHERE id = 1', [JSON.stringify({ ...m, block: m.block.toString() })]);
}

/** Forgets every block above `head` (the devnet's evm_revert); returns the new cursor. */
export async function rewindArchive(db: Db, head: bigint): Promise<bigint> {
  return db.transaction(async (tx) => {
    const meta = await readMeta(tx);
    if (meta.cursorBlock <= head + 1n) return meta.cursorBlock;
    await tx.query('DELETE FROM archive_accounts WHERE block > $1', [head]);
    await tx.query('DELETE FROM archive_storage WHERE block > $1', [head]);
    await tx.query('DELETE FROM archive_blocks WHERE number > $1', [head]);
    await deleteInternalRowsAbove(tx, head);
    const root = (await tx.query<{ state_root: Uint8Array }>('SELECT state_root FROM archive_blocks WHERE number = $1', [head])).rows[0]?.state_root ?? new Uint8Array(32);
    const cursor = head + 1n;
    // Blocks replayed again from here get their internal rows, even below where an older archive began them.
    await tx.query('UPDATE archive_meta SET cursor_block = $1, state_root = $2, internal_from_block = LEAST(internal_from_block, $1) WHERE id = 1', [head < 0n ? 0n : cursor, root]);
    return head < 0n ? 0n : cursor;
  });
}

/** The head state (the latest value of every key) and the last 256 block hashes, to resume replaying. */
export async function loadHeadState(db: Db, cursor: bigint): Promise<{
  accounts: [Uint8Array, Uint8Array][];
  storage: [Uint8Array, Uint8Array][];
  code: [Uint8Array, Uint8Array][];
  hashes: [bigint, Uint8Array][];
}> {
  const latest = async (table: string, key: string, value: string): Promise<[Uint8Array, Uint8Array][]> => {
    const r = await db.query<{ k: Uint8Array; v: Uint8Array | null }>(`SELECT DISTINCT ON (${key}) ${key} AS k, ${value} AS v FROM ${table} ORDER BY ${key}, block DESC`);
    return r.rows.filter((x) => x.v !== null).map((x) => [x.k, x.v!]);
  };
  const accounts = await latest('archive_accounts', 'address', 'record');
  const storage = await latest('archive_storage', 'skey', 'value');
  const code = (await db.query<{ hash: Uint8Array; code: Uint8Array }>('SELECT hash, code FROM archive_code')).rows.map((r) => [r.hash, r.code] as [Uint8Array, Uint8Array]);
  const hashes = (await db.query<{ number: bigint; hash: Uint8Array }>('SELECT number, hash FROM archive_blocks WHERE number >= $1 ORDER BY number', [cursor - 256n])).rows.map((r) => [BigInt(r.number), r.hash] as [bigint, Uint8Array]);
  return { accounts, storage, code, hashes };
}
