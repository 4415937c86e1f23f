// geth's default tracer, the struct logger (eth/tracers/logger/logger.go): one entry per executed opcode
// with pc, op, gas, gasCost, depth (1 at the top), stack, memory, the storage seen so far by SLOAD/SSTORE
// in the current contract, return data and the refund counter, each behind geth's option. geth's `limit`
// stops the log growing once its entries pass that many bytes; this project's own bound (maxBytes) fails
// the whole trace with TraceErrorCode.TooLarge instead of answering a truncated log without saying so.
import type { EVMResult, InterpreterStep } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import type { RunTxResult } from '@ethereumjs/vm';
import { gethError } from './errors.js';
import { bigToBytes, bytesHex, quantity, word } from './hex.js';
import type { Enter, Tracer, TxContext } from './run.js';
import { TraceError, TraceErrorCode, type StructLoggerConfig } from './types.js';

export interface StructLogJson {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  error?: string;
  stack?: string[];
  returnData?: string;
  memory?: string[];
  storage?: Record<string, string>;
  refund?: number;
}

export interface StructLoggerResult {
  gas: number;
  failed: boolean;
  returnValue: string;
  structLogs: StructLogJson[];
}

/** Bytes a struct log entry adds to the answer besides its JSON text (the separating comma). */
const ENTRY_OVERHEAD = 1;

export class StructLogger implements Tracer {
  private readonly logs: StructLogJson[] = [];
  private size = 0;
  /** Storage seen per contract (hex address -> slot -> value), as geth keeps it for the whole transaction. */
  private readonly storage = new Map<string, Map<string, string>>();
  /** Return data of the last sub-call, per open frame. */
  private readonly returnData: Uint8Array[] = [];
  private output: Uint8Array = new Uint8Array(0);
  private error: string | undefined;
  private gasUsed = 0n;

  constructor(
    private readonly config: StructLoggerConfig,
    private readonly maxBytes: number,
  ) {}

  /** Whether each open frame is a create (a create's output is its caller's return data only when it reverted). */
  private readonly creates: boolean[] = [];
  /** Whether the last step executed is in the log (`limit` may have stopped it). */
  private lastStepLogged = false;
  /** How many entries the log had when each open frame began. */
  private readonly stepsAtEnter: number[] = [];

  enter(e: Enter): void {
    this.stepsAtEnter.push(this.logs.length);
    this.returnData.push(new Uint8Array(0));
    this.creates.push(e.type === 'CREATE' || e.type === 'CREATE2');
  }

  exit(r: EVMResult, depth: number): void {
    this.returnData.pop();
    const create = this.creates.pop() === true;
    const err = r.execResult.exceptionError?.error;
    const firstStep = this.stepsAtEnter.pop() ?? 0;
    // geth names the error on the step that failed when the failure came before the opcode ran (gas, stack):
    // that is the frame's last step.
    if (err !== undefined && FAILS_BEFORE_RUNNING.has(err) && this.lastStepLogged && this.logs.length > firstStep) {
      const lastStep = this.logs[this.logs.length - 1]!;
      if (lastStep.depth === depth + 1) {
        lastStep.error = gethError(err, { name: lastStep.op, code: -1, gasLeft: BigInt(lastStep.gas) });
        const added = `,"error":${JSON.stringify(lastStep.error)}`.length;
        this.size += added;
      }
    }
    if (depth === 0) {
      this.output = r.execResult.returnValue;
      this.error = err;
      return;
    }
    const out = create && err !== 'revert' ? new Uint8Array(0) : r.execResult.returnValue;
    this.returnData[this.returnData.length - 1] = out;
  }

