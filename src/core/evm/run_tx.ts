// runTx without the transaction object: the steps of @ethereumjs/vm's runTx (10.1.3, runTx.js) for this
// engine's transactions (types 0-2), in the same order, over EthereumJS's own journal and EVM.runCall.
//
// What runTx does around the top-level frame that this engine does not need: a transaction object (the
// constructor turns every field into bytes and back and validates it: about a tenth of block.transfer.instructions_per_tx in the
// canister), the EIP-7623 floor counted with a bigint addition per calldata byte, the receipt, the bloom
// for calls, and two events nobody listens to. What it leaves out must not be observable, so it runs only
// where runTx could not throw or do more: the fields within the constructor's bounds, the gas limit at least
// the intrinsic gas and the floor, and a Common without the EIPs whose branches are not written here
// (leanRunTxParams); anything else takes runTx. tests/unit/evm_run_tx.test.ts compares both.

import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { Address, KECCAK256_NULL, hexToBytes, stripHexPrefix } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import type { ExecTx } from '../engine.js';
import { countZeroBytes } from '../tx/intrinsic.js';
import { toHex } from './encoding.js';
import { cleanJournalSync, journalCheckpointSync, journalCleanupSync, journalCommitSync, type TxJournal } from './internals.js';
import { FlatStateManager } from './state.js';

const MAX_UINT256 = (1n << 256n) - 1n;
const MAX_UINT64 = (1n << 64n) - 1n;

/** The Common's parameters the lean path reads, or undefined where it must not run (see leanRunTxParams). */
export interface LeanRunTxParams {
  readonly txGas: bigint;
  readonly dataZero: bigint;
  readonly dataNonZero: bigint;
  readonly creation: bigint;
  /** EIP-3860: gas per initcode word and the initcode size limit; undefined before Shanghai. */
  readonly initWord: bigint | undefined;
  readonly maxInitCodeSize: number;
  readonly alAddress: bigint;
  readonly alKey: bigint;
  /** EIP-7623 floor per token; undefined before Prague. */
  readonly floorPerToken: bigint | undefined;
  readonly maxRefundQuotient: bigint;
  readonly warmCoinbase: boolean;
  readonly eip6780: boolean;
  /**
   * The always-warm entries of the precompiles (what addAlwaysWarmAddress makes of their map's keys), each
   * `precompileWarmSet`, one empty set: made when the engine is built and copied into each transaction's
   * journal (a query's heap changes are discarded, so entries made lazily in one would be made in every query).
   */
  /** The always-warm entries of the precompiles, each the one empty set below (copied into every transaction's journal). */
  readonly precompileWarm: ReadonlyMap<string, Set<string>>;
  readonly precompileWarmSet: ReadonlySet<string>;
}

/**
 * Parameters for `common` (the transactions' Common; `vmCommon`: the VM's, whose refund quotient runTx reads;
 * `precompiles`: the EVM's precompile map, the same in every executor of one Common),
 * or undefined when runTx would take a branch not written here: forks before
 * London/Berlin (no EIP-1559 fee split, no EIP-2929 warm sets), or EIPs that add intrinsic or per-transaction
 * work (2780, 7708, 7825, 7928, 7976, 7981, 8037, 8038, 8246, 6800/4762/7864 witnesses).
 */
export function leanRunTxParams(common: Common, vmCommon: Common, precompiles: ReadonlyMap<string, unknown>): LeanRunTxParams | undefined {
  if (!common.isActivatedEIP(1559) || !common.isActivatedEIP(2929) || !common.isActivatedEIP(2930) || !common.gteHardfork('spuriousDragon')) return undefined;
  if ([2780, 4762, 6800, 7708, 7825, 7864, 7928, 7976, 7981, 8037, 8038, 8246].some((e) => common.isActivatedEIP(e))) return undefined;
  const eip3860 = common.isActivatedEIP(3860);
  const precompileKeys = [...precompiles.keys()].map((k) => stripHexPrefix(k));
  const precompileWarmSet = new Set<string>();
  return {
    txGas: common.param('txGas'),
    dataZero: common.param('txDataZeroGas'),
    dataNonZero: common.param('txDataNonZeroGas'),
    creation: common.param('txCreationGas'),
    initWord: eip3860 ? common.param('initCodeWordGas') : undefined,
    maxInitCodeSize: eip3860 ? Number(common.param('maxInitCodeSize')) : Infinity,
    alAddress: common.param('accessListAddressGas'),
    alKey: common.param('accessListStorageKeyGas'),
    floorPerToken: common.isActivatedEIP(7623) ? common.param('totalCostFloorPerToken') : undefined,
    maxRefundQuotient: vmCommon.param('maxRefundQuotient'),
    warmCoinbase: common.isActivatedEIP(3651),
    eip6780: common.isActivatedEIP(6780),
    precompileWarm: new Map(precompileKeys.map((k) => [k, precompileWarmSet])),
    precompileWarmSet,
  };
}

