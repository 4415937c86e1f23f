// Runs one transaction in stock EthereumJS (@ethereumjs/vm runTx) with tracers attached to the EVM's events
// (step, beforeMessage, afterMessage, newContract), after the block's earlier transactions, on a state
// manager the caller gives (the state before the block). The state manager is checkpointed first and
// reverted at the end, so the caller's state is left as it was.
import { createBlock, type Block } from '@ethereumjs/block';
import type { Common, StateManagerInterface } from '@ethereumjs/common';
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, bigIntToUnpaddedBytes, generateAddress, generateAddress2, setLengthLeft } from '@ethereumjs/util';
import { createVM, runTx, type RunTxResult, type VM } from '@ethereumjs/vm';
import { pendingCallOf, refused, type PendingCall } from './refused_calls.js';
import { TraceError, TraceErrorCode, type TraceBlockContext } from './types.js';

/** A transaction to replay or trace; `from` overrides the sender (impersonated and synthetic transactions carry no usable signature). */
export interface TraceTx {
  readonly tx: TypedTransaction;
  readonly from?: Uint8Array;
  /** The hash the chain gave it, when not the transaction's own (impersonated transactions). */
  readonly hash?: Uint8Array;
  /** A call (debug_traceCall): no nonce check, and a balance short of the gas and value is topped up as geth's calls do. */
  readonly isCall?: boolean;
}

/** geth's call kinds (callTracer's `type`). */
export type CallType = 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2';

/** A message as a tracer sees it: geth's OnEnter arguments. */
export interface Enter {
  readonly depth: number;
  readonly type: CallType;
  readonly from: Uint8Array;
  /** The callee; for a create, the new contract's address (known before its init code runs). */
  readonly to: Uint8Array;
  readonly input: Uint8Array;
  readonly gas: bigint;
  /** undefined for STATICCALL (geth passes no value). */
  readonly value: bigint | undefined;
  /** undefined for a call refused before its frame started (geth still reports it as a frame). */
  readonly message?: Message;
}

export interface TxContext {
  readonly sm: StateManagerInterface;
  readonly common: Common;
  readonly block: TraceBlockContext;
  readonly tx: TypedTransaction;
  readonly from: Uint8Array;
  /** The callee, or the created contract's address. */
  readonly to: Uint8Array;
  readonly isCreate: boolean;
  /** Logs of the block's earlier transactions (the block-wide index of this transaction's first log). */
  readonly logIndexBase: number;
}

/** The hooks of one tracer; every hook is optional. A hook may throw a TraceError to stop the run. */
export interface Tracer {
  txStart?(ctx: TxContext): Promise<void> | void;
  step?(s: InterpreterStep, ctx: TxContext): Promise<void> | void;
  enter?(e: Enter, ctx: TxContext): Promise<void> | void;
  exit?(r: EVMResult, depth: number, ctx: TxContext): Promise<void> | void;
  txEnd?(r: RunTxResult, ctx: TxContext): Promise<void> | void;
}

/**
 * A change to state made at the start of a block, before its first transaction, by no transaction (genesis
 * allocations, devnet cheats): the export stream's `AccountChange` (docs/export-format.md), structurally.
 */
export interface BlockStateChange {
  readonly address: Uint8Array;
  readonly balance?: bigint;
  readonly nonce?: bigint;
  readonly code?: Uint8Array;
  readonly storage: readonly { readonly slot: Uint8Array; readonly value: Uint8Array }[];
  /** Storage is emptied before `storage` is written (a call's `state` override). */
  readonly clearStorage?: boolean;
}

/** One transaction of a run, with its tracers (none: only applied). */
export interface RunItem {
  readonly tx: TraceTx;
  readonly tracers?: readonly Tracer[];
  /** Changes applied just before this transaction (a traced call's state overrides, after the block's prefix). */
  readonly stateChanges?: readonly BlockStateChange[];
  /** This transaction's block, when not the run's (a traced call's block overrides, which the prefix does not see). */
  readonly block?: TraceBlockContext;
}

