// The engine's own set-up of an inner call frame (CALL, CALLCODE, STATICCALL, DELEGATECALL from running
// code), in place of EthereumJS's EVM.runCall -> _executeCall -> runInterpreter for such messages.
//
// EthereumJS spends many instructions a frame in QuickJS around the frame's opcodes: five async
// methods and their promises, two Account reads and write-backs through async wrappers (even for a value of
// 0), two event emissions with no listener, journal and state checkpoints through two more awaits each, and
// the spreads of the message and of the result (runInterpreter copies the run state, the result and the
// environment into one object nobody reads for an inner call). This module runs the same steps in the same
// order, synchronously over FlatStateManager, and hands EthereumJS's Interpreter (whose `run` is the fast
// loop, interpreter.ts) the same environment (an Interpreter and environment kept per call depth, reset for
// each frame: newInterpreter). The CALL family's dynamic gas (installCallGas) and the
// CALL, STATICCALL and DELEGATECALL opcodes with `Interpreter._baseCall` (installCallOps: depth and balance
// checks, return data, logs, selfdestruct and created-address sets) are also done here, synchronously where
// EthereumJS awaits. What it leaves to EthereumJS: CALLCODE's handler, precompiles (through
// EVM.runPrecompile, so the budget wrappers apply), creates, and a top-level call with options other than
// runTx's (the transaction's own top-level call takes the same frame: `topLevel`).
//
// Messages fall back to the stock path when anything observes the steps skipped here: `beforeMessage` /
// `afterMessage` listeners, DEBUG, the profiler, an access witness, or a state manager that is not ours.
// Only installed next to the fast interpreter, whose install refuses the EIPs whose per-frame hooks are
// left out here (EIP-7928 block access lists, EIP-8037 state gas, EIP-7708 transfer logs, EIP-6800/7864
// witnesses, EOF); EIP-2780's frame charges apply at depth 0 only, which stays stock while it is active.

import { EVMError } from '@ethereumjs/evm';
import { Account, Address, MAX_INTEGER } from '@ethereumjs/util';
import {
  type CallFrameInternals,
  checkCallFrameInternals,
  type ExecResult,
  type InterpreterCtor,
  journalCheckpointSync,
  journalCommitSync,
  journalRevertSync,
  type MessageLike,
  noMessageListeners,
  type OpEntry,
  type RunResult,
  reuseInterpreter,
  type RunState,
} from './internals.js';
import { FlatStateManager } from './state.js';
import type { AccountRecord } from './encoding.js';
import { makeMemGas } from './interpreter.js';
import { addressBytes, addressHex, addressKeyOf, isWarmAddressHex, KeyedAddress } from './account_ops.js';

const ERR = EVMError.errorMessages;
const EMPTY = new Uint8Array(0);
/**
 * The last CALL-family target the dynamic gas handler (installCallGas) turned into bytes and a journal key: the
 * operation's handler (callOp) pops the same word right after and takes both when the word is equal (the bytes
 * are never written; a word gives one address). About 20 K instructions a CALL in the canister. With EIP-7702
 * the handler also reads the target's code, which the frame's loadCode takes for the Address made from those
 * bytes (on the same state manager, once): nothing in between writes code.
 */
const lastTarget: { word: bigint | undefined; bytes: Uint8Array; key: string; code: Uint8Array | undefined; sm: unknown } = { word: undefined, bytes: EMPTY, key: '', code: undefined, sm: undefined };
/** Call depths whose Interpreter is kept for the next frame at that depth (deeper ones are built each time). */
const POOL_DEPTHS = 32;
/** Depths whose Interpreter is made with the engine (see installCallFrames). */
const PREWARM_DEPTHS = 4;


/**
 * Routes `evm`'s inner call messages through the own frame set-up. `interpreterProto` is EthereumJS's
 * Interpreter.prototype (found by the fast interpreter). Throws EthereumJsShapeError when an internal
 * it relies on moved.
 */
