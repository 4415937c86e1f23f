// What the archive serves and keeps (docs/archive.md "Retention"): one row saying the first block it serves (the
// floor), how far its history has been pruned up to that floor, and why it cannot go on when the canister pruned
// blocks it never replayed. History is kept from genesis unless told to keep N blocks: then the floor follows
// the verified head (head - N) and the rows older than it are deleted in bounded chunks, keeping every key's
// latest value at or below the floor, so a read at any block from the floor up still finds exactly the row it
// found before (the value of a key at block n is its row with the highest block <= n).
import type { Db, Queryable } from '../indexer/db.js';

export const RETENTION_DDL = `
CREATE TABLE IF NOT EXISTS archive_retention (
  id int PRIMARY KEY CHECK (id = 1),
  floor bigint NOT NULL,
  pruned_through bigint NOT NULL,
  unservable text
);
INSERT INTO archive_retention (id, floor, pruned_through) VALUES (1, 0, -1) ON CONFLICT (id) DO NOTHING;
`;

// A chunk's bound is found by walking these indexes; only an archive that prunes pays for them.
const PRUNE_INDEXES = `
CREATE INDEX IF NOT EXISTS archive_accounts_block ON archive_accounts (block);
CREATE INDEX IF NOT EXISTS archive_storage_block ON archive_storage (block);
`;

/** BLOCKHASH reaches 256 blocks back: a block's context at the floor needs the hashes below it. */
const HASHES_BELOW_FLOOR = 256n;

/** History rows one chunk starts from (its deletions are at most about twice as many). */
export const PRUNE_CHUNK_ROWS = 10_000;

export interface RetentionState {
  /** The first block whose state is served. */
  readonly floor: bigint;
  /** History below this block's successor is pruned up to the floor (-1: nothing yet). */
  readonly prunedThrough: bigint;
  /** Why the archive cannot replay further (the canister pruned blocks it needs), if so. */
  readonly unservable: string | undefined;
}

export async function readRetention(db: Queryable): Promise<RetentionState> {
  const r = await db.query<{ floor: bigint; pruned_through: bigint; unservable: string | null }>('SELECT floor, pruned_through, unservable FROM archive_retention WHERE id = 1');
  const row = r.rows[0];
  return row === undefined ? { floor: 0n, prunedThrough: -1n, unservable: undefined } : { floor: BigInt(row.floor), prunedThrough: BigInt(row.pruned_through), unservable: row.unservable ?? undefined };
}

export async function recordUnservable(db: Queryable, why: string | undefined): Promise<void> {
  await db.query('UPDATE archive_retention SET unservable = $1 WHERE id = 1', [why ?? null]);
}

/** The floor for a verified head when keeping `keepBlocks` blocks (never below genesis). */
export const floorFor = (head: bigint, keepBlocks: number): bigint => (head - BigInt(keepBlocks) > 0n ? head - BigInt(keepBlocks) : 0n);

export interface PruneChunk {
  /** Rows deleted (history, block contexts, internal transactions). */
  readonly deleted: number;
  /** Nothing is left to prune below the floor. */
  readonly done: boolean;
}

export class Retention {
  private prepared = false;

  constructor(
    private readonly db: Db,
    readonly keepBlocks: number,
    private readonly chunkRows = PRUNE_CHUNK_ROWS,
  ) {}

  /** Raises the floor to follow the verified head (it never goes down: pruned history does not come back). */
  async follow(head: bigint): Promise<void> {
    if (!this.prepared) {
      await this.db.exec(PRUNE_INDEXES);
      this.prepared = true;
    }
    await this.db.query('UPDATE archive_retention SET floor = $1 WHERE id = 1 AND floor < $1', [floorFor(head, this.keepBlocks)]);
  }

  /**
   * Prunes the next chunk of history below the floor in one transaction. A chunk covers the blocks after the
   * last pruned one up to where PRUNE_CHUNK_ROWS history rows were written (at least one block, at most the
   * floor): every row of a key written in it, except the key's latest there, goes, with that key's older rows.
   */
  async pruneChunk(): Promise<PruneChunk> {
    return this.db.transaction(async (tx) => {
      const s = await readRetention(tx);
      if (s.prunedThrough >= s.floor) return { deleted: 0, done: true };
      const from = s.prunedThrough;
      const bound = async (table: string): Promise<bigint> => {
        const r = await tx.query<{ block: bigint }>(`SELECT block FROM ${table} WHERE block > $1 AND block <= $2 ORDER BY block OFFSET ${this.chunkRows} LIMIT 1`, [from, s.floor]);
        return r.rows[0] === undefined ? s.floor : BigInt(r.rows[0].block);
      };
      const a = await bound('archive_accounts');
      const b = await bound('archive_storage');
      let to = a < b ? a : b;
      if (to <= from) to = from + 1n;
      // A key's latest row in the chunk hides its older rows from every read at or above the floor; a removal
      // (NULL) reads as the absence of a row, so it goes too.
      const collapse = (table: string, key: string, value: string) =>
        tx.query(
          `DELETE FROM ${table} x USING (SELECT ${key} AS k, max(block) AS b FROM ${table} WHERE block > $1 AND block <= $2 GROUP BY ${key}) y
           WHERE x.${key} = y.k AND (x.block < y.b OR (x.block = y.b AND x.${value} IS NULL))`,
          [from, to],
        );
      let deleted = (await collapse('archive_accounts', 'address', 'record')).affected;
      deleted += (await collapse('archive_storage', 'skey', 'value')).affected;
      deleted += (await tx.query('DELETE FROM archive_blocks WHERE number >= $1 AND number < $2', [from - HASHES_BELOW_FLOOR, to - HASHES_BELOW_FLOOR])).affected;
      // What happened inside transactions below the floor goes with their state; a contract's creator stays.
      deleted += (await tx.query('DELETE FROM archive_internal_txs WHERE block > $1 AND block <= $2 AND block < $3', [from, to, s.floor])).affected;
      await tx.query('UPDATE archive_retention SET pruned_through = $1 WHERE id = 1', [to]);
      return { deleted, done: to >= s.floor };
    });
  }
}
