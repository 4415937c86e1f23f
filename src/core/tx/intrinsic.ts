// Intrinsic gas under Prague, checked at submit so the pool never holds a transaction that cannot start.
// EIP-2028 calldata, EIP-2930 access list, EIP-3860 initcode words, EIP-7623 calldata floor.

import type { TxFields } from './types.js';

const TX_BASE = 21000n;
const TX_CREATE = 32000n;
const DATA_ZERO = 4n;
const DATA_NONZERO = 16n;
const ACCESS_ADDRESS = 2400n;
const ACCESS_KEY = 1900n;
const INITCODE_WORD = 2n;
const FLOOR_PER_TOKEN = 10n; // EIP-7623 TOTAL_COST_FLOOR_PER_TOKEN
/** EIP-3860: 2 * MAX_CODE_SIZE. */
export const MAX_INITCODE_SIZE = 49152;

/** The gas a transaction needs before any execution: max(standard intrinsic, EIP-7623 floor). */
export function intrinsicGas(f: TxFields): bigint {
  let zeros = 0;
  for (let i = 0; i < f.data.length; i++) if (f.data[i] === 0) zeros++;
  const nonZeros = f.data.length - zeros;
  let gas = TX_BASE + BigInt(zeros) * DATA_ZERO + BigInt(nonZeros) * DATA_NONZERO;
  if (f.to === undefined) gas += TX_CREATE + INITCODE_WORD * BigInt(Math.ceil(f.data.length / 32));
  for (const [, keys] of f.accessList) gas += ACCESS_ADDRESS + ACCESS_KEY * BigInt(keys.length);
  const tokens = BigInt(zeros) + 4n * BigInt(nonZeros);
  const floor = TX_BASE + FLOOR_PER_TOKEN * tokens;
  return gas > floor ? gas : floor;
}