export function installCallFrames(evmObj: unknown, interpreterProto: object, frameReserve: () => void): void {
  const evm = evmObj as CallFrameInternals;
  checkCallFrameInternals(evm, interpreterProto);
  const Interpreter = (interpreterProto as { constructor: InterpreterCtor }).constructor;
  const common = evm.common;
  const transient = common.isActivatedEIP(1153);
  const eip7702 = common.isActivatedEIP(7702);
  const precompiles = evm._precompiles;
  const stock = evm.runCall;
  const events = evm.events;
  // Whether an inner call message (depth > 0, a target) runs here; otherwise EthereumJS's path, observed.
  const own = (accessWitness: unknown): boolean =>
    accessWitness === undefined &&
    evm._tx !== undefined &&
    evm._block !== undefined &&
    !evm.DEBUG &&
    evm._optsCached.profiler?.enabled !== true &&
    evm.stateManager instanceof FlatStateManager &&
    noMessageListeners(events);
  const topLevelOwn = !common.isActivatedEIP(2780);
  // One Interpreter kept per call depth below POOL_DEPTHS, reused by the next frame at that depth (see
  // newInterpreter); `busy` marks the depths whose kept one runs a frame.
  const pool: (InstanceType<InterpreterCtor> | undefined)[] = [];
  const busy = new Uint8Array(POOL_DEPTHS);
  evm.runCall = function runCall(this: unknown, opts: TopLevelOpts & { message?: MessageLike }): Promise<unknown> {
    const m = opts.message;
    if (m === undefined) return topLevelOwn && isPlainTopLevelCall(opts) ? topLevel(opts) ?? stock.call(this, opts) : stock.call(this, opts);
    if (m.to === undefined || m.depth === 0 || !own(m.accessWitness)) return stock.call(this, opts);
    return frame(m, evm.stateManager as FlatStateManager);
  };
  installCallOps(evm, own, { frameStart, frameEnd, closeFrame, release, Interpreter }, frameReserve);
  // The first depths' Interpreters made now, with the engine (an update message): a query's heap changes are
  // discarded, so an executor that runs only queries (eth_call, estimates) would otherwise build its first
  // frame's Interpreter in every one. Each is reset by its first use like any kept one.
  if (evm.stateManager instanceof FlatStateManager) {
    const sm = evm.stateManager;
    const nobody = new Address(new Uint8Array(20));
    for (let d = 0; d < PREWARM_DEPTHS; d++) {
      const m = setMessage({} as MessageLike, nobody, 0n, nobody, nobody, 0n, EMPTY, false, false, d, undefined, undefined);
      const env = new FrameEnv(sm, m, EMPTY, 0n, nobody, undefined);
      pool[d] = new Interpreter(evm, sm, evm.blockchain, env, 0n, evm.journal, evm.performanceLogger, evm._optsCached.profiler);
    }
  }

  // EVM.runCall for a transaction's call (no message given, a target, no nonce increment: what runTx and
  // run_tx.ts pass): the block and transaction context and the depth-0 message as EthereumJS builds them,
  // then the same frame as an inner call. What EthereumJS does at depth 0 besides: EIP-2780's charges (the
  // caller keeps the stock path when it is active) and clearing the transient storage after the code ran
  // (postMessageCleanup), done here after the frame: it is empty between transactions, so clearing it
  // after a frame that ran no code changes nothing.
  function topLevel(opts: TopLevelOpts): Promise<{ execResult: ExecResult }> | undefined {
    evm._block = opts.block;
    evm._tx = { gasPrice: opts.gasPrice ?? 0n, origin: opts.caller };
    if (!own(undefined)) return undefined;
    const message = setMessage({} as MessageLike, opts.caller!, opts.gasLimit ?? 0xffffffn, opts.to!, opts.to!, opts.value ?? 0n, opts.data ?? EMPTY, false, false, 0, opts.blobVersionedHashes, undefined);
    message.selfdestruct = new Map();
    message.createdAddresses = new Set();
    return frame(message, evm.stateManager as FlatStateManager);
  }

  // EVM.runCall for a call message at depth > 0 (evm.js), same order of steps, with _executeCall and
  // runInterpreter in the same async function: one promise and one await a frame where EthereumJS has three.
  // The CALL family's handler (callOp) runs the same steps as frame() with frameStart, its one await and frameEnd
  // inline: one async function a frame, not two.
  async function frame(message: MessageLike, sm: FlatStateManager): Promise<{ execResult: ExecResult }> {
    const start = frameStart(message, sm);
    let execResult: ExecResult;
    if (start === undefined) execResult = (await evm.runPrecompile(message.code as MessageLike['code'], message.data, message.gasLimit)) as ExecResult;
    else if (start instanceof Interpreter) {
      execResult = interpreterResult(start, await start.run(message.code as Uint8Array, {}), message.gasLimit);
      release(message.depth, start);
    } else execResult = start as ExecResult;
    return { execResult: frameEnd(message, sm, start, execResult) };
  }

  // The frame's checkpoints, then _executeCall up to running the code (see executeCall).
  function frameStart(message: MessageLike, sm: FlatStateManager, callerHasCode = false): ReturnType<typeof executeCall> {
    journalCheckpointSync(evm.journal, sm);
    if (transient) evm.transientStorage.checkpoint();
    return executeCall(message, sm, callerHasCode);
  }

  // After the code or precompile ran (`start` as frameStart returned it): runCall's handling of the result,
  // and at depth 0 EthereumJS's clearing of the transient storage (postMessageCleanup; see topLevel).
  function frameEnd(message: MessageLike, sm: FlatStateManager, start: ReturnType<typeof executeCall>, execResult: ExecResult): ExecResult {
    if (start === undefined) execResult.gasRefund = message.gasRefund;
    const err = execResult.exceptionError;
    if (err !== undefined && err.error !== ERR.CODESTORE_OUT_OF_GAS) {
      execResult.selfdestruct = new Map();
      execResult.createdAddresses = new Set();
      execResult.gasRefund = 0n;
    }
    if (closeFrame(message, sm, err)) execResult.logs = [];
    return execResult;
  }

  // frameEnd's revert or commit of the frame's checkpoints (and the transient storage's clearing at depth 0);
  // true when reverted (frameEnd empties the result's logs then).
  function closeFrame(message: MessageLike, sm: FlatStateManager, err: EVMError | undefined): boolean {
    let reverted = false;
    if (err !== undefined && !(common.hardfork() === 'chainstart' && err.error === ERR.CODESTORE_OUT_OF_GAS)) {
      reverted = true;
      journalRevertSync(evm.journal, sm);
      if (transient) evm.transientStorage.revert();
    } else {
      journalCommitSync(evm.journal, sm);
      if (transient) evm.transientStorage.commit();
    }
    if (transient && message.depth === 0) evm.transientStorage.clear();
    return reverted;
  }

  // Journal.putAccount: touch, then write (EthereumJS writes even an unchanged account back).
  function putAccount(sm: FlatStateManager, address: Address, account: Account): void {
    evm.journal.touchAccount(addressHex(address));
    sm.putAccountSync(address.bytes, account.nonce, account.balance, account.codeHash);
  }

  // EVM._executeCall without the EIP-7864 / EIP-2780 / EIP-7928 / EIP-7708 branches (inactive, see above), up
  // to running the code: the frame's result when no code runs, undefined for a precompile (message.code), or
  // the Interpreter to run message.code with (EVM.runInterpreter's set-up).
  //
  // `callerHasCode`: the caller is known to exist with code (callOp: a running own frame's account, see
  // ownAccountHasCode), so its record is not read for the touch decision below; the target likewise when the
  // CALL's gas handler read non-empty code for it (lastTarget, on this state manager, nothing written since).
  function executeCall(message: MessageLike, sm: FlatStateManager, callerHasCode: boolean): ExecResult | InstanceType<InterpreterCtor> | undefined {
    const to = message.to!;
    let errorMessage: EVMError | undefined;
    if (!message.delegatecall) {
      let callerRec: AccountRecord | undefined;
      let toRec: AccountRecord | undefined;
      const known = lastTarget.code;
      const toHasCode = known !== undefined && known.length !== 0 && to.bytes === lastTarget.bytes && sm === lastTarget.sm;
      if (
        message.value === 0n &&
        (callerHasCode || (callerRec = sm.getAccountRecord(message.caller.bytes)) !== undefined) &&
        (toHasCode || (toRec = sm.getAccountRecord(to.bytes)) !== undefined)
      ) {
        // No value and both accounts exist: EthereumJS's two write-backs store the records they read, so only
        // their touches (EIP-161) have an effect; skipped writes leave the same state (flat state commits net changes).
        // An account with code is never empty when the transaction ends (its code goes only with the account:
        // EIP-6780 deletes only accounts created in the transaction), so touching it changes nothing but the
        // clean-up's work, which reads every touched account (Journal.cleanup, each a hex decode, an Account and a
        // 32-byte compare): contracts are left untouched unless the journal records preimages (touchAccount does).
        const journal = evm.journal;
        const all = journal.preimages !== undefined;
        if (all || (!callerHasCode && callerRec!.codeHash === undefined)) journal.touchAccount(addressHex(message.caller));
        if (all || (!toHasCode && toRec!.codeHash === undefined)) journal.touchAccount(addressHex(to));
      } else {
        const account = sm.getAccountSync(message.caller.bytes) ?? new Account();
        // _reduceSenderBalance: the account is written back only when the balance suffices
        account.balance -= message.value;
        if (account.balance < 0n) errorMessage = new EVMError(ERR.INSUFFICIENT_BALANCE);
        else putAccount(sm, message.caller, account);
        const toAccount = sm.getAccountSync(to.bytes) ?? new Account();
        // _addToBalance (run even after a failed reduction, as EthereumJS does; the frame's revert undoes it)
        const newBalance = toAccount.balance + message.value;
        if (newBalance > MAX_INTEGER) errorMessage = new EVMError(ERR.VALUE_OVERFLOW);
        else {
          toAccount.balance = newBalance;
          putAccount(sm, to, toAccount);
        }
      }
    }
    loadCode(message, sm);
    const code = message.code;
    if (code === undefined || (typeof code !== 'function' && code.length === 0) || errorMessage !== undefined) {
      return { gasRefund: message.gasRefund, executionGasUsed: 0n, exceptionError: errorMessage, returnValue: new Uint8Array(0), logs: undefined };
    }
    if (message.isCompiled) return undefined;
    return newInterpreter(message, code as Uint8Array, sm);
  }

  // EVM._loadCode: a precompile, else the account's code, following an EIP-7702 delegation one step.
  function loadCode(message: MessageLike, sm: FlatStateManager): void {
    if (message.code) return;
    const codeAddress = message.codeAddress;
    const precompile = precompiles.get(addressHex(codeAddress));
    if (precompile !== undefined) {
      message.code = precompile as MessageLike['code'];
      message.isCompiled = true;
      return;
    }
    // the code the CALL's gas handler read for this target (by the bytes' identity: made for this message by
    // callOp; nothing writes code between the two), else read here
    let code: Uint8Array;
    const known = lastTarget.code;
    if (known !== undefined && codeAddress.bytes === lastTarget.bytes && sm === lastTarget.sm) {
      code = known;
      lastTarget.code = undefined;
    } else code = sm.getCodeSync(codeAddress.bytes);
    if (eip7702 && code.length >= 3 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00) {
      // the designator's 20 bytes (a shorter designator reads as EthereumJS's Address constructor decides)
      const target = new Address(code.slice(3, 24));
      code = sm.getCodeSync(target.bytes);
      // as EVM._loadCode: a transaction's own delegation target is warm for the rest of it (run_tx.ts takes
      // the journal's kept always-warm map back after the transaction, whatever was added to it)
      if (message.depth === 0) evm.journal.addAlwaysWarmAddress(target.toString());
    }
    message.code = code;
    message.isCompiled = false;
    message.chargeCodeAccesses = true;
  }

  // EVM.runInterpreter for an inner call: the same environment and Interpreter; the result without the
  // merged run-state copy (read only by afterMessage listeners, which send messages down the stock path).
  //
  // The Interpreter and its FrameEnv are the ones kept for the frame's depth when that one is idle and was made
  // for the same state manager, blockchain, journal, logger and profiler options, reset to what the
  // constructors make (reuseInterpreter, FrameEnv.init): building them is an object of ten fields, a run state of
  // eighteen, a Memory with its 8 KB array, a Stack, a result and the environment, about 130 K instructions a
  // frame in the canister. Only one frame runs at each depth at a time (a frame at depth d starts only from
  // the running one at d - 1); `busy` makes the pool safe without that: a depth whose kept Interpreter did not
  // come back (its run threw) gets a new one. What a finished frame's Memory leaves referenced: a callee's call
  // data and a creation's init code are views into the caller's memory, read only while the callee runs;
  // RETURN, REVERT and LOG copy out of memory. Nothing keys a cache by an Interpreter, run state or
  // environment (interpreter.ts looks its frame's storage up per run).
  function newInterpreter(message: MessageLike, code: Uint8Array, sm: FlatStateManager): InstanceType<InterpreterCtor> {
    const tx = evm._tx;
    const origin = tx.origin ?? message.caller;
    const d = message.depth;
    const profiler = evm._optsCached.profiler;
    let interpreter = d < POOL_DEPTHS && busy[d] === 0 ? pool[d] : undefined;
    if (
      interpreter !== undefined &&
      interpreter._stateManager === sm &&
      (interpreter.journal as unknown) === evm.journal &&
      (interpreter._runState as { blockchain?: unknown }).blockchain === evm.blockchain &&
      interpreter.performanceLogger === evm.performanceLogger &&
      interpreter.profilerOpts === profiler &&
      (interpreter.common as unknown) === common
    ) {
      const env = interpreter._env as unknown as FrameEnv;
      env.init(sm, message, code, tx.gasPrice, origin, evm._block);
      reuseInterpreter(interpreter, env, message.gasLimit, message.selfdestruct);
    } else {
      const env = new FrameEnv(sm, message, code, tx.gasPrice, origin, evm._block);
      interpreter = new Interpreter(evm, sm, evm.blockchain, env, message.gasLimit, evm.journal, evm.performanceLogger, profiler);
      if (d < POOL_DEPTHS) pool[d] = interpreter;
    }
    if (d < POOL_DEPTHS && pool[d] === interpreter) busy[d] = 1;
    if (message.selfdestruct) interpreter._result.selfdestruct = message.selfdestruct;
    if (message.createdAddresses) interpreter._result.createdAddresses = message.createdAddresses;
    return interpreter;
  }

  // The frame's Interpreter is done with (its result read): the depth's kept one may be reused.
  function release(depth: number, interpreter: InstanceType<InterpreterCtor>): void {
    if (depth < POOL_DEPTHS && pool[depth] === interpreter) busy[depth] = 0;
  }
}

