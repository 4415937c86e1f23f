// ExecutionEngine over EthereumJS (Prague) and the flat state manager.
//
// Decisions (see also the header of ./state.ts for stateRoot and ./budget.ts for the budget):
// - Transactions run through @ethereumjs/vm runTx with skipNonce/skipBalance false; buildBlock/runBlock
//   are never used. The engine checks the execution-time rejection rules itself first (gas limit vs block
//   gas left, fee fields, nonce, EIP-3607, balance for gasLimit * maxFee + value) so each gets a stable
//   code; anything runTx still throws (intrinsic gas too low, ...) is mapped to a RejectedOutcome too.
//   A plain value transfer in a block (no calldata, no access list, to an account without code that is not
//   a precompile) skips runTx: ./transfer.ts writes the same balance, nonce and EIP-161 changes itself. Other
//   transactions take ./run_tx.ts (runTx's steps without the transaction object) where runTx could not
//   throw before execution, and runTx itself otherwise.
// - The sender is never recovered here: the EthereumJS transaction is built unsigned and its
//   getSenderAddress returns ExecTx.from (getSenderPublicKey throws, so a recovery attempt would fail loudly).
// - Fees as on Ethereum: effective gas price = min(maxFee, baseFee + priority) (gas price for types 0/1),
//   the sender pays gasUsed * price, BlockEnv.coinbase receives gasUsed * (price - baseFee) and the base
//   fee part is burned. The chain chooses the coinbase (a configured fee recipient or the zero address).
// - Prague block-level system operations are not run: no EIP-2935 history contract, no EIP-4788 beacon
//   root, no EIP-7002/7251 request contracts (there is no beacon chain; runBlock is not used). BLOCKHASH
//   (EIP-7709 is not part of Prague) asks the blockchain object, which here answers from the engine's
//   `blockHash` callback for the 256 blocks below the current one (0 when unknown).
// - BLOBBASEFEE returns 1 (the minimum; blob transactions are rejected, excess blob gas is always 0).
// - A transaction whose receipt would carry more than MAX_LOGS_PER_TX logs or more than
//   MAX_LOG_BYTES_PER_TX bytes of log data and topics, or that exhausts its instruction budget, is included
//   as failed: all its effects undone, nonce bumped, all gas charged (exec.halt.too_many_logs /
//   exec.halt.too_many_log_bytes / exec.halt.instruction_budget). LOG4 is the widest log opcode, so a log
//   never has more than MAX_LOG_TOPICS (4) topics.
// - A failure whose top-level target is a precompile is exec.halt.precompile_error; REVERT is
//   exec.reverted with the revert data in returnData; every other exceptional halt is exec.halt.

import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import {
  type TypedTransaction,
  createAccessList2930Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  paramsTx,
} from '@ethereumjs/tx';
import { Address as EthAddress, KECCAK256_NULL, bigIntToBytes, generateAddress } from '@ethereumjs/util';
import { type RunTxResult, type VM, createVM, runTx } from '@ethereumjs/vm';
import { MAX_LOG_BYTES_PER_TX, MAX_LOGS_PER_TX, TX_INSTRUCTION_BUDGET } from '../constants.js';
import type {
  Address,
  BlockEnv,
  Bytes32,
  CallOptions,
  ExecLog,
  ExecTx,
  ExecutionEngine,
  IncludedOutcome,
  RejectedOutcome,
  TxOutcome,
} from '../engine.js';
import { ErrorCode } from '../errors.js';
import type { CoreHost } from '../host.js';
import { MemoryId } from '../store/memory_ids.js';
import { COMMITMENT_VERSION_UNMARKED, storedCommitmentVersion, type CommitmentVersion } from '../chain/commitments.js';
import {
  InstructionBudget,
  InstructionBudgetExceeded,
  PrecompileNotReady,
  TAIL_RESERVE_INSTRUCTIONS,
  TooManyLogBytes,
  TooManyLogs,
  FRAME_RESERVE_INSTRUCTIONS,
  instrumentOpcodes,
  instrumentPrecompiles,
  keccakReserve,
} from './budget.js';
import { createChainCommon } from './common.js';
import { checkEvmInternals, checkJournalCleanup, fastAlwaysWarmAddress, memoizeCommonLookups, opcodeMap, precompileMap, resetEvmAfterAbort } from './internals.js';
import { isWarm } from './warmup.js';
import { analyseCode, installFastInterpreter, interpreterPrototype } from './interpreter.js';
import { compileQueued } from './interpreter_compiled.js';
import { installCallFrames, installCallGas } from './call_frame.js';
import { installAccountOps } from './account_ops.js';
import { decodeAccountNonce, toHex } from './encoding.js';
import { FlatStateManager, chainStateChanges, readHeadAccount } from './state.js';
import { type GasWatch, knownReadsNoGas, noteCode, queueCode, scanQueued, watchGasReaders } from './gas_left.js';
import { applyAccountChangeToMaps } from './account_change.js';
import { encodeStateChanges, type AccountChange } from '../export/state_changes.js';
import { runPlainTransfer } from './transfer.js';
import { type LeanRunTxParams, type TopLevelCall, leanRunTx, leanRunTxParams, warmStateOf } from './run_tx.js';
import { countZeroBytes } from '../tx/intrinsic.js';
import { latin1Key } from '../codec/bytes.js';

