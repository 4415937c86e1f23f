// The indexer's tables, as versioned migrations (src/indexer/migrate.ts, component 'indexer'). Append a new
// migration for any change; never edit one that has shipped. Hashes and addresses are bytea, amounts
// numeric(78,0), block numbers and gas bigint, timestamps seconds since the epoch (bigint, as in the header).
// The explorer reads these tables and keeps its own (component 'explorer').
import type { Migration } from './migrate.js';

export const INDEXER_COMPONENT = 'indexer';

/**
 * ERC-20 balances per (token, holder) as the sum of the fungible transfers (`token_id` null) of `where` (a
 * condition on token_transfers): credits to the recipient, debits to the sender (the zero address goes negative
 * by what was minted). One text for the backfill and the commits, so they cannot disagree.
 */
export const tokenBalanceDeltas = (where: string): string => `
SELECT token_address, holder, sum(delta) AS delta FROM (
  SELECT token_address, to_address AS holder, amount AS delta FROM token_transfers WHERE token_id IS NULL AND ${where}
  UNION ALL
  SELECT token_address, from_address AS holder, -amount AS delta FROM token_transfers WHERE token_id IS NULL AND ${where}
) d GROUP BY token_address, holder HAVING sum(delta) <> 0`;

export const INDEXER_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'chain tables',
    sql: `
CREATE TABLE blocks (
  number bigint PRIMARY KEY,
  hash bytea NOT NULL UNIQUE,
  parent_hash bytea NOT NULL,
  timestamp bigint NOT NULL,
  gas_used bigint NOT NULL,
  gas_limit bigint NOT NULL,
  base_fee numeric(78,0) NOT NULL,
  tx_count integer NOT NULL,
  miner bytea NOT NULL,
  state_root bytea NOT NULL,
  transactions_root bytea NOT NULL,
  receipts_root bytea NOT NULL,
  logs_bloom bytea NOT NULL,
  size integer NOT NULL
);

CREATE TABLE txs (
  eth_tx_hash bytea PRIMARY KEY,
  tx_id bytea NOT NULL UNIQUE,
  block_number bigint NOT NULL REFERENCES blocks (number) ON DELETE CASCADE,
  tx_index integer NOT NULL,
  type smallint NOT NULL,
  origin text NOT NULL CHECK (origin IN ('EthSigned', 'IcSynthetic')),
  caller_principal text,
  from_address bytea NOT NULL,
  to_address bytea,
  value numeric(78,0) NOT NULL,
  nonce bigint NOT NULL,
  gas_limit bigint NOT NULL,
  gas_price numeric(78,0),
  max_fee_per_gas numeric(78,0),
  max_priority_fee_per_gas numeric(78,0),
  input bytea NOT NULL,
  receipt_status smallint NOT NULL CHECK (receipt_status IN (0, 1)),
  UNIQUE (block_number, tx_index)
);
CREATE INDEX txs_from_newest ON txs (from_address, block_number DESC, tx_index DESC);
CREATE INDEX txs_to_newest ON txs (to_address, block_number DESC, tx_index DESC);

CREATE TABLE receipts (
  tx_hash bytea PRIMARY KEY REFERENCES txs (eth_tx_hash) ON DELETE CASCADE,
  block_number bigint NOT NULL REFERENCES blocks (number) ON DELETE CASCADE,
  status smallint NOT NULL CHECK (status IN (0, 1)),
  gas_used bigint NOT NULL,
  cumulative_gas_used bigint NOT NULL,
  effective_gas_price numeric(78,0) NOT NULL,
  contract_address bytea,
  failure_code text
);
CREATE INDEX receipts_contract_address ON receipts (contract_address) WHERE contract_address IS NOT NULL;
CREATE INDEX receipts_block ON receipts (block_number);

CREATE TABLE logs (
  block_number bigint NOT NULL REFERENCES blocks (number) ON DELETE CASCADE,
  log_index integer NOT NULL,
  tx_hash bytea NOT NULL,
  tx_index integer NOT NULL,
  address bytea NOT NULL,
  topic0 bytea,
  topic1 bytea,
  topic2 bytea,
  topic3 bytea,
  data bytea NOT NULL,
  PRIMARY KEY (block_number, log_index)
);
CREATE INDEX logs_tx ON logs (tx_hash);
CREATE INDEX logs_address_newest ON logs (address, block_number DESC, log_index DESC);

CREATE TABLE token_transfers (
  tx_hash bytea NOT NULL,
  block_number bigint NOT NULL REFERENCES blocks (number) ON DELETE CASCADE,
  log_index integer NOT NULL,
  token_address bytea NOT NULL,
  from_address bytea NOT NULL,
  to_address bytea NOT NULL,
  amount numeric(78,0) NOT NULL,
  token_id numeric(78,0),
  PRIMARY KEY (block_number, log_index)
);
CREATE INDEX token_transfers_token_newest ON token_transfers (token_address, block_number DESC, log_index DESC);
CREATE INDEX token_transfers_from_newest ON token_transfers (from_address, block_number DESC, log_index DESC);
CREATE INDEX token_transfers_to_newest ON token_transfers (to_address, block_number DESC, log_index DESC);
CREATE INDEX token_transfers_tx ON token_transfers (tx_hash);

CREATE TABLE ops_metrics_samples (
  sampled_at timestamptz NOT NULL DEFAULT now(),
  head_block bigint NOT NULL,
  metrics jsonb NOT NULL,
  prune_status jsonb,
  PRIMARY KEY (sampled_at)
);

-- One row: where the next export_blocks call starts, and the head last seen.
CREATE TABLE indexer_state (
  id smallint PRIMARY KEY CHECK (id = 1),
  chain_id bigint NOT NULL,
  cursor_block bigint NOT NULL,
  cursor_segment smallint NOT NULL,
  cursor_offset integer NOT NULL,
  head_block bigint,
  first_available_block bigint,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE pruned_gaps (
  from_block bigint NOT NULL,
  to_block bigint NOT NULL,
  seen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (from_block)
);

-- Raw exported blocks written to INDEXER_ARCHIVE_DIR (zstd), recorded with the same commit as their rows.
CREATE TABLE archive_files (
  block_number bigint PRIMARY KEY,
  path text NOT NULL,
  sha256 bytea NOT NULL,
  raw_bytes integer NOT NULL,
  stored_bytes integer NOT NULL
);

-- Transfer-shaped logs that were neither a valid ERC-20 nor ERC-721 transfer: counted, never fatal.
CREATE TABLE skipped_transfer_logs (
  block_number bigint NOT NULL,
  log_index integer NOT NULL,
  reason text NOT NULL,
  PRIMARY KEY (block_number, log_index)
);
`,
  },
  {
    version: 2,
    name: 'token balances',
    sql: `
-- ERC-20 balances maintained with the transfers (commit adds, rewind subtracts; retention keeps them: deleting
-- old history does not change who holds what), so a token's holders are read, not summed per view. Rows that
-- reach zero are deleted.
CREATE TABLE token_balances (
  token_address bytea NOT NULL,
  holder bytea NOT NULL,
  balance numeric(78,0) NOT NULL,
  PRIMARY KEY (token_address, holder)
);
CREATE INDEX token_balances_top ON token_balances (token_address, balance DESC, holder);
INSERT INTO token_balances (token_address, holder, balance) ${tokenBalanceDeltas('true')};
`,
  },
  {
    version: 3,
    name: 'impersonated transactions',
    sql: `
-- A development canister's dev_submit_impersonated transactions (origin 2 in the export stream).
ALTER TABLE txs DROP CONSTRAINT txs_origin_check;
ALTER TABLE txs ADD CONSTRAINT txs_origin_check CHECK (origin IN ('EthSigned', 'IcSynthetic', 'Impersonated'));
`,
  },
  {
    version: 4,
    name: 'sender and nonce index',
    sql: `
-- ots_getTransactionBySenderAndNonce (src/archive/ots_queries.ts): one index probe instead of a walk down the
-- sender's transactions from the newest.
CREATE INDEX IF NOT EXISTS txs_from_nonce ON txs (from_address, nonce, block_number DESC, tx_index DESC);
`,
  },
];