/** A block to run transactions in: the state before it, the chain's rules, its context and its own state changes. */
export interface BlockStart {
  /** The state before the block (e.g. the archive's stateAt(N - 1)); left as it was. */
  readonly stateManager: StateManagerInterface;
  /** The chain's Common (chain id, hardfork) for the VM. */
  readonly common: Common;
  readonly block: TraceBlockContext;
  /** The block's state changes outside transactions (export format 2), applied before its first transaction. */
  readonly stateChanges?: readonly BlockStateChange[];
}

export interface RunOptions extends BlockStart {
  /**
   * The block's transactions from its first up to the last one to trace, in order; those with tracers are
   * traced, the others only applied.
   */
  readonly txs: readonly RunItem[];
  /** How long each traced transaction may run (geth's `timeout` applies to each); the others are bounded by their gas. */
  readonly timeoutMs: number;
}

const CALL_OPS: Record<string, CallType> = {
  CALL: 'CALL',
  CALLCODE: 'CALLCODE',
  DELEGATECALL: 'DELEGATECALL',
  STATICCALL: 'STATICCALL',
  CREATE: 'CREATE',
  CREATE2: 'CREATE2',
};

export function ethBlock(b: TraceBlockContext, common: Common): Block {
  return createBlock(
    {
      header: {
        number: b.number,
        timestamp: b.timestamp,
        baseFeePerGas: b.baseFeePerGas,
        coinbase: b.coinbase,
        mixHash: b.prevRandao,
        gasLimit: b.gasLimit,
        difficulty: 0n,
      },
    },
    { common, skipConsensusFormatValidation: true, freeze: false },
  );
}

async function makeVm(o: RunOptions): Promise<VM> {
  const hashOf = o.block.blockHash;
  const blockchain = {
    getBlock: async (n: number) => ({ hash: () => hashOf?.(BigInt(n)) ?? new Uint8Array(32) }),
    putBlock: async () => undefined,
    shallowCopy() {
      return this;
    },
  };
  return createVM({ common: o.common, stateManager: o.stateManager, blockchain: blockchain as never });
}

function withSender(t: TraceTx): TypedTransaction {
  if (t.from === undefined) return t.tx;
  const sender = new Address(t.from);
  // A copy whose sender is given: runTx asks the transaction for its sender and never checks a signature then.
  const copy = Object.create(t.tx) as TypedTransaction;
  Object.defineProperty(copy, 'getSenderAddress', { value: () => sender });
  return copy;
}

const runOpts = (block: Block, blockGasUsed: bigint, isCall = false) => ({
  block,
  skipHardForkValidation: true,
  skipBlockGasLimitValidation: true,
  blockGasUsed,
  skipNonce: isCall,
  skipBalance: isCall,
});

function rejected(e: unknown, which: string): TraceError {
  if (e instanceof TraceError) return e;
  return new TraceError(TraceErrorCode.Rejected, `${which} could not be applied: ${(e as Error).message ?? String(e)}`);
}

/**
 * Applies the transactions in order, with their tracers attached; returns runTx's result of each. The state
 * manager is reverted to what it held before, whatever happens.
 */