export interface LeanRunTxResult {
  readonly execResult: { exceptionError?: { error: string }; logs?: [Uint8Array, Uint8Array[], Uint8Array][]; returnValue: Uint8Array; gasRefund?: bigint; executionGasUsed: bigint; selfdestruct?: Map<string, true>; createdAddresses?: Set<string> };
  readonly totalGasSpent: bigint;
  readonly gasRefund: bigint;
}

/** Intrinsic gas and EIP-7623 floor of `tx`, as getIntrinsicGas and getCalldataFloorGas compute them. */
function intrinsic(p: LeanRunTxParams, tx: ExecTx): { gas: bigint; floor: bigint } {
  const n = tx.data.length;
  const zeros = countZeroBytes(tx.data);
  let gas = p.txGas + BigInt(zeros) * p.dataZero + BigInt(n - zeros) * p.dataNonZero;
  if (tx.to === undefined) {
    gas += p.creation;
    if (p.initWord !== undefined) gas += p.initWord * BigInt(Math.ceil(n / 32));
  }
  for (const [, keys] of tx.accessList) gas += p.alAddress + p.alKey * BigInt(keys.length);
  const floor = p.floorPerToken === undefined ? 0n : p.txGas + p.floorPerToken * (BigInt(zeros) + 4n * BigInt(n - zeros));
  return { gas, floor };
}

/**
 * The transaction's top-level EVM.runCall below the engine's top-level checks (`run`), and those checks
 * (`check`: log limits and the tail's budget, engine.ts instrumentTopLevel), which the lean path runs itself
 * after the frame: one async function fewer between the transaction and its frame.
 */
export interface TopLevelCall {
  run(opts: Record<string, unknown>): Promise<{ execResult: LeanRunTxResult['execResult'] }>;
  check(r: { execResult: LeanRunTxResult['execResult'] }): void;
}

/**
 * Runs `tx` as runTx would (skipHardForkValidation, skipBlockGasLimitValidation, skipNonce and skipBalance
 * = isCall), after the engine's own checks; undefined, with nothing done, where runTx could throw before
 * execution or the transaction object's constructor could refuse the fields: the caller then runs runTx.
 *
 * Synchronous but for the frame itself: the journal's checkpoints, commits and clean-ups, the account reads
 * and writes go through their synchronous forms (internals.ts, FlatStateManager), where runTx awaits each
 * (about 30 K instructions an await level in the canister, a dozen a transaction); the sender and the
 * coinbase are read and written as records, without an Account each.
 */
