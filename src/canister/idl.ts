// The canister's Candid types, defined once. This module imports nothing at run time: it is a factory over
// whichever `IDL` object the caller has (azle re-exports @dfinity/candid's; the host tests, the gateway and
// the indexer pass their own), the same shape as dfx's generated `idlFactory`.
import type { IDL as IdlNamespace } from '@dfinity/candid';

type Idl = typeof IdlNamespace;

/** The TypeScript value of a Candid type made by the typed constructors below (what decoding returns). */
export type CandidValue<X> = X extends IdlNamespace.Type<infer V> ? V : never;
type Typed<V> = IdlNamespace.Type<V>;
type Fields = Record<string, IdlNamespace.Type<any>>;
/** nat8 is branded so that `vec nat8` is typed as the Uint8Array it decodes to. */
type Nat8Type = Typed<number> & { readonly __candid: 'nat8' };
/**
 * The same IDL object, with constructors whose results carry the TypeScript type of their values, so the
 * method table below is also the clients' type table (src/client): no hand-written copy of a result type.
 * Only a type: at run time it is the caller's IDL object itself.
 */
interface TypedIdl {
  readonly Null: Typed<null>;
  readonly Bool: Typed<boolean>;
  readonly Text: Typed<string>;
  readonly Nat: Typed<bigint>;
  readonly Nat8: Nat8Type;
  readonly Nat32: Typed<number>;
  readonly Nat64: Typed<bigint>;
  readonly Float64: Typed<number>;
  Vec(t: Nat8Type): Typed<Uint8Array>;
  Vec<V>(t: Typed<V>): Typed<V[]>;
  Opt<V>(t: Typed<V>): Typed<[] | [V]>;
  Record<F extends Fields>(fields: F): Typed<{ [K in keyof F]: CandidValue<F[K]> }>;
  Variant<F extends Fields>(fields: F): Typed<{ [K in keyof F]: { [P in K]: CandidValue<F[K]> } }[keyof F]>;
  Func: Idl['Func'];
  Service: Idl['Service'];
}
const typed = (IDL: Idl): TypedIdl => IDL as unknown as TypedIdl;