export interface EvmEngineOptions {
  readonly host: CoreHost;
  /** Hash of an earlier block, for BLOCKHASH; only asked for the 256 blocks below the current one. */
  readonly blockHash?: (number: bigint) => Bytes32 | undefined;
  /** Instructions one transaction may spend (default TX_INSTRUCTION_BUDGET). */
  readonly txInstructionBudget?: bigint;
  /** Opcode steps between counter reads (default budget.ts DEFAULT_CHECK_INTERVAL). */
  readonly checkInterval?: number;
  /** EthereumJS's own run loop instead of ./interpreter.ts (default false; tests compare the two). */
  readonly stockInterpreter?: boolean;
  /** EthereumJS's own runCall for inner call frames instead of ./call_frame.ts (default false; tests compare the two). */
  readonly stockFrames?: boolean;
  /** Plain value transfers through runTx too, instead of ./transfer.ts (default false; tests compare the two). */
  readonly stockTransfers?: boolean;
  /** Every transaction through EthereumJS's runTx, instead of ./run_tx.ts where it applies (default false; tests compare the two). */
  readonly stockRunTx?: boolean;
  /** Tests: the fast loop interprets every step, never calling compiled runs of pure operations (interpreter_compiled.ts). */
  readonly noCompiledCode?: boolean;
  /**
   * Refuse table-building precompiles (BN254 pairing, KZG, BLS12 pairing) inside transactions and calls until
   * their warm-up step ran (warmup.ts), with exec.halt.precompile_not_ready, instead of building the tables
   * inside a transaction's budget. The canister sets it; Node tools and tests need not.
   */
  readonly requireWarmUp?: boolean;
  /** The EthereumJS Common to run with (default createChainCommon(): Prague, CHAIN_ID); the conformance runner passes Cancun. */
  readonly common?: Common;
}

/** One VM with its own state manager and budget: the block executor, and a separate one for eth_call. */
interface Executor {
  readonly vm: VM;
  readonly sm: FlatStateManager;
  readonly budget: InstructionBudget;
  precompiles: Set<string>;
  /** The gas readers' handlers note themselves in sm.storeWatch (gas_left.ts watchGasReaders). */
  readonly watchesGas: boolean;
  /** The transaction's top-level call and its checks, for run_tx.ts (which runs them without the wrapper). */
  readonly top: TopLevelCall;
}

interface OpenBlock {
  readonly env: BlockEnv;
  readonly ethBlock: Block;
  gasUsed: bigint;
}

const ZERO32 = new Uint8Array(32);
const DELEGATION_PREFIX = [0xef, 0x01, 0x00];

export async function createEvmEngine(opts: EvmEngineOptions): Promise<EvmEngine> {
  const common = opts.common ?? createChainCommon();
  memoizeCommonLookups(common);
  const probe = Uint8Array.from({ length: 20 }, (_, i) => (i * 37 + 171) & 0xff);
  if (addressOf(probe).toString() !== new EthAddress(probe).toString()) {
    throw new Error('EthereumJS Address.toString changed its format (engine.ts addressOf)');
  }
  const maps = {
    accounts: opts.host.openMap(MemoryId.Accounts),
    code: opts.host.openMap(MemoryId.Code),
    storage: opts.host.openMap(MemoryId.Storage),
  };
  const blockchain: EVMMockBlockchainInterface = {
    getBlock: async (n: number) => {
      const h = opts.blockHash?.(BigInt(n)) ?? ZERO32;
      return { hash: () => h };
    },
    putBlock: async () => undefined,
    shallowCopy() {
      return this;
    },
  };
  const counter = (): bigint => opts.host.instructionCounter();
  // One code cache for both executors; code a block stores is analysed for the interpreter at commit (about
  // instructions grow with the code's bytes, once per contract instead of in every eth_call of it).
  const codeCache = new Map<string, Uint8Array>();
  const makeExecutor = async (forCalls: boolean): Promise<Executor> => {
    const budget = new InstructionBudget(counter, opts.checkInterval);
    const hooks = {
      beforeCodeHash: (len: number) => budget.require(keccakReserve(len)),
      codeStored: (code: Uint8Array) => {
        analyseCode(code);
        noteCode(code);
      },
      // code read from the stable map is scanned after the next block (afterBlock), outside any transaction;
      // what a query queues is discarded with its heap
      codeLoaded: queueCode,
    };
    const sm = new FlatStateManager(maps, hooks, codeCache);
    const vm = await createVM({
      common,
      stateManager: sm as never,
      blockchain,
    });
    checkEvmInternals(vm.evm);
    fastAlwaysWarmAddress(vm.evm);
    instrumentOpcodes(vm.evm, budget);
    const fast = opts.stockInterpreter !== true && (await installFastInterpreter(vm.evm, budget, opts.noCompiledCode !== true));
    instrumentPrecompiles(vm.evm, common, budget, opts.requireWarmUp === true ? isWarm : undefined);
    // call frames set up by call_frame.ts (relies on the fast loop's EIP checks), inside the top-level checks,
    // which must wrap the transaction's frame whichever path runs it
    if (fast && opts.stockFrames !== true) {
      installCallFrames(vm.evm, interpreterPrototype()!, () => budget.require(FRAME_RESERVE_INSTRUCTIONS));
      installCallGas(vm.evm);
      installAccountOps(vm.evm, () => budget.tick());
    }
    const top = instrumentTopLevel(vm, budget);
    // last, outside every other wrapper of these handlers
    if (forCalls) watchGasReaders(opcodeMap(vm.evm), () => sm.storeWatch);
    const precompiles = new Set(precompileMap(vm.evm).keys());
    await checkJournalCleanup(vm.evm.journal);
    return { vm, sm, budget, precompiles, watchesGas: forCalls, top };
  };
  return new EvmEngine(opts, common, await makeExecutor(false), await makeExecutor(true));
}

