// The Azle entry: lifecycle (init, post_upgrade) and thin Candid methods over the core (src/core).
// Heap state, stable maps and timers are in runtime.ts. No chain logic lives here.
import './globals_shim.js';

import { canisterSelf, IDL, init, msgArgData, msgCaller, postUpgrade, time } from 'azle';

import type { ChainInitArgs, EvmCore } from '../core/index.js';
import { MemoryId } from '../core/store/memory_ids.js';
import {
  blockLookupToCandid,
  blockReceiptsLookupToCandid,
  blockRefFromCandid,
  blockToCandid,
  candidResult,
  fromOpt,
  opt,
  pendingToCandid,
  receiptLookupToCandid,
  receiptToCandid,
  txToCandid,
  opsModeToCandid,
  opsStatusToCandid,
  prunePolicyFromCandid,
  type CandidPrunePolicy,
  type CandidBlockRef,
  type CandidBlockTag,
  type CandidResult,
  type Opt,
} from './convert.js';
import { evmMethod } from './decorators.js';
import { ReadMethods } from './read_methods.js';
import { IngressInspection } from './inspect.js';
import { AdminMethods } from './admin_methods.js';
import { DevMethods } from './dev_methods.js';
import { candidTypes } from './idl.js';
import type { IcSyntheticTxInput, InitArgsView } from './values.js';
import { atHead, host, notReady, openRuntime, opsCheck, runtime, startTimers } from './runtime.js';
import { saveSettings } from './settings.js';

const T = candidTypes(IDL);
const VERSION = '0.1.0';



class EvmCanister {
  // Manual decoding: an install with no argument at all (empty Candid args, as `dfx deploy` sends) must
  // work, and @dfinity/candid refuses to read a missing `opt` argument as null.
  @init([IDL.Opt(T.InitArgs)], { manual: true })
  async init(): Promise<void> {
    const a = decodeInitArgs(msgArgData());
    const interval = a === undefined ? undefined : fromOpt(a.mining_interval_ms);
    // Azle's timers take whole seconds.
    if (interval !== undefined && (interval < 1000n || interval % 1000n !== 0n)) {
      throw new Error('mining_interval_ms must be a whole number of seconds (a positive multiple of 1000)');
    }
    if (interval !== undefined) saveSettings(host.openMap(MemoryId.Meta), { miningIntervalMs: interval });
    const core = await openRuntime();
    const r = await core.init(a === undefined ? {} : chainInitArgs(a));
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
    configurePruning(core, a);
    startTimers();
  }

  /** An upgrade argument may set prune_policy and pruning_enabled (other fields are install-only). */
  @postUpgrade([IDL.Opt(T.InitArgs)], { manual: true })
  async postUpgrade(): Promise<void> {
    const core = await openRuntime();
    // The stable layout first: a newer one than this wasm knows traps here, so the IC keeps the old wasm
    // and the data is never misread; an older one starts a migration (Migration state, timer steps).
    const layout = core.checkLayout();
    if (layout.kind === 'Refused') throw new Error(`upgrade refused: ${layout.message}`);
    configurePruning(core, decodeInitArgs(msgArgData()));
    // The integrity check runs before anything else can write (docs/lifecycle.md).
    opsCheck();
    startTimers();
  }

  // ---- chain identity and status ----

  @evmMethod()
  rpc_eth_chain_id(): bigint {
    return runtime.core?.chainId() ?? 0n;
  }

  @evmMethod()
  rpc_eth_block_number(): bigint {
    return runtime.core?.blockNumber() ?? 0n;
  }

  @evmMethod()
  get_ops_status() {
    const core = runtime.core;
    if (core === undefined) return { mode: { Normal: null }, reason: ['starting'], since_ns: 0n, writes_allowed: false };
    return opsStatusToCandid(core.opsStatus());
  }

  @evmMethod()
  health() {
    const core = runtime.core;
    return {
      ok: core !== undefined && core.isInitialized(),
      mode: core === undefined ? { Normal: null } : opsModeToCandid(core.opsStatus().mode),
      block_number: core?.blockNumber() ?? 0n,
      pending_txs: BigInt(core?.pendingCount() ?? 0),
      time_ns: time(),
      version: VERSION,
    };
  }

  // ---- submit ----

  @evmMethod()
  rpc_eth_send_raw_transaction(rawTx: Uint8Array): CandidResult<Uint8Array> {
    return candidResult(runtime.core?.submitRawTx(rawTx, undefined, msgCaller().toUint8Array()) ?? notReady<Uint8Array>(), (id) => id);
  }

  @evmMethod()
  rpc_eth_send_raw_transaction_with_key(rawTx: Uint8Array, senderKey: Uint8Array): CandidResult<Uint8Array> {
    return candidResult(runtime.core?.submitRawTx(rawTx, senderKey) ?? notReady<Uint8Array>(), (id) => id);
  }

  @evmMethod()
  submit_ic_tx(tx: IcSyntheticTxInput): CandidResult<Uint8Array> {
    const core = runtime.core;
    if (core === undefined) return candidResult(notReady<Uint8Array>(), (id) => id);
    const record = {
      to: fromOpt(tx.to),
      value: tx.value,
      gasLimit: tx.gas_limit,
      nonce: tx.nonce,
      maxFeePerGas: tx.max_fee_per_gas,
      maxPriorityFeePerGas: tx.max_priority_fee_per_gas,
      data: tx.data,
    };
    return candidResult(core.submitIcTx(record, msgCaller().toUint8Array(), canisterSelf().toUint8Array()), (id) => id);
  }

  // ---- what happened to a transaction ----

  @evmMethod()
  get_pending(txId: Uint8Array) {
    return pendingToCandid(runtime.core?.getPending(txId) ?? { kind: 'Unknown' });
  }

