// The facade the canister wraps: one method per Candid method, plain TS values in and out.
//
// Identifiers (SPEC: tx_id and eth_tx_hash are different values):
//   tx_id        8 bytes: the big-endian arrival sequence number (1, 2, ...), assigned at acceptance and never
//                reused. Cheapest possible (no hash at submit), orders the pool by arrival, and its length (8)
//                can never be confused with a 32-byte eth_tx_hash.
//   eth_tx_hash  EthSigned: keccak256(signed bytes as submitted). IcSynthetic: see tx/ic_synthetic.ts.
// Submitting exactly the same bytes (or the same IcSynthetic record from the same caller) while the first
// is Queued or Included returns the first tx_id (idempotent retry, no second recovery); once Dropped the
// bytes are treated as new. So submit.already_known is never returned by this core.

import { CHAIN_ID, DEFAULT_BASE_FEE, DROPPED_STATUS_LIFETIME_NS, DROPPED_STATUS_PRUNE_PER_TICK, MAX_CODE_SIZE, MAX_GENESIS_CODE_ENTRIES, MAX_NONCE_WINDOW } from './constants.js';
import { toHex } from './codec/bytes.js';
import type { Address, Bytes32, ExecutionEngine } from './engine.js';
import { ErrorCode, err, ok, type CoreError, type Result } from './errors.js';
import type { CoreHost } from './host.js';
import { MemoryId } from './store/memory_ids.js';
import { DEFAULT_CONFIG, MetaStore, type ChainConfig } from './chain/meta.js';
import { ChainStore } from './chain/store.js';
import { produceBlock, type ProduceResult } from './chain/producer.js';
import { encodeHeader, headerHash } from './chain/header.js';
import { EMPTY_TRIE_ROOT } from './chain/trie.js';
import { COMMITMENT_VERSION, markCommitmentVersion, type CommitmentVersion } from './chain/commitments.js';
import { rlpListLength } from './codec/rlp.js';
import { PendingPool } from './mempool/pool.js';
import { screenRaw, submitIc, submitRaw, type SenderKeyHint } from './mempool/submit.js';
import { Meter } from './ops/meter.js';
import { MAX_BLOCK_GAS_LIMIT, MAX_INSTRUCTION_SOFT_LIMIT, MIN_BLOCK_GAS_LIMIT, MIN_INSTRUCTION_SOFT_LIMIT } from './ops/limits.js';
import { OpsStore, type OpsStatus } from './ops/state.js';
import { Lifecycle, type CoreMetrics, type PruneStatusView } from './ops/lifecycle.js';
import type { LayoutCheck, MigrationProgress } from './ops/migration.js';
import type { PruneTickResult } from './prune/pruner.js';
import type { PrunePolicy } from './prune/store.js';
import type { ExportResult } from './export/export.js';
import type { ExportCursor } from './export/format.js';
import { encodeStateChanges, mergeStateChange, type AccountChange } from './export/state_changes.js';
import { PendingStateChanges } from './dev/pending_changes.js';
import { devDropTransaction, devSetAccount, devSetCoinbase, devSetNextBlockBaseFee, devSubmitImpersonated, isDevelopment, markDevelopment, type DevDeps, type ImpersonatedTxInput } from './dev/dev_api.js';

export type { AccountChange } from './export/state_changes.js';
export type { ImpersonatedTxInput } from './dev/dev_api.js';
import { isAnonymous, type IcTxRecord } from './tx/ic_synthetic.js';
import type { BlockTag } from './block_tag.js';
import { ReadApi, type CallObject, type FeeHistory, type LogCursor, type LogFilter, type LogFilterRules, type LogPage } from './query/read_api.js';
import {
  blockReceiptsPage,
  blockView,
  pendingStatus,
  receiptByTxId,
  transactionByEthHash,
  transactionByTxId,
  type EthBlockView,
  type EthReceiptView,
  type EthTxView,
  type PendingStatusView,
  type RpcBlockLookupView,
  type RpcBlockReceiptsLookupView,
  type RpcReceiptLookupView,
  type ViewDeps,
} from './views.js';

export type { IcTxRecord } from './tx/ic_synthetic.js';
export type { ProduceResult } from './chain/producer.js';
export type { ChainConfig } from './chain/meta.js';
export type * from './views.js';
export type { CallObject, FeeHistory, LogCursor, LogFilter, LogFilterRules, LogPage } from './query/read_api.js';

