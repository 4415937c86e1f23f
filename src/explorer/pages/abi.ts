// ABI decoding for verified contracts (viem's codec): call input, logs, revert data, and read-only calls.
import { decodeErrorResult, decodeEventLog, decodeFunctionData, decodeFunctionResult, encodeFunctionData, type Abi, type AbiFunction } from 'viem';
import { toPrefixedHex } from '../../gateway/hex.js';

export interface DecodedCall {
  readonly name: string;
  readonly args: readonly { name: string; type: string; value: string }[];
}

/** Every value as text (bigints in decimal, bytes in hex, nested values as JSON). */
export function showValue(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return toPrefixedHex(v);
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
}

function named(inputs: readonly { name?: string; type: string }[], values: readonly unknown[] | Record<string, unknown> | undefined): DecodedCall['args'] {
  return inputs.map((inp, i) => {
    const v = Array.isArray(values) ? values[i] : values === undefined ? undefined : (values as Record<string, unknown>)[inp.name ?? String(i)];
    return { name: inp.name === undefined || inp.name === '' ? `arg${i}` : inp.name, type: inp.type, value: showValue(v) };
  });
}

export function decodeInput(abi: Abi, input: Uint8Array): DecodedCall | undefined {
  if (input.length < 4) return undefined;
  try {
    const d = decodeFunctionData({ abi, data: toPrefixedHex(input) as `0x${string}` });
    const fn = abi.find((x): x is AbiFunction => x.type === 'function' && x.name === d.functionName);
    return { name: d.functionName, args: named(fn?.inputs ?? [], d.args as readonly unknown[] | undefined) };
  } catch {
    return undefined;
  }
}

export function decodeLog(abi: Abi, topics: readonly Uint8Array[], data: Uint8Array): DecodedCall | undefined {
  if (topics.length === 0) return undefined;
  try {
    const d = decodeEventLog({
      abi,
      topics: topics.map((t) => toPrefixedHex(t)) as [`0x${string}`, ...`0x${string}`[]],
      data: toPrefixedHex(data) as `0x${string}`,
    });
    const ev = abi.find((x) => x.type === 'event' && x.name === d.eventName) as { inputs: readonly { name?: string; type: string }[] } | undefined;
    return { name: d.eventName ?? '?', args: named(ev?.inputs ?? [], d.args as Record<string, unknown> | readonly unknown[] | undefined) };
  } catch {
    return undefined;
  }
}

/** Error(string), Panic(uint256) and the contract's custom errors. */
export function decodeRevert(abi: Abi | undefined, data: string): DecodedCall | undefined {
  if (!/^0x[0-9a-fA-F]{8,}$/.test(data)) return undefined;
  try {
    const d = decodeErrorResult({ abi: abi ?? [], data: data as `0x${string}` });
    const err = (abi ?? []).find((x) => x.type === 'error' && x.name === d.errorName) as { inputs: readonly { name?: string; type: string }[] } | undefined;
    const inputs = err?.inputs ?? (d.abiItem as { inputs?: readonly { name?: string; type: string }[] }).inputs ?? [];
    return { name: d.errorName, args: named(inputs, d.args as readonly unknown[] | undefined) };
  } catch {
    return undefined;
  }
}

/** View and pure functions: what the read-only call form offers. */
export function readFunctions(abi: Abi): AbiFunction[] {
  return abi.filter((x): x is AbiFunction => x.type === 'function' && (x.stateMutability === 'view' || x.stateMutability === 'pure'));
}

/** Parses one form field into a value for its ABI type: numbers as bigint, bool, arrays/tuples as JSON. */
export function parseArg(type: string, text: string): unknown {
  const t = text.trim();
  if (type.endsWith(']') || type.startsWith('tuple')) return JSON.parse(t);
  if (/^u?int\d*$/.test(type)) return BigInt(t);
  if (type === 'bool') {
    if (t === 'true') return true;
    if (t === 'false') return false;
    throw new Error('expected true or false');
  }
  return t;
}

export function encodeRead(fn: AbiFunction, args: readonly unknown[]): `0x${string}` {
  return encodeFunctionData({ abi: [fn], functionName: fn.name, args });
}

export function decodeRead(fn: AbiFunction, data: `0x${string}`): DecodedCall['args'] {
  const out = decodeFunctionResult({ abi: [fn], functionName: fn.name, data }) as unknown;
  const values = fn.outputs.length === 1 ? [out] : (out as readonly unknown[]);
  return named(fn.outputs, values);
}