export async function leanRunTx(
  vm: VM,
  p: LeanRunTxParams,
  top: TopLevelCall,
  tx: ExecTx,
  caller: Address,
  to: Address | undefined,
  block: Block,
  isCall: boolean,
): Promise<LeanRunTxResult | undefined> {
  // The constructors' bounds (sharedConstructor, the fee checks) and runTx's checks before execution.
  if (tx.type !== 0 && tx.type !== 1 && tx.type !== 2) return undefined;
  if (tx.nonce >= MAX_UINT64 || tx.gasLimit > MAX_UINT64 || tx.value > MAX_UINT256 || tx.maxFeePerGas > MAX_UINT256) return undefined;
  if (tx.maxPriorityFeePerGas > tx.maxFeePerGas || tx.gasLimit * tx.maxFeePerGas > MAX_UINT256) return undefined;
  if (tx.to === undefined && tx.data.length > p.maxInitCodeSize) return undefined;
  for (const [a, keys] of tx.accessList) {
    if (a.length !== 20) return undefined;
    for (const k of keys) if (k.length !== 32) return undefined;
  }
  const { gas: intrinsicGas, floor } = intrinsic(p, tx);
  if (tx.gasLimit < intrinsicGas || tx.gasLimit < floor) return undefined;
  const baseFee = block.header.baseFeePerGas!;
  if (tx.maxFeePerGas < baseFee) return undefined;
  const sm = vm.stateManager;
  if (!(sm instanceof FlatStateManager)) return undefined;
  if (!isCall) {
    // the engine checked nonce and gasLimit * maxFee + value; runTx's upfront cost is not above that
    const before = sm.getAccountRecord(caller.bytes);
    if (before === undefined || before.nonce !== tx.nonce || before.balance < tx.value + tx.gasLimit * tx.maxFeePerGas) return undefined;
  }

  const evm = vm.evm;
  const journal = evm.journal as unknown as TxJournal;
  journalCleanupSync(journal, sm, true);
  // Journal.addAlwaysWarmAddress for every precompile (addToAccessList false): their entries copied from a map
  // made with the engine, whose one empty slot set they share (nothing adds slots to an always-warm entry but
  // an access list, below, which gives a precompile it names a set of its own). Another precompile map (never in
  // this engine) takes the method, after the access list as runTx.
  const template = p.precompileWarm;
  const shared = template.size === evm.precompiles.size && p.precompileWarmSet.size === 0;
  if (shared) journal.alwaysWarmJournal = new Map(template);
  journalCheckpointSync(journal, sm);
  try {
    for (const [a, keys] of tx.accessList) {
      const h = toHex(a);
      if (shared && journal.alwaysWarmJournal.get(h) === p.precompileWarmSet) journal.alwaysWarmJournal.set(h, new Set());
      journal.addAlwaysWarmAddress(h, true);
      for (const k of keys) journal.addAlwaysWarmSlot(h, toHex(k), true);
    }
    if (!shared) for (const [address] of evm.precompiles.entries()) journal.addAlwaysWarmAddress(address);
    // runTx's body, its one await (the frame) here: an async function fewer a transaction
    const b = begin(journal, sm, p, tx, caller, to, block, isCall, baseFee);
    let results: { execResult: LeanRunTxResult['execResult'] };
    try {
      results = await top.run({
        block,
        gasPrice: b.gasPrice,
        caller,
        gasLimit: tx.gasLimit - intrinsicGas,
        to,
        value: tx.value,
        data: tx.data,
        skipNonceIncrement: true,
      });
      top.check(results);
    } catch (e) {
      await journal.revert();
      throw e;
    }
    const r = finish(journal, sm, p, b, results.execResult, caller, block, isCall, intrinsicGas, floor);
    journalCommitSync(journal, sm);
    return r;
  } catch (e) {
    await journal.revert();
    throw e;
  } finally {
    cleanJournalSync(journal);
    sm.originalStorageCache.clear();
  }
}