/** What the ops subsystem says about a write: undefined allows it, an error (ops.write.*) rejects it. */
export type WriteGuard = (op: 'submit' | 'produce' | 'admin') => CoreError | undefined;

export interface GenesisAllocation {
  readonly address: Address;
  readonly balance: bigint;
}

/** Runtime code an account holds from block 0 (a predeployed contract). */
export interface GenesisCode {
  readonly address: Address;
  readonly code: Uint8Array;
}

/** The chain part of the canister's InitArgs; every field optional (SPEC defaults). */
export interface ChainInitArgs {
  readonly genesisAllocations?: readonly GenesisAllocation[];
  /** Applied after the allocations: an account in both keeps its balance and gets the code. */
  readonly genesisCode?: readonly GenesisCode[];
  /** Base fee of block 1. */
  readonly baseFee?: bigint;
  readonly minGasPrice?: bigint;
  readonly minPriorityFee?: bigint;
  readonly blockGasLimit?: bigint;
  readonly instructionSoftLimit?: bigint;
  readonly feeRecipient?: Address;
  /** A development canister (the devnet): the dev_* methods answer. Stored at install, never changed after. */
  readonly development?: boolean;
  /**
   * The chain's commitment version (chain/commitments.ts; default COMMITMENT_VERSION). Not an install argument
   * of the canister: tests pass 1 for a chain as installed before versions existed.
   */
  readonly commitmentVersion?: CommitmentVersion;
}

export interface EvmCoreOptions {
  readonly writeGuard?: WriteGuard;
  /** The operational state (ops/state.ts); the canister passes the one its writeGuard reads. Default: a new one over Meta. */
  readonly ops?: OpsStore;
}

/** A sender key hint is an uncompressed secp256k1 public key without its 0x04 prefix: x || y. */
const SENDER_KEY_BYTES = 64;

/** The submit's hint for a sender key given at the edge (`learn`: an update), or arg.invalid for a wrong length. */
function senderKeyHint(senderKey: Uint8Array | undefined, learn: boolean): Result<SenderKeyHint | undefined> {
  if (senderKey === undefined) return ok(undefined);
  if (senderKey.length !== SENDER_KEY_BYTES) return err(ErrorCode.ArgInvalid, `sender public key must be ${SENDER_KEY_BYTES} bytes (x || y, no 0x04 prefix)`);
  return ok({ publicKey: senderKey, learn });
}

export class EvmCore {
  private readonly meta: MetaStore;
  private readonly pool: PendingPool;
  private readonly store: ChainStore;
  private readonly views: ViewDeps;
  private readonly writeGuard: WriteGuard;
  // Lifecycle (pruning, export, ops states, metrics): src/core/ops, src/core/prune, src/core/export.
  private readonly meter: Meter;
  private readonly ops: OpsStore;
  private readonly lifecycle: Lifecycle;
  private readonly read: ReadApi;
  // Development cheats (src/core/dev): the flag, read once, and the changes waiting for the next block.
  private readonly pendingChanges: PendingStateChanges;
  private development: boolean | undefined;

  /** Opens every map by its registered id; constructing again over the same maps (an upgrade) loses nothing. */
  constructor(
    private readonly host: CoreHost,
    private readonly engine: ExecutionEngine,
    opts: EvmCoreOptions = {},
  ) {
    this.meter = new Meter(host.openMap(MemoryId.Meta));
    this.ops = opts.ops ?? new OpsStore(host.openMap(MemoryId.Meta));
    this.writeGuard = opts.writeGuard ?? ((op) => this.ops.guard(op));
    this.meta = new MetaStore(host.openMap(MemoryId.Meta));
    const txs = this.meter.metered(host.openMap(MemoryId.Txs));
    this.pool = new PendingPool({
      pending: host.openMap(MemoryId.Pending),
      bySenderNonce: host.openMap(MemoryId.PendingBySenderNonce),
      byPrincipal: host.openMap(MemoryId.PendingByPrincipal),
      status: this.meter.watchDrops(this.meter.meteredIndex(host.openMap(MemoryId.TxStatus))),
      txs,
      hashToId: this.meter.meteredIndex(host.openMap(MemoryId.TxHashToId)),
      droppedByTime: host.openMap(MemoryId.DroppedStatusByTime),
    }, () => host.timeNs());
    this.store = new ChainStore({
      blocks: this.meter.metered(host.openMap(MemoryId.Blocks)),
      blockHashToNumber: this.meter.meteredIndex(host.openMap(MemoryId.BlockHashToNumber)),
      receipts: this.meter.metered(host.openMap(MemoryId.Receipts)),
      blockLogs: this.meter.metered(host.openMap(MemoryId.BlockLogs)),
      blockFeeSummary: this.meter.meteredIndex(host.openMap(MemoryId.BlockFeeSummary)),
    });
    this.views = { pool: this.pool, store: this.store, txs };
    this.lifecycle = new Lifecycle({
      host,
      metaMap: host.openMap(MemoryId.Meta),
      meta: this.meta,
      pool: this.pool,
      store: this.store,
      txs,
      meter: this.meter,
      ops: this.ops,
      guard: (op) => this.writeGuard(op === 'prune' ? 'produce' : op),
    });
    this.read = new ReadApi({ host, engine, meta: this.meta, store: this.store, firstAvailableBlock: () => this.lifecycle.firstAvailableBlock() });
    this.pendingChanges = new PendingStateChanges(host.openMap(MemoryId.Meta));
  }