/**
 * Checks made when the top-level frame returns, before runTx builds the receipt: the log limits (count, and
 * bytes of data and topics: the block hashes every surviving log byte after its last transaction), and the
 * budget for the bloom (a keccak per log address and topic) and the rest of runTx. EVM.runCall is wrapped
 * for runTx; run_tx.ts calls the unwrapped one and the checks itself (one async function fewer a transaction).
 */
function instrumentTopLevel(vm: VM, budget: InstructionBudget): TopLevelCall {
  const evm = vm.evm as unknown as { runCall(o: { message?: unknown }): Promise<RunCallResult> };
  const runCall = evm.runCall.bind(evm);
  const check = (r: RunCallResult): void => {
    const logs = r.execResult.logs ?? [];
    if (logs.length > MAX_LOGS_PER_TX) throw new TooManyLogs(logs.length);
    let hashes = 0;
    let bytes = 0;
    for (let i = 0; i < logs.length; i++) {
      const l = logs[i]!;
      hashes += 1 + l[1].length;
      bytes += l[2].length + 32 * l[1].length;
    }
    if (bytes > MAX_LOG_BYTES_PER_TX) throw new TooManyLogBytes(bytes);
    budget.require(TAIL_RESERVE_INSTRUCTIONS + BigInt(hashes) * keccakReserve(32));
  };
  evm.runCall = async (o) => {
    const r = await runCall(o);
    if (o.message === undefined) check(r);
    return r;
  };
  return { run: runCall as unknown as TopLevelCall['run'], check: check as unknown as TopLevelCall['check'] };
}

/** Whether SSTORE_SET and SSTORE_RESET (EIP-2200, as EIP-2929 prices them) are both above the stipend. */
function firstChangeAboveStipend(common: Common): boolean {
  if (!common.gteHardfork('istanbul') || !common.isActivatedEIP(2929)) return false;
  const sentry = common.param('sstoreSentryEIP2200Gas');
  return common.param('sstoreInitEIP2200Gas') > sentry && common.param('sstoreCleanEIP2200Gas') > sentry;
}

type EthLog = [Uint8Array, Uint8Array[], Uint8Array];
interface RunCallResult {
  execResult: { logs?: EthLog[] };
}

export class EvmEngine implements ExecutionEngine {
  private block: OpenBlock | undefined;
  private readonly budget: bigint;
  private readonly txCommon: Common;
  /** Intrinsic gas of a transaction without calldata or access list; undefined: no plain-transfer path. */
  private readonly plainTransferGas: bigint | undefined;
  private readonly lean: LeanRunTxParams | undefined;
  /** The chain's commitment version once the install has written it (fixed for the chain's life). */
  private commitmentVersion: CommitmentVersion | undefined;
  /** EIP-2200's two first-change costs are above its stipend (the estimate's one-run answer relies on it). */
  private readonly firstChangeAboveStipend: boolean;

  constructor(
    private readonly opts: EvmEngineOptions,
    readonly common: Common,
    private readonly blockExec: Executor,
    private readonly callExec: Executor,
  ) {
    this.budget = opts.txInstructionBudget ?? TX_INSTRUCTION_BUDGET;
    this.txCommon = sharedTxCommon(common);
    this.plainTransferGas = opts.stockTransfers === true ? undefined : plainTransferGas(this.txCommon);
    this.lean = opts.stockRunTx === true ? undefined : leanRunTxParams(this.txCommon, blockExec.vm.common, blockExec.vm.evm.precompiles);
    // each journal's kept always-warm map made now (an update message), not in a query
    if (this.lean !== undefined) for (const e of [blockExec, callExec]) warmStateOf(e.vm.evm.journal, this.lean);
    this.firstChangeAboveStipend = firstChangeAboveStipend(blockExec.vm.evm.common);
  }