/** What runTx's body does before the frame: the warm entries, the sender's fee and nonce, the frame's checkpoint. */
function begin(
  journal: TxJournal,
  sm: FlatStateManager,
  p: LeanRunTxParams,
  tx: ExecTx,
  caller: Address,
  to: Address | undefined,
  block: Block,
  isCall: boolean,
  baseFee: bigint,
): Fees {
  // Address.toString is 0x-prefixed: stripped here, not by a regular expression. The engine's Addresses keep
  // their hex (the coinbase's across messages), which the frame's touches ask for again.
  const callerHex = caller.toString().slice(2);
  journal.addAlwaysWarmAddress(callerHex);
  if (to !== undefined) journal.addAlwaysWarmAddress(to.toString().slice(2));
  if (p.warmCoinbase) journal.addAlwaysWarmAddress(block.header.coinbase.toString().slice(2));

  const fromRec = sm.getAccountRecord(caller.bytes);
  let balance = fromRec?.balance ?? 0n;
  let inclusionFeePerGas: bigint;
  let gasPrice: bigint;
  if (tx.type === 2) {
    const rest = tx.maxFeePerGas - baseFee;
    inclusionFeePerGas = tx.maxPriorityFeePerGas < rest ? tx.maxPriorityFeePerGas : rest;
    gasPrice = inclusionFeePerGas + baseFee;
  } else {
    gasPrice = tx.maxFeePerGas;
    inclusionFeePerGas = gasPrice - baseFee;
  }
  if (isCall) {
    // skipBalance: runTx tops the balance up to the upfront cost (types 0 and 1), then to the max cost
    const upFrontCost = tx.gasLimit * gasPrice + tx.value;
    if (balance < upFrontCost && tx.type !== 2) balance = upFrontCost;
    const maxCost = tx.value + (tx.type === 2 ? tx.gasLimit * tx.maxFeePerGas : 0n);
    if (balance < maxCost) balance = maxCost;
  }
  const txCost = tx.gasLimit * gasPrice;
  balance -= txCost;
  if (isCall && balance < 0n) balance = 0n;
  // runTx writes the account after each of these steps; nothing reads it in between, so one write leaves the
  // same state, journal entry and touched set (Journal.putAccount: touch, then write)
  journal.touchAccount(callerHex);
  sm.putAccountSync(caller.bytes, (fromRec?.nonce ?? 0n) + 1n, balance, fromRec?.codeHash ?? KECCAK256_NULL);

  journalCheckpointSync(journal, sm);
  return { gasPrice, inclusionFeePerGas, txCost, callerHex };
}

interface Fees {
  readonly gasPrice: bigint;
  readonly inclusionFeePerGas: bigint;
  readonly txCost: bigint;
  readonly callerHex: string;
}

/** What runTx's body does after the frame: its commit, the refund and floor, the fee payments, the deletions, the clean-up. */
function finish(
  journal: TxJournal,
  sm: FlatStateManager,
  p: LeanRunTxParams,
  b: Fees,
  ex: LeanRunTxResult['execResult'],
  caller: Address,
  block: Block,
  isCall: boolean,
  intrinsicGas: bigint,
  floor: bigint,
): LeanRunTxResult {
  const { gasPrice, inclusionFeePerGas, txCost, callerHex } = b;
  journalCommitSync(journal, sm);
  let totalGasSpent = ex.executionGasUsed + intrinsicGas;
  let gasRefund = ex.gasRefund ?? 0n;
  let reportedRefund = gasRefund;
  if (gasRefund !== 0n) {
    const maxRefund = totalGasSpent / p.maxRefundQuotient;
    if (gasRefund > maxRefund) gasRefund = maxRefund;
    totalGasSpent -= gasRefund;
  }
  if (p.floorPerToken !== undefined && totalGasSpent < floor) {
    reportedRefund = 0n;
    totalGasSpent = floor;
  }
  // A call's state is discarded after it (EvmEngine.call): the refund, the tip and the clean-up below change
  // only that state, never the outcome, so a call stops here.
  if (isCall) return { execResult: ex, totalGasSpent, gasRefund: reportedRefund };
  const coinbase = block.header.coinbase;
  const from = sm.getAccountRecord(caller.bytes);
  journal.touchAccount(callerHex);
  sm.putAccountSync(caller.bytes, from?.nonce ?? 0n, (from?.balance ?? 0n) + txCost - totalGasSpent * gasPrice, from?.codeHash ?? KECCAK256_NULL);
  const miner = sm.getAccountRecord(coinbase.bytes);
  journal.touchAccount(coinbase.toString().slice(2));
  sm.putAccountSync(coinbase.bytes, miner?.nonce ?? 0n, (miner?.balance ?? 0n) + totalGasSpent * inclusionFeePerGas, miner?.codeHash ?? KECCAK256_NULL);

  if (ex.selfdestruct !== undefined && ex.selfdestruct.size !== 0) {
    for (const [hex] of [...ex.selfdestruct.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      const address = new Address(hexToBytes(hex as `0x${string}`));
      if (p.eip6780 && !ex.createdAddresses!.has(address.toString())) continue;
      // Journal.deleteAccount: touch, then delete
      journal.touchAccount(address.toString().slice(2));
      sm.deleteAccountSync(address.bytes);
    }
  }
  journalCleanupSync(journal, sm, true);
  sm.originalStorageCache.clear();
  return { execResult: ex, totalGasSpent, gasRefund: reportedRefund };
}
