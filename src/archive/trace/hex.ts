// Hex forms of geth's JSON: quantities without leading zeros, data as 0x-prefixed lower-case bytes, words
// as 32 bytes, addresses as 20. The byte conversions are core's (src/core/codec/bytes.ts).
import { bytesToBigint, toHex } from '../../core/codec/bytes.js';

export const bytesHex = (b: Uint8Array): string => `0x${toHex(b)}`;

export const quantity = (v: bigint | number): string => `0x${v.toString(16)}`;

export const word = (v: bigint): string => `0x${v.toString(16).padStart(64, '0')}`;

export const addressHex = (b: Uint8Array): string => bytesHex(b);

export function bigToBytes(v: bigint, len: number): Uint8Array {
  const out = new Uint8Array(len);
  for (let i = len - 1; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

export const bytesToBig = bytesToBigint;

/** A stack item taken as an address (its low 20 bytes). */
export const stackAddress = (v: bigint): Uint8Array => bigToBytes(v & ((1n << 160n) - 1n), 20);

/** Memory bytes [offset, offset+size), zero-padded past the end (as the EVM reads them). */
export function memorySlice(mem: Uint8Array, offset: bigint, size: bigint): Uint8Array {
  const out = new Uint8Array(Number(size));
  if (offset < BigInt(mem.length)) out.set(mem.subarray(Number(offset), Math.min(mem.length, Number(offset + size))));
  return out;
}
