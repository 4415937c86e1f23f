// The call tree of one transaction, as geth's OnEnter/OnExit/OnLog hooks see it: every message (calls to
// precompiles included), each SELFDESTRUCT as a frame of its own, and the logs each frame emitted (with the
// block-wide log index and the count of sub-calls before it). callTracer, 4byteTracer, the Otterscan and
// the Parity shapes are all read from it.
import type { EVMResult, InterpreterStep } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import type { RunTxResult } from '@ethereumjs/vm';
import { gethError } from './errors.js';
import { bigToBytes, memorySlice, stackAddress } from './hex.js';
import type { CallType, Enter, Tracer, TxContext } from './run.js';

export interface FrameLog {
  readonly address: Uint8Array;
  readonly topics: Uint8Array[];
  readonly data: Uint8Array;
  /** Block-wide index of the log (geth's log.Index). */
  readonly index: number;
  /** How many sub-calls of the frame came before the log. */
  readonly position: number;
}

export interface Frame {
  readonly type: CallType | 'SELFDESTRUCT';
  readonly depth: number;
  readonly from: Uint8Array;
  to: Uint8Array | undefined;
  readonly value: bigint | undefined;
  readonly gas: bigint;
  gasUsed: bigint;
  readonly input: Uint8Array;
  output: Uint8Array;
  /** geth's error text, when the frame failed. */
  error?: string;
  /** Raw EthereumJS error (`revert`, `out of gas`, ...). */
  rawError?: string;
  readonly calls: Frame[];
  readonly logs: FrameLog[];
  /** The address a create was given (kept when it failed, where geth's `to` is dropped). */
  created?: Uint8Array;
  /** Gas given to the top frame's execution (after the intrinsic cost) and what it used (Parity's numbers). */
  execGas?: bigint;
  execGasUsed?: bigint;
  /** The frame's last opcode (names an invalid opcode in the error). */
  lastOp?: { name: string; code: number; gasLeft: bigint };
}

/** Records the call tree; `onlyTop` keeps just the top frame (callTracer's onlyTopCall). */
export class FrameRecorder implements Tracer {
  root: Frame | undefined;
  private readonly stack: Frame[] = [];
  /** Logs alive now in the transaction (a failed frame's logs are dropped, as geth's journal drops them). */
  private liveLogs = 0;
  private readonly logMarks: number[] = [];

  constructor(private readonly opts: { logs: boolean; selfdestructs: boolean } = { logs: true, selfdestructs: true }) {}

  enter(e: Enter): void {
    const f: Frame = {
      type: e.type,
      depth: e.depth,
      from: e.from,
      to: e.to,
      value: e.value,
      gas: e.gas,
      gasUsed: 0n,
      input: e.input,
      output: new Uint8Array(0),
      calls: [],
      logs: [],
    };
    if (e.type === 'CREATE' || e.type === 'CREATE2') f.created = e.to;
    const parent = this.stack[this.stack.length - 1];
    if (parent === undefined) this.root = f;
    else parent.calls.push(f);
    this.stack.push(f);
    this.logMarks.push(this.liveLogs);
  }

  async step(s: InterpreterStep, ctx: TxContext): Promise<void> {
    const f = this.stack[this.stack.length - 1];
    if (f === undefined) return;
    const op = s.opcode.name;
    f.lastOp = { name: op, code: s.opcode.code, gasLeft: s.gasLeft };
    if (this.opts.logs && op.startsWith('LOG')) {
      const n = s.opcode.code - 0xa0;
      const st = s.stack;
      if (st.length < n + 2) return;
      const top = st.length - 1;
      const topics = Array.from({ length: n }, (_, i) => bigToBytes(st[top - 2 - i]!, 32));
      const data = memorySlice(s.memory, st[top]!, st[top - 1]!);
      f.logs.push({ address: s.address.bytes, topics, data, index: ctx.logIndexBase + this.liveLogs, position: f.calls.length });
      this.liveLogs++;
    } else if (this.opts.selfdestructs && op === 'SELFDESTRUCT' && s.stack.length >= 1) {
      const beneficiary = stackAddress(s.stack[s.stack.length - 1]!);
      const balance = (await ctx.sm.getAccount(new Address(s.address.bytes)))?.balance ?? 0n;
      f.calls.push({
        type: 'SELFDESTRUCT',
        depth: f.depth + 1,
        from: s.address.bytes,
        to: beneficiary,
        value: balance,
        gas: 0n,
        gasUsed: 0n,
        input: new Uint8Array(0),
        output: new Uint8Array(0),
        calls: [],
        logs: [],
      });
    }
  }

  exit(r: EVMResult): void {
    const f = this.stack.pop();
    const mark = this.logMarks.pop() ?? 0;
    if (f === undefined) return;
    const res = r.execResult;
    f.gasUsed = res.executionGasUsed;
    f.output = res.returnValue.slice();
    const err = res.exceptionError;
    if (err !== undefined) {
      this.liveLogs = mark;
      f.rawError = err.error;
      f.error = gethError(err.error, f.lastOp);
      if (f.type === 'CREATE' || f.type === 'CREATE2') f.to = undefined;
      if (err.error !== 'revert') f.output = new Uint8Array(0);
    }
  }

  txEnd(r: RunTxResult, ctx: TxContext): void {
    if (this.root === undefined) return;
    this.root.execGas = this.root.gas;
    this.root.execGasUsed = this.root.gasUsed;
    this.root.gasUsed = r.totalGasSpent;
    (this.root as { gas: bigint }).gas = ctx.tx.gasLimit;
  }
}

/** The frames in depth-first order (a frame before its sub-calls), with their path of child indexes. */
export function* walk(f: Frame, path: number[] = []): Generator<{ frame: Frame; path: number[] }> {
  yield { frame: f, path };
  for (const [i, c] of f.calls.entries()) yield* walk(c, [...path, i]);
}
