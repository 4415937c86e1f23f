// The archive's tables (docs/archive.md), beside the indexer's in the same kind of database (PostgreSQL or
// PGlite, src/indexer/db.ts). History is kept as each block's net state writes in the canister's flat record
// form, keyed (key, block): the value of a key at block N is the row with the highest block <= N, one
// backward index scan of the primary key, so a read at any block is one index lookup per key.
//   archive_accounts  address[20], block -> account record (core/evm/encoding.ts), NULL = removed
//   archive_storage   address[20] || gen[4] || slot[32], block -> value without leading zeros, NULL = cleared
//   archive_code      code hash -> code (content-addressed, never removed)
//   archive_blocks    the verified blocks' context (number, hash, timestamp, base fee, gas limit, coinbase, roots)
//   archive_meta      one row: chain id, the next block to replay, the state root after it, the alarm if any,
//                     and the first block whose internal transactions and creators are stored
//   archive_internal_txs      every frame below a transaction's top call (./internal_rows.ts), by trace address
//   archive_contract_creators every contract a block created (top-level or by a contract) and who created it
//   archive_retention         one row: the first block served, how far history below it is pruned (./retention.ts)
import type { Db } from '../indexer/db.js';
import { RETENTION_DDL } from './retention.js';

/**
 * 2: internal transactions and contract creators are written for every replayed block; a version-1 database
 * (history without them) is upgraded in place and records from which block it has them (internal_from_block).
 */
export const ARCHIVE_SCHEMA_VERSION = 2;

const DDL = `
CREATE TABLE IF NOT EXISTS archive_meta (
  id int PRIMARY KEY CHECK (id = 1),
  schema_version int NOT NULL,
  chain_id bigint NOT NULL,
  cursor_block bigint NOT NULL,
  state_root bytea NOT NULL,
  alarm text,
  internal_from_block bigint NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS archive_blocks (
  number bigint PRIMARY KEY,
  hash bytea NOT NULL,
  parent_hash bytea NOT NULL,
  timestamp bigint NOT NULL,
  base_fee numeric(78,0) NOT NULL,
  gas_limit bigint NOT NULL,
  coinbase bytea NOT NULL,
  state_root bytea NOT NULL,
  tx_count int NOT NULL
);
CREATE INDEX IF NOT EXISTS archive_blocks_hash ON archive_blocks (hash);
CREATE TABLE IF NOT EXISTS archive_accounts (
  address bytea NOT NULL,
  block bigint NOT NULL,
  record bytea,
  PRIMARY KEY (address, block)
);
CREATE TABLE IF NOT EXISTS archive_storage (
  skey bytea NOT NULL,
  block bigint NOT NULL,
  value bytea,
  PRIMARY KEY (skey, block)
);
CREATE TABLE IF NOT EXISTS archive_code (
  hash bytea PRIMARY KEY,
  code bytea NOT NULL
);
CREATE TABLE IF NOT EXISTS archive_internal_txs (
  block bigint NOT NULL,
  tx_index int NOT NULL,
  trace_address int[] NOT NULL,
  tx_hash bytea NOT NULL,
  type text NOT NULL,
  from_address bytea NOT NULL,
  to_address bytea,
  value numeric(78,0) NOT NULL,
  gas bigint NOT NULL,
  gas_used bigint NOT NULL,
  error text,
  selector bytea,
  reverted boolean NOT NULL,
  PRIMARY KEY (block, tx_index, trace_address)
);
CREATE INDEX IF NOT EXISTS archive_internal_txs_from ON archive_internal_txs (from_address, block DESC, tx_index DESC);
CREATE INDEX IF NOT EXISTS archive_internal_txs_to ON archive_internal_txs (to_address, block DESC, tx_index DESC);
CREATE INDEX IF NOT EXISTS archive_internal_txs_tx ON archive_internal_txs (tx_hash);
CREATE TABLE IF NOT EXISTS archive_contract_creators (
  address bytea NOT NULL,
  block bigint NOT NULL,
  tx_index int NOT NULL,
  trace_address int[] NOT NULL,
  tx_hash bytea NOT NULL,
  creator bytea NOT NULL,
  PRIMARY KEY (block, tx_index, trace_address)
);
CREATE INDEX IF NOT EXISTS archive_contract_creators_address ON archive_contract_creators (address, block DESC);
`;

export class ArchiveStateError extends Error {
  override name = 'ArchiveStateError';
}

/** Creates the tables if needed; refuses a database of a newer schema or another chain. */
export async function ensureArchiveSchema(db: Db, chainId: bigint): Promise<void> {
  await db.exec(DDL);
  await db.exec(RETENTION_DDL);
  const r = await db.query<{ schema_version: number; chain_id: bigint }>('SELECT schema_version, chain_id FROM archive_meta WHERE id = 1');
  const row = r.rows[0];
  if (row === undefined) {
    await db.query('INSERT INTO archive_meta (id, schema_version, chain_id, cursor_block, state_root) VALUES (1, $1, $2, 0, $3) ON CONFLICT (id) DO NOTHING', [ARCHIVE_SCHEMA_VERSION, chainId, new Uint8Array(32)]);
    return;
  }
  if (row.schema_version > ARCHIVE_SCHEMA_VERSION) throw new ArchiveStateError(`the archive database has schema version ${row.schema_version}; this archive reads ${ARCHIVE_SCHEMA_VERSION}: upgrade it`);
  if (BigInt(row.chain_id) !== chainId) throw new ArchiveStateError(`the archive database holds chain ${row.chain_id}, not ${chainId}: use another database`);
  if (row.schema_version < 2) await upgradeToInternalRows(db);
}

/**
 * Version 1 kept no internal transactions: the blocks it holds are not replayed again (their history is
 * verified, and the canister may no longer export them); rows are written from its cursor on, and
 * internal_from_block says so to the readers. A new archive database replays from genesis with them instead.
 */
async function upgradeToInternalRows(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('ALTER TABLE archive_meta ADD COLUMN IF NOT EXISTS internal_from_block bigint NOT NULL DEFAULT 0');
    await tx.query('UPDATE archive_meta SET internal_from_block = cursor_block, schema_version = 2 WHERE id = 1 AND schema_version < 2');
  });
}