  async step(s: InterpreterStep, ctx: TxContext): Promise<void> {
    const limit = this.config.limit ?? 0;
    this.lastStepLogged = false;
    if (limit !== 0 && this.size > limit) return;
    const entry: StructLogJson = {
      pc: s.pc,
      op: s.opcode.name,
      gas: Number(s.gasLeft),
      gasCost: Number(gasCost(s)),
      depth: s.depth + 1,
    };
    if (this.config.disableStack !== true) entry.stack = s.stack.map((v) => quantity(v));
    if (this.config.enableReturnData === true) {
      const rd = this.returnData[this.returnData.length - 1];
      if (rd !== undefined && rd.length > 0) entry.returnData = bytesHex(rd);
    }
    if (this.config.enableMemory === true && s.memory.length > 0) {
      const words: string[] = [];
      for (let i = 0; i < s.memory.length; i += 32) words.push(bytesHex(s.memory.subarray(i, i + 32)));
      entry.memory = words;
    }
    const op = s.opcode.name;
    if (this.config.disableStorage !== true && (op === 'SLOAD' || op === 'SSTORE')) {
      const st = s.stack;
      const key = this.storage.get(bytesHex(s.address.bytes)) ?? new Map<string, string>();
      this.storage.set(bytesHex(s.address.bytes), key);
      if (op === 'SLOAD' && st.length >= 1) {
        const slot = st[st.length - 1]!;
        const value = await ctx.sm.getStorage(new Address(s.address.bytes), bigToBytes(slot, 32));
        key.set(word(slot), bytesHex(bigToBytes(bytesBig(value), 32)));
        entry.storage = Object.fromEntries(key);
      } else if (op === 'SSTORE' && st.length >= 2) {
        key.set(word(st[st.length - 1]!), word(st[st.length - 2]!));
        entry.storage = Object.fromEntries(key);
      }
    }
    if (s.gasRefund !== 0n) entry.refund = Number(s.gasRefund);
    // geth's `limit` counts the entries' JSON bytes; the answer bound counts the separating commas too.
    this.size += entryBytes(entry);
    if (this.size + this.logs.length * ENTRY_OVERHEAD > this.maxBytes) {
      throw new TraceError(
        TraceErrorCode.TooLarge,
        `struct log larger than ${this.maxBytes} bytes after ${this.logs.length} steps; set "limit", "disableStack" or "disableStorage", or use a native tracer`,
      );
    }
    this.logs.push(entry);
    this.lastStepLogged = true;
  }

  txEnd(r: RunTxResult): void {
    this.gasUsed = r.totalGasSpent;
  }

  result(): StructLoggerResult {
    const failed = this.error !== undefined;
    const returnValue = failed && this.error !== 'revert' ? '0x' : bytesHex(this.output);
    return { gas: Number(this.gasUsed), failed, returnValue, structLogs: this.logs };
  }
}

/** JSON.stringify(e).length, counted without building the text (hex, numbers and op names need no escaping). */
export function entryBytes(e: StructLogJson): number {
  let n = 42 + digits(e.pc) + e.op.length + digits(e.gas) + digits(e.gasCost) + digits(e.depth);
  if (e.error !== undefined) n += JSON.stringify(e.error).length + 9;
  if (e.stack !== undefined) n += 9 + strings(e.stack);
  if (e.returnData !== undefined) n += 16 + e.returnData.length;
  if (e.memory !== undefined) n += 10 + strings(e.memory);
  if (e.storage !== undefined) {
    const keys = Object.keys(e.storage);
    n += 13 + (keys.length === 0 ? 0 : keys.length * (66 + 66 + 6) - 1);
  }
  if (e.refund !== undefined) n += 10 + digits(e.refund);
  return n;
}

const digits = (v: number): number => String(v).length;

/** Bytes of a JSON array of plain strings, brackets included. */
function strings(a: readonly string[]): number {
  let n = 2 + (a.length === 0 ? 0 : a.length - 1);
  for (const x of a) n += x.length + 2;
  return n;
}

/** EthereumJS errors geth detects before running the opcode (so its struct log names them on the step). */
const FAILS_BEFORE_RUNNING = new Set(['out of gas', 'stack underflow', 'stack overflow']);

const CALLS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL']);

/**
 * geth's cost of the step. For the CALL family it includes the gas handed to the callee (EIP-150: at most all
 * but one 64th of what is left after the call's own cost), which EthereumJS charges later; the stipend of a
 * call with value is not part of it.
 */
function gasCost(s: InterpreterStep): bigint {
  const fee = s.opcode.dynamicFee ?? BigInt(s.opcode.fee);
  if (!CALLS.has(s.opcode.name) || s.stack.length < 1 || s.gasLeft < fee) return fee;
  const available = s.gasLeft - fee;
  const cap = available - available / 64n;
  const asked = s.stack[s.stack.length - 1]!;
  return fee + (asked < cap ? asked : cap);
}

function bytesBig(b: Uint8Array): bigint {
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return v;
}