/**
 * A frame's environment as EVM.runInterpreter builds it, but the frame's own account (`contract`) is read when
 * first asked, not when the frame starts, and after a successful inner call only when asked again. EthereumJS
 * keeps `contract` equal to the account's current state at every read: it is read after the frame's value
 * transfer, re-read after each successful inner call or creation and each storage write, its nonce written
 * through on CREATE, and a failed inner call reverts every change it made; nothing else changes a running
 * frame's own account. So the read when asked gives the same account. Most frames never ask (BALANCE or
 * SELFBALANCE of the frame, a call or creation with value, SELFDESTRUCT do), and reading it builds an Account.
 */
class FrameEnv {
  address!: Address;
  caller!: Address;
  callData!: Uint8Array;
  callValue!: bigint;
  code!: Uint8Array;
  isStatic!: boolean;
  isCreate!: boolean;
  depth!: number;
  gasPrice!: bigint;
  origin: unknown;
  block: unknown;
  codeAddress!: Address;
  gasRefund!: bigint;
  chargeCodeAccesses: boolean | undefined;
  blobVersionedHashes!: Uint8Array[];
  accessWitness: unknown;
  createdAddresses: Set<string> | undefined;
  readonly initialLogs: undefined = undefined;
  private sm!: FlatStateManager;
  private account: Account | undefined = undefined;
  /** After a successful inner call the account must exist (_baseCall throws otherwise). */
  private mustExist = false;