export function candidTypes(untypedIdl: Idl) {
  const IDL = typed(untypedIdl);
  /** Every fallible method returns Result<T> = variant { Ok : T; Err : Error }. `code` is a stable code from SPEC.md. */
  const Error = IDL.Record({ code: IDL.Text, message: IDL.Text, data: IDL.Opt(IDL.Vec(IDL.Nat8)) });
  const Result = <V>(ok: Typed<V>) => IDL.Variant({ Ok: ok, Err: Error });

  const GenesisAllocation = IDL.Record({ address: IDL.Vec(IDL.Nat8), balance: IDL.Nat });
  /** Runtime code an account holds in block 0 (predeployed contracts: the CREATE2 deployer, Multicall3). */
  const GenesisCode = IDL.Record({ address: IDL.Vec(IDL.Nat8), code: IDL.Vec(IDL.Nat8) });
  const PrunePolicy = IDL.Record({
    /** Keep at least this many most recent blocks (bodies, receipts, logs); 0 keeps everything. */
    keep_recent_blocks: IDL.Nat64,
    /** Prune oldest blocks while stored history exceeds this many bytes; 0 disables the size budget. */
    max_history_bytes: IDL.Nat64,
    timer_interval_ms: IDL.Nat64,
    max_ops_per_tick: IDL.Nat32,
  });
  /** Every field is optional: installing with no argument (or an empty record) uses SPEC.md's defaults. */
  const InitArgs = IDL.Record({
    genesis_allocations: IDL.Opt(IDL.Vec(GenesisAllocation)),
    mining_interval_ms: IDL.Opt(IDL.Nat64),
    base_fee: IDL.Opt(IDL.Nat),
    min_gas_price: IDL.Opt(IDL.Nat),
    min_priority_fee: IDL.Opt(IDL.Nat),
    block_gas_limit: IDL.Opt(IDL.Nat64),
    instruction_soft_limit: IDL.Opt(IDL.Nat64),
    prune_policy: IDL.Opt(PrunePolicy),
    pruning_enabled: IDL.Opt(IDL.Bool),
    /** 20-byte address credited with priority fees; default the zero address. */
    fee_recipient: IDL.Opt(IDL.Vec(IDL.Nat8)),
    genesis_code: IDL.Opt(IDL.Vec(GenesisCode)),
    /**
     * A development canister (the devnet): the dev_* methods answer (controllers only). Kept from the install;
     * an upgrade's value is ignored and no method changes it.
     */
    development: IDL.Opt(IDL.Bool),
  });

  /** dev_set_account: the fields given replace the account's; each slot is set (32-byte slot and value). */
  const DevAccountChange = IDL.Record({
    address: IDL.Vec(IDL.Nat8),
    balance: IDL.Opt(IDL.Nat),
    nonce: IDL.Opt(IDL.Nat64),
    code: IDL.Opt(IDL.Vec(IDL.Nat8)),
    storage: IDL.Vec(IDL.Record({ slot: IDL.Vec(IDL.Nat8), value: IDL.Vec(IDL.Nat8) })),
  });
  /** dev_submit_impersonated: a transaction from `from` without a signature (gas_price: legacy or EIP-2930; else EIP-1559). */
  const DevImpersonatedTx = IDL.Record({
    from: IDL.Vec(IDL.Nat8),
    to: IDL.Opt(IDL.Vec(IDL.Nat8)),
    value: IDL.Nat,
    data: IDL.Vec(IDL.Nat8),
    gas_limit: IDL.Nat64,
    nonce: IDL.Opt(IDL.Nat64),
    gas_price: IDL.Opt(IDL.Nat),
    max_fee_per_gas: IDL.Opt(IDL.Nat),
    max_priority_fee_per_gas: IDL.Opt(IDL.Nat),
    access_list: IDL.Vec(IDL.Record({ address: IDL.Vec(IDL.Nat8), storage_keys: IDL.Vec(IDL.Vec(IDL.Nat8)) })),
  });

  const OpsMode = IDL.Variant({ Normal: IDL.Null, Migration: IDL.Null, Cycle: IDL.Null, CriticalCorrupt: IDL.Null });
  const OpsStatusView = IDL.Record({
    mode: OpsMode,
    reason: IDL.Opt(IDL.Text),
    /** ic0.time (ns) when the current mode was entered. */
    since_ns: IDL.Nat64,
    writes_allowed: IDL.Bool,
  });
  const HealthView = IDL.Record({
    ok: IDL.Bool,
    mode: OpsMode,
    block_number: IDL.Nat64,
    pending_txs: IDL.Nat64,
    time_ns: IDL.Nat64,
    version: IDL.Text,
  });

  const Bytes = IDL.Vec(IDL.Nat8);
  /** Block selector for state reads; only the head is readable (SPEC "Block tags"). */
  const BlockTag = IDL.Variant({
    Latest: IDL.Null,
    Pending: IDL.Null,
    Safe: IDL.Null,
    Finalized: IDL.Null,
    Earliest: IDL.Null,
    Number: IDL.Nat64,
  });
  /** Input of submit_ic_tx (SPEC "IcSynthetic submit record"); the sender is derived from the caller. */
  const IcSyntheticTxInput = IDL.Record({
    to: IDL.Opt(Bytes),
    value: IDL.Nat,
    gas_limit: IDL.Nat64,
    nonce: IDL.Nat64,
    max_fee_per_gas: IDL.Nat,
    max_priority_fee_per_gas: IDL.Nat,
    data: Bytes,
  });
  const AccessListItem = IDL.Record({ address: Bytes, storage_keys: IDL.Vec(Bytes) });
  const EthLogView = IDL.Record({
    address: Bytes,
    topics: IDL.Vec(Bytes),
    data: Bytes,
    block_number: IDL.Nat64,
    block_hash: Bytes,
    transaction_hash: Bytes,
    transaction_index: IDL.Nat32,
    /** Ordinal of the log within its block. */
    log_index: IDL.Nat32,
  });
  /** Impersonated: sent by a development canister's dev_submit_impersonated (no usable signature). */
  const TxOrigin = IDL.Variant({ EthSigned: IDL.Null, IcSynthetic: IDL.Null, Impersonated: IDL.Null });
  const EthTxView = IDL.Record({
    hash: Bytes,
    tx_id: Bytes,
    origin: TxOrigin,
    tx_type: IDL.Nat8,
    chain_id: IDL.Nat64,
    nonce: IDL.Nat64,
    from: Bytes,
    to: IDL.Opt(Bytes),
    value: IDL.Nat,
    input: Bytes,
    gas: IDL.Nat64,
    gas_price: IDL.Nat,
    max_fee_per_gas: IDL.Opt(IDL.Nat),
    max_priority_fee_per_gas: IDL.Opt(IDL.Nat),
    access_list: IDL.Opt(IDL.Vec(AccessListItem)),
    v: IDL.Nat,
    r: IDL.Nat,
    s: IDL.Nat,
    y_parity: IDL.Opt(IDL.Nat8),
    block_hash: IDL.Opt(Bytes),
    block_number: IDL.Opt(IDL.Nat64),
    transaction_index: IDL.Opt(IDL.Nat32),
  });
  const EthReceiptView = IDL.Record({
    transaction_hash: Bytes,
    tx_id: Bytes,
    transaction_index: IDL.Nat32,
    block_hash: Bytes,
    block_number: IDL.Nat64,
    from: Bytes,
    to: IDL.Opt(Bytes),
    tx_type: IDL.Nat8,
    /** 1 success, 0 failure. */
    status: IDL.Nat8,
    gas_used: IDL.Nat64,
    cumulative_gas_used: IDL.Nat64,
    effective_gas_price: IDL.Nat,
    contract_address: IDL.Opt(Bytes),
    logs: IDL.Vec(EthLogView),
    logs_bloom: Bytes,
    /** Why status is 0 (exec.reverted, exec.halt.*); not part of Ethereum's receipt. */
    failure_code: IDL.Opt(IDL.Text),
  });
  const BlockTransactions = IDL.Variant({ Hashes: IDL.Vec(Bytes), Full: IDL.Vec(EthTxView) });
  const EthBlockView = IDL.Record({
    number: IDL.Nat64,
    hash: Bytes,
    parent_hash: Bytes,
    nonce: Bytes,
    sha3_uncles: Bytes,
    logs_bloom: Bytes,
    transactions_root: Bytes,
    state_root: Bytes,
    receipts_root: Bytes,
    miner: Bytes,
    difficulty: IDL.Nat,
    total_difficulty: IDL.Nat,
    extra_data: Bytes,
    size: IDL.Nat64,
    gas_limit: IDL.Nat64,
    gas_used: IDL.Nat64,
    timestamp: IDL.Nat64,
    base_fee_per_gas: IDL.Nat,
    mix_hash: Bytes,
    withdrawals_root: Bytes,
    blob_gas_used: IDL.Nat64,
    excess_blob_gas: IDL.Nat64,
    parent_beacon_block_root: Bytes,
    requests_hash: Bytes,
    transactions: BlockTransactions,
  });
  const PendingStatusView = IDL.Variant({
    Queued: IDL.Null,
    Included: IDL.Record({ block_number: IDL.Nat64, tx_index: IDL.Nat32 }),
    Dropped: IDL.Record({ code: IDL.Text }),
    Unknown: IDL.Null,
  });
  const RpcReceiptLookupView = IDL.Variant({
    NotFound: IDL.Null,
    Found: EthReceiptView,
    PossiblyPruned: IDL.Record({ pruned_before_block: IDL.Nat64 }),
    Pruned: IDL.Record({ pruned_before_block: IDL.Nat64 }),
  });
  const RpcBlockLookupView = IDL.Variant({
    NotFound: IDL.Null,
    Found: EthBlockView,
    Pruned: IDL.Record({ pruned_before_block: IDL.Nat64 }),
  });
  /** A block named by number or by hash (the hash index). */
  const BlockRef = IDL.Variant({ Number: IDL.Nat64, Hash: Bytes });
  /** A page of a block's receipts from a transaction index; next_index names the next page's first index. */
  const RpcBlockReceiptsPageView = IDL.Record({
    block_number: IDL.Nat64,
    block_hash: Bytes,
    transaction_count: IDL.Nat32,
    receipts: IDL.Vec(EthReceiptView),
    next_index: IDL.Opt(IDL.Nat32),
  });
  const RpcBlockReceiptsLookupView = IDL.Variant({
    NotFound: IDL.Null,
    Found: RpcBlockReceiptsPageView,
    Pruned: IDL.Record({ pruned_before_block: IDL.Nat64 }),
  });

  // Read API (docs/read-api.md).
  /**
   * eth_call / eth_estimateGas callObject: exactly SPEC's keys (`type` is tx_type). Candid drops unknown record
   * fields while decoding, so the gateway rejects unknown JSON keys; the canister validates every value
   * (address lengths, quantity ranges, type 0x0/0x2, fee combinations, chain id). Quantities are `nat` so an
   * out-of-range value is an arg.invalid.* error rather than a decoding failure.
   */
  const RpcCallObjectView = IDL.Record({
    to: IDL.Opt(Bytes),
    from: IDL.Opt(Bytes),
    gas: IDL.Opt(IDL.Nat),
    gas_price: IDL.Opt(IDL.Nat),
    value: IDL.Opt(IDL.Nat),
    data: IDL.Opt(Bytes),
    nonce: IDL.Opt(IDL.Nat),
    max_fee_per_gas: IDL.Opt(IDL.Nat),
    max_priority_fee_per_gas: IDL.Opt(IDL.Nat),
    chain_id: IDL.Opt(IDL.Nat),
    tx_type: IDL.Opt(IDL.Nat),
    access_list: IDL.Opt(IDL.Vec(AccessListItem)),
  });
  /**
   * eth_getLogs filter; topics[i] = null or [] is a wildcard. rpc_eth_get_logs_paged answers UnsupportedFilter
   * for more than one address or a condition on topics[1..] (SPEC); rpc_eth_get_logs_filtered takes both.
   */
  const RpcLogFilterView = IDL.Record({
    from_block: IDL.Opt(BlockTag),
    to_block: IDL.Opt(BlockTag),
    block_hash: IDL.Opt(Bytes),
    address: IDL.Opt(IDL.Vec(Bytes)),
    topics: IDL.Opt(IDL.Vec(IDL.Opt(IDL.Vec(Bytes)))),
  });
  /** Position of the next log to examine: block number and the log's index within that block. */
  const LogCursor = IDL.Record({ block_number: IDL.Nat64, log_index: IDL.Nat32 });
  const RpcLogPageView = IDL.Record({ logs: IDL.Vec(EthLogView), next_cursor: IDL.Opt(LogCursor) });
  const FeeHistoryView = IDL.Record({
    oldest_block: IDL.Nat64,
    /** block_count + 1 entries: the last is the base fee of the block after the newest. */
    base_fee_per_gas: IDL.Vec(IDL.Nat),
    gas_used_ratio: IDL.Vec(IDL.Float64),
    /** One row per block, one entry per requested percentile; empty when none were requested. */
    reward: IDL.Vec(IDL.Vec(IDL.Nat)),
  });

  // Lifecycle and admin (docs/lifecycle.md; the export payload is docs/export-format.md).
  /** Position in the export stream: SPEC's fixed keys. Segments are 0 (block), 1 (transactions), 2 (receipts and logs). */
  const ExportCursor = IDL.Record({ block_number: IDL.Nat64, segment: IDL.Nat8, byte_offset: IDL.Nat32 });
  /** A slice of one segment: bytes [byte_offset, byte_offset + len(data)) of a segment of segment_len bytes. */
  const ExportChunk = IDL.Record({
    block_number: IDL.Nat64,
    segment: IDL.Nat8,
    byte_offset: IDL.Nat32,
    segment_len: IDL.Nat32,
    data: Bytes,
  });
  const ExportResponse = IDL.Record({
    format_version: IDL.Nat8,
    chunks: IDL.Vec(ExportChunk),
    /** Where the next call starts; equal to the cursor sent when nothing was returned (caught up). */
    next_cursor: ExportCursor,
    head_block: IDL.Nat64,
    first_available_block: IDL.Nat64,
  });
  const ExportError = IDL.Variant({
    /** The cursor is in pruned history: continue from first_available_block (and record the gap). */
    Pruned: IDL.Record({ first_available_block: IDL.Nat64 }),
    InvalidCursor: IDL.Text,
    InvalidArgument: IDL.Text,
    Unavailable: IDL.Text,
  });
  const ExportResult = IDL.Variant({ Ok: ExportResponse, Err: ExportError });
  const PruneStatusView = IDL.Record({
    enabled: IDL.Bool,
    policy: PrunePolicy,
    /** First block still available; every block below it is pruned. 0 when nothing was pruned. */
    pruned_before_block: IDL.Nat64,
    /** Highest tx_id sequence number among pruned blocks' transactions (tx_ids are u64 big-endian). */
    max_pruned_tx_seq: IDL.Nat64,
    /** A block whose entries are still being deleted (already reported as pruned). */
    in_progress_block: IDL.Opt(IDL.Nat64),
    pruned_blocks: IDL.Nat64,
    total_ops: IDL.Nat64,
    last_tick_ns: IDL.Nat64,
    last_tick_ops: IDL.Nat32,
    history_bytes: IDL.Nat64,
  });
  const PruneTickView = IDL.Record({
    ops: IDL.Nat32,
    blocks_completed: IDL.Nat32,
    pruned_before_block: IDL.Nat64,
    /** False: call prune_blocks again (the target is not reached yet). */
    done: IDL.Bool,
  });
  /** The canister's own debug-print verbosity (set_log_filter); each level includes the ones before it. */
  const LogLevel = IDL.Variant({ Off: IDL.Null, Error: IDL.Null, Warn: IDL.Null, Info: IDL.Null, Debug: IDL.Null });
  /** The modes a controller can set; Cycle and CriticalCorrupt follow the canister's own checks. */
  const SettableOpsMode = IDL.Variant({ Normal: IDL.Null, Migration: IDL.Null });
  const MetricsView = IDL.Record({
    time_ns: IDL.Nat64,
    mode: OpsMode,
    block_number: IDL.Nat64,
    pending_txs: IDL.Nat64,
    blocks_produced: IDL.Nat64,
    txs_produced: IDL.Nat64,
    drops: IDL.Vec(IDL.Record({ code: IDL.Text, count: IDL.Nat64 })),
    last_block_number: IDL.Nat64,
    last_block_instructions: IDL.Nat64,
    cycles_balance: IDL.Nat,
    /** Bytes of history bodies (transactions, blocks, receipts, logs): what max_history_bytes limits. */
    history_bytes: IDL.Nat64,
    /** Entries per stable map (azle exposes no stable memory size). */
    stable_map_entries: IDL.Vec(IDL.Record({ name: IDL.Text, memory_id: IDL.Nat8, entries: IDL.Nat64 })),
    prune: PruneStatusView,
    log_level: LogLevel,
  });

  return {
    Error,
    Result,
    GenesisAllocation,
    DevAccountChange,
    DevImpersonatedTx,
    PrunePolicy,
    InitArgs,
    OpsMode,
    OpsStatusView,
    HealthView,
    Bytes,
    BlockTag,
    IcSyntheticTxInput,
    AccessListItem,
    EthLogView,
    TxOrigin,
    EthTxView,
    EthReceiptView,
    BlockTransactions,
    EthBlockView,
    PendingStatusView,
    RpcReceiptLookupView,
    RpcBlockLookupView,
    BlockRef,
    RpcBlockReceiptsPageView,
    RpcBlockReceiptsLookupView,
    ExportCursor,
    ExportChunk,
    ExportResponse,
    ExportError,
    ExportResult,
    PruneStatusView,
    PruneTickView,
    LogLevel,
    SettableOpsMode,
    MetricsView,
    RpcCallObjectView,
    RpcLogFilterView,
    LogCursor,
    RpcLogPageView,
    FeeHistoryView,
  };
}