export async function runTraced(o: RunOptions): Promise<RunTxResult[]> {
  const sm = o.stateManager;
  const restore = countCheckpoints(sm);
  await sm.checkpoint();
  try {
    for (const c of o.stateChanges ?? []) await applyChange(sm, c);
    const block = ethBlock(o.block, o.common);
    const vm = await makeVm(o);
    const events = vm.evm.events!;
    let tracers: readonly Tracer[] = [];
    let ctx: TxContext | undefined;
    let failure: unknown;
    let pendingType: CallType | undefined;
    // A CALL-family step not yet followed by its message: if the next step comes first, the call was refused
    // before its frame started (value above the balance, depth 1024), which geth reports as a failed frame.
    let pendingCall: PendingCall | undefined;
    let deadline = Infinity;
    /** Frames open now (the depth of the one that exits next, once it is taken off). */
    let open = 0;
    const guard = async (f: () => Promise<void> | void) => {
      if (failure !== undefined) return;
      try {
        await f();
      } catch (e) {
        failure = e;
      }
    };
    const rethrow = () => {
      if (failure !== undefined) throw failure;
    };
    const onStep = (s: InterpreterStep, resolve?: (r?: unknown) => void) => {
      void guard(async () => {
        if (Date.now() > deadline) throw new TraceError(TraceErrorCode.Timeout, 'execution timeout');
        if (pendingCall !== undefined && s.depth === pendingCall.depth) await refused(pendingCall, s.memory, tracers, ctx!);
        pendingType = CALL_OPS[s.opcode.name];
        pendingCall = pendingCallOf(s, pendingType);
        for (const t of tracers) await t.step?.(s, ctx!);
      }).then(resolve);
    };
    const onBefore = (m: Message, resolve?: (r?: unknown) => void) => {
      void guard(async () => {
        if (Date.now() > deadline) throw new TraceError(TraceErrorCode.Timeout, 'execution timeout');
        pendingCall = undefined;
        const e = await enterOf(m, m.depth === 0 ? undefined : pendingType, ctx!);
        open++;
        for (const t of tracers) await t.enter?.(e, ctx!);
      }).then(resolve);
    };
    const onAfter = (r: EVMResult, resolve?: (r?: unknown) => void) => {
      void guard(async () => {
        pendingCall = undefined;
        open--;
        for (const t of tracers) await t.exit?.(r, open, ctx!);
      }).then(resolve);
    };

    const results: RunTxResult[] = [];
    let gasUsed = 0n;
    let logIndexBase = 0;
    for (const [i, item] of o.txs.entries()) {
      const tx = withSender(item.tx);
      tracers = item.tracers ?? [];
      for (const c of item.stateChanges ?? []) await applyChange(sm, c);
      const context = item.block ?? o.block;
      const ethB = item.block === undefined ? block : ethBlock(item.block, o.common);
      let result: RunTxResult;
      if (tracers.length === 0) {
        try {
          result = await runTx(vm, { tx, ...runOpts(ethB, gasUsed, item.tx.isCall === true) });
        } catch (e) {
          throw rejected(e, `the block's transaction ${i}`);
        }
      } else {
        const from = tx.getSenderAddress().bytes;
        const isCreate = tx.to === undefined;
        const fromAccount = await sm.getAccount(new Address(from));
        const to = isCreate ? createdAddress(from, fromAccount?.nonce ?? 0n) : tx.to!.bytes;
        deadline = Date.now() + o.timeoutMs;
        ctx = { sm, common: o.common, block: context, tx, from, to, isCreate, logIndexBase };
        for (const t of tracers) await t.txStart?.(ctx);
        // Two listeners per event: the first awaits the tracers (EthereumJS waits for a two-argument
        // listener), the second throws what they threw (only a synchronous listener's exception reaches the
        // interpreter).
        // A step listener makes EthereumJS build an event per opcode (stack and memory copied): only when a
        // tracer reads steps or calls (a call's kind is the opcode that made it).
        if (tracers.some((t) => t.step !== undefined || t.enter !== undefined)) {
          events.on('step', onStep);
          events.on('step', rethrow);
        }
        events.on('beforeMessage', onBefore);
        events.on('beforeMessage', rethrow);
        events.on('afterMessage', onAfter);
        events.on('afterMessage', rethrow);
        try {
          result = await runTx(vm, { tx, ...runOpts(ethB, gasUsed, item.tx.isCall === true) });
        } catch (e) {
          throw failure ?? rejected(e, `the block's transaction ${i}`);
        } finally {
          events.removeAllListeners();
        }
        if (failure !== undefined) throw failure;
        for (const t of tracers) await t.txEnd?.(result, ctx);
      }
      results.push(result);
      gasUsed += result.totalGasSpent;
      logIndexBase += result.receipt.logs.length;
    }
    return results;
  } finally {
    await restore();
  }
}

