// The EthereumJS internals this engine reaches into (private fields of EVM 10.1.3), in one place, with a
// check of every shape it relies on, run when an engine is created (createEvmEngine). An EthereumJS upgrade
// that moves one of them fails there, with a message naming what changed, instead of misbehaving later.
//
// Reached from here:
// - EVM._opcodeMap (256 entries of { opcodeInfo, opHandler, gasHandler }): budget.ts wraps the handlers (and
//   gas_left.ts those that read the gas left, for eth_call); call_frame.ts replaces the CALL family's,
//   account_ops.ts BALANCE's, EXTCODESIZE's and EXTCODEHASH's;
// - EVM._precompiles (Map of 40-hex-digit address -> function): budget.ts wraps them, engine.ts lists them;
// - EVM.runCall (patched by engine.ts for the top-level checks), EVM.journal.cleanJournal() and
//   EVM.transientStorage.clear() (engine.ts, after an aborted transaction);
// - EVM.journal.journal / alwaysWarmJournal (Maps of hex address -> Set of hex slots): interpreter.ts,
//   call_frame.ts and account_ops.ts (warm checks on keys made from the stack word).
// - Common._activatedEIPsCache / _hardfork / _chainParams: memoizeCommonLookups (engine.ts, every Common it runs);
// - EVM.journal.addAlwaysWarmAddress (replaced per instance) and alwaysWarmJournal / accessList: fastAlwaysWarmAddress.
// - Common.consensusType / HARDFORK_CHANGES: memoizeCommonLookups.
// - For the archive's call capture (src/archive/call_capture.ts, stock EthereumJS): its EVM's own copy of
//   _opcodeMap (the CALL family, SELFDESTRUCT and SSTORE's gas wrapped) and, in those wrappers, RunState's
//   opCode, gasLeft, messageGasLimit, stack, memory, env.address / depth and stateManager.getAccount.
// - For call_frame.ts (checkCallFrameInternals): EVM.runCall (wrapped per instance), runPrecompile,
//   transientStorage checkpoint/commit/revert, _optsCached.profiler, _tx, _block, blockchain,
//   performanceLogger, events; Journal.journalHeight / journalDiff / touchAccount (checkpoint, commit and
//   revert replayed synchronously, the committed level's diff entry relabelled, dropped entries reused);
//   the Interpreter constructor (from interpreter.ts's prototype) and every field it sets, with its run
//   state's, Memory's and Stack's (reuseInterpreter resets a kept Interpreter to them; checkInterpreterFields).
// - For run_tx.ts (checkJournalCleanup): Journal.cleanup replayed synchronously (touched, cleanJournal,
//   accessList, preimages, common.gteHardfork), a clean journal kept, alwaysWarmJournal replaced by a copy of
//   the precompiles' entries.
// Declared here and nowhere else: the private shapes those modules use (OpEntry, RunState and its stack and
// memory, InterpreterLike, EvmLike, JournalLike, MessageLike, ExecResult), checked at start-up by
// checkEvmInternals, checkRunStateShapes and checkCallFrameInternals.
// Also outside this module, each with its own start-up check: the Interpreter prototype's run
// (interpreter.ts patchPrototype) and the transaction constructors' Common (engine.ts sharedTxCommon).

import type { EVMError } from '@ethereumjs/evm';
import { Account as AccountCtor, type Account, type Address, KECCAK256_NULL, RIPEMD160_ADDRESS_STRING, stripHexPrefix } from '@ethereumjs/util';
import { bytesEqual, fromHex, toHex } from '../codec/bytes.js';
import { addressBytes } from './account_ops.js';

// ---- the private shapes (EVM 10.1.3), declared once ----
//
// Every EthereumJS shape the engine's modules (interpreter.ts, call_frame.ts, budget.ts) and the archive's
// call_capture.ts read or write, each with the fields some module uses; the checks below (checkEvmInternals, checkRunStateShapes,
// checkCallFrameInternals) confirm at engine creation the ones whose move would go unnoticed.

/** One entry of EVM._opcodeMap: the opcode's static facts and its two handlers. */
export interface OpInfo {
  readonly code: number;
  /** The opcode's name as geth prints it (PUSH1, not PUSH): the archive names a frame's last opcode with it. */
  readonly fullName: string;
  readonly feeBigInt: bigint;
  readonly dynamicGas: boolean;
  readonly isInvalid: boolean;
}
export type OpHandler = (rs: RunState, common: unknown) => unknown;
export type GasHandler = (rs: RunState, gas: bigint, common: unknown) => Promise<bigint> | bigint;
export interface OpEntry {
  readonly opcodeInfo: OpInfo;
  readonly opHandler: OpHandler;
  readonly gasHandler: GasHandler | undefined;
}
export type PrecompileFn = (opts: { data: Uint8Array; gasLimit: bigint }) => unknown;