  /** The VM that runs block transactions (warm-up and diagnostics). */
  get vm(): VM {
    return this.blockExec.vm;
  }

  beginBlock(env: BlockEnv): void {
    if (this.block !== undefined) throw new Error('beginBlock: a block is already open');
    this.blockExec.sm.discard();
    this.block = { env, ethBlock: makeEthBlock(env, this.common), gasUsed: 0n };
  }

  // Not async: execute's promise itself (it adds an included transaction's gas to the block), one async
  // function level fewer a transaction.
  runTx(tx: ExecTx): Promise<TxOutcome> {
    const blk = this.block;
    if (blk === undefined) return Promise.reject(new Error('runTx: no open block'));
    return this.execute(this.blockExec, tx, blk, false, this.budget);
  }

  async commitBlock(): Promise<{ readonly stateRoot: Bytes32 }> {
    if (this.block === undefined) throw new Error('commitBlock: no open block');
    const stateRoot = this.blockExec.sm.commitToMaps(this.commitment());
    this.block = undefined;
    return { stateRoot };
  }

  abortBlock(): void {
    this.blockExec.sm.discard();
    this.block = undefined;
  }

  afterBlock(): void {
    // Outside every transaction's budget and the block's finalisation: compile code the fast loop met, a bounded amount.
    compileQueued();
    scanQueued();
  }

  /** Gas used so far by the open block's included transactions. */
  get blockGasUsed(): bigint {
    return this.block?.gasUsed ?? 0n;
  }

  /**
   * eth_call / eth_estimateGas at head: a separate VM and state cache, discarded afterwards, same budget.
   * Nonce and balance are not checked (EthereumJS tops the balance up to the cost); a transaction with
   * maxFeePerGas 0 runs with base fee 0. What a block would reject (intrinsic gas too low, ...) comes
   * back as status 0 with gasUsed 0 and that rejection's code.
   */
  async call(tx: ExecTx, env: BlockEnv, opts: CallOptions = {}): Promise<IncludedOutcome> {
    const ex = this.callExec;
    ex.sm.discard();
    const callEnv = tx.maxFeePerGas === 0n ? { ...env, baseFeePerGas: 0n } : env;
    const blk: OpenBlock = { env: callEnv, ethBlock: makeEthBlock(callEnv, this.common), gasUsed: 0n };
    try {
      const out = await this.execute(ex, tx, blk, true, opts.instructionBudget ?? this.budget, opts.checkGasUsedRun === true);
      if (out.kind === 'included') return out;
      return {
        kind: 'included',
        status: 0,
        gasUsed: 0n,
        logs: [],
        contractAddress: undefined,
        returnData: new Uint8Array(0),
        failure: { code: out.code, message: out.message },
        instructions: 0n,
      };
    } finally {
      ex.sm.discard();
    }
  }

  getBalance(address: Address): bigint {
    return readHeadAccount(this.blockExec.sm.maps.accounts, address)?.balance ?? 0n;
  }
  getNonce(address: Address): bigint {
    const raw = this.blockExec.sm.maps.accounts.get(address);
    return raw === undefined ? 0n : decodeAccountNonce(raw);
  }
  getCode(address: Address): Uint8Array {
    const rec = readHeadAccount(this.blockExec.sm.maps.accounts, address);
    if (rec?.codeHash === undefined) return new Uint8Array(0);
    return this.blockExec.sm.maps.code.get(rec.codeHash) ?? new Uint8Array(0);
  }
  getStorage(address: Address, slot: Bytes32): Bytes32 {
    const out = new Uint8Array(32);
    const rec = readHeadAccount(this.blockExec.sm.maps.accounts, address);
    if (rec === undefined) return out;
    const sk = new Uint8Array(56);
    sk.set(address, 0);
    sk[20] = (rec.gen >>> 24) & 0xff;
    sk[21] = (rec.gen >>> 16) & 0xff;
    sk[22] = (rec.gen >>> 8) & 0xff;
    sk[23] = rec.gen & 0xff;
    sk.set(slot, 24);
    const v = this.blockExec.sm.maps.storage.get(sk);
    if (v !== undefined) out.set(v, 32 - v.length);
    return out;
  }

  applyStateChange(change: AccountChange): void {
    if (this.block !== undefined) throw new Error('applyStateChange: a block is open');
    applyAccountChangeToMaps(this.blockExec.sm.maps, change);
  }