  constructor(sm: FlatStateManager, message: MessageLike, code: Uint8Array, gasPrice: bigint, origin: unknown, block: unknown) {
    this.init(sm, message, code, gasPrice, origin, block);
  }

  /** Every field as for a new frame (a kept environment is reused by the next frame at its depth, see newInterpreter). */
  init(sm: FlatStateManager, message: MessageLike, code: Uint8Array, gasPrice: bigint, origin: unknown, block: unknown): void {
    this.sm = sm;
    this.account = undefined;
    this.mustExist = false;
    this.address = message.to!;
    this.caller = message.caller;
    this.callData = message.data ?? Uint8Array.from([0]);
    this.callValue = message.value ?? 0n;
    this.code = code;
    this.isStatic = message.isStatic ?? false;
    this.isCreate = message.isCreate ?? false;
    this.depth = message.depth ?? 0;
    this.gasPrice = gasPrice;
    this.origin = origin;
    this.block = block;
    this.codeAddress = message.codeAddress;
    this.gasRefund = message.gasRefund;
    this.chargeCodeAccesses = message.chargeCodeAccesses;
    this.blobVersionedHashes = message.blobVersionedHashes ?? [];
    this.accessWitness = message.accessWitness;
    this.createdAddresses = message.createdAddresses;
  }