  isInitialized(): boolean {
    return this.meta.getHead() !== undefined;
  }

  /**
   * Install: stores the config, credits the genesis allocations and writes block 0. The genesis state root
   * comes from an empty engine block (beginBlock/commitBlock) so it commits to the credited balances.
   * A second call (e.g. from post_upgrade) changes nothing.
   */
  async init(args: ChainInitArgs = {}): Promise<Result<{ readonly hash: Bytes32 }>> {
    const existing = this.meta.getHead();
    if (existing !== undefined) return ok({ hash: existing.hash });
    const cfg: ChainConfig = {
      blockGasLimit: args.blockGasLimit ?? DEFAULT_CONFIG.blockGasLimit,
      instructionSoftLimit: args.instructionSoftLimit ?? DEFAULT_CONFIG.instructionSoftLimit,
      minGasPrice: args.minGasPrice ?? DEFAULT_CONFIG.minGasPrice,
      minPriorityFee: args.minPriorityFee ?? DEFAULT_CONFIG.minPriorityFee,
      coinbase: args.feeRecipient ?? DEFAULT_CONFIG.coinbase,
    };
    if (cfg.coinbase.length !== 20) return err(ErrorCode.ArgAddressLength, 'fee_recipient must be 20 bytes');
    for (const a of args.genesisAllocations ?? []) {
      if (a.address.length !== 20) return err(ErrorCode.ArgAddressLength, 'genesis allocation address must be 20 bytes');
      if (a.balance < 0n || a.balance >= 1n << 256n) return err(ErrorCode.ArgInvalid, 'genesis balance must be a uint256');
    }
    const codeAt = new Set<string>();
    const codes = args.genesisCode ?? [];
    if (codes.length > MAX_GENESIS_CODE_ENTRIES) return err(ErrorCode.ArgInvalid, `at most ${MAX_GENESIS_CODE_ENTRIES} genesis code entries`);
    for (const c of codes) {
      if (c.address.length !== 20) return err(ErrorCode.ArgAddressLength, 'genesis code address must be 20 bytes');
      if (c.code.length === 0 || c.code.length > MAX_CODE_SIZE) return err(ErrorCode.ArgInvalid, `genesis code must be 1 to ${MAX_CODE_SIZE} bytes (EIP-170)`);
      const k = toHex(c.address);
      if (codeAt.has(k)) return err(ErrorCode.ArgInvalid, `genesis code given twice for 0x${k}`);
      codeAt.add(k);
    }
    this.meta.setConfig(cfg);
    if (args.development === true) markDevelopment(this.host.openMap(MemoryId.Meta));
    this.development = args.development === true;
    // Before block 0's state root: every root of this chain uses the version's hash (chain/commitments.ts).
    markCommitmentVersion(this.host.openMap(MemoryId.Meta), args.commitmentVersion ?? COMMITMENT_VERSION);
    this.lifecycle.checkLayout(); // nothing stored yet: writes the current layout version
    // Block 0's state changes: the allocations, then the code (a contract account's nonce starts at 1, EIP-161,
    // as the deployed originals' did), net per address; written to state, chained into the genesis state root,
    // and recorded in block 0 so that a consumer of export_blocks can rebuild genesis state.
    let genesis: AccountChange[] = [];
    for (const a of args.genesisAllocations ?? []) genesis = mergeStateChange(genesis, { address: a.address, balance: a.balance, storage: [] });
    for (const c of codes) genesis = mergeStateChange(genesis, { address: c.address, code: c.code, nonce: 1n, storage: [] });
    const genesisChanges = genesis.length === 0 ? undefined : encodeStateChanges(genesis);
    for (const c of genesis) this.engine.applyStateChange(c);
    if (genesisChanges !== undefined) this.engine.chainStateChanges(genesisChanges);
    const baseFee = args.baseFee ?? DEFAULT_BASE_FEE;
    const timestamp = this.host.timeNs() / 1_000_000_000n;
    const parentHash = new Uint8Array(32);
    this.engine.beginBlock({ number: 0n, timestamp, baseFeePerGas: baseFee, gasLimit: cfg.blockGasLimit, coinbase: cfg.coinbase, prevRandao: parentHash, parentHash });
    const { stateRoot } = await this.engine.commitBlock();
    const header = {
      parentHash,
      coinbase: cfg.coinbase,
      stateRoot,
      transactionsRoot: EMPTY_TRIE_ROOT,
      receiptsRoot: EMPTY_TRIE_ROOT,
      logsBloom: new Uint8Array(256),
      number: 0n,
      gasLimit: cfg.blockGasLimit,
      gasUsed: 0n,
      timestamp,
      mixHash: parentHash,
      baseFeePerGas: baseFee,
    };
    const enc = encodeHeader(header);
    const hash = headerHash(enc);
    this.store.putBlock({ ...header, hash, size: rlpListLength(enc.length + 1 + 1 + 1), txs: [], ...(genesisChanges !== undefined ? { stateChanges: genesisChanges } : {}) }, []);
    // Block 1 uses the configured base fee as is (README: base_fee = "base fee of block 1").
    this.meta.setNextBaseFee(baseFee);
    this.meta.setHead({ number: 0n, hash, timestamp });
    this.meter.flush();
    return ok({ hash });
  }