/** The TypeScript value of one named type of the table (src/canister/values.ts names them). */
export type Shape<K extends keyof ReturnType<typeof candidTypes>> = CandidValue<ReturnType<typeof candidTypes>[K]>;

/** A method's argument size class; arg_check.ts gives each its byte limit. */
export type ArgBytes = 'default' | 'large' | 'logFilter';

/**
 * Who may call a method: anyone; the canister's controllers; or controllers of a canister installed with
 * `development = opt true` (the dev_* cheats; anywhere else they answer Err dev.disabled). The decorators
 * check it before the argument is decoded, and canister_inspect_message refuses other callers' ingress.
 */
export type Access = 'public' | 'controller' | 'development';

/** Every method's Candid signature: the canister's decorators and every client's actor read this one table. */
export function methodSignatures(untypedIdl: Idl) {
  const IDL = typed(untypedIdl);
  const t = candidTypes(untypedIdl);
  // Argument lists are inferred as tuples, so each argument keeps its own type. `argBytes` is the argument's
  // size limit, checked before decoding (arg_check.ts): 'large' for a transaction or call data, 'logFilter' for the
  // largest log filter.
  const q = <A extends Typed<any>[], R extends Typed<any>>(args: [...A], ret: R, argBytes: ArgBytes = 'default') => ({ args, ret, mode: 'query' as const, argBytes, access: 'public' as Access });
  const u = <A extends Typed<any>[], R extends Typed<any>>(args: [...A], ret: R, argBytes: ArgBytes = 'default') => ({ args, ret, mode: 'update' as const, argBytes, access: 'public' as Access });
  /** An update for controllers only. */
  const c = <A extends Typed<any>[], R extends Typed<any>>(args: [...A], ret: R, argBytes: ArgBytes = 'default') => ({ ...u(args, ret, argBytes), access: 'controller' as Access });
  /** An update for controllers of a development canister only. */
  const dev = <A extends Typed<any>[], R extends Typed<any>>(args: [...A], ret: R, argBytes: ArgBytes = 'default') => ({ ...u(args, ret, argBytes), access: 'development' as Access });
  return {
    rpc_eth_chain_id: q([], IDL.Nat64),
    rpc_eth_block_number: q([], IDL.Nat64),
    health: q([], t.HealthView),
    get_ops_status: q([], t.OpsStatusView),
    // Submit (tx_id is returned; mining is asynchronous).
    rpc_eth_send_raw_transaction: u([t.Bytes], t.Result(t.Bytes), 'large'),
    /**
     * The same with the sender's 64-byte public key (x || y) as a hint, which the gateway recovers natively:
     * a key the canister has seen is verified instead of recovered (docs/execution.md "Submit").
     */
    rpc_eth_send_raw_transaction_with_key: u([t.Bytes, t.Bytes], t.Result(t.Bytes), 'large'),
    submit_ic_tx: u([t.IcSyntheticTxInput], t.Result(t.Bytes), 'large'),
    // What happened to a transaction.
    get_pending: q([t.Bytes], t.PendingStatusView),
    get_receipt: q([t.Bytes], IDL.Opt(t.EthReceiptView)),
    rpc_eth_get_transaction_receipt_with_status_by_tx_id: q([t.Bytes], t.RpcReceiptLookupView),
    rpc_eth_get_transaction_receipt_by_eth_hash: q([t.Bytes], IDL.Opt(t.EthReceiptView)),
    rpc_eth_get_transaction_receipt_with_status_by_eth_hash: q([t.Bytes], t.RpcReceiptLookupView),
    rpc_eth_get_transaction_by_eth_hash: q([t.Bytes], IDL.Opt(t.EthTxView)),
    rpc_eth_get_transaction_by_tx_id: q([t.Bytes], IDL.Opt(t.EthTxView)),
    // Blocks.
    rpc_eth_get_block_by_number: q([IDL.Nat64, IDL.Bool], IDL.Opt(t.EthBlockView)),
    rpc_eth_get_block_by_number_with_status: q([IDL.Nat64, IDL.Bool], t.RpcBlockLookupView),
    rpc_eth_get_block_number_by_hash: q([t.Bytes], IDL.Opt(IDL.Nat64)),
    rpc_eth_get_block_by_hash_with_status: q([t.Bytes, IDL.Bool], t.RpcBlockLookupView),
    /** eth_getBlockReceipts: a block's receipts from a transaction index, in pages bounded by the query's cost. */
    rpc_eth_get_block_receipts_paged: q([t.BlockRef, IDL.Nat32], t.RpcBlockReceiptsLookupView),
    // State at the head.
    expected_nonce_by_address: q([t.Bytes], t.Result(IDL.Nat64)),
    rpc_eth_get_transaction_count_at: q([t.Bytes, t.BlockTag], t.Result(IDL.Nat64)),
    rpc_eth_get_balance: q([t.Bytes, t.BlockTag], t.Result(IDL.Nat)),
    rpc_eth_get_code: q([t.Bytes, t.BlockTag], t.Result(t.Bytes)),
    rpc_eth_get_storage_at: q([t.Bytes, t.Bytes, t.BlockTag], t.Result(t.Bytes)),
    // Lifecycle and admin (docs/lifecycle.md). The set_* methods, prune_blocks and set_ops_mode are for controllers only.
    export_blocks: q([IDL.Opt(t.ExportCursor), IDL.Nat32], t.ExportResult),
    metrics: q([], t.MetricsView),
    get_prune_status: q([], t.PruneStatusView),
    set_block_gas_limit: c([IDL.Nat64], t.Result(IDL.Null)),
    set_instruction_soft_limit: c([IDL.Nat64], t.Result(IDL.Null)),
    set_prune_policy: c([t.PrunePolicy], t.Result(t.PrunePolicy)),
    set_pruning_enabled: c([IDL.Bool], t.Result(IDL.Null)),
    set_log_filter: c([t.LogLevel], t.Result(IDL.Null)),
    prune_blocks: c([IDL.Nat64, IDL.Nat32], t.Result(t.PruneTickView)),
    // Block production on demand (the devnet's --block-time, automine and evm_mine); controllers only.
    set_mining_interval: c([IDL.Nat64], t.Result(IDL.Null)),
    mine_block: c([IDL.Bool], t.Result(IDL.Opt(IDL.Nat64))),
    set_ops_mode: c([t.SettableOpsMode, IDL.Opt(IDL.Text)], t.Result(t.OpsStatusView)),
    /** Drops every pending transaction (status Dropped pool.purged); returns how many. Controllers only. */
    purge_pool: c([], t.Result(IDL.Nat64)),
    // Development cheats (docs/devnet.md): controllers of a canister installed with development = opt true.
    /** Applies at once to head state; exported as a state change of the next block (docs/export-format.md). */
    dev_set_account: dev([t.DevAccountChange], t.Result(IDL.Null), 'large'),
    /** Queues a transaction from `from` without a signature (origin Impersonated); returns its tx_id. */
    dev_submit_impersonated: dev([t.DevImpersonatedTx], t.Result(t.Bytes), 'large'),
    /** Drops the pending transaction with this eth_tx_hash (status Dropped pool.dropped.dev); false if none was pending. */
    dev_drop_transaction: dev([t.Bytes], t.Result(IDL.Bool)),
    /** The base fee of the next block (once; later blocks follow EIP-1559 from it). */
    dev_set_next_block_base_fee: dev([IDL.Nat], t.Result(IDL.Null)),
    /** The miner (fee recipient) of the following blocks. */
    dev_set_coinbase: dev([t.Bytes], t.Result(IDL.Null)),
    // Read API (docs/read-api.md).
    rpc_eth_call_object: q([t.RpcCallObjectView, t.BlockTag], t.Result(t.Bytes), 'large'),
    rpc_eth_call_rawtx: q([t.Bytes, IDL.Opt(t.BlockTag)], t.Result(t.Bytes), 'large'),
    rpc_eth_estimate_gas_object: q([t.RpcCallObjectView, t.BlockTag], t.Result(IDL.Nat64), 'large'),
    rpc_eth_get_logs_paged: q([t.RpcLogFilterView, IDL.Opt(t.LogCursor), IDL.Opt(IDL.Nat32)], t.Result(t.RpcLogPageView)),
    /** The same pages under Ethereum's whole filter: address lists and OR lists on every topic position. */
    rpc_eth_get_logs_filtered: q([t.RpcLogFilterView, IDL.Opt(t.LogCursor), IDL.Opt(IDL.Nat32)], t.Result(t.RpcLogPageView), 'logFilter'),
    rpc_eth_gas_price: q([], t.Result(IDL.Nat)),
    rpc_eth_max_priority_fee_per_gas: q([], t.Result(IDL.Nat)),
    rpc_eth_fee_history: q([IDL.Nat64, t.BlockTag, IDL.Vec(IDL.Float64)], t.Result(t.FeeHistoryView)),
  };
}

/** The service, in the shape of dfx's generated `idlFactory`, for actors (gateway, indexer) and host tests. */
export function idlFactory({ IDL }: { IDL: Idl }) {
  const fields: Record<string, IdlNamespace.FuncClass> = {};
  for (const [name, sig] of Object.entries(methodSignatures(IDL))) {
    fields[name] = IDL.Func(sig.args as IdlNamespace.GenericIdlFuncArgs, [sig.ret], sig.mode === 'query' ? ['query'] : []);
  }
  return IDL.Service(fields);
}

export function initArgsTypes({ IDL }: { IDL: Idl }): IdlNamespace.Type[] {
  return [IDL.Opt(candidTypes(IDL).InitArgs)];
}