  chainStateChanges(encoded: Uint8Array): Bytes32 {
    // Allowed with a block open (before its commitBlock): the root is not part of the block's cache.
    return chainStateChanges(this.blockExec.sm.maps.accounts, encoded, this.commitment());
  }

  /** The hash of the state root chain (chain/commitments.ts): the Meta key, read until the install wrote it. */
  private commitment(): CommitmentVersion {
    if (this.commitmentVersion !== undefined) return this.commitmentVersion;
    const v = storedCommitmentVersion(this.opts.host.openMap(MemoryId.Meta));
    this.commitmentVersion = v;
    return v ?? COMMITMENT_VERSION_UNMARKED;
  }

  setGenesisBalance(address: Address, balance: bigint): void {
    const c: AccountChange = { address, balance, storage: [] };
    this.applyStateChange(c);
    this.chainStateChanges(encodeStateChanges([c]));
  }

  setGenesisCode(address: Address, code: Uint8Array): void {
    // A contract account's nonce starts at 1 (EIP-161), as the deployed originals' did.
    const nonce = this.getNonce(address);
    const c: AccountChange = { address, code, nonce: nonce > 1n ? nonce : 1n, storage: [] };
    this.applyStateChange(c);
    this.chainStateChanges(encodeStateChanges([c]));
  }

  /** The state root recorded by the last commitBlock (or genesis credits). */
  headStateRoot(): Bytes32 {
    return this.blockExec.sm.headStateRoot();
  }

  // ---- execution ----