  // ---- submit (update methods) ----

  /**
   * rpc_eth_send_raw_transaction, and rpc_eth_send_raw_transaction_with_key with the sender's public key as
   * a hint (submit.ts SenderKeyHint; a key that did not sign is refused, submit.sender_key_mismatch).
   * Anonymous callers are allowed on this path (the gateway may be anonymous). `caller` (msg_caller's bytes) of a
   * submit without a key: a named caller's earlier key is tried first (submit.ts CallerHint).
   */
  submitRawTx(raw: Uint8Array, senderKey?: Uint8Array, caller?: Uint8Array): Result<Uint8Array> {
    const g = this.writeGuard('submit');
    if (g !== undefined) return { ok: false, error: g };
    if (!this.isInitialized()) return err(ErrorCode.ExecStateUnavailable, 'chain not initialized');
    const hint = senderKeyHint(senderKey, true);
    if (!hint.ok) return hint;
    const r = submitRaw(this.deps(), raw, hint.value ?? (caller === undefined ? undefined : { caller, learn: true }));
    this.meter.flush();
    return r;
  }

  /**
   * The checks of submitRawTx before admission (submit.ts screenRaw), writing nothing: what
   * canister_inspect_message runs on small raw transactions so that junk is refused for free.
   */
  screenRawTx(raw: Uint8Array, senderKey?: Uint8Array): Result<null> {
    const g = this.writeGuard('submit');
    if (g !== undefined) return { ok: false, error: g };
    if (!this.isInitialized()) return err(ErrorCode.ExecStateUnavailable, 'chain not initialized');
    const hint = senderKeyHint(senderKey, false);
    if (!hint.ok) return hint;
    const r = screenRaw(this.deps(), raw, hint.value);
    return r.ok ? ok(null) : r;
  }

  /** submit_ic_tx: caller = msg_caller() bytes, canisterId = canister_self() bytes. */
  submitIcTx(rec: IcTxRecord, caller: Uint8Array, canisterId: Uint8Array): Result<Uint8Array> {
    if (isAnonymous(caller)) return err(ErrorCode.AuthAnonymousForbidden, 'anonymous callers cannot submit transactions');
    const g = this.writeGuard('submit');
    if (g !== undefined) return { ok: false, error: g };
    if (!this.isInitialized()) return err(ErrorCode.ExecStateUnavailable, 'chain not initialized');
    const r = submitIc(this.deps(), rec, caller, canisterId);
    this.meter.flush();
    return r;
  }

