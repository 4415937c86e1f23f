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
import { bytesEqual } from '../codec/bytes.js';
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
  /**
   * The intrinsic gas parameters as Numbers (a bigint operation costs an allocation in the canister), or undefined
   * when one is too large for the sums below to stay exact (never on this chain's forks: the caller then runs runTx).
   */
  readonly small: SmallIntrinsic | undefined;
}

interface SmallIntrinsic {
  readonly txGas: number;
  readonly dataZero: number;
  readonly dataNonZero: number;
  readonly creation: number;
  readonly initWord: number | undefined;
  readonly alAddress: number;
  readonly alKey: number;
  readonly floorPerToken: number | undefined;
}

/**
 * The parameters as Numbers when each is below 2^20: a transaction's byte and access-list counts are far below
 * 2^32 (its size is bounded at submit), so every product and sum of intrinsic() stays below 2^53, exact.
 */
function smallIntrinsic(p: Omit<LeanRunTxParams, 'small'>): SmallIntrinsic | undefined {
  const all = [p.txGas, p.dataZero, p.dataNonZero, p.creation, p.initWord ?? 0n, p.alAddress, p.alKey, p.floorPerToken ?? 0n];
  if (all.some((v) => v < 0n || v >= 1n << 20n)) return undefined;
  return {
    txGas: Number(p.txGas),
    dataZero: Number(p.dataZero),
    dataNonZero: Number(p.dataNonZero),
    creation: Number(p.creation),
    initWord: p.initWord === undefined ? undefined : Number(p.initWord),
    alAddress: Number(p.alAddress),
    alKey: Number(p.alKey),
    floorPerToken: p.floorPerToken === undefined ? undefined : Number(p.floorPerToken),
  };
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
  const p = {
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
  return { ...p, small: smallIntrinsic(p) };
}

export interface LeanRunTxResult {
  readonly execResult: { exceptionError?: { error: string }; logs?: [Uint8Array, Uint8Array[], Uint8Array][]; returnValue: Uint8Array; gasRefund?: bigint; executionGasUsed: bigint; selfdestruct?: Map<string, true>; createdAddresses?: Set<string> };
  readonly totalGasSpent: bigint;
  readonly gasRefund: bigint;
}

/** Intrinsic gas and EIP-7623 floor of `tx`, as getIntrinsicGas and getCalldataFloorGas compute them: the same sums in Numbers (exact: see smallIntrinsic), two bigints made at the end. */
function intrinsic(s: SmallIntrinsic, tx: ExecTx): { gas: bigint; floor: bigint } {
  const n = tx.data.length;
  const zeros = countZeroBytes(tx.data);
  let g = s.txGas + zeros * s.dataZero + (n - zeros) * s.dataNonZero;
  if (tx.to === undefined) {
    g += s.creation;
    if (s.initWord !== undefined) g += s.initWord * Math.ceil(n / 32);
  }
  const al = tx.accessList;
  for (let i = 0; i < al.length; i++) g += s.alAddress + s.alKey * al[i]![1].length;
  return { gas: BigInt(g), floor: s.floorPerToken === undefined ? 0n : BigInt(s.txGas + s.floorPerToken * (zeros + 4 * (n - zeros))) };
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
 * `sender`: the sender's record as the engine read it for its checks, nothing written since.
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
  sender: { readonly nonce: bigint; readonly balance: bigint } | undefined,
): Promise<LeanRunTxResult | undefined> {
  // The constructors' bounds (sharedConstructor, the fee checks) and runTx's checks before execution.
  if (tx.type !== 0 && tx.type !== 1 && tx.type !== 2) return undefined;
  if (p.small === undefined) return undefined;
  if (tx.nonce >= MAX_UINT64 || tx.gasLimit > MAX_UINT64 || tx.value > MAX_UINT256 || tx.maxFeePerGas > MAX_UINT256) return undefined;
  if (tx.maxPriorityFeePerGas > tx.maxFeePerGas || tx.gasLimit * tx.maxFeePerGas > MAX_UINT256) return undefined;
  if (tx.to === undefined && tx.data.length > p.maxInitCodeSize) return undefined;
  const al = tx.accessList;
  // index loops, no array patterns (each runs the iterator protocol in QuickJS)
  for (let i = 0; i < al.length; i++) {
    if (al[i]![0].length !== 20) return undefined;
    const keys = al[i]![1];
    for (let j = 0; j < keys.length; j++) if (keys[j]!.length !== 32) return undefined;
  }
  const { gas: intrinsicGas, floor } = intrinsic(p.small, tx);
  if (tx.gasLimit < intrinsicGas || tx.gasLimit < floor) return undefined;
  const baseFee = block.header.baseFeePerGas!;
  if (tx.maxFeePerGas < baseFee) return undefined;
  const sm = vm.stateManager;
  if (!(sm instanceof FlatStateManager)) return undefined;
  if (!isCall) {
    // the engine checked nonce and gasLimit * maxFee + value; runTx's upfront cost is not above that
    const before = sender;
    if (before === undefined || before.nonce !== tx.nonce || before.balance < tx.value + tx.gasLimit * tx.maxFeePerGas) return undefined;
  }

  const evm = vm.evm;
  const journal = evm.journal as unknown as TxJournal;
  journalCleanupSync(journal, sm, true);
  // Journal.addAlwaysWarmAddress for every precompile (addToAccessList false): the journal's kept map
  // (warmStateOf) holding just their entries, which share one empty slot set (nothing adds slots to an
  // always-warm entry but an access list, below, which gives an address it names a set of its own). Another
  // precompile map (never in this engine) takes the method, after the access list as runTx.
  const template = p.precompileWarm;
  const shared = template.size === evm.precompiles.size && p.precompileWarmSet.size === 0;
  let warm: WarmState | undefined;
  try {
    if (shared) {
      warm = warmStateOf(journal, p);
      journal.alwaysWarmJournal = warm.map;
    }
    journalCheckpointSync(journal, sm);
    for (let i = 0; i < al.length; i++) {
      const [a, keys] = al[i]!;
      const h = toHex(a);
      if (warm !== undefined) {
        const cur = warm.map.get(h);
        if (cur === undefined || cur === p.precompileWarmSet) {
          warm.map.set(h, new Set());
          warm.added.push(h);
        }
      }
      journal.addAlwaysWarmAddress(h, true);
      for (const k of keys) journal.addAlwaysWarmSlot(h, toHex(k), true);
    }
    if (!shared) for (const [address] of evm.precompiles.entries()) journal.addAlwaysWarmAddress(address);
    // runTx's body, its one await (the frame) here: an async function fewer a transaction
    const b = begin(journal, warm, sm, p, tx, caller, to, block, isCall, baseFee);
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
    if (warm !== undefined) restoreWarm(journal, warm, p);
    sm.originalStorageCache.clear();
  }
}

/**
 * A journal's always-warm map between its transactions: the precompiles' entries only, each the one empty set
 * (what `new Map(p.precompileWarm)` makes, without copying seventeen entries a transaction), and the keys a
 * transaction added or replaced, which restoreWarm takes back after it. While a transaction runs it is the
 * journal's alwaysWarmJournal; Journal.cleanJournal (and cleanJournalSync) give the journal a new map, never clear this one.
 */
interface WarmState {
  map: Map<string, Set<string>>;
  readonly added: string[];
}
const warmStates = new WeakMap<object, WarmState>();

/** The journal's kept map (made with the engine for its two journals: a query's heap changes are discarded). */
export function warmStateOf(journal: object, p: LeanRunTxParams): WarmState {
  let w = warmStates.get(journal);
  if (w === undefined) {
    w = { map: new Map(p.precompileWarm), added: [] };
    warmStates.set(journal, w);
  }
  return w;
}

/** The kept map back to the precompiles' entries; the journal no longer holds it. */
function restoreWarm(journal: TxJournal, w: WarmState, p: LeanRunTxParams): void {
  const { map, added } = w;
  for (let i = 0; i < added.length; i++) {
    const h = added[i]!;
    if (p.precompileWarm.has(h)) map.set(h, p.precompileWarmSet as Set<string>);
    else map.delete(h);
  }
  added.length = 0;
  // an entry added to the journal's map by anything but addWarm and the access list (EVM._loadCode warms a
  // depth-0 delegation target, through whichever frames run): the map is made again, so nothing stays warm
  if (map.size !== p.precompileWarm.size) w.map = new Map(p.precompileWarm);
  if (journal.alwaysWarmJournal === map) journal.alwaysWarmJournal = new Map();
}

/**
 * Journal.addAlwaysWarmAddress(hex) (addToAccessList false): with the kept map, an address not in it gets the
 * shared empty set (nothing adds slots after the access list) and is noted for restoreWarm.
 */
function addWarm(journal: TxJournal, w: WarmState | undefined, p: LeanRunTxParams, hex: string): void {
  if (w === undefined) journal.addAlwaysWarmAddress(hex);
  else if (!w.map.has(hex)) {
    w.map.set(hex, p.precompileWarmSet as Set<string>);
    w.added.push(hex);
  }
}

/** What runTx's body does before the frame: the warm entries, the sender's fee and nonce, the frame's checkpoint. */
function begin(
  journal: TxJournal,
  warm: WarmState | undefined,
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
  addWarm(journal, warm, p, callerHex);
  if (to !== undefined) addWarm(journal, warm, p, to.toString().slice(2));
  if (p.warmCoinbase) addWarm(journal, warm, p, block.header.coinbase.toString().slice(2));

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
  const txCost = tx.gasLimit * gasPrice;
  // runTx writes the account after each of these steps; nothing reads it in between, so one write leaves the
  // same state, journal entry and touched set (Journal.putAccount: touch, then write)
  journal.touchAccount(callerHex);
  if (!isCall) sm.addToAccountSync(caller.bytes, 1n, -txCost);
  else {
    const fromRec = sm.getAccountRecord(caller.bytes);
    let balance = fromRec?.balance ?? 0n;
    // skipBalance: runTx tops the balance up to the upfront cost (types 0 and 1), then to the max cost
    const upFrontCost = tx.gasLimit * gasPrice + tx.value;
    if (balance < upFrontCost && tx.type !== 2) balance = upFrontCost;
    const maxCost = tx.value + (tx.type === 2 ? tx.gasLimit * tx.maxFeePerGas : 0n);
    if (balance < maxCost) balance = maxCost;
    balance -= txCost;
    if (balance < 0n) balance = 0n;
    sm.putAccountSync(caller.bytes, (fromRec?.nonce ?? 0n) + 1n, balance, fromRec?.codeHash ?? KECCAK256_NULL);
  }

  journalCheckpointSync(journal, sm);
  return { gasPrice, inclusionFeePerGas, txCost, callerHex };
}

/** Not empty by its code hash, as journalCleanupSync decides (a record's hash is undefined without code). */
const hasCode = (h: Uint8Array | undefined): boolean => h !== undefined && !bytesEqual(h, KECCAK256_NULL);

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
  journal.touchAccount(callerHex);
  const from = sm.addToAccountSync(caller.bytes, 0n, txCost - totalGasSpent * gasPrice);
  const coinbaseHex = coinbase.toString().slice(2);
  journal.touchAccount(coinbaseHex);
  const miner = sm.addToAccountSync(coinbase.bytes, 0n, totalGasSpent * inclusionFeePerGas);
  // The two accounts just written, when what was written is not empty (Account.isEmpty: nonce 0, balance 0, no
  // code; a record's codeHash is undefined for no code), need not be read by the clean-up: it would delete
  // neither. The coinbase's write is the later one should the two be one account. Not after a deletion below.
  let nonEmptyA = from.nonce !== 0n || from.balance !== 0n || hasCode(from.codeHash) ? callerHex : undefined;
  let nonEmptyB = miner.nonce !== 0n || miner.balance !== 0n || hasCode(miner.codeHash) ? coinbaseHex : undefined;
  if (coinbaseHex === callerHex) nonEmptyA = nonEmptyB;

  if (ex.selfdestruct !== undefined && ex.selfdestruct.size !== 0) {
    nonEmptyA = nonEmptyB = undefined;
    for (const [hex] of [...ex.selfdestruct.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      const address = new Address(hexToBytes(hex as `0x${string}`));
      if (p.eip6780 && !ex.createdAddresses!.has(address.toString())) continue;
      // Journal.deleteAccount: touch, then delete
      journal.touchAccount(address.toString().slice(2));
      sm.deleteAccountSync(address.bytes);
    }
  }
  journalCleanupSync(journal, sm, true, nonEmptyA, nonEmptyB);
  sm.originalStorageCache.clear();
  return { execResult: ex, totalGasSpent, gasRefund: reportedRefund };
}