/** EthereumJS's Stack: the fast loop reads `_store` / `_len` directly (checkRunStateShapes). */
export interface StackLike {
  _store: bigint[];
  _len: number;
  _maxHeight: number;
  readonly length: number;
  peek(n: number): bigint[];
  pop(): bigint;
  popN(n: number): bigint[];
  push(v: bigint): void;
}
/** EthereumJS's Memory: the fast loop reads `_store` directly (checkRunStateShapes). */
export interface MemoryLike {
  _store: Uint8Array;
  extend(offset: number, size: number): void;
  read(offset: number, size: number, avoidCopy?: boolean): Uint8Array;
  write(offset: number, size: number, value: Uint8Array): void;
}
/** The run-state fields memory expansion gas reads and updates. */
export interface MemGasState {
  memoryWordCount: bigint;
  highestMemCost: bigint;
}
/** A frame's RunState (interpreter.js): what the fast loop, the budget wrappers and the CALL family use. */
export interface RunState extends MemGasState {
  programCounter: number;
  opCode: number;
  memory: MemoryLike;
  stack: StackLike;
  code: Uint8Array;
  validJumps: Uint8Array;
  shouldDoJumpAnalysis: boolean;
  gasLeft: bigint;
  gasRefund: bigint;
  env: {
    accessWitness?: unknown;
    chargeCodeAccesses?: boolean;
    callData: Uint8Array;
    isStatic: boolean;
    address: { bytes: Uint8Array };
    caller: { bytes: Uint8Array };
    callValue: bigint;
    depth: number;
  };
  returnBytes: Uint8Array;
  interpreter: InterpreterLike;
  stateManager: unknown;
  messageGasLimit?: bigint;
  lastCallNewAccountStateGas?: bigint;
  stateGasSpilled?: bigint;
  eip7928PostTargetCallOog?: unknown;
}
/** RunState.stateManager as the archive's call capture reads it (a SELFDESTRUCT's balance). */
export interface AccountReaderLike {
  getAccount(address: unknown): Promise<{ balance: bigint } | undefined>;
}
/** EthereumJS's Common as the fast loop asks it. */
export interface CommonLike {
  isActivatedEIP(eip: number): boolean;
  gteHardfork(hardfork: string): boolean;
  param(name: string): bigint;
  customCrypto: { keccak256?: (data: Uint8Array) => Uint8Array };
}
/** The EVM fields the fast loop reads. */
export interface EvmLike {
  _opcodeMap: OpEntry[];
  common: CommonLike;
  DEBUG: boolean;
  events: { listenerCount(name: string): number };
  runCode(opts: { code: Uint8Array; gasLimit?: bigint }): Promise<unknown>;
}
/** EthereumJS's EIP-2929 journal (evm/dist/esm/journal.js): warm slots keyed by unprefixed hex strings. */
export interface JournalLike {
  journal: Map<string, Set<string>>;
  alwaysWarmJournal: Map<string, Set<string>>;
  journalDiff: [number, [Set<string>, Map<string, Set<string>>]][];
  accessList?: Map<string, Set<string>>;
  isWarmedAddress(address: Uint8Array): boolean;
  addWarmedAddress(address: Uint8Array): void;
}
/** EthereumJS's Interpreter (not exported by @ethereumjs/evm): one per call frame. */
export interface InterpreterLike {
  _evm: EvmLike;
  _runState: RunState;
  common: CommonLike;
  profilerOpts?: { enabled?: boolean };
  performanceLogger?: unknown;
  getAddress(): { toString(): string };
  _stateManager: unknown;
  _env: {
    address: Address;
    caller: Address;
    callValue: bigint;
    isStatic: boolean;
    depth: number;
    contract: Account;
    blobVersionedHashes?: Uint8Array[];
    accessWitness?: unknown;
  };
  journal: JournalLike;
  getReturnDataSize(): bigint;
  isStatic(): boolean;
  _result: { returnValue?: Uint8Array; logs: unknown[]; selfdestruct: Map<string, unknown>; createdAddresses?: Set<string> };
  log(data: Uint8Array, numberOfTopics: number, topics: Uint8Array[]): void;
  addStipend(amount: bigint): void;
  useGas(amount: bigint, context?: string): void;
  run(code: Uint8Array, opts?: { pc?: number }): Promise<RunResult>;
}
export type InterpreterCtor = new (...args: unknown[]) => InterpreterLike;
export interface RunResult {
  runState: RunState;
  exceptionError: EVMError | undefined;
}
/** EthereumJS's Message as call_frame.ts builds and reads it. */
export interface MessageLike {
  to: Address | undefined;
  value: bigint;
  caller: Address;
  gasLimit: bigint;
  data: Uint8Array;
  depth: number;
  code: Uint8Array | ((...a: unknown[]) => unknown) | undefined;
  codeAddress: Address;
  isStatic: boolean;
  isCompiled: boolean;
  isCreate?: boolean;
  selfdestruct?: Map<string, unknown>;
  createdAddresses?: Set<string>;
  delegatecall: boolean;
  gasRefund: bigint;
  blobVersionedHashes?: Uint8Array[];
  accessWitness?: unknown;
  chargeCodeAccesses?: boolean;
}
/** EthereumJS's ExecResult of a frame. */
export interface ExecResult {
  exceptionError?: EVMError;
  executionGasUsed: bigint;
  returnValue: Uint8Array;
  gasRefund?: bigint;
  logs?: unknown[];
  selfdestruct?: Map<string, unknown>;
  createdAddresses?: Set<string>;
  gas?: bigint;
  stateGasSpilled?: bigint;
}

// ---- start-up checks ----

interface EvmInternals {
  _opcodeMap: OpEntry[];
  _precompiles: Map<string, PrecompileFn>;
  runCall: unknown;
  journal: { cleanJournal: unknown; journal: unknown; alwaysWarmJournal: unknown };
  transientStorage: { clear: unknown };
}

export class EthereumJsShapeError extends Error {
  constructor(what: string) {
    super(`EthereumJS internals changed (src/core/evm/internals.ts): ${what}`);
  }
}

/** Throws EthereumJsShapeError naming the first assumption an EVM instance breaks. */
export function checkEvmInternals(evm: unknown): void {
  const e = evm as Partial<EvmInternals>;
  const fail = (what: string): never => {
    throw new EthereumJsShapeError(what);
  };
  const map = e._opcodeMap;
  if (!Array.isArray(map) || map.length !== 256) fail('EVM._opcodeMap is no longer a 256-entry array');
  for (let op = 0; op < 256; op++) {
    const entry = map![op];
    if (entry === undefined || typeof entry.opcodeInfo !== 'object' || typeof entry.opcodeInfo.feeBigInt !== 'bigint') {
      fail(`EVM._opcodeMap[${op}] has no opcodeInfo with feeBigInt`);
    }
    if (typeof entry!.opcodeInfo.fullName !== 'string') fail(`EVM._opcodeMap[${op}].opcodeInfo has no fullName`);
    if (!entry!.opcodeInfo.isInvalid && typeof entry!.opHandler !== 'function') fail(`EVM._opcodeMap[${op}].opHandler is not a function`);
  }
  const pcs = e._precompiles;
  if (!(pcs instanceof Map) || pcs.size === 0) fail('EVM._precompiles is no longer a non-empty Map');
  for (const [k, v] of pcs!) {
    if (typeof k !== 'string' || !/^[0-9a-f]{40}$/.test(k) || typeof v !== 'function') {
      fail('EVM._precompiles no longer maps 40-hex-digit addresses to functions');
    }
  }
  if (typeof e.runCall !== 'function') fail('EVM.runCall is not a function');
  const j = e.journal;
  if (j === undefined || typeof j.cleanJournal !== 'function') fail('EVM.journal.cleanJournal is not a function');
  if (!(j!.journal instanceof Map) || !(j!.alwaysWarmJournal instanceof Map)) {
    fail('EVM.journal.journal / alwaysWarmJournal are no longer Maps (warm storage slots)');
  }
  if (typeof e.transientStorage?.clear !== 'function') fail('EVM.transientStorage.clear is not a function');
}

/**
 * The fast interpreter (interpreter.ts) reads and writes a frame's stack and memory through their private
 * fields, for speed: the stack as `_store` (a bigint array) with its height in `_len`, the memory as `_store`
 * (a Uint8Array) grown by `extend`. Checked once on a live RunState when the interpreter is installed: the
 * fields exist with those types, and a push through EthereumJS's own method lands where the loop reads it;
 * then the other RunState, Interpreter and Journal fields declared above, by type.
 */