  /** The mining timer's body (and mine_block's: `allowEmpty` makes a block even with nothing pending). */
  async produceBlock(opts: { readonly allowEmpty?: boolean } = {}): Promise<ProduceResult | { readonly kind: 'Rejected'; readonly error: CoreError }> {
    const g = this.writeGuard('produce');
    if (g !== undefined) return { kind: 'Rejected', error: g };
    // Statuses of dropped transactions have a lifetime (docs/execution.md "Pool rules").
    this.pool.pruneDroppedStatuses(DROPPED_STATUS_LIFETIME_NS, DROPPED_STATUS_PRUNE_PER_TICK);
    const r = await produceBlock({ host: this.host, engine: this.engine, pool: this.pool, meta: this.meta, store: this.store, txs: this.views.txs, stateChanges: this.pendingChanges }, opts);
    if (r.kind === 'Produced') this.meter.blockProduced(r.number, r.txCount, this.host.instructionCounter());
    this.meter.flush();
    if (r.kind === 'Produced') this.engine.afterBlock?.();
    return r;
  }

  // ---- admin (controller checks are the canister's) ----

  setBlockGasLimit(limit: bigint): Result<void> {
    const g = this.writeGuard('admin');
    if (g !== undefined) return { ok: false, error: g };
    // Below 21000 no transaction fits; above MAX_BLOCK_GAS_LIMIT a block's state commit could outgrow the
    // finalisation reserve of its message (ops/limits.ts).
    if (limit < MIN_BLOCK_GAS_LIMIT || limit > MAX_BLOCK_GAS_LIMIT) {
      return err(ErrorCode.ArgInvalid, `block gas limit must be in [${MIN_BLOCK_GAS_LIMIT}, ${MAX_BLOCK_GAS_LIMIT}]`);
    }
    this.meta.setConfig({ ...this.meta.getConfig(), blockGasLimit: limit });
    return ok(undefined);
  }

  /** purge_pool (controllers): drops every pending transaction with pool.purged; returns how many. */
  purgePool(): Result<bigint> {
    const g = this.writeGuard('admin');
    if (g !== undefined) return { ok: false, error: g };
    const n = this.pool.purge(ErrorCode.PoolPurged);
    this.meter.flush();
    return ok(BigInt(n));
  }

  setInstructionSoftLimit(limit: bigint): Result<void> {
    const g = this.writeGuard('admin');
    if (g !== undefined) return { ok: false, error: g };
    // Soft limit + one whole transaction (TX_INSTRUCTION_BUDGET) + finalisation must fit one 40 B message (ops/limits.ts).
    if (limit < MIN_INSTRUCTION_SOFT_LIMIT || limit > MAX_INSTRUCTION_SOFT_LIMIT) {
      return err(ErrorCode.ArgInvalid, `instruction soft limit must be in [${MIN_INSTRUCTION_SOFT_LIMIT}, ${MAX_INSTRUCTION_SOFT_LIMIT}]`);
    }
    this.meta.setConfig({ ...this.meta.getConfig(), instructionSoftLimit: limit });
    return ok(undefined);
  }

  getConfig(): ChainConfig {
    return this.meta.getConfig();
  }

  // ---- reads (query methods) ----

  chainId(): bigint {
    return CHAIN_ID;
  }

  blockNumber(): bigint {
    return this.meta.getHead()?.number ?? 0n;
  }

  /** Base fee the next block will use (for rpc_eth_gas_price and fee history). */
  nextBaseFee(): bigint {
    return this.meta.getNextBaseFee();
  }

  pendingCount(): number {
    return this.pool.size();
  }

  getPending(txId: Uint8Array): PendingStatusView {
    return pendingStatus(this.views, txId);
  }

  // Lookups apply the prune boundary (rules in prune/pruner.ts): a transaction, receipt or block of a pruned
  // block reads as absent (Pruned in the *_with_status lookups), even while its entries are being deleted.

  getReceipt(txId: Uint8Array): EthReceiptView | undefined {
    return this.lifecycle.receiptPruned(txId) === undefined ? receiptByTxId(this.views, txId) : undefined;
  }

