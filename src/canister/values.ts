// The TypeScript shapes of the canister's Candid values, beside their one definition (idl.ts): what the
// canister returns and what every client (gateway, tests, devnet) decodes. `opt T` is [] | [T], blobs are
// Uint8Array, nat/nat64 are bigint, nat8/nat32 number. Types only: no run-time imports.
export type Opt<T> = [] | [T];
export interface CandidError {
  code: string;
  message: string;
  data: Opt<Uint8Array>;
}
export type CandidResult<T> = { Ok: T } | { Err: CandidError };

export type CandidBlockTag =
  | { Latest: null }
  | { Pending: null }
  | { Safe: null }
  | { Finalized: null }
  | { Earliest: null }
  | { Number: bigint };

export interface LogView {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
  block_number: bigint;
  block_hash: Uint8Array;
  transaction_hash: Uint8Array;
  transaction_index: number;
  log_index: number;
}
export interface ReceiptView {
  transaction_hash: Uint8Array;
  tx_id: Uint8Array;
  transaction_index: number;
  block_hash: Uint8Array;
  block_number: bigint;
  from: Uint8Array;
  to: Opt<Uint8Array>;
  tx_type: number;
  status: number;
  gas_used: bigint;
  cumulative_gas_used: bigint;
  effective_gas_price: bigint;
  contract_address: Opt<Uint8Array>;
  logs: LogView[];
  logs_bloom: Uint8Array;
  failure_code: Opt<string>;
}
export interface AccessListItemView {
  address: Uint8Array;
  storage_keys: Uint8Array[];
}
export interface TxView {
  hash: Uint8Array;
  tx_id: Uint8Array;
  origin: { EthSigned: null } | { IcSynthetic: null };
  tx_type: number;
  chain_id: bigint;
  nonce: bigint;
  from: Uint8Array;
  to: Opt<Uint8Array>;
  value: bigint;
  input: Uint8Array;
  gas: bigint;
  gas_price: bigint;
  max_fee_per_gas: Opt<bigint>;
  max_priority_fee_per_gas: Opt<bigint>;
  access_list: Opt<AccessListItemView[]>;
  v: bigint;
  r: bigint;
  s: bigint;
  y_parity: Opt<number>;
  block_hash: Opt<Uint8Array>;
  block_number: Opt<bigint>;
  transaction_index: Opt<number>;
}
export interface BlockView {
  number: bigint;
  hash: Uint8Array;
  parent_hash: Uint8Array;
  nonce: Uint8Array;
  sha3_uncles: Uint8Array;
  logs_bloom: Uint8Array;
  transactions_root: Uint8Array;
  state_root: Uint8Array;
  receipts_root: Uint8Array;
  miner: Uint8Array;
  difficulty: bigint;
  total_difficulty: bigint;
  extra_data: Uint8Array;
  size: bigint;
  gas_limit: bigint;
  gas_used: bigint;
  timestamp: bigint;
  base_fee_per_gas: bigint;
  mix_hash: Uint8Array;
  withdrawals_root: Uint8Array;
  blob_gas_used: bigint;
  excess_blob_gas: bigint;
  parent_beacon_block_root: Uint8Array;
  requests_hash: Uint8Array;
  transactions: { Hashes: Uint8Array[] } | { Full: TxView[] };
}
export type BlockLookup = { NotFound: null } | { Found: BlockView } | { Pruned: { pruned_before_block: bigint } };
export type CandidBlockRef = { Number: bigint } | { Hash: Uint8Array };
export interface BlockReceiptsPageView {
  block_number: bigint;
  block_hash: Uint8Array;
  transaction_count: number;
  receipts: ReceiptView[];
  next_index: Opt<number>;
}
export type BlockReceiptsLookup = { NotFound: null } | { Found: BlockReceiptsPageView } | { Pruned: { pruned_before_block: bigint } };
export type ReceiptLookup =
  | { NotFound: null }
  | { Found: ReceiptView }
  | { PossiblyPruned: { pruned_before_block: bigint } }
  | { Pruned: { pruned_before_block: bigint } };

export interface CallObjectView {
  to: Opt<Uint8Array>;
  from: Opt<Uint8Array>;
  gas: Opt<bigint>;
  gas_price: Opt<bigint>;
  value: Opt<bigint>;
  data: Opt<Uint8Array>;
  nonce: Opt<bigint>;
  max_fee_per_gas: Opt<bigint>;
  max_priority_fee_per_gas: Opt<bigint>;
  chain_id: Opt<bigint>;
  tx_type: Opt<bigint>;
  access_list: Opt<AccessListItemView[]>;
}
export interface LogFilterView {
  from_block: Opt<CandidBlockTag>;
  to_block: Opt<CandidBlockTag>;
  block_hash: Opt<Uint8Array>;
  address: Opt<Uint8Array[]>;
  topics: Opt<Opt<Uint8Array[]>[]>;
}
export interface LogCursorView {
  block_number: bigint;
  log_index: number;
}
export interface LogPageView {
  logs: LogView[];
  next_cursor: Opt<LogCursorView>;
}
export interface FeeHistoryView {
  oldest_block: bigint;
  base_fee_per_gas: bigint[];
  gas_used_ratio: number[];
  reward: bigint[][];
}

export type PendingStatusView =
  | { Queued: null }
  | { Included: { block_number: bigint; tx_index: number } }
  | { Dropped: { code: string } }
  | { Unknown: null };

/** Input of submit_ic_tx. */
export interface IcSyntheticTxInput {
  to: Opt<Uint8Array>;
  value: bigint;
  gas_limit: bigint;
  nonce: bigint;
  max_fee_per_gas: bigint;
  max_priority_fee_per_gas: bigint;
  data: Uint8Array;
}

/** The export_blocks cursor (SPEC's fixed keys). */
export interface ExportCursorView {
  block_number: bigint;
  segment: number;
  byte_offset: number;
}

export interface PrunePolicyView {
  keep_recent_blocks: bigint;
  max_history_bytes: bigint;
  timer_interval_ms: bigint;
  max_ops_per_tick: number;
}