  @evmMethod()
  get_receipt(txId: Uint8Array) {
    const r = runtime.core?.getReceipt(txId);
    return opt(r === undefined ? undefined : receiptToCandid(r));
  }

  @evmMethod()
  rpc_eth_get_transaction_receipt_with_status_by_tx_id(txId: Uint8Array) {
    return receiptLookupToCandid(runtime.core?.getTransactionReceiptWithStatusByTxId(txId) ?? { kind: 'NotFound' });
  }

  @evmMethod()
  rpc_eth_get_transaction_receipt_by_eth_hash(hash: Uint8Array) {
    const r = runtime.core?.getTransactionReceiptByEthHash(hash);
    return opt(r === undefined ? undefined : receiptToCandid(r));
  }

  @evmMethod()
  rpc_eth_get_transaction_receipt_with_status_by_eth_hash(hash: Uint8Array) {
    return receiptLookupToCandid(runtime.core?.getTransactionReceiptWithStatusByEthHash(hash) ?? { kind: 'NotFound' });
  }

  @evmMethod()
  rpc_eth_get_transaction_by_eth_hash(hash: Uint8Array) {
    const t = runtime.core?.getTransactionByEthHash(hash);
    return opt(t === undefined ? undefined : txToCandid(t));
  }

  @evmMethod()
  rpc_eth_get_transaction_by_tx_id(txId: Uint8Array) {
    const t = runtime.core?.getTransactionByTxId(txId);
    return opt(t === undefined ? undefined : txToCandid(t));
  }

  // ---- blocks ----

  @evmMethod()
  rpc_eth_get_block_by_number(n: bigint, full: boolean) {
    const b = runtime.core?.getBlockByNumber(n, full);
    return opt(b === undefined ? undefined : blockToCandid(b));
  }

  @evmMethod()
  rpc_eth_get_block_by_number_with_status(n: bigint, full: boolean) {
    return blockLookupToCandid(runtime.core?.getBlockByNumberWithStatus(n, full) ?? { kind: 'NotFound' });
  }

  @evmMethod()
  rpc_eth_get_block_by_hash_with_status(hash: Uint8Array, full: boolean) {
    return blockLookupToCandid(runtime.core?.getBlockByHashWithStatus(hash, full) ?? { kind: 'NotFound' });
  }

  @evmMethod()
  rpc_eth_get_block_receipts_paged(ref: CandidBlockRef, first: number) {
    return blockReceiptsLookupToCandid(runtime.core?.getBlockReceiptsPage(blockRefFromCandid(ref), first) ?? { kind: 'NotFound' });
  }

  @evmMethod()
  rpc_eth_get_block_number_by_hash(hash: Uint8Array): Opt<bigint> {
    return opt(runtime.core?.getBlockNumberByHash(hash));
  }

  // ---- state at the head ----

  @evmMethod()
  expected_nonce_by_address(address: Uint8Array): CandidResult<bigint> {
    return candidResult(runtime.core?.expectedNonceByAddress(address) ?? notReady<bigint>(), (n) => n);
  }

  @evmMethod()
  rpc_eth_get_transaction_count_at(address: Uint8Array, tag: CandidBlockTag): CandidResult<bigint> {
    return atHead(tag, (core) => core.getTransactionCount(address, 'Pending' in tag));
  }

  @evmMethod()
  rpc_eth_get_balance(address: Uint8Array, tag: CandidBlockTag): CandidResult<bigint> {
    return atHead(tag, (core) => core.getBalance(address));
  }

  @evmMethod()
  rpc_eth_get_code(address: Uint8Array, tag: CandidBlockTag): CandidResult<Uint8Array> {
    return atHead(tag, (core) => core.getCode(address));
  }

  @evmMethod()
  rpc_eth_get_storage_at(address: Uint8Array, slot: Uint8Array, tag: CandidBlockTag): CandidResult<Uint8Array> {
    return atHead(tag, (core) => core.getStorageAt(address, slot));
  }

}

function decodeInitArgs(bytes: Uint8Array): InitArgsView | undefined {
  if (isEmptyArgs(bytes)) return undefined;
  const [a] = IDL.decode([IDL.Opt(T.InitArgs)], bytes) as [Opt<InitArgsView>];
  return fromOpt(a);
}

/** No bytes at all, or `DIDL` with an empty type table and no values. */
function isEmptyArgs(bytes: Uint8Array): boolean {
  return bytes.length === 0 || (bytes.length === 6 && bytes[4] === 0 && bytes[5] === 0);
}

function configurePruning(core: EvmCore, a: InitArgsView | undefined): void {
  if (a === undefined) return;
  const p = fromOpt(a.prune_policy);
  const r = core.configurePruning(p === undefined ? undefined : prunePolicyFromCandid(p), fromOpt(a.pruning_enabled));
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
}

function chainInitArgs(a: InitArgsView): ChainInitArgs {
  return {
    genesisAllocations: fromOpt(a.genesis_allocations),
    baseFee: fromOpt(a.base_fee),
    minGasPrice: fromOpt(a.min_gas_price),
    minPriorityFee: fromOpt(a.min_priority_fee),
    blockGasLimit: fromOpt(a.block_gas_limit),
    instructionSoftLimit: fromOpt(a.instruction_soft_limit),
    feeRecipient: fromOpt(a.fee_recipient),
    genesisCode: fromOpt(a.genesis_code),
    // Install only: post_upgrade never reads it (configurePruning takes the upgrade's prune fields alone).
    development: fromOpt(a.development) === true,
  };
}

// azle accepts an array of classes: each method group lives in its own class file.
export default [EvmCanister, ReadMethods, AdminMethods, DevMethods, IngressInspection];