  private async execute(
    ex: Executor,
    tx: ExecTx,
    blk: OpenBlock,
    isCall: boolean,
    budget: bigint,
    checkGasUsedRun = false,
  ): Promise<TxOutcome> {
    const start = ex.budget.begin(budget);
    let watch: GasWatch | undefined;
    try {
      const env = blk.env;
      if (!isCall && tx.gasLimit > env.gasLimit - blk.gasUsed) {
        return rejected(ErrorCode.SubmitGasLimitExceedsBlock, `gas limit ${tx.gasLimit} exceeds the block gas left`);
      }
      if (tx.maxPriorityFeePerGas > tx.maxFeePerGas) {
        return rejected(ErrorCode.SubmitInvalidFee, 'max priority fee exceeds max fee');
      }
      if (tx.maxFeePerGas < env.baseFeePerGas) {
        return rejected(ErrorCode.SubmitInvalidFee, `max fee ${tx.maxFeePerGas} below base fee ${env.baseFeePerGas}`);
      }
      const sender = ex.sm.getAccountRecord(tx.from);
      if (!isCall) {
        const nonce = sender?.nonce ?? 0n;
        if (tx.nonce < nonce) return rejected(ErrorCode.SubmitNonceTooLow, `nonce ${tx.nonce} below account nonce ${nonce}`);
        if (tx.nonce > nonce) return rejected(ErrorCode.SubmitNonceGap, `nonce ${tx.nonce} above account nonce ${nonce}`);
        const maxCost = tx.value + tx.gasLimit * tx.maxFeePerGas;
        if ((sender?.balance ?? 0n) < maxCost) {
          return rejected(ErrorCode.SubmitInsufficientFunds, `balance below gas limit * max fee + value (${maxCost})`);
        }
      }
      if (sender?.codeHash !== undefined) {
        const code = ex.sm.getCodeSync(tx.from);
        const delegated =
          this.common.isActivatedEIP(7702) && code.length === 23 && DELEGATION_PREFIX.every((b, i) => code[i] === b);
        if (!delegated) return rejected(ErrorCode.ExecRejectedSenderNotEoa, 'sender has code (EIP-3607)');
      }
      if (!isCall && this.plainTransferGas !== undefined) {
        const plain = runPlainTransfer(ex.sm, tx, env, this.plainTransferGas);
        if (plain !== undefined) {
          blk.gasUsed += plain.gasUsed;
          return { ...plain, instructions: this.opts.host.instructionCounter() - start };
        }
      }
      const mark = ex.sm.mark();
      ex.sm.originalStorageCache.clear();
      // A call to code known to have no GAS (gas_left.ts), not to a precompile: its other gas readers and its storage
      // writes are watched (the eth_call executor's opcode table, the state manager).
      if (checkGasUsedRun && ex.watchesGas && this.firstChangeAboveStipend && tx.to !== undefined && !ex.precompiles.has(toHex(tx.to)) && knownReadsNoGas(ex.sm.getCodeSync(tx.to))) {
        watch = { reader: false, unknownStore: false, lastIsFirstChange: true };
        ex.sm.storeWatch = watch;
      }
      let res: { execResult: RunTxResult['execResult']; totalGasSpent: bigint; gasRefund?: bigint; bloom?: RunTxResult['bloom'] };
      try {
        const lean =
          this.lean === undefined
            ? undefined
            : isCall
              ? await leanRunTx(ex.vm, this.lean, ex.top, tx, addressOf(tx.from), tx.to === undefined ? undefined : addressOf(tx.to), blk.ethBlock, true, sender)
              : await leanRunTx(ex.vm, this.lean, ex.top, tx, txAddressOf(tx.from), tx.to === undefined ? undefined : txAddressOf(tx.to), blk.ethBlock, false, sender);
        if (lean !== undefined) res = lean as unknown as typeof res;
        else {
          let ethTx: TypedTransaction;
          try {
            ethTx = this.buildTx(tx);
          } catch (e) {
            return rejected(ErrorCode.ArgInvalid, `invalid transaction: ${(e as Error).message}`);
          }
          res = await runTx(ex.vm, {
            tx: ethTx,
            block: blk.ethBlock,
            skipHardForkValidation: true,
            skipBlockGasLimitValidation: true,
            skipNonce: isCall,
            skipBalance: isCall,
            blockGasUsed: blk.gasUsed,
          });
        }
      } catch (e) {
        ex.sm.rollbackTo(mark);
        resetEvm(ex.vm);
        if (e instanceof InstructionBudgetExceeded || e instanceof TooManyLogs || e instanceof TooManyLogBytes || e instanceof PrecompileNotReady) {
          ex.budget.end();
          const halted = this.settleHalted(ex, tx, env, e.code, e.message, start);
          if (!isCall) blk.gasUsed += halted.gasUsed;
          return halted;
        }
        const msg = (e as Error).message ?? String(e);
        if (msg.includes('INTRINSIC_GAS_TOO_LOW')) return rejected(ErrorCode.SubmitIntrinsicGas, msg);
        return rejected(ErrorCode.ExecRejected, msg);
      }
      const err = res.execResult.exceptionError;
      const status: 0 | 1 = err === undefined ? 1 : 0;
      let failure: IncludedOutcome['failure'];
      if (err !== undefined) {
        if (err.error === 'revert') failure = { code: ErrorCode.ExecReverted, message: 'execution reverted' };
        else if (tx.to !== undefined && ex.precompiles.has(toHex(tx.to))) {
          failure = { code: ErrorCode.ExecHaltPrecompileError, message: err.error };
        } else failure = { code: ErrorCode.ExecHalt, message: err.error };
      }
      // An index loop, no destructuring (an array pattern runs the iterator protocol in QuickJS)
      const ethLogs: EthLog[] = res.execResult.logs ?? [];
      const logs: ExecLog[] = [];
      for (let i = 0; i < ethLogs.length; i++) {
        const l = ethLogs[i]!;
        logs.push({ address: l[0], topics: l[1], data: l[2] });
      }
      if (!isCall) blk.gasUsed += res.totalGasSpent;
      return {
        kind: 'included',
        status,
        gasUsed: res.totalGasSpent,
        logs,
        contractAddress: tx.to === undefined ? generateAddress(tx.from, bigIntToBytes(tx.nonce)) : undefined,
        returnData: res.execResult.returnValue,
        failure,
        instructions: this.opts.host.instructionCounter() - start,
        logsBloom: res.bloom?.bitvector,
        gasRefund: res.gasRefund ?? 0n,
        // With limit = gasUsed the frame has (limit - gasUsed) less gas at every step. No inner frame ran, so
        // gas left only fell, and this run ended with at least that much spare (a zero refund makes gasUsed
        // all the gas it consumed, or the EIP-7623 floor above that): every charge still fits. Nothing read
        // the gas left or the sender's balance (gasLimit * gasPrice is taken from it). The stipend check
        // (gas left > 2300) passes before every write if it passes before the last, whose own cost
        // (SSTORE_SET or SSTORE_RESET) is above 2300.
        sameAtGasUsed:
          watch === undefined
            ? undefined
            : status === 1 &&
              // the frame's refund and runTx's total (which would also hold an EIP-7702 authorization refund)
              (res.execResult.gasRefund ?? 0n) === 0n &&
              (res.gasRefund ?? 0n) === 0n &&
              !watch.reader &&
              !watch.unknownStore &&
              watch.lastIsFirstChange,
      };
    } finally {
      ex.sm.storeWatch = undefined;
      ex.budget.end();
    }
  }

