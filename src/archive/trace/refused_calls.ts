// Calls refused before their frame starts (value above the caller's balance, depth 1024): EthereumJS emits no
// message for them, geth reports each as a frame that used no gas. A CALL-family step not followed by a
// message before the next step of the same frame was refused.
import type { EVMResult, InterpreterStep } from '@ethereumjs/evm';
import { memorySlice, stackAddress } from './hex.js';
import type { CallType, Enter, Tracer, TxContext } from './run.js';

export interface PendingCall {
  readonly depth: number;
  readonly type: CallType;
  readonly from: Uint8Array;
  readonly to: Uint8Array;
  readonly value: bigint | undefined;
  readonly gas: bigint;
  readonly argsOffset: bigint;
  readonly argsSize: bigint;
}

const CALL_STIPEND = 2300n;
const MAX_DEPTH = 1024;

export function pendingCallOf(s: InterpreterStep, type: CallType | undefined): PendingCall | undefined {
  if (type === undefined || type === 'CREATE' || type === 'CREATE2') return undefined;
  const st = s.stack;
  const n = st.length;
  const withValue = type === 'CALL' || type === 'CALLCODE';
  if (n < (withValue ? 7 : 6)) return undefined;
  const value = withValue ? st[n - 3]! : undefined;
  const args = withValue ? n - 4 : n - 3;
  // The gas geth hands the callee (EIP-150), plus the stipend of a call with value.
  const fee = s.opcode.dynamicFee ?? BigInt(s.opcode.fee);
  const available = s.gasLeft > fee ? s.gasLeft - fee : 0n;
  const cap = available - available / 64n;
  const asked = st[n - 1]!;
  const gas = (asked < cap ? asked : cap) + (value !== undefined && value > 0n ? CALL_STIPEND : 0n);
  return { depth: s.depth, type, from: s.address.bytes, to: stackAddress(st[n - 2]!), value, gas, argsOffset: st[args]!, argsSize: st[args - 1]! };
}

/** Reports a refused call as geth does: a frame that used no gas, with its error. */
export async function refused(p: PendingCall, memory: Uint8Array, tracers: readonly Tracer[], ctx: TxContext): Promise<void> {
  // The step after the call sees memory grown to cover the arguments (the call paid for it).
  const input = p.argsSize === 0n ? new Uint8Array(0) : memorySlice(memory, p.argsOffset, p.argsSize);
  const e: Enter = { depth: p.depth + 1, type: p.type, from: p.from, to: p.to, input, gas: p.gas, value: p.type === 'STATICCALL' ? undefined : (p.value ?? 0n) };
  const error = p.depth + 1 > MAX_DEPTH ? CALL_DEPTH_ERROR : 'insufficient balance';
  const r = { execResult: { executionGasUsed: 0n, returnValue: new Uint8Array(0), exceptionError: { error, errorType: 'EVMError' } } } as unknown as EVMResult;
  for (const t of tracers) await t.enter?.(e, ctx);
  for (const t of tracers) await t.exit?.(r, p.depth + 1, ctx);
}

/** The error of a call past the depth limit (EthereumJS has no word for it: it refuses the call silently). */
export const CALL_DEPTH_ERROR = 'max call depth exceeded';