export function checkRunStateShapes(runState: unknown): void {
  const fail = (what: string): never => {
    throw new EthereumJsShapeError(what);
  };
  const rs = runState as { stack?: { _store?: unknown; _len?: unknown; _maxHeight?: unknown; push?: (v: bigint) => void; pop?: () => bigint }; memory?: { _store?: unknown; extend?: unknown } };
  const st = rs.stack;
  if (st === undefined || !Array.isArray(st._store) || typeof st._len !== 'number' || typeof st._maxHeight !== 'number') {
    fail('RunState.stack no longer keeps _store (an array), _len and _maxHeight (numbers)');
  }
  if (typeof st!.push !== 'function' || typeof st!.pop !== 'function') fail('RunState.stack has no push/pop');
  const height = st!._len as number;
  st!.push!(0x5eedn);
  const landed = (st!._len as number) === height + 1 && (st!._store as bigint[])[height] === 0x5eedn;
  if ((st!._len as number) > height) st!.pop!();
  if (!landed || st!._len !== height) fail('Stack.push no longer stores at _store[_len] and increments _len');
  const mem = rs.memory;
  if (mem === undefined || !(mem._store instanceof Uint8Array) || typeof mem.extend !== 'function') {
    fail('RunState.memory no longer keeps _store (a Uint8Array) and extend()');
  }
  // The rest of RunState, InterpreterLike and JournalLike as declared above, by type.
  const r = runState as Record<string, unknown>;
  const need = (o: unknown, where: string, fields: Record<string, string>): void => {
    for (const [k, t] of Object.entries(fields)) {
      const v = (o as Record<string, unknown> | undefined)?.[k];
      if (t === 'Uint8Array' ? !(v instanceof Uint8Array) : typeof v !== t) fail(`${where}.${k} is no longer a ${t}`);
    }
  };
  need(r.stack, 'RunState.stack', { peek: 'function', popN: 'function', length: 'number' });
  need(r.memory, 'RunState.memory', { read: 'function', write: 'function' });
  need(r, 'RunState', {
    programCounter: 'number',
    opCode: 'number',
    gasLeft: 'bigint',
    gasRefund: 'bigint',
    memoryWordCount: 'bigint',
    highestMemCost: 'bigint',
    code: 'Uint8Array',
    validJumps: 'Uint8Array',
    returnBytes: 'Uint8Array',
    env: 'object',
    interpreter: 'object',
  });
  need(r.env, 'RunState.env', { callData: 'Uint8Array', isStatic: 'boolean', callValue: 'bigint', depth: 'number' });
  const it = r.interpreter as Record<string, unknown>;
  need(it, 'Interpreter', {
    _evm: 'object',
    _env: 'object',
    _result: 'object',
    journal: 'object',
    common: 'object',
    run: 'function',
    useGas: 'function',
    addStipend: 'function',
    isStatic: 'function',
    getReturnDataSize: 'function',
    getAddress: 'function',
    log: 'function',
  });
  need(it._env, 'Interpreter._env', { callValue: 'bigint', isStatic: 'boolean', depth: 'number' });
  need(it.journal, 'Journal', { isWarmedAddress: 'function', addWarmedAddress: 'function' });
}

export function opcodeMap(evm: unknown): OpEntry[] {
  return (evm as EvmInternals)._opcodeMap;
}

export function precompileMap(evm: unknown): Map<string, PrecompileFn> {
  return (evm as EvmInternals)._precompiles;
}

/** Clears what an aborted runTx leaves in the EVM: open journal levels and transient storage. */
export function resetEvmAfterAbort(evm: unknown): void {
  const e = evm as { journal: { cleanJournal(): void }; transientStorage: { clear(): void } };
  e.journal.cleanJournal();
  e.transientStorage.clear();
}

// ---- per-transaction set-up costs (the call path) ----
//
// Each function below replaces one EthereumJS method on one instance (never a prototype) with an equivalent
// that answers the same values at a lower cost in QuickJS, after checking the private fields it reads; an
// upgrade that moves them fails here, at engine creation, with the field named.

interface CommonInternals {
  _activatedEIPsCache: unknown;
  _hardfork: unknown;
  _chainParams: unknown;
  isActivatedEIP(eip: number): boolean;
  gteHardfork(hardfork: string): boolean;
  consensusType(): string;
  HARDFORK_CHANGES: unknown;
}

const MEMOISED = Symbol('icp-evm.memoisedCommon');

/**
 * Common.isActivatedEIP and Common.gteHardfork, memoised on `common` (and on its copies, which Common.copy
 * makes with Object.assign). runTx, the EVM's frames and the journal ask them about 110 times a transaction:
 * isActivatedEIP scans the activated-EIP array (Array.includes), gteHardfork walks the hardfork list in
 * JavaScript. The memo answers from a Set / a Map, rebuilt whenever the instance's activated-EIP array
 * (replaced, never mutated, by setHardfork/setEIPs) or its hardfork or chain parameters change: the answers
 * are those of the original methods for the instance's state at the time of the call.
 */
export function memoizeCommonLookups(common: unknown): void {
  const c = common as CommonInternals & { [MEMOISED]?: true };
  if (c[MEMOISED] === true) return;
  const fail = (what: string): never => {
    throw new EthereumJsShapeError(what);
  };
  if (!Array.isArray(c._activatedEIPsCache)) fail('Common._activatedEIPsCache is no longer an array');
  if (typeof c._hardfork !== 'string') fail('Common._hardfork is no longer a string');
  if (typeof c._chainParams !== 'object' || c._chainParams === null) fail('Common._chainParams is no longer an object');
  if (typeof c.isActivatedEIP !== 'function' || typeof c.gteHardfork !== 'function') fail('Common.isActivatedEIP / gteHardfork are not functions');
  if (typeof c.consensusType !== 'function' || !Array.isArray(c.HARDFORK_CHANGES)) fail('Common.consensusType / HARDFORK_CHANGES changed');
  const origGte = c.gteHardfork;
  const origConsensus = c.consensusType;
  const origIsActivated = c.isActivatedEIP;
  // The original method's answer for a known-active and a known-inactive EIP must match the array.
  const arr = c._activatedEIPsCache as unknown[];
  if (arr.length > 0 && origIsActivated.call(c, arr[0] as number) !== true) fail('Common.isActivatedEIP no longer reads _activatedEIPsCache');
  if (origIsActivated.call(c, -1) !== false) fail('Common.isActivatedEIP answers true for an unknown EIP');
  let eipsOf: unknown = undefined;
  let eips = new Set<unknown>();
  let hfOf: unknown = undefined;
  let chainOf: unknown = undefined;
  let gte = new Map<string, boolean>();
  let consensusOf: unknown[] = [];
  let consensus = '';
  Object.defineProperty(c, 'isActivatedEIP', {
    configurable: true,
    writable: true,
    value: function isActivatedEIP(this: CommonInternals, eip: number): boolean {
      const a = this._activatedEIPsCache;
      if (a !== eipsOf) {
        eips = new Set(a as unknown[]);
        eipsOf = a;
      }
      return eips.has(eip);
    },
  });
  Object.defineProperty(c, 'gteHardfork', {
    configurable: true,
    writable: true,
    value: function gteHardfork(this: CommonInternals, hardfork: string): boolean {
      if (this._hardfork !== hfOf || this._chainParams !== chainOf) {
        gte = new Map();
        hfOf = this._hardfork;
        chainOf = this._chainParams;
      }
      let v = gte.get(hardfork);
      if (v === undefined) {
        v = origGte.call(this, hardfork);
        gte.set(hardfork, v);
      }
      return v;
    },
  });
  // Asked by every Interpreter construction (one per call frame): a walk of HARDFORK_CHANGES each time.
  Object.defineProperty(c, 'consensusType', {
    configurable: true,
    writable: true,
    value: function consensusType(this: CommonInternals): string {
      if (consensusOf[0] !== this._hardfork || consensusOf[1] !== this._chainParams || consensusOf[2] !== this.HARDFORK_CHANGES) {
        consensus = origConsensus.call(this);
        consensusOf = [this._hardfork, this._chainParams, this.HARDFORK_CHANGES];
      }
      return consensus;
    },
  });
  Object.defineProperty(c, MEMOISED, { value: true, configurable: true });
}