  /** A transaction stopped from outside EthereumJS: its effects are gone; charge all gas, bump the nonce. */
  private settleHalted(
    ex: Executor,
    tx: ExecTx,
    env: BlockEnv,
    code: ErrorCode,
    message: string,
    start: bigint,
  ): IncludedOutcome {
    const price =
      tx.type === 2
        ? min(tx.maxFeePerGas, env.baseFeePerGas + tx.maxPriorityFeePerGas)
        : tx.maxFeePerGas;
    const fee = tx.gasLimit * price;
    const sender = ex.sm.getAccountRecord(tx.from);
    const balance = (sender?.balance ?? 0n) - fee;
    ex.sm.putAccountSync(
      tx.from,
      (sender?.nonce ?? 0n) + 1n,
      balance < 0n ? 0n : balance,
      sender?.codeHash ?? KECCAK256_NULL,
    );
    const tip = tx.gasLimit * (price - env.baseFeePerGas);
    if (tip > 0n) {
      const cb = ex.sm.getAccountRecord(env.coinbase);
      ex.sm.putAccountSync(env.coinbase, cb?.nonce ?? 0n, (cb?.balance ?? 0n) + tip, cb?.codeHash ?? KECCAK256_NULL);
    }
    ex.sm.originalStorageCache.clear();
    return {
      kind: 'included',
      status: 0,
      gasUsed: tx.gasLimit,
      logs: [],
      contractAddress: tx.to === undefined ? generateAddress(tx.from, bigIntToBytes(tx.nonce)) : undefined,
      returnData: new Uint8Array(0),
      failure: { code, message },
      instructions: this.opts.host.instructionCounter() - start,
    };
  }

  private buildTx(tx: ExecTx): TypedTransaction {
    const opts = { common: this.txCommon, freeze: false };
    const base = {
      nonce: num(tx.nonce),
      gasLimit: tx.gasLimit,
      to: tx.to === undefined ? undefined : addressOf(tx.to),
      value: num(tx.value),
      data: tx.data,
    };
    const accessList = tx.accessList.map(([a, slots]) => [a, [...slots]] as [Uint8Array, Uint8Array[]]);
    let ethTx: TypedTransaction;
    if (tx.type === 0) ethTx = createLegacyTx({ ...base, gasPrice: num(tx.maxFeePerGas) }, opts);
    else if (tx.type === 1) ethTx = createAccessList2930Tx({ ...base, gasPrice: num(tx.maxFeePerGas), accessList }, opts);
    else {
      ethTx = createFeeMarket1559Tx(
        { ...base, maxFeePerGas: num(tx.maxFeePerGas), maxPriorityFeePerGas: num(tx.maxPriorityFeePerGas), accessList },
        opts,
      );
    }
    const sender = addressOf(tx.from);
    Object.defineProperty(ethTx, 'getSenderAddress', { value: () => sender });
    Object.defineProperty(ethTx, 'getSenderPublicKey', {
      value: () => {
        throw new Error('sender recovery is not allowed during execution');
      },
    });
    primeDataGas(ethTx, tx.data, tx.to === undefined);
    // Frozen as EthereumJS freezes transactions by default (freeze: false above only lets the two methods be
    // defined first): a frozen transaction caches its data gas, which runTx otherwise recomputes (a loop of
    // bigint additions over the calldata) for each of its two getIntrinsicGas calls.
    Object.freeze(ethTx);
    return ethTx;
  }
}

/**
 * The Common every transaction object of this engine carries. EthereumJS's transaction constructors copy
 * the Common they are given and merge the transaction parameters into the copy (a JSON round trip per EIP
 * and a rebuild of the whole parameter cache): in V8 about half of a value transfer's runTx, in QuickJS
 * millions of instructions a transaction. Here that is done once: one copy with the parameters merged,
 * whose copy() returns itself and whose updateParams(paramsTx) is a no-op (transactions never change their
 * Common: runTx runs with skipHardForkValidation and the engine's own VM Common). Checked at start-up:
 * a transaction built with it carries exactly this Common and the merged parameters.
 */
function sharedTxCommon(common: Common): Common {
  const c = common.copy();
  c.updateParams(paramsTx);
  memoizeCommonLookups(c);
  const merged = c.param('txGas');
  Object.defineProperty(c, 'copy', { value: () => c });
  Object.defineProperty(c, 'updateParams', {
    value: (params: unknown) => {
      if (params !== paramsTx) throw new Error('sharedTxCommon: only the transaction parameters are merged here');
    },
  });
  const probe = createFeeMarket1559Tx({ gasLimit: 21000n, maxFeePerGas: 1n }, { common: c, freeze: false });
  if ((probe as unknown as { common: unknown }).common !== c || probe.common.param('txGas') !== merged || merged !== 21000n) {
    throw new Error('EthereumJS transaction constructors changed how they take their Common (engine.ts sharedTxCommon)');
  }
  return c;
}

/**
 * Fills the calldata gas cache EthereumJS's getDataGas reads on a transaction (its own cache, kept there for
 * frozen transactions): getDataGas otherwise adds a bigint per calldata byte on its first call, a bigint
 * operation a byte in the canister; countZeroBytes counts by 32-bit words. Same formula: zero and non-zero
 * byte prices, plus EIP-3860 initcode words for a creation (the access list part is added by the caller).
 */