/**
 * Counts the checkpoints taken on the state manager while a run is under way (EthereumJS takes one per
 * message); the returned function reverts every one still open and puts the methods back. A tracer's error
 * thrown deep inside a call leaves the frames' checkpoints open (EthereumJS reverts only the transaction's),
 * and reverting one level would leave the caller's state manager changed.
 */
function countCheckpoints(sm: StateManagerInterface): () => Promise<void> {
  const own = { checkpoint: sm.checkpoint, commit: sm.commit, revert: sm.revert };
  const had = { checkpoint: Object.hasOwn(sm, 'checkpoint'), commit: Object.hasOwn(sm, 'commit'), revert: Object.hasOwn(sm, 'revert') };
  let open = 0;
  sm.checkpoint = async () => {
    await own.checkpoint.call(sm);
    open++;
  };
  sm.commit = async () => {
    await own.commit.call(sm);
    open--;
  };
  sm.revert = async () => {
    await own.revert.call(sm);
    open--;
  };
  return async () => {
    try {
      while (open > 0) await sm.revert();
    } finally {
      for (const k of ['checkpoint', 'commit', 'revert'] as const) {
        if (had[k]) sm[k] = own[k] as never;
        else delete (sm as unknown as Record<string, unknown>)[k];
      }
    }
  };
}

async function applyChange(sm: StateManagerInterface, c: BlockStateChange): Promise<void> {
  const address = new Address(c.address);
  const account = (await sm.getAccount(address)) ?? new Account();
  if (c.balance !== undefined) account.balance = c.balance;
  if (c.nonce !== undefined) account.nonce = c.nonce;
  await sm.putAccount(address, account);
  if (c.code !== undefined) await sm.putCode(address, c.code);
  if (c.clearStorage === true) await sm.clearStorage(address);
  for (const { slot, value } of c.storage) await sm.putStorage(address, setLengthLeft(slot, 32), value);
}

async function enterOf(m: Message, op: CallType | undefined, ctx: TxContext): Promise<Enter> {
  const depth = m.depth;
  if (m.to === undefined) {
    const type: CallType = m.salt !== undefined ? 'CREATE2' : 'CREATE';
    const to = depth === 0 ? ctx.to : await createdFor(m, ctx.sm);
    return { depth, type, from: m.caller.bytes, to, input: m.data.slice(), gas: m.gasLimit, value: m.value, message: m };
  }
  const type: CallType = op ?? (m.delegatecall ? 'DELEGATECALL' : 'CALL');
  // DELEGATECALL and CALLCODE run the callee's code on the current contract (EthereumJS's message `to`,
  // also inside code that was itself delegate-called): geth reports the current
  // contract as `from` and the code's address as `to`.
  const from = type === 'DELEGATECALL' || type === 'CALLCODE' ? m.to.bytes : m.caller.bytes;
  const to = type === 'DELEGATECALL' || type === 'CALLCODE' ? m.codeAddress.bytes : m.to.bytes;
  return { depth, type, from, to, input: m.data.slice(), gas: m.gasLimit, value: type === 'STATICCALL' ? undefined : m.value, message: m };
}


/** The address EthereumJS gives a contract created by `m` (the caller's nonce is already incremented). */
async function createdFor(m: Message, sm: StateManagerInterface): Promise<Uint8Array> {
  if (m.salt !== undefined) return generateAddress2(m.caller.bytes, setLengthLeft(m.salt, 32), m.data);
  const nonce = (await sm.getAccount(m.caller))?.nonce ?? 1n;
  return createdAddress(m.caller.bytes, nonce - 1n);
}

export const createdAddress = (from: Uint8Array, nonce: bigint): Uint8Array => generateAddress(from, bigIntToUnpaddedBytes(nonce));
