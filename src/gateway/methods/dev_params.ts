// Parameters of the anvil_* / hardhat_* development methods, decoded as anvil decodes them: numbers as a JSON
// number, a 0x hex string or a decimal string (anvil's `deserialize_number`); every failure is -32602.
import { invalidParams } from '../errors.js';

export const MAX_U256 = (1n << 256n) - 1n;
const HEX = /^0x[0-9a-fA-F]{1,64}$/;
const DEC = /^[0-9]{1,78}$/;

/** A number up to `max` (default 2^256 - 1) as anvil accepts one. */
export function anvilNumber(v: unknown, name: string, max = MAX_U256): bigint {
  let n: bigint | undefined;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) n = BigInt(v);
  else if (typeof v === 'string' && (HEX.test(v) || DEC.test(v))) n = BigInt(v);
  if (n === undefined) throw invalidParams(`${name}: expected a non-negative number (a JSON number, a 0x hex string or a decimal string)`);
  if (n > max) throw invalidParams(`${name}: at most ${max}`);
  return n;
}

/** An optional number: absent and null are undefined. */
export const optNumber = (v: unknown, name: string, max?: bigint): bigint | undefined => (v === undefined || v === null ? undefined : anvilNumber(v, name, max));

/** A u64 given as a JSON number only (anvil's `deserialize_u64_seq`). */
export function jsonU64(v: unknown, name: string, max: number): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw invalidParams(`${name}: expected a non-negative JSON number`);
  if (v > max) throw invalidParams(`${name}: at most ${max}`);
  return v;
}

/** A 32-byte word as a big-endian array. */
export function word(n: bigint): Uint8Array {
  return Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex'));
}