  getTransactionReceiptWithStatusByTxId(txId: Uint8Array): RpcReceiptLookupView {
    const pruned = this.lifecycle.receiptPruned(txId);
    if (pruned !== undefined) return pruned;
    const r = receiptByTxId(this.views, txId);
    return r === undefined ? { kind: 'NotFound' } : { kind: 'Found', receipt: r };
  }

  getTransactionReceiptByEthHash(hash: Bytes32): EthReceiptView | undefined {
    const id = this.pool.idByHash(hash);
    return id === undefined ? undefined : this.getReceipt(id);
  }

  getTransactionReceiptWithStatusByEthHash(hash: Bytes32): RpcReceiptLookupView {
    const id = this.pool.idByHash(hash);
    return id === undefined ? this.lifecycle.unknownHash(hash) : this.getTransactionReceiptWithStatusByTxId(id);
  }

  getTransactionByEthHash(hash: Bytes32): EthTxView | undefined {
    const id = this.pool.idByHash(hash);
    return id === undefined ? undefined : this.getTransactionByTxId(id);
  }

  getTransactionByTxId(txId: Uint8Array): EthTxView | undefined {
    return this.lifecycle.receiptPruned(txId) === undefined ? transactionByTxId(this.views, txId) : undefined;
  }

  getBlockByNumber(n: bigint, fullTxs: boolean): EthBlockView | undefined {
    if (n < this.lifecycle.firstAvailableBlock()) return undefined;
    const b = this.store.getBlock(n);
    return b === undefined ? undefined : blockView(this.views, b, fullTxs);
  }

  getBlockByNumberWithStatus(n: bigint, fullTxs: boolean): RpcBlockLookupView {
    return this.lifecycle.blockLookup(n, (k) => this.getBlockByNumber(k, fullTxs));
  }

  /** Hash of block n (for the engine's BLOCKHASH: createEvmEngine({ blockHash: (n) => core.getBlockHash(n) })). */
  getBlockHash(n: bigint): Bytes32 | undefined {
    return this.store.getBlock(n)?.hash;
  }

  /** eth_getBlockByHash in one query: the hash index, then the block (Pruned below the prune boundary). */
  getBlockByHashWithStatus(hash: Bytes32, fullTxs: boolean): RpcBlockLookupView {
    const n = this.store.getBlockNumberByHash(hash);
    if (n === undefined) return { kind: 'NotFound' };
    return this.getBlockByNumberWithStatus(n, fullTxs);
  }

  /** A page of a block's receipts (by number or by hash) from transaction index `first` (views.ts blockReceiptsPage). */
  getBlockReceiptsPage(ref: { readonly number: bigint } | { readonly hash: Bytes32 }, first: number): RpcBlockReceiptsLookupView {
    const n = 'number' in ref ? ref.number : this.store.getBlockNumberByHash(ref.hash);
    if (n === undefined) return { kind: 'NotFound' };
    const r = this.lifecycle.blockLookup(n, (k) => this.store.getBlock(k));
    if (r.kind !== 'Found') return r;
    return { kind: 'Found', page: blockReceiptsPage(this.views, r.block, first) };
  }

  getBlockNumberByHash(hash: Bytes32): bigint | undefined {
    const n = this.store.getBlockNumberByHash(hash);
    return n === undefined || n < this.lifecycle.firstAvailableBlock() ? undefined : n;
  }

  /**
   * expected_nonce_by_address: the nonce the next submission from this address should carry, i.e. the
   * account nonce plus its run of consecutive pending nonces (point reads, at most MAX_NONCE_WINDOW).
   */
  expectedNonceByAddress(address: Uint8Array): Result<bigint> {
    const closed = this.headStateClosed<bigint>();
    if (closed !== undefined) return closed;
    const bad = checkAddress(address);
    if (bad !== undefined) return bad;
    let n = this.engine.getNonce(address);
    const limit = n + BigInt(MAX_NONCE_WINDOW);
    while (n < limit && this.pool.hasSenderNonce(address, n)) n++;
    return ok(n);
  }

  /** eth_getTransactionCount at head: `latest` = account nonce, `pending` = expectedNonceByAddress. */
  getTransactionCount(address: Uint8Array, pending: boolean): Result<bigint> {
    if (pending) return this.expectedNonceByAddress(address);
    const bad = this.headStateClosed<bigint>() ?? checkAddress(address);
    return bad ?? ok(this.engine.getNonce(address));
  }

  getBalance(address: Uint8Array): Result<bigint> {
    const bad = this.headStateClosed<bigint>() ?? checkAddress(address);
    return bad ?? ok(this.engine.getBalance(address));
  }