interface JournalInternals {
  alwaysWarmJournal: Map<string, Set<string>>;
  accessList?: Map<string, Set<string>>;
  addAlwaysWarmAddress(addressStr: string, addToAccessList?: boolean): void;
}

/**
 * Journal.addAlwaysWarmAddress without its regular expression for unprefixed addresses. runTx calls it for
 * every precompile (17 on Prague: the precompile map's unprefixed hex keys), the sender and the recipient
 * on every transaction; the original strips a `0x` with stripHexPrefix, which runs /^0x[0-9A-Fa-f]*$/ on
 * every string. A string whose second character is not `x` cannot match that expression, so it is used as
 * it is; any other goes through stripHexPrefix as before. The rest is the original's body.
 */
export function fastAlwaysWarmAddress(evm: unknown): void {
  const j = (evm as { journal: JournalInternals }).journal;
  if (!(j.alwaysWarmJournal instanceof Map)) throw new EthereumJsShapeError('EVM.journal.alwaysWarmJournal is no longer a Map');
  if (typeof j.addAlwaysWarmAddress !== 'function' || j.addAlwaysWarmAddress.length !== 1) {
    throw new EthereumJsShapeError('EVM.journal.addAlwaysWarmAddress(addressStr, addToAccessList = false) changed its signature');
  }
  Object.defineProperty(j, 'addAlwaysWarmAddress', {
    configurable: true,
    writable: true,
    value: function addAlwaysWarmAddress(this: JournalInternals, addressStr: string, addToAccessList = false): void {
      const address = addressStr.charCodeAt(1) === 0x78 ? stripHexPrefix(addressStr) : addressStr;
      const warm = this.alwaysWarmJournal;
      if (!warm.has(address)) warm.set(address, new Set());
      if (addToAccessList && this.accessList !== undefined && !this.accessList.has(address)) {
        this.accessList.set(address, new Set());
      }
    },
  });
}

// ---- inner call frames (call_frame.ts) ----

/**
 * The own keys, in order, of what EthereumJS's Interpreter constructor builds (interpreter.js): the instance,
 * its run state, the Memory and the Stack. reuseInterpreter gives a used instance what the constructor would
 * give a new one; checkCallFrameInternals builds one and compares, so a constructor that sets anything more
 * (or less) fails at engine creation.
 */
const INTERPRETER_KEYS = 'opDebuggers,_evm,_stateManager,common,_runState,journal,_env,_result,profilerOpts,performanceLogger';
const RUN_STATE_KEYS =
  'programCounter,opCode,memory,memoryWordCount,highestMemCost,stack,code,validJumps,cachedPushes,stateManager,blockchain,env,shouldDoJumpAnalysis,interpreter,gasRefund,gasLeft,stateGasSpilled,returnBytes';
const RESULT_KEYS = 'logs,returnValue,selfdestruct';
/** Memory's initial (and growth) size, CONTAINER_SIZE in memory.js. */
const MEMORY_CONTAINER = 8192;
const MEMORY_WORDS = BigInt(MEMORY_CONTAINER / 32);
const NO_BYTES = new Uint8Array(0);

/** An Interpreter as reuseInterpreter resets it (the constructor's fields). */
interface InterpreterFields {
  _stateManager: unknown;
  _runState: RunState & { blockchain: unknown; cachedPushes: unknown; stateGasSpilled: bigint };
  _env: { gasRefund: bigint };
  _result: { logs: unknown[]; returnValue: Uint8Array | undefined; selfdestruct: Map<string, unknown>; createdAddresses?: Set<string> };
}

/**
 * What `new Interpreter(evm, stateManager, blockchain, env, gasLeft, journal, performanceLogs, profilerOpts)`
 * makes, made from a used instance of the same evm, state manager, blockchain, journal, logger and profiler
 * options (the caller checks those; common is the evm's): a new run state of the constructor's fields and
 * values, holding the used Memory zeroed (a new one if it grew past its initial size) and the used Stack
 * emptied (entries above its height are never read), a new result. `opDebuggers` (read with DEBUG only,
 * which the own frames exclude) is kept. `env.initialLogs` must be undefined (FrameEnv's). `selfdestruct`: the
 * message's map, which the caller would put in the new result's place.
 */
export function reuseInterpreter(interpreter: unknown, env: { gasRefund: bigint }, gasLeft: bigint, selfdestruct?: Map<string, unknown>): void {
  const it = interpreter as InterpreterFields;
  const old = it._runState;
  let memory = old.memory;
  const store = memory._store;
  if (store.length === MEMORY_CONTAINER) {
    // Only the part the last frame paid for can hold bytes: every write (EthereumJS's and the fast loop's, compiled
    // runs' too) lies inside memory its gas expanded first, and memoryWordCount only grows within a frame.
    const used = old.memoryWordCount;
    if (used !== 0n) store.fill(0, 0, used < MEMORY_WORDS ? Number(used) * 32 : MEMORY_CONTAINER);
  } else memory = new (memory.constructor as new () => MemoryLike)();
  const stack = old.stack;
  stack._len = 0;
  if (!('messageGasLimit' in old) && !('lastCallNewAccountStateGas' in old) && !('lastCreateNewAccountStateGas' in old)) {
    // The used run state holds the constructor's keys only (the fields EthereumJS's gas handlers add to a run
    // state are absent): its values are set again in place, in the same order, instead of a new object.
    const rs = old as unknown as Record<string, unknown>;
    rs.programCounter = 0;
    rs.opCode = 0xfe;
    rs.memory = memory;
    rs.memoryWordCount = 0n;
    rs.highestMemCost = 0n;
    rs.code = NO_BYTES;
    rs.validJumps = NO_BYTES;
    rs.cachedPushes = {};
    rs.stateManager = it._stateManager;
    rs.env = env;
    rs.shouldDoJumpAnalysis = true;
    rs.interpreter = interpreter;
    rs.gasRefund = env.gasRefund;
    rs.gasLeft = gasLeft;
    rs.stateGasSpilled = 0n;
    rs.returnBytes = NO_BYTES;
  } else it._runState = {
    programCounter: 0,
    opCode: 0xfe,
    memory,
    memoryWordCount: 0n,
    highestMemCost: 0n,
    stack,
    code: NO_BYTES,
    validJumps: NO_BYTES,
    cachedPushes: {},
    stateManager: it._stateManager,
    blockchain: old.blockchain,
    env: env as unknown as RunState['env'],
    shouldDoJumpAnalysis: true,
    interpreter: interpreter as InterpreterLike,
    gasRefund: env.gasRefund,
    gasLeft,
    stateGasSpilled: 0n,
    returnBytes: NO_BYTES,
  };
  it._env = env;
  // (the caller's map, which EthereumJS's runInterpreter puts in place of the constructor's new one, given here)
  it._result = { logs: [], returnValue: undefined, selfdestruct: selfdestruct ?? new Map() };
}

