// Raw-byte encodings of the flat EVM state (DESIGN rules 2 and 7: no trie, no JSON).
//
// Accounts map (MemoryId.Accounts): key = 20-byte address, value = AccountRecord:
//   [flags:1][gen:4 BE]                                    (tombstone: flags without EXISTS)
//   [flags:1][gen:4 BE][nonce:8 BE][balLen:1][balance:balLen BE][codeHash:32][codeSize:4 BE]?
//   flags: 0x01 EXISTS, 0x02 HAS_STORAGE (some slot of this generation may be non-zero), 0x04 HAS_CODE
//   (codeHash/codeSize present only with HAS_CODE).
// Code map (MemoryId.Code): key = keccak256(code), value = code.
// Storage map (MemoryId.Storage): key = address(20) || gen(4 BE) || slot(32), value = slot value without
//   leading zero bytes; a zero value is never stored (the key is removed).
//
// `gen` is the account's storage generation. KvMap has no prefix delete, so clearing an account's storage
// (CREATE over an address, SELFDESTRUCT of an account created in the same transaction) bumps the
// generation instead: the old slots become unreachable garbage. A deleted account that had storage
// leaves a tombstone holding its next generation so a later re-creation cannot see the old slots.

import { bigintToMinBytes, bytesToBigint, putU32 } from '../codec/bytes.js';

// One hex codec for the core (src/core/codec/bytes.ts).
export { fromHex, toHex } from '../codec/bytes.js';

export const ACCOUNT_FLAG_EXISTS = 0x01;
export const ACCOUNT_FLAG_HAS_STORAGE = 0x02;
export const ACCOUNT_FLAG_HAS_CODE = 0x04;

export interface AccountRecord {
  /** false: a tombstone, kept only to remember the storage generation. */
  readonly exists: boolean;
  readonly nonce: bigint;
  readonly balance: bigint;
  /** undefined: no code (codeHash = keccak256 of the empty string). */
  readonly codeHash: Uint8Array | undefined;
  readonly codeSize: number;
  readonly gen: number;
  readonly hasStorage: boolean;
}

const MAX_GEN = 0xffff_ffff;

/** Minimal big-endian bytes (empty for 0): the codec's, which needs no hex string. */
export const bigintToMinimalBytes = bigintToMinBytes;

/** Big-endian bytes to bigint (empty = 0): the codec's, 48 bits at a time. */
export { bytesToBigint } from '../codec/bytes.js';

/** Strips leading zero bytes (the canonical stored form of a storage value). */
export function unpad(v: Uint8Array): Uint8Array {
  let i = 0;
  while (i < v.length && v[i] === 0) i++;
  return i === 0 ? v : v.subarray(i);
}

export function encodeAccount(rec: AccountRecord): Uint8Array {
  if (rec.gen < 0 || rec.gen > MAX_GEN) throw new Error('storage generation out of range');
  if (!rec.exists) {
    const t = new Uint8Array(5);
    t[0] = 0;
    putU32(t, 1, rec.gen);
    return t;
  }
  const bal = bigintToMinimalBytes(rec.balance);
  const hasCode = rec.codeHash !== undefined;
  const out = new Uint8Array(14 + bal.length + (hasCode ? 36 : 0));
  out[0] = ACCOUNT_FLAG_EXISTS | (rec.hasStorage ? ACCOUNT_FLAG_HAS_STORAGE : 0) | (hasCode ? ACCOUNT_FLAG_HAS_CODE : 0);
  putU32(out, 1, rec.gen);
  const nonceHi = Number(rec.nonce >> 32n);
  const nonceLo = Number(rec.nonce & 0xffff_ffffn);
  putU32(out, 5, nonceHi);
  putU32(out, 9, nonceLo);
  out[13] = bal.length;
  out.set(bal, 14);
  if (hasCode) {
    out.set(rec.codeHash!, 14 + bal.length);
    putU32(out, 14 + bal.length + 32, rec.codeSize);
  }
  return out;
}

/** decodeAccount(b).nonce of an existing account, 0 otherwise: the pool scan reads only this (no balance, no record object). */
export function decodeAccountNonce(b: Uint8Array): bigint {
  if ((b[0]! & ACCOUNT_FLAG_EXISTS) === 0) return 0n;
  const hi = readU32(b, 5);
  const lo = BigInt(readU32(b, 9));
  return hi === 0 ? lo : (BigInt(hi) << 32n) | lo;
}

export function decodeAccount(b: Uint8Array): AccountRecord {
  const flags = b[0]!;
  const gen = readU32(b, 1);
  if ((flags & ACCOUNT_FLAG_EXISTS) === 0) {
    return { exists: false, nonce: 0n, balance: 0n, codeHash: undefined, codeSize: 0, gen, hasStorage: false };
  }
  const nonce = (BigInt(readU32(b, 5)) << 32n) | BigInt(readU32(b, 9));
  const balLen = b[13]!;
  const balance = bytesToBigint(b.subarray(14, 14 + balLen));
  let codeHash: Uint8Array | undefined;
  let codeSize = 0;
  if ((flags & ACCOUNT_FLAG_HAS_CODE) !== 0) {
    codeHash = b.slice(14 + balLen, 14 + balLen + 32);
    codeSize = readU32(b, 14 + balLen + 32);
  }
  return { exists: true, nonce, balance, codeHash, codeSize, gen, hasStorage: (flags & ACCOUNT_FLAG_HAS_STORAGE) !== 0 };
}

export function storageKey(address: Uint8Array, gen: number, slot: Uint8Array): Uint8Array {
  const k = new Uint8Array(56);
  k.set(address, 0);
  putU32(k, 20, gen);
  k.set(slot, 24);
  return k;
}

function readU32(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}