export function primeDataGas(ethTx: TypedTransaction, data: Uint8Array, create: boolean): void {
  const c = ethTx.common;
  const zeros = countZeroBytes(data);
  let cost = BigInt(zeros) * c.param('txDataZeroGas') + BigInt(data.length - zeros) * c.param('txDataNonZeroGas');
  if (create && c.isActivatedEIP(3860)) cost += c.param('initCodeWordGas') * BigInt(Math.ceil(data.length / 32));
  (ethTx as unknown as { cache: { dataFee?: { value: bigint; hardfork: string } } }).cache.dataFee = { value: cost, hardfork: c.hardfork() };
}

/**
 * The gas of a plain value transfer (transfer.ts) under `common`, or undefined where runTx does more for one than
 * transfer.ts writes: EIPs that price the recipient or the value apart (2780, 8037), log transfers (7708), record
 * block access lists (7928) or witnesses (6800, 7864), or a fork before EIP-1559's fee split.
 */
function plainTransferGas(common: Common): bigint | undefined {
  if (!common.isActivatedEIP(1559) || [2780, 6800, 7708, 7864, 7928, 8037].some((e) => common.isActivatedEIP(e))) return undefined;
  const probe = createFeeMarket1559Tx({ to: new Uint8Array(20).fill(0x11), gasLimit: 21000n, maxFeePerGas: 1n }, { common, freeze: false });
  const gas = common.param('txGas');
  return probe.getIntrinsicGas() === gas ? gas : undefined;
}

const NO_BYTES = new Uint8Array(0);
/**
 * A transaction field as EthereumJS's constructors take it. They turn every field into bytes and back
 * (toBytes, bytesToBigInt); for 0 (an eth_call's nonce, value and fees) empty bytes skip the hex string, its
 * padding and parse, and read back as 0n just the same.
 */
const num = (v: bigint): bigint | Uint8Array => (v === 0n ? NO_BYTES : v);

function rejected(code: RejectedOutcome['code'], message: string): RejectedOutcome {
  return { kind: 'rejected', code, message };
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/** Clears what an aborted runTx leaves behind in the EVM (open journal levels, transient storage). */
function resetEvm(vm: VM): void {
  resetEvmAfterAbort(vm.evm);
  vm.stateManager.originalStorageCache.clear();
}

/**
 * An EthereumJS Address whose toString (`0x` and lowercase hex, what Address.toString returns) is built on
 * the first call and kept: the journal turns the sender, recipient and coinbase into hex on every touch and
 * warm-set entry (a JavaScript loop over the 20 bytes each time), several times a transaction. A subclass, so
 * that no own property and closure is defined per Address (two a transaction).
 */
class HexAddress extends EthAddress {
  private hex: string | undefined = undefined;
  override toString(): `0x${string}` {
    return (this.hex ??= '0x' + toHex(this.bytes)) as `0x${string}`;
  }
}
function addressOf(bytes: Uint8Array): EthAddress {
  return new HexAddress(bytes);
}

/**
 * A block transaction's sender or recipient Address, kept by its bytes (a latin1 key, one native call) with
 * its hex: a block's transactions come from a few senders to a few contracts, and each new Address and hex is
 * a JavaScript loop over 20 bytes (about 30 K instructions). Own copies of the bytes (nothing keeps the stored
 * record alive); Addresses are immutable. Bounded; not used by eth_call, whose heap changes are discarded.
 */
const txAddresses = new Map<string, EthAddress>();
const TX_ADDRESSES_MAX = 4096;
function txAddressOf(bytes: Uint8Array): EthAddress {
  const k = latin1Key(bytes);
  let a = txAddresses.get(k);
  if (a === undefined) {
    if (txAddresses.size >= TX_ADDRESSES_MAX) txAddresses.clear();
    a = addressOf(bytes.slice());
    txAddresses.set(k, a);
  }
  return a;
}

/**
 * The coinbase Address by its bytes' array: the config hands every block the same array, so its hex (asked
 * on the journal's touches) is built once, not once a block. Addresses are immutable, so sharing one is safe.
 */
const coinbases = new WeakMap<Uint8Array, EthAddress>();
function coinbaseOf(bytes: Uint8Array): EthAddress {
  let a = coinbases.get(bytes);
  if (a === undefined) {
    a = addressOf(bytes);
    coinbases.set(bytes, a);
  }
  return a;
}

/** The block header fields EthereumJS reads during runTx, without building a real Block. */
function makeEthBlock(env: BlockEnv, common: Common): Block {
  const header = {
    number: env.number,
    timestamp: env.timestamp,
    gasLimit: env.gasLimit,
    gasUsed: 0n,
    baseFeePerGas: env.baseFeePerGas,
    coinbase: coinbaseOf(env.coinbase),
    prevRandao: env.prevRandao,
    mixHash: env.prevRandao,
    parentHash: env.parentHash,
    difficulty: 0n,
    getBlobGasPrice: () => 1n,
  };
  return { header, common } as unknown as Block;
}