/** Fails unless a new Interpreter has exactly the fields reuseInterpreter resets, with the values it gives them. */
function checkInterpreterFields(evm: CallFrameInternals, ctor: InterpreterCtor, fail: (what: string) => never): void {
  const env = { gasRefund: 7n };
  const made = new ctor(evm, evm.stateManager, evm.blockchain, env, 5n, evm.journal, evm.performanceLogger, undefined) as unknown as InterpreterFields & Record<string, unknown>;
  const rs = made._runState as unknown as Record<string, unknown>;
  const keys = (o: unknown): string => Object.keys(o as object).join(',');
  if (keys(made) !== INTERPRETER_KEYS) fail(`Interpreter's constructor now sets ${keys(made)} (reuseInterpreter resets ${INTERPRETER_KEYS})`);
  if (keys(rs) !== RUN_STATE_KEYS) fail(`Interpreter's run state now has ${keys(rs)} (reuseInterpreter sets ${RUN_STATE_KEYS})`);
  if (keys(made._result) !== RESULT_KEYS || !(made._result.selfdestruct instanceof Map) || made._result.logs.length !== 0) fail('Interpreter._result changed');
  const mem = rs.memory as MemoryLike;
  const st = rs.stack as StackLike;
  if (keys(mem) !== '_store' || !(mem._store instanceof Uint8Array) || mem._store.length !== MEMORY_CONTAINER) fail('Memory no longer starts as one 8192-byte _store');
  if (keys(st) !== '_len,_store,_maxHeight' || st._len !== 0 || st._store.length !== 0 || st._maxHeight !== 1024) fail('Stack no longer starts empty with _len, _store and _maxHeight 1024');
  const want: Record<string, unknown> = {
    programCounter: 0,
    opCode: 0xfe,
    memoryWordCount: 0n,
    highestMemCost: 0n,
    stateManager: evm.stateManager,
    blockchain: evm.blockchain,
    env,
    shouldDoJumpAnalysis: true,
    interpreter: made,
    gasRefund: 7n,
    gasLeft: 5n,
    stateGasSpilled: 0n,
  };
  for (const [k, v] of Object.entries(want)) if (rs[k] !== v) fail(`Interpreter's run state starts ${k} otherwise`);
  for (const k of ['code', 'validJumps', 'returnBytes']) if (!(rs[k] instanceof Uint8Array) || (rs[k] as Uint8Array).length !== 0) fail(`Interpreter's run state ${k} no longer starts empty`);
  if (keys(rs.cachedPushes) !== '') fail("Interpreter's run state cachedPushes no longer starts empty");
  if (made._env !== env || made._stateManager !== evm.stateManager || made.journal !== evm.journal || made._evm !== evm || made.common !== (evm as unknown as { common: unknown }).common) fail('Interpreter no longer keeps evm, stateManager, journal, common and env as given');
  // A used one, reset, against the new one: the same keys in the same order.
  st.push(1n);
  mem.write(0, 1, Uint8Array.of(1));
  mem.write(40, 1, Uint8Array.of(1));
  (rs as unknown as RunState).memoryWordCount = 2n; // paid for as a frame's gas would
  reuseInterpreter(made, env, 5n);
  if (keys(made._runState) !== RUN_STATE_KEYS || made._runState.memory._store[0] !== 0 || made._runState.memory._store[40] !== 0 || made._runState.memoryWordCount !== 0n || made._runState.stack._len !== 0) fail('reuseInterpreter no longer resets what the constructor sets');
  // a run state a CALL's gas handler added to is replaced, not reset in place
  (made._runState as unknown as Record<string, unknown>).messageGasLimit = 1n;
  reuseInterpreter(made, env, 5n);
  if (keys(made._runState) !== RUN_STATE_KEYS) fail('reuseInterpreter keeps a field the constructor does not set');
}


interface JournalFrameInternals {
  journalHeight: number;
  journalDiff: [number, [Set<string>, Map<string, Set<string>>, Set<string>]][];
  touched: Set<string>;
  /** Set while runTx reports preimages (touchAccount records each touched address's); absent otherwise. */
  preimages?: Map<string, Uint8Array>;
  touchAccount(addressHex: string): void;
  /** Replaced per instance by fastAlwaysWarmAddress, which checks it first. */
  addAlwaysWarmAddress(addressStr: string): void;
  checkpoint(): Promise<void>;
  commit(): Promise<void>;
  revert(): Promise<void>;
}

/** The EVM fields call_frame.ts reads or calls (EVM 10.1.3). */
export interface CallFrameInternals {
  common: { isActivatedEIP(eip: number): boolean; hardfork(): string };
  runCall: (opts: { message?: any }) => Promise<unknown>;
  runPrecompile(code: unknown, data: Uint8Array, gasLimit: bigint): Promise<unknown> | unknown;
  _precompiles: Map<string, PrecompileFn>;
  _opcodeMap: OpEntry[];
  journal: JournalFrameInternals;
  transientStorage: { checkpoint(): void; commit(): void; revert(): void; clear(): void };
  stateManager: unknown;
  blockchain: unknown;
  performanceLogger: unknown;
  _optsCached: { profiler?: { enabled?: boolean } };
  _tx: { gasPrice: bigint; origin?: unknown };
  _block: unknown;
  DEBUG: boolean;
  events: MessageEvents;
}

/** EVM.events (eventemitter3): `_eventsCount` is the number of event names with listeners. */
interface MessageEvents {
  listenerCount(name: string): number;
  _eventsCount?: number;
}

/**
 * Whether nobody listens to `beforeMessage` or `afterMessage` (the own frames skip both emissions): an emitter
 * with no listener at all answers from its count of event names with listeners, one field read instead of two
 * listenerCount calls a CALL. checkCallFrameInternals checks the count on a new emitter of the same class.
 */
export function noMessageListeners(events: MessageEvents): boolean {
  return events._eventsCount === 0 || (events.listenerCount('beforeMessage') === 0 && events.listenerCount('afterMessage') === 0);
}

/**
 * Checks what call_frame.ts relies on: the EVM's fields and methods above, Interpreter's constructor
 * arity and its `_result`, and that Journal.checkpoint / commit change journalHeight and journalDiff as
 * journalCheckpointSync / journalCommitSync do (run on a scratch journal built from the live one's prototype).
 */