  get contract(): Account {
    let a = this.account;
    if (a === undefined) {
      a = this.sm.getAccountSync(this.address.bytes);
      if (a === undefined) {
        if (this.mustExist) throw new Error('could not read contract account');
        a = new Account();
      }
      this.account = a;
    }
    return a;
  }

  set contract(a: Account) {
    this.account = a;
  }

  /** _baseCall's re-read after a successful inner call, deferred to the next read. */
  reread(): void {
    this.account = undefined;
    this.mustExist = true;
  }
}

/**
 * Whether a running frame's own account (`env.address`) is known to exist with code: an own frame (FrameEnv, never
 * a creation) running the code of its own address (a CALL or STATICCALL frame, or the transaction's; not CALLCODE
 * or DELEGATECALL), which it read from that account when it started (an EIP-7702 delegation is itself code). Nothing
 * removes a running frame's account or its code before the transaction ends: deletions (SELFDESTRUCT, EIP-161
 * clean-up) happen after the transaction's frame, and a revert that could undo the code undoes a level older than
 * the frame, which ends first.
 */
function ownAccountHasCode(env: unknown): boolean {
  return env instanceof FrameEnv && env.codeAddress === env.address && env.code.length !== 0;
}

/**
 * A message as EthereumJS's Message constructor makes it from the CALL family's and runCall's options, as a
 * plain object of one shape (the frames read its fields; nothing here needs the class or its codeAddress getter):
 * every field written, in one order, into `m` (a new object, or one kept per depth: callMessageAt).
 */
function setMessage(
  m: MessageLike,
  caller: Address,
  gasLimit: bigint,
  to: Address,
  codeAddress: Address,
  value: bigint,
  data: Uint8Array,
  isStatic: boolean,
  delegatecall: boolean,
  depth: number,
  blobVersionedHashes: Uint8Array[] | undefined,
  accessWitness: unknown,
): MessageLike {
  m.to = to;
  m.value = value;
  m.caller = caller;
  m.gasLimit = gasLimit;
  m.data = data;
  m.depth = depth;
  m.code = undefined;
  m.codeAddress = codeAddress;
  m.isStatic = isStatic;
  m.isCompiled = false;
  m.isCreate = undefined;
  m.selfdestruct = undefined;
  m.createdAddresses = undefined;
  m.delegatecall = delegatecall;
  m.gasRefund = 0n;
  m.blobVersionedHashes = blobVersionedHashes;
  m.accessWitness = accessWitness;
  m.chargeCodeAccesses = undefined;
  return m;
}

function interpreterResult(interpreter: InstanceType<InterpreterCtor>, res: RunResult, gasLimit: bigint): ExecResult {
  let result = interpreter._result;
  let gasUsed = gasLimit - res.runState.gasLeft;
  const ex = res.exceptionError;
  if (ex !== undefined) {
    if (ex.error !== ERR.REVERT && ex.error !== ERR.INVALID_EOF_FORMAT) gasUsed = gasLimit;
    result = { ...result, logs: [], selfdestruct: new Map(), createdAddresses: new Set() };
  }
  return {
    logs: result.logs,
    selfdestruct: result.selfdestruct,
    createdAddresses: result.createdAddresses,
    exceptionError: ex,
    gas: res.runState.gasLeft,
    executionGasUsed: gasUsed,
    gasRefund: res.runState.gasRefund,
    stateGasSpilled: res.runState.stateGasSpilled,
    returnValue: result.returnValue ?? EMPTY,
  };
}

/** The options of a top-level EVM.runCall that the own frame takes (runTx's and run_tx.ts's). */
interface TopLevelOpts {
  block?: unknown;
  caller?: Address;
  to?: Address;
  gasPrice?: bigint;
  gasLimit?: bigint;
  value?: bigint;
  data?: Uint8Array;
  blobVersionedHashes?: Uint8Array[];
  skipNonceIncrement?: boolean;
}