  getCode(address: Uint8Array): Result<Uint8Array> {
    const bad = this.headStateClosed<Uint8Array>() ?? checkAddress(address);
    return bad ?? ok(this.engine.getCode(address));
  }

  getStorageAt(address: Uint8Array, slot: Uint8Array): Result<Uint8Array> {
    const bad = this.headStateClosed<Uint8Array>() ?? checkAddress(address);
    if (bad !== undefined) return bad;
    if (slot.length !== 32) return err(ErrorCode.ArgInvalid, `storage slot must be 32 bytes, got ${slot.length}`);
    return ok(this.engine.getStorage(address, slot));
  }

  // ---- read API (query methods; src/core/query, docs/read-api.md) ----

  /** eth_call: the returned data, or the execution error (exec.reverted carries the revert data). */
  callObject(o: CallObject, tag: BlockTag): Promise<Result<Uint8Array>> {
    const closed = this.headStateClosed<Uint8Array>();
    return closed !== undefined ? Promise.resolve(closed) : this.read.callObject(o, tag);
  }

  /** A signed raw transaction executed as a call from its recovered sender. */
  callRawTx(raw: Uint8Array, tag: BlockTag): Promise<Result<Uint8Array>> {
    const closed = this.headStateClosed<Uint8Array>();
    return closed !== undefined ? Promise.resolve(closed) : this.read.callRawTx(raw, tag);
  }

  /** eth_estimateGas: the minimum gas limit with which the call succeeds. */
  estimateGasObject(o: CallObject, tag: BlockTag): Promise<Result<bigint>> {
    const closed = this.headStateClosed<bigint>();
    return closed !== undefined ? Promise.resolve(closed) : this.read.estimateGasObject(o, tag);
  }

  getLogsPaged(filter: LogFilter, cursor: LogCursor | undefined, limit: number | undefined, rules: LogFilterRules = 'spec'): Result<LogPage> {
    return this.read.getLogsPaged(filter, cursor, limit, rules);
  }

  gasPrice(): Result<bigint> {
    return this.read.gasPrice();
  }

  maxPriorityFeePerGas(): Result<bigint> {
    return this.read.maxPriorityFeePerGas();
  }

  feeHistory(blockCount: bigint, newest: BlockTag, percentiles: readonly number[]): Result<FeeHistory> {
    return this.read.feeHistory(blockCount, newest, percentiles);
  }

  // ---- lifecycle: pruning, export, operational states, metrics (src/core/ops, prune, export; docs/lifecycle.md) ----

  /** The prune timer's body (policy-driven, bounded by max_ops_per_tick); undefined when there was nothing to do. */
  pruneTick(): PruneTickResult | undefined {
    return this.lifecycle.pruneTick();
  }

  /** prune_blocks: blocks below `beforeBlock` (never the last 256), at most `maxOps` deletions. */
  pruneBlocks(beforeBlock: bigint, maxOps: number): Result<PruneTickResult> {
    return this.lifecycle.pruneBlocks(beforeBlock, maxOps);
  }

  /** Returns the policy as stored (timer interval rounded up to whole seconds). */
  setPrunePolicy(p: PrunePolicy): Result<PrunePolicy> {
    return this.lifecycle.setPrunePolicy(p);
  }

  setPruningEnabled(enabled: boolean): Result<void> {
    return this.lifecycle.setPruningEnabled(enabled);
  }

  /** From install / upgrade arguments (absent values keep what is stored). */
  configurePruning(policy: PrunePolicy | undefined, enabled: boolean | undefined): Result<void> {
    return this.lifecycle.configurePruning(policy, enabled);
  }

  pruneStatus(): PruneStatusView {
    return this.lifecycle.pruneStatus();
  }

  exportBlocks(cursor: ExportCursor | undefined, maxBytes: number): ExportResult {
    return this.lifecycle.exportBlocks(cursor, maxBytes);
  }

  opsStatus(): OpsStatus {
    return this.ops.status();
  }

  /** Migration is entered and left by a controller (set_ops_mode). */
  setMigration(on: boolean, reason: string): Result<void> {
    this.ops.setMigration(on, reason, this.host.timeNs());
    return ok(undefined);
  }