export function checkCallFrameInternals(evm: unknown, interpreterProto: object): void {
  const fail = (what: string): never => {
    throw new EthereumJsShapeError(what);
  };
  const e = evm as Partial<CallFrameInternals>;
  for (const k of ['runCall', 'runPrecompile'] as const) if (typeof e[k] !== 'function') fail(`EVM.${k} is not a function`);
  if (!(e._precompiles instanceof Map)) fail('EVM._precompiles is no longer a Map');
  if (typeof e._optsCached !== 'object' || e._optsCached === null) fail('EVM._optsCached is no longer an object');
  if (typeof e.DEBUG !== 'boolean' || typeof e.events?.listenerCount !== 'function') fail('EVM.DEBUG / EVM.events.listenerCount changed');
  checkEventsCount(e.events!, fail);
  if (!('blockchain' in e) || !('performanceLogger' in e)) fail('EVM.blockchain / performanceLogger missing');
  const ts = e.transientStorage;
  if (ts === undefined || typeof ts.checkpoint !== 'function' || typeof ts.commit !== 'function' || typeof ts.revert !== 'function' || typeof ts.clear !== 'function') {
    fail('EVM.transientStorage.checkpoint / commit / revert / clear are not functions');
  }
  const ctor = (interpreterProto as { constructor?: unknown }).constructor;
  if (typeof ctor !== 'function' || ctor.length !== 8) fail('Interpreter constructor no longer takes (evm, stateManager, blockchain, env, gasLeft, journal, performanceLogs, profilerOpts)');
  checkInterpreterFields(e as CallFrameInternals, ctor as InterpreterCtor, fail);
  const j = e.journal as Partial<JournalFrameInternals> | undefined;
  if (j === undefined || typeof j.touchAccount !== 'function' || typeof j.revert !== 'function') fail('Journal.touchAccount / revert are not functions');
  if (typeof j!.journalHeight !== 'number' || !Array.isArray(j!.journalDiff) || !(j!.touched instanceof Set)) {
    fail('Journal.journalHeight / journalDiff / touched changed type');
  }
  // Journal.checkpoint and commit, run on a scratch journal: the same height and diff entries as the sync forms.
  const calls: string[] = [];
  const stubSm = { checkpoint: async () => void calls.push('c'), commit: async () => void calls.push('m') };
  const mk = (): JournalFrameInternals => {
    const s = Object.create(Object.getPrototypeOf(j)) as JournalFrameInternals & { stateManager: unknown };
    s.journalHeight = 3;
    s.journalDiff = [[3, [new Set(), new Map(), new Set()]]];
    s.touched = new Set();
    s.stateManager = stubSm;
    return s;
  };
  const stock = mk();
  const ours = mk();
  void stock.checkpoint();
  journalCheckpointSync(ours, stubSm as never, false);
  const shape = (s: JournalFrameInternals): string =>
    JSON.stringify([s.journalHeight, s.journalDiff.map(([h, d]) => [h, d.length, d[0] instanceof Set, d[1] instanceof Map, d[2] instanceof Set, d[0].size + d[1].size + d[2].size])]);
  if (shape(stock) !== shape(ours)) fail('Journal.checkpoint no longer only steps journalHeight and pushes a journalDiff entry');
  void stock.commit();
  journalCommitSync(ours, stubSm as never, false);
  if (stock.journalHeight !== ours.journalHeight || calls.join('') !== 'cm') fail('Journal.commit no longer lowers journalHeight and commits the state manager');
  // Journal.commit against journalCommitSync's relabelled entry: the same sequences of checkpoints, warm-ups,
  // touches, commits and reverts (each journal with its own form) leave the same warm sets, touched set and height.
  const seq = (s: JournalFrameInternals & { journal: Map<string, Set<string>>; addWarmedAddress(a: Uint8Array): void; addWarmedStorage(a: Uint8Array, k: Uint8Array): void }, sync: boolean): string => {
    const out: string[] = [];
    const snap = (): void => void out.push(JSON.stringify([s.journalHeight, [...s.journal].map(([k, v]) => [k, [...v].sort()]).sort(), [...s.touched].sort()]));
    const cp = (): void => (sync ? journalCheckpointSync(s, stubSm as never, false) : void s.checkpoint());
    const cm = (): void => (sync ? journalCommitSync(s, stubSm as never, false) : void s.commit());
    const rv = (): void => (sync ? journalRevertSync(s, stubSm as never, false) : void s.revert());
    const a = (n: number): Uint8Array => new Uint8Array(20).fill(n);
    const k = (n: number): Uint8Array => new Uint8Array(32).fill(n);
    const warm = (n: number): void => {
      s.addWarmedAddress(a(n));
      s.addWarmedStorage(a(n), k(n));
      s.touchAccount(toHex(a(n)));
    };
    warm(1);
    cp(); warm(2); cp(); warm(3); cm(); warm(4); snap(); rv(); snap(); // a committed level undone with its parent
    cp(); warm(5); cp(); warm(6); rv(); warm(7); cm(); snap(); // a reverted level inside a committed one
    cp(); cp(); warm(8); cm(); cp(); warm(9); rv(); cp(); warm(10); cm(); warm(11); cm(); snap(); cp(); warm(12); rv(); snap();
    cp(); cp(); cp(); warm(13); cm(); cm(); warm(14); rv(); snap();
    return out.join('|');
  };
  const scratch = (): ReturnType<typeof mk> & { journal: Map<string, Set<string>>; addWarmedAddress(a: Uint8Array): void; addWarmedStorage(a: Uint8Array, k: Uint8Array): void } => {
    const s = mk() as ReturnType<typeof mk> & { journal: Map<string, Set<string>>; alwaysWarmJournal: Map<string, Set<string>>; addWarmedAddress(a: Uint8Array): void; addWarmedStorage(a: Uint8Array, k: Uint8Array): void };
    s.journal = new Map();
    s.alwaysWarmJournal = new Map();
    s.journalHeight = 0;
    s.journalDiff = [[0, [new Set(), new Map(), new Set()]]];
    (s as unknown as { stateManager: unknown }).stateManager = { checkpoint: async () => {}, commit: async () => {}, revert: async () => {} };
    return s;
  };
  const x = scratch();
  const y = scratch();
  if (typeof x.addWarmedAddress !== 'function' || typeof x.addWarmedStorage !== 'function') fail('Journal.addWarmedAddress / addWarmedStorage are not functions');
  if (seq(x, false) !== seq(y, true)) fail('Journal.commit / revert no longer treat the diff entries as journalCommitSync relabels them');
  // Journal.revert on two scratch journals with warm addresses, slots and touches at three heights (one below
  // the reverted level), RIPEMD-160 among the touches: the same maps, touched set, diffs and height after.
  const revertCalls: string[] = [];
  const stubRevert = { revert: async () => void revertCalls.push('r'), revertSync: () => void revertCalls.push('r') };
  const mkr = (): JournalFrameInternals & { journal: Map<string, Set<string>> } => {
    const s = Object.create(Object.getPrototypeOf(j)) as JournalFrameInternals & { journal: Map<string, Set<string>>; stateManager: unknown };
    s.stateManager = stubRevert;
    s.journalHeight = 2;
    s.journal = new Map([['aa', new Set(['01', '02'])], ['bb', new Set(['03'])], ['cc', new Set()]]);
    s.touched = new Set(['aa', 'dd', RIPEMD160_ADDRESS_STRING]);
    s.journalDiff = [
      [1, [new Set(['aa']), new Map([['aa', new Set(['01'])]]), new Set(['aa'])]],
      [2, [new Set(['bb']), new Map([['aa', new Set(['02'])]]), new Set(['dd'])]],
      [2, [new Set(['cc']), new Map([['bb', new Set(['03'])]]), new Set([RIPEMD160_ADDRESS_STRING])]],
    ];
    return s;
  };
  const rs = mkr();
  const ro = mkr();
  void rs.revert();
  journalRevertSync(ro, stubRevert);
  const rshape = (s: JournalFrameInternals & { journal: Map<string, Set<string>> }): string =>
    JSON.stringify([s.journalHeight, [...s.journal].map(([k, v]) => [k, [...v]]), [...s.touched], s.journalDiff.map(([h, d]) => [h, [...d[0]], [...d[1]].map(([k, v]) => [k, [...v]]), [...d[2]]])]);
  if (rshape(rs) !== rshape(ro) || revertCalls.join('') !== 'rr') fail('Journal.revert no longer undoes the diff entries at or above the height as journalRevertSync does');
}