const TOP_LEVEL_KEYS = new Set(['block', 'caller', 'to', 'gasPrice', 'gasLimit', 'value', 'data', 'blobVersionedHashes', 'accessWitness', 'skipNonceIncrement']);

/** A transaction's call without options the own frame does not write (origin, code, depth, skipBalance, ...). */
function isPlainTopLevelCall(opts: TopLevelOpts & { accessWitness?: unknown }): boolean {
  if (opts.to === undefined || opts.caller === undefined || opts.block === undefined || opts.skipNonceIncrement !== true || opts.accessWitness !== undefined) return false;
  for (const k in opts) if (!TOP_LEVEL_KEYS.has(k)) return false;
  return true;
}

// ---- the CALL family's opcodes ----

/**
 * CALL, STATICCALL and DELEGATECALL (opcodes/functions.js) with Interpreter.call / callStatic / callDelegate
 * and _baseCall (interpreter.js) in one async function, the same steps in the same order, for messages that
 * run in the own frames (`own`): the target word becomes an Address without a hex string, the contract
 * account is re-read synchronously, and the output is copied without getDataSlice's bigint arithmetic.
 * CALLCODE and messages the own frames do not take keep EthereumJS's handler (instrumented by the budget).
 */
function installCallOps(
  evm: CallFrameInternals,
  own: (accessWitness: unknown) => boolean,
  frames: {
    frameStart(m: MessageLike, sm: FlatStateManager, callerHasCode?: boolean): ExecResult | InstanceType<InterpreterCtor> | undefined;
    frameEnd(m: MessageLike, sm: FlatStateManager, start: ExecResult | InstanceType<InterpreterCtor> | undefined, r: ExecResult): ExecResult;
    closeFrame(m: MessageLike, sm: FlatStateManager, err: EVMError | undefined): boolean;
    release(depth: number, interpreter: InstanceType<InterpreterCtor>): void;
    Interpreter: InterpreterCtor;
  },
  frameReserve: () => void,
): void {
  const common = evm.common as CallFrameInternals['common'] & { param(n: string): bigint };
  const stackLimit = Number(common.param('stackLimit'));
  const stipend = common.param('callStipendGas');
  const eip6780 = common.isActivatedEIP(6780);
  const map = evm._opcodeMap;
  const { frameStart, frameEnd, closeFrame, release, Interpreter } = frames;
  for (const [op, kind] of [
    [0xf1, 'call'],
    [0xfa, 'static'],
    [0xf4, 'delegate'],
  ] as const) {
    const stockOp = map[op]!.opHandler;
    map[op] = {
      ...map[op]!,
      opHandler: (rs: RunState, c: unknown): unknown => {
        if (!own(rs.interpreter._env.accessWitness)) return stockOp(rs, c);
        frameReserve(); // as instrumentOpcodes' wrapper of the CALL family
        return callOp(rs, kind);
      },
    };
  }

  // The selfdestruct map and created-address set handed to a callee at each depth when its caller's are empty
  // (EthereumJS copies the caller's into new ones on every call): the callee's result holds them until callOp
  // merged them back into the caller's, and the next callee at that depth is called only after that.
  const spareSelfdestruct: Map<string, unknown>[] = [];
  const spareCreated: Set<string>[] = [];
  // The message handed to a callee at each depth below POOL_DEPTHS, every field written again for each CALL (a new
  // object of eighteen fields is about 20 K instructions): the frames read a message only while its frame runs
  // (executeCall, newInterpreter copies it into the environment, frameEnd) and nothing keeps it; the next CALL
  // at that depth comes from the caller's frame after this one's callOp has read it for the last time.
  const keptMessages: MessageLike[] = [];
  /** The object setMessage fills for a callee at `depth`: the depth's kept one below POOL_DEPTHS, else a new one. */
  function callMessageAt(depth: number): MessageLike {
    if (depth >= POOL_DEPTHS) return {} as MessageLike;
    let m = keptMessages[depth];
    if (m === undefined) keptMessages[depth] = m = {} as MessageLike;
    return m;
  }

  async function callOp(rs: RunState, kind: 'call' | 'static' | 'delegate'): Promise<void> {
    const it = rs.interpreter;
    const env = it._env;
    const withValue = kind === 'call';
    // Stack.popN's pops read in place (its new array is about 10 K instructions a CALL): p(i) is popN's p[i]
    const stack = rs.stack as unknown as { _store: bigint[]; _len: number };
    const n = withValue ? 7 : 6;
    if (stack._len < n) throw new EVMError(ERR.STACK_UNDERFLOW);
    const top = stack._len - 1;
    const st = stack._store;
    stack._len -= n;
    // the target's bytes and journal key as the gas handler just made them from the same word (else made here,
    // the key natively: addressHex would build it from the bytes in a JavaScript loop)
    const word = st[top - 1]!;
    const same = word === lastTarget.word;
    const toAddress = same ? new KeyedAddress(lastTarget.bytes, lastTarget.key) : new KeyedAddress(addressBytes(word), addressKeyOf(word));
    if (!same) lastTarget.code = undefined;
    // DELEGATECALL passes the frame's own value on (its handler reads it before the pops)
    const value = withValue ? st[top - 2]! : kind === 'delegate' ? env.callValue : 0n;
    const at = top - (withValue ? 3 : 2);
    const inOffset = st[at]!;
    const inLength = st[at - 1]!;
    const outOffset = st[at - 2]!;
    const outLength = st[at - 3]!;
    let data: Uint8Array = EMPTY;
    if (inLength !== 0n) data = rs.memory.read(Number(inOffset), Number(inLength), true);
    let gasLimit = rs.messageGasLimit!;
    rs.messageGasLimit = undefined;
    if (withValue && value !== 0n) {
      it.addStipend(stipend);
      gasLimit += stipend;
    }
    const depth = env.depth + 1;
    const kept = depth < POOL_DEPTHS;
    const msg =
      kind === 'delegate'
        ? setMessage(callMessageAt(depth), env.caller, gasLimit, env.address, toAddress, value, data, env.isStatic, true, depth, env.blobVersionedHashes, env.accessWitness)
        : setMessage(callMessageAt(depth), env.address, gasLimit, toAddress, toAddress, value, data, kind === 'static' ? true : env.isStatic, false, depth, env.blobVersionedHashes, env.accessWitness);
    // _baseCall
    // copies of the frame's sets (empty ones, the usual case, not iterated)
    // (empty ones: the callee depth's kept pair, emptied; see spareSets)
    const parentSelfdestruct = it._result.selfdestruct;
    let selfdestruct: Map<string, unknown>;
    if (parentSelfdestruct.size !== 0 || !kept) selfdestruct = new Map(parentSelfdestruct);
    else if ((selfdestruct = spareSelfdestruct[depth] ??= new Map()).size !== 0) selfdestruct.clear();
    msg.selfdestruct = selfdestruct;
    msg.gasRefund = rs.gasRefund;
    rs.returnBytes = EMPTY; // (EthereumJS: a new empty array; an empty one is never written)
    let created: Set<string> | undefined;
    if (eip6780) {
      const parentCreated = it._result.createdAddresses;
      if (parentCreated === undefined || parentCreated.size === 0) {
        if (!kept) created = new Set();
        else if ((created = spareCreated[depth] ??= new Set()).size !== 0) created.clear();
      } else created = new Set(parentCreated);
      msg.createdAddresses = created;
    }
    let ret = 0n;
    // (a balance is never below a value of 0: the frame's account is not read for one)
    if (!(env.depth >= stackLimit || (kind !== 'delegate' && value !== 0n && env.contract.balance < value))) {
      const sm = evm.stateManager as FlatStateManager;
      // frame(msg, sm) inline: one await for the callee's code or precompile
      // CALL and STATICCALL: the caller is this frame's account (DELEGATECALL reads neither account)
      const start = frameStart(msg, sm, kind !== 'delegate' && ownAccountHasCode(env));
      let logs: unknown[] | undefined;
      let gasUsed: bigint;
      let ex: EVMError | undefined;
      let returnValue: Uint8Array | undefined;
      let gasRefund: bigint | undefined;
      if (start instanceof Interpreter) {
        // interpreterResult and frameEnd for a callee that ran code, their result's fields kept in locals (no
        // result object a CALL): a failed frame's logs and sets are dropped, its return data kept
        const res = await start.run(msg.code as Uint8Array, {});
        ex = res.exceptionError;
        const result = start._result;
        gasUsed = ex !== undefined && ex.error !== ERR.REVERT && ex.error !== ERR.INVALID_EOF_FORMAT ? msg.gasLimit : msg.gasLimit - res.runState.gasLeft;
        returnValue = result.returnValue ?? EMPTY;
        // (the logs and refund are read only after a success)
        if (ex === undefined) {
          logs = result.logs;
          gasRefund = res.runState.gasRefund;
        }
        release(msg.depth, start);
        closeFrame(msg, sm, ex);
      } else {
        let r: ExecResult;
        if (start === undefined) r = (await evm.runPrecompile(msg.code as MessageLike['code'], msg.data, msg.gasLimit)) as ExecResult;
        else r = start as ExecResult;
        r = frameEnd(msg, sm, start, r);
        logs = r.logs;
        gasUsed = r.executionGasUsed;
        ex = r.exceptionError;
        returnValue = r.returnValue;
        gasRefund = r.gasRefund;
      }
      if (logs && logs.length !== 0) it._result.logs = it._result.logs.concat(logs as typeof it._result.logs);
      it.useGas(gasUsed, 'CALL, STATICCALL, DELEGATECALL, CALLCODE');
      if (returnValue !== undefined && (ex === undefined || ex.error === ERR.REVERT)) rs.returnBytes = returnValue;
      if (ex === undefined) {
        if (selfdestruct.size !== 0) for (const [k, v] of selfdestruct) it._result.selfdestruct.set(k, v);
        if (created !== undefined && created.size !== 0) for (const a of created) it._result.createdAddresses!.add(a);
        // _baseCall re-reads the frame's account here; an own frame's is read again when next asked (FrameEnv)
        if (env instanceof FrameEnv) env.reread();
        else {
          const account = sm.getAccountSync(env.address.bytes);
          if (account === undefined) throw new Error('could not read contract account');
          env.contract = account;
        }
        rs.gasRefund = gasRefund ?? 0n;
        ret = 1n;
      }
    }
    // writeCallOutput
    const rd = rs.returnBytes;
    if (rd.length > 0) {
      const memOffset = Number(outOffset);
      let len = Number(outLength);
      if (rd.length < len) len = rd.length;
      rs.memory.extend(memOffset, len);
      rs.memory.write(memOffset, len, rd.subarray(0, len));
    }
    rs.stack.push(ret);
  }
}

