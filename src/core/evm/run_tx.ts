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
import { Account, Address, hexToBytes, stripHexPrefix } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import type { ExecTx } from '../engine.js';
import { countZeroBytes } from '../tx/intrinsic.js';
import { toHex } from './encoding.js';

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
   * The journal keys of the precompiles (what addAlwaysWarmAddress strips their map's keys to), made when the
   * engine is built: a query's heap changes are discarded, so a key list made lazily in one would be made again
   * in every query.
   */
  readonly precompileKeys: readonly string[];
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
    precompileKeys: [...precompiles.keys()].map((k) => stripHexPrefix(k)),
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
 * Runs `tx` as runTx would (skipHardForkValidation, skipBlockGasLimitValidation, skipNonce and skipBalance
 * = isCall), after the engine's own checks; undefined, with nothing done, where runTx could throw before
 * execution or the transaction object's constructor could refuse the fields: the caller then runs runTx.
 */
export async function leanRunTx(
  vm: VM,
  p: LeanRunTxParams,
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
  if (!isCall) {
    // the engine checked nonce and gasLimit * maxFee + value; runTx's upfront cost is not above that
    const before = await sm.getAccount(caller);
    if (before === undefined || before.nonce !== tx.nonce || before.balance < tx.value + tx.gasLimit * tx.maxFeePerGas) return undefined;
  }

  const evm = vm.evm;
  const journal = evm.journal;
  await journal.cleanup();
  await journal.checkpoint();
  for (const [a, keys] of tx.accessList) {
    const h = toHex(a);
    journal.addAlwaysWarmAddress(h, true);
    for (const k of keys) journal.addAlwaysWarmSlot(h, toHex(k), true);
  }
  try {
    const r = await body(vm, p, tx, caller, to, block, isCall, intrinsicGas, floor, baseFee);
    await journal.commit();
    return r;
  } catch (e) {
    await journal.revert();
    throw e;
  } finally {
    journal.cleanJournal();
    sm.originalStorageCache.clear();
  }
}

async function body(
  vm: VM,
  p: LeanRunTxParams,
  tx: ExecTx,
  caller: Address,
  to: Address | undefined,
  block: Block,
  isCall: boolean,
  intrinsicGas: bigint,
  floor: bigint,
  baseFee: bigint,
): Promise<LeanRunTxResult> {
  const evm = vm.evm;
  const journal = evm.journal;
  const sm = vm.stateManager;
  // Journal.addAlwaysWarmAddress for every precompile (addToAccessList false) over the keys made beforehand:
  // iterating the map and calling the method per precompile is a part of every transaction's fixed cost
  // (block.transfer.instructions_per_tx) this loop avoids. Another map (never in this engine) takes the method.
  const keys = p.precompileKeys;
  if (keys.length === evm.precompiles.size) {
    const warm = (journal as unknown as { alwaysWarmJournal: Map<string, Set<string>> }).alwaysWarmJournal;
    for (let i = 0; i < keys.length; i++) if (!warm.has(keys[i]!)) warm.set(keys[i]!, new Set());
  } else for (const [address] of evm.precompiles.entries()) journal.addAlwaysWarmAddress(address);
  // Address.toString is 0x-prefixed: stripped here, not by a regular expression. The engine's Addresses keep
  // their hex (the coinbase's across messages), which the frame's touches ask for again.
  journal.addAlwaysWarmAddress(caller.toString().slice(2));
  if (to !== undefined) journal.addAlwaysWarmAddress(to.toString().slice(2));
  if (p.warmCoinbase) journal.addAlwaysWarmAddress(block.header.coinbase.toString().slice(2));

  const fromAccount = (await sm.getAccount(caller)) ?? new Account();
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
    if (fromAccount.balance < upFrontCost && tx.type !== 2) fromAccount.balance = upFrontCost;
    const maxCost = tx.value + (tx.type === 2 ? tx.gasLimit * tx.maxFeePerGas : 0n);
    if (fromAccount.balance < maxCost) fromAccount.balance = maxCost;
  }
  const txCost = tx.gasLimit * gasPrice;
  fromAccount.balance -= txCost;
  if (isCall && fromAccount.balance < 0n) fromAccount.balance = 0n;
  fromAccount.nonce += 1n;
  // runTx writes the account after each of these steps; nothing reads it in between, so one write leaves the
  // same state, journal entry and touched set
  await journal.putAccount(caller, fromAccount);

  await journal.checkpoint();
  let results: { execResult: LeanRunTxResult['execResult'] };
  try {
    results = (await evm.runCall({
      block,
      gasPrice,
      caller,
      gasLimit: tx.gasLimit - intrinsicGas,
      to,
      value: tx.value,
      data: tx.data,
      skipNonceIncrement: true,
    })) as unknown as { execResult: LeanRunTxResult['execResult'] };
  } catch (e) {
    await journal.revert();
    throw e;
  }
  await journal.commit();

  const ex = results.execResult;
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
  const from = (await sm.getAccount(caller)) ?? new Account();
  from.balance += txCost - totalGasSpent * gasPrice;
  await journal.putAccount(caller, from);
  const coinbase = block.header.coinbase;
  const miner = (await sm.getAccount(coinbase)) ?? new Account();
  miner.balance += totalGasSpent * inclusionFeePerGas;
  await journal.putAccount(coinbase, miner);

  if (ex.selfdestruct !== undefined) {
    for (const [hex] of [...ex.selfdestruct.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      const address = new Address(hexToBytes(hex as `0x${string}`));
      if (p.eip6780 && !ex.createdAddresses!.has(address.toString())) continue;
      await journal.deleteAccount(address);
    }
  }
  await journal.cleanup();
  sm.originalStorageCache.clear();
  return { execResult: ex, totalGasSpent, gasRefund: reportedRefund };
}