/**
 * noMessageListeners' reading of `_eventsCount`: on a new emitter of EVM.events' class it is 0, counts an event
 * name once however many listeners it has, and is 0 again once they are removed; the live emitter's is a number.
 */
function checkEventsCount(events: MessageEvents, fail: (what: string) => never): void {
  type Emitter = MessageEvents & { on(n: string, f: () => void): unknown; off(n: string, f: () => void): unknown };
  const Ctor = (events as { constructor?: unknown }).constructor;
  if (typeof events._eventsCount !== 'number' || typeof Ctor !== 'function') fail('EVM.events no longer counts its event names (_eventsCount)');
  const x = new (Ctor as new () => Emitter)();
  const f = (): void => {};
  const g = (): void => {};
  const counts: unknown[] = [x._eventsCount];
  x.on('afterMessage', f);
  counts.push(x._eventsCount, noMessageListeners(x));
  x.on('afterMessage', g);
  x.on('beforeMessage', f);
  counts.push(x._eventsCount);
  x.off('afterMessage', f);
  x.off('afterMessage', g);
  x.off('beforeMessage', f);
  counts.push(x._eventsCount, noMessageListeners(x));
  x.on('step', f);
  counts.push(x._eventsCount, noMessageListeners(x));
  if (JSON.stringify(counts) !== '[0,1,false,2,0,true,1,true]') fail(`EVM.events' _eventsCount no longer counts event names with listeners (${JSON.stringify(counts)})`);
}

type DiffEntry = JournalFrameInternals['journalDiff'][number];

/**
 * Diff entries dropped by journalRevertSync and the clean-ups, emptied, for the next checkpoints: an entry is
 * five allocations (about 40 K instructions in the canister), one a frame. A dropped entry is referenced by
 * nothing (the journal reads only its live entries); bounded.
 */
const spareEntries: DiffEntry[] = [];
const MAX_SPARE_ENTRIES = 64;

function recycleEntries(entries: readonly DiffEntry[], from: number): void {
  for (let i = from; i < entries.length && spareEntries.length < MAX_SPARE_ENTRIES; i++) {
    const e = entries[i]!;
    const d = e[1];
    if (d[0].size !== 0) d[0].clear();
    if (d[1].size !== 0) d[1].clear();
    if (d[2].size !== 0) d[2].clear();
    spareEntries.push(e);
  }
}

/** Journal.checkpoint without its await: height up, an empty diff entry (a spare one if any), the state manager's checkpoint. */
export function journalCheckpointSync(j: JournalFrameInternals, sm: { checkpointSync(): void }, callSm = true): void {
  j.journalHeight++;
  const spare = spareEntries.pop();
  if (spare !== undefined) {
    spare[0] = j.journalHeight;
    j.journalDiff.push(spare);
  } else j.journalDiff.push([j.journalHeight, [new Set(), new Map(), new Set()]]);
  if (callSm) sm.checkpointSync();
}

/**
 * Journal.cleanJournal: height 0, empty warm maps and touched set, one empty diff entry at height 0. A journal
 * already in that state but for its height and the always-warm map (what a transaction's clean-up leaves, and the
 * next transaction's clean-up finds: three a transaction) keeps its empty objects; otherwise its diff entries
 * become spares and Journal.cleanJournal makes new ones.
 */
export function cleanJournalSync(journal: unknown): void {
  const j = journal as JournalCleanupInternals;
  const diffs = j.journalDiff;
  if (j.journal.size === 0 && j.touched.size === 0 && diffs.length === 1) {
    const e = diffs[0]!;
    const d = e[1];
    if (d[0].size === 0 && d[1].size === 0 && d[2].size === 0) {
      j.journalHeight = 0;
      e[0] = 0;
      if (j.alwaysWarmJournal.size !== 0) j.alwaysWarmJournal = new Map();
      return;
    }
  }
  recycleEntries(diffs, 0);
  j.cleanJournal();
}

/**
 * Journal.revert without its await (the stock form's only await is the state manager's revert, last): the
 * diff entries at the current height or above undone newest first (warm addresses, warm slots, touches but
 * RIPEMD-160's), dropped, the height lowered, then the state manager's revert.
 */
export function journalRevertSync(journal: unknown, sm: { revertSync(): void }, callSm = true): void {
  const j = journal as JournalFrameInternals & { journal: Map<string, Set<string>> };
  const diffs = j.journalDiff;
  let finalI = 0;
  for (let i = diffs.length - 1; i >= 0; i--) {
    finalI = i;
    const [height, diff] = diffs[i]!;
    if (height < j.journalHeight) break;
    for (const address of diff[0]) if (j.journal.has(address)) j.journal.delete(address);
    for (const [address, delSlots] of diff[1]) {
      const slots = j.journal.get(address);
      if (slots !== undefined) for (const slot of delSlots) slots.delete(slot);
    }
    for (const address of diff[2]) if (address !== RIPEMD160_ADDRESS_STRING) j.touched.delete(address);
  }
  j.journalDiff = diffs.slice(0, finalI + 1);
  recycleEntries(diffs, finalI + 1);
  j.journalHeight--;
  if (callSm) sm.revertSync();
}

/**
 * Journal.commit without its await, and without its new diff entry: Journal.commit lowers the height and pushes
 * an empty entry at the new height, which the parent level's later warm-ups and touches fill. Here the last
 * entry, the committed level's own (at the height being left), is relabelled to the new height and filled
 * instead. The two are the same to every later reader: Journal.revert undoes, newest first, every entry at or
 * above its height and stops at the first below it, and the relabelled entry is above or below any later
 * revert's height exactly where the pushed one would be (it sits, in the pushed form's order, right before it,
 * at a height one higher; no level can be reverted at that height any more: it was committed). A new entry
 * costs five allocations (about 40 K instructions in the canister), on every frame's commit. Where the last
 * entry is not at the height being left (not seen: every checkpoint pushes one there, every revert returns to
 * the parent's), the stock form's entry is pushed. checkCallFrameInternals compares both through revert.
 */