// ---- the CALL family's dynamic gas ----

/**
 * Replaces the dynamic gas handlers of CALL, CALLCODE, DELEGATECALL and STATICCALL with synchronous ones
 * computing what EthereumJS's callFamilyGas computes (opcodes/gas.js, EIP7928.js) when EIP-6800/7864/7928/
 * 8037 are inactive (which the fast interpreter's install guarantees): memory expansion for input then
 * output, EIP-2929 access of the target (then warmed), the value-transfer charge, the new-account charge
 * (CALL with value to an empty account), the EIP-7702 delegation's access (then warmed), and the EIP-150
 * cap, with the same traps in the same order. EthereumJS's runs three nested async functions and turns
 * the target word into an Address through a hex string, on every call.
 */
export function installCallGas(evmObj: unknown): void {
  const evm = evmObj as {
    _opcodeMap: OpEntry[];
    common: CallFrameInternals['common'] & { param(n: string): bigint; gteHardfork(h: string): boolean };
    stateManager: unknown;
  };
  const common = evm.common;
  if (!(evm.stateManager instanceof FlatStateManager)) return;
  if (!common.isActivatedEIP(2929) || !common.gteHardfork('spuriousDragon') || !common.gteHardfork('tangerineWhistle')) return;
  const eip7702 = common.isActivatedEIP(7702);
  for (const eip of [6800, 7864, 7928, 8037]) if (common.isActivatedEIP(eip)) return;
  const cold = common.param('coldaccountaccessGas');
  const warm = common.param('warmstoragereadGas');
  const valueGas = common.param('callValueTransferGas');
  const newAccountGas = common.param('callNewAccountGas');
  const outOfGas = (): never => {
    throw new EVMError(ERR.OUT_OF_GAS);
  };
  const mem = makeMemGas(common);
  const make = (withValue: boolean, newAccountCheck: boolean, checkStatic: boolean) =>
    function callGas(rs: RunState, gas: bigint): bigint {
      const p = rs.stack.peek(withValue ? 7 : 6);
      const currentGasLimit = p[0]!;
      const value = withValue ? p[2]! : 0n;
      const at = withValue ? 3 : 2;
      if (checkStatic && value !== 0n && rs.interpreter.isStatic()) throw new EVMError(ERR.STATIC_STATE_CHANGE);
      const word = p[1]!;
      const to = addressBytes(word);
      gas += mem(rs, p[at]!, p[at + 1]!);
      gas += mem(rs, p[at + 2]!, p[at + 3]!);
      const journal = rs.interpreter.journal;
      // the journal's key of the target, from the word by one native call (Journal.isWarmedAddress builds it in a JS loop, twice)
      const key = addressKeyOf(word);
      // kept for the operation, which pops the same word next (callOp)
      lastTarget.word = word;
      lastTarget.bytes = to;
      lastTarget.key = key;
      lastTarget.code = undefined;
      const toWarm = isWarmAddressHex(journal, key);
      gas += toWarm ? warm : cold;
      if (!toWarm) journal.addWarmedAddress(to);
      if (value !== 0n) gas += valueGas;
      const sm = rs.stateManager as FlatStateManager;
      if (newAccountCheck && value !== 0n) {
        const account = sm.getAccountSync(to);
        if (account === undefined || account.isEmpty()) gas += newAccountGas;
      }
      if (eip7702) {
        const code = sm.getCodeSync(to);
        lastTarget.code = code;
        lastTarget.sm = sm;
        if (code.length >= 3 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00) {
          const delegation = code.slice(3, 24);
          gas += journal.isWarmedAddress(delegation) ? warm : cold;
          if (!journal.isWarmedAddress(delegation)) journal.addWarmedAddress(delegation);
        }
      }
      const left = rs.gasLeft - gas;
      const allowed = left - left / 64n;
      const gasLimit = currentGasLimit > allowed ? allowed : currentGasLimit;
      if (gasLimit > left) outOfGas();
      if (gas > rs.gasLeft) outOfGas();
      rs.lastCallNewAccountStateGas = 0n;
      rs.messageGasLimit = gasLimit;
      return gas;
    };
  const map = evm._opcodeMap;
  const handlers: [number, ReturnType<typeof make>][] = [
    [0xf1, make(true, true, true)],
    [0xf2, make(true, false, false)],
    [0xf4, make(false, false, false)],
    [0xfa, make(false, false, false)],
  ];
  for (const [op, fn] of handlers) {
    const e = map[op]!;
    if (e.opcodeInfo.code !== op || e.opcodeInfo.isInvalid || typeof e.gasHandler !== 'function') continue;
    map[op] = { ...e, gasHandler: fn };
  }
}
