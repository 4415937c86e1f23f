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

/** ZERO_BYTES[v]: how many of the two bytes of the 16-bit value v are zero. */
const ZERO_BYTES = new Uint8Array(65536);
for (let v = 0; v < 256; v++) {
  ZERO_BYTES[v]! += 1;
  ZERO_BYTES[v << 8]! += 1;
}

/**
 * The zero bytes of d. Runs before the first hash of a submit, over up to 128 KiB: in the canister a plain
 * byte loop cost about eight times this one (docs/hardening.md, "Submits"); this one reads aligned 32-bit words
 * and counts each word's zero bytes from a 64 K-entry table (`var`: QuickJS checks every `let` read).
 */
export function countZeroBytes(d: Uint8Array): number {
  var n = d.length;
  var zeros = 0;
  var i = 0;
  // Bytes before the first 4-byte boundary of the underlying buffer, then whole words, then the rest.
  var head = (4 - (d.byteOffset & 3)) & 3;
  if (head > n) head = n;
  for (; i < head; i++) if (d[i] === 0) zeros++;
  var words = (n - i) >>> 2;
  if (words > 0) {
    var w = new Uint32Array(d.buffer, d.byteOffset + i, words);
    var t = ZERO_BYTES;
    var x;
    for (var k = 0; k < words; k++) {
      x = w[k]!;
      zeros += x === 0 ? 4 : t[x & 0xffff]! + t[x >>> 16]!;
    }
    i += words << 2;
  }
  for (; i < n; i++) if (d[i] === 0) zeros++;
  return zeros;
}

/** The gas a transaction needs before any execution: max(standard intrinsic, EIP-7623 floor). */
export function intrinsicGas(f: TxFields): bigint {
  const zeros = countZeroBytes(f.data);
  const nonZeros = f.data.length - zeros;
  let gas = TX_BASE + BigInt(zeros) * DATA_ZERO + BigInt(nonZeros) * DATA_NONZERO;
  if (f.to === undefined) gas += TX_CREATE + INITCODE_WORD * BigInt(Math.ceil(f.data.length / 32));
  for (const [, keys] of f.accessList) gas += ACCESS_ADDRESS + ACCESS_KEY * BigInt(keys.length);
  const tokens = BigInt(zeros) + 4n * BigInt(nonZeros);
  const floor = TX_BASE + FLOOR_PER_TOKEN * tokens;
  return gas > floor ? gas : floor;
}