  /**
   * post_upgrade, before anything else: the stored layout is current, or a migration to it starts (Migration
   * state until `migrationStep` ends it), or the layout is newer than this code and the upgrade must be refused.
   */
  checkLayout(): LayoutCheck {
    const r = this.lifecycle.checkLayout();
    this.meter.flush();
    return r;
  }

  /** One bounded step of a running layout migration (a timer message); done once the data is in the current layout. */
  migrationStep(maxVisits?: number): MigrationProgress {
    return this.lifecycle.migrationStep(maxVisits);
  }

  /** The ops timer: cycle balance (Cycle mode) and the integrity check (CriticalCorrupt). */
  observeCycles(balance: bigint): boolean {
    return this.ops.observeCycles(balance, this.host.timeNs());
  }

  runIntegrityCheck(): string | undefined {
    return this.lifecycle.runIntegrityCheck();
  }

  /** False in CriticalCorrupt: head-state reads answer exec.state.unavailable. */
  stateReadable(): boolean {
    return this.ops.stateReadable();
  }

  metrics(): CoreMetrics {
    return this.lifecycle.metrics(this.blockNumber());
  }

  /**
   * Every read of live (head) state goes through here first: in CriticalCorrupt the state is not served
   * until the integrity check passes (docs/lifecycle.md). One rule in the core, so no entry point can miss it.
   */
  private headStateClosed<T>(): Result<T> | undefined {
    if (this.ops.stateReadable()) return undefined;
    return err(ErrorCode.ExecStateUnavailable, 'the canister is in critical_corrupt state: live state is not served until the integrity check passes');
  }

  // ---- development cheats (docs/devnet.md; only on a canister installed with development = opt true) ----

  /** Whether this canister was installed as a development canister (fixed at install). */
  isDevelopment(): boolean {
    this.development ??= isDevelopment(this.host.openMap(MemoryId.Meta));
    return this.development;
  }

  /** dev.disabled on any other canister (checked first, whatever the state), then the ops write guard. */
  private devGuard<T>(method: string): Result<T> | undefined {
    if (!this.isDevelopment()) return err(ErrorCode.DevDisabled, `${method} exists only on a canister installed with development = opt true`);
    if (!this.isInitialized()) return err(ErrorCode.ExecStateUnavailable, 'chain not initialized');
    const g = this.writeGuard('admin');
    return g === undefined ? undefined : { ok: false, error: g };
  }

  private devDeps(): DevDeps {
    return {
      engine: this.engine,
      meta: this.meta,
      pool: this.pool,
      txs: this.views.txs,
      pending: this.pendingChanges,
      submit: this.deps(),
      pendingNonce: (a) => {
        const r = this.expectedNonceByAddress(a);
        return r.ok ? r.value : this.engine.getNonce(a);
      },
    };
  }

  private devRun<T>(method: string, f: (d: DevDeps) => Result<T>): Result<T> {
    const g = this.devGuard<T>(method);
    if (g !== undefined) return g;
    const r = f(this.devDeps());
    this.meter.flush();
    return r;
  }

  devSetAccount(c: AccountChange): Result<null> {
    return this.devRun('dev_set_account', (d) => devSetAccount(d, c));
  }
  devSubmitImpersonated(t: ImpersonatedTxInput): Result<Uint8Array> {
    return this.devRun('dev_submit_impersonated', (d) => devSubmitImpersonated(d, t));
  }
  devDropTransaction(ethHash: Uint8Array): Result<boolean> {
    return this.devRun('dev_drop_transaction', (d) => devDropTransaction(d, ethHash));
  }
  devSetNextBlockBaseFee(fee: bigint): Result<null> {
    return this.devRun('dev_set_next_block_base_fee', (d) => devSetNextBlockBaseFee(d, fee));
  }
  devSetCoinbase(coinbase: Uint8Array): Result<null> {
    return this.devRun('dev_set_coinbase', (d) => devSetCoinbase(d, coinbase));
  }

  private deps() {
    return { pool: this.pool, meta: this.meta, engine: this.engine, nowNs: () => this.host.timeNs() };
  }
}

function checkAddress(address: Uint8Array): Result<never> | undefined {
  if (address.length === 20) return undefined;
  if (address.length === 32) {
    return err(ErrorCode.ArgAddressLength, 'address must be 20 bytes; got 32 bytes (a principal encoded as bytes32 is not an EVM address)');
  }
  return err(ErrorCode.ArgAddressLength, `address must be 20 bytes, got ${address.length}`);
}