export function journalCommitSync(j: JournalFrameInternals, sm: { commitSync(): void }, callSm = true): void {
  const diffs = j.journalDiff;
  const last = diffs[diffs.length - 1];
  if (last !== undefined && last[0] === j.journalHeight) last[0] = --j.journalHeight;
  else diffs.push([--j.journalHeight, [new Set(), new Map(), new Set()]]);
  if (callSm) sm.commitSync();
}

// ---- around the transaction's frame (run_tx.ts) ----

/** The state manager calls of journalCleanupSync (FlatStateManager's synchronous forms). */
export interface CleanupStateLike {
  getAccountRecord(address: Uint8Array): { nonce: bigint; balance: bigint; codeHash: Uint8Array | undefined } | undefined;
  deleteAccountSync(address: Uint8Array): void;
}

interface JournalCleanupInternals extends JournalFrameInternals {
  journal: Map<string, Set<string>>;
  alwaysWarmJournal: Map<string, Set<string>>;
  common: { gteHardfork(hardfork: string): boolean };
  accessList?: Map<string, Set<string>>;
  cleanJournal(): void;
  cleanup(): Promise<void>;
}

/** EthereumJS's Journal as run_tx.ts uses it around the transaction's frame. */
export interface TxJournal extends JournalCleanupInternals {
  addAlwaysWarmAddress(address: string, addToAccessList?: boolean): void;
  addAlwaysWarmSlot(address: string, slot: string, addToAccessList?: boolean): void;
}

/**
 * Journal.cleanup without its awaits (runTx calls it before and after every transaction): from Spurious Dragon
 * on, each touched account that is absent or empty (Account.isEmpty: nonce 0, balance 0, no code) is deleted
 * through Journal.deleteAccount's steps (touch, then delete), then cleanJournal and the access-list and
 * preimage reports dropped. The stock form reads each touched account through an Address made from its hex,
 * an awaited read and an Account; the journal's keys are the lower-case hex of 20 bytes (touchAccount's
 * callers), which the state manager's records are read by directly. Checked against Journal.cleanup at
 * engine creation (checkJournalCleanup). `nonEmptyA`/`nonEmptyB`: touched keys the caller knows are not empty
 * (run_tx.ts: the sender and coinbase it just wrote), not read (reading them would delete nothing).
 */
export function journalCleanupSync(journal: unknown, sm: CleanupStateLike, spuriousDragon: boolean, nonEmptyA?: string, nonEmptyB?: string): void {
  const j = journal as JournalCleanupInternals;
  if (spuriousDragon) {
    for (const hex of j.touched) {
      if (hex === nonEmptyA || hex === nonEmptyB) continue;
      // the key's 20 bytes through one native parse (fromHex's loop over the digits costs about 100 K instructions)
      const bytes = hex.length === 40 ? addressBytes(BigInt('0x' + hex)) : fromHex(hex);
      const rec = sm.getAccountRecord(bytes);
      if (rec === undefined || (rec.nonce === 0n && rec.balance === 0n && (rec.codeHash === undefined || bytesEqual(rec.codeHash, KECCAK256_NULL)))) {
        // Journal.deleteAccount: touchAddress (the Address's lower-case hex), then the state manager's delete
        j.touchAccount(hex.toLowerCase());
        sm.deleteAccountSync(bytes);
      }
    }
  }
  cleanJournalSync(j);
  delete j.accessList;
  delete j.preimages;
}

/**
 * Runs Journal.cleanup and journalCleanupSync on two scratch journals built from `journal`'s prototype, over
 * the same touched accounts (absent, empty, with a nonce, with a balance, with code) held by a stub state
 * manager: the same accounts deleted in the same order, the same touched set, journal and warm maps reset.
 */
export async function checkJournalCleanup(journal: unknown): Promise<void> {
  const live = journal as JournalCleanupInternals;
  const fail = (what: string): never => {
    throw new EthereumJsShapeError(what);
  };
  if (typeof live.cleanup !== 'function' || typeof live.cleanJournal !== 'function' || typeof live.common?.gteHardfork !== 'function') {
    fail('Journal.cleanup / cleanJournal / common.gteHardfork changed');
  }
  const hexes = ['11'.repeat(20), '22'.repeat(20), '33'.repeat(20), '44'.repeat(20), '55'.repeat(20)];
  const accounts = new Map<string, Account>([
    [hexes[1]!, new AccountCtor(0n, 0n)],
    [hexes[2]!, new AccountCtor(1n, 0n)],
    [hexes[3]!, new AccountCtor(0n, 5n)],
    [hexes[4]!, new AccountCtor(0n, 0n, undefined, new Uint8Array(32).fill(7))],
  ]);
  const run = async (sync: boolean, clean = false): Promise<string> => {
    const deleted: string[] = [];
    const sm = {
      getAccount: async (a: Address) => accounts.get(toHex(a.bytes)),
      deleteAccount: async (a: Address) => void deleted.push(toHex(a.bytes)),
      checkpoint: async () => {},
      commit: async () => {},
      revert: async () => {},
      getAccountRecord: (b: Uint8Array) => accounts.get(toHex(b)),
      deleteAccountSync: (b: Uint8Array) => void deleted.push(toHex(b)),
    };
    const s = Object.create(Object.getPrototypeOf(live)) as JournalCleanupInternals & { stateManager: unknown; DEBUG: boolean };
    s.stateManager = sm;
    s.common = live.common;
    s.DEBUG = false;
    s.cleanJournal();
    if (clean) {
      // what a transaction's clean-up and commit leave (height -1), with always-warm entries
      s.journalHeight = -1;
      s.journalDiff[0]![0] = -1;
      s.alwaysWarmJournal.set(hexes[0]!, new Set());
    } else {
      s.journal.set(hexes[0]!, new Set(['01']));
      s.accessList = new Map();
      for (const h of hexes) s.touchAccount(h);
    }
    if (sync) journalCleanupSync(s, sm, live.common.gteHardfork('spuriousDragon'));
    else await s.cleanup();
    const diffs = s.journalDiff.map(([h, d]) => [h, d.length, d[0] instanceof Set, d[1] instanceof Map, d[2] instanceof Set, d[0].size + d[1].size + d[2].size]);
    return JSON.stringify([deleted, [...s.touched], s.journal.size, s.alwaysWarmJournal.size, s.journalHeight, diffs, 'accessList' in s, 'preimages' in s]);
  };
  if ((await run(false, true)) !== (await run(true, true))) fail('Journal.cleanup of a clean journal no longer leaves what cleanJournalSync keeps');
  if ((await run(false)) !== (await run(true))) fail('Journal.cleanup no longer deletes the touched empty accounts, then cleans the journal, as journalCleanupSync does');
}
