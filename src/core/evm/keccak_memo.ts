// keccak256 of short inputs, remembered. Inside the canister one keccak256 block costs keccak.block.instructions, and
// execution hashes the same short inputs again and again: every log's address and topics for the bloom
// (the token address, the event signature, the same few holders), and Solidity's mapping slots
// (keccak256(key || slot): balances[pair], allowance[trader][router]) in every transaction touching them.
// Keccak is a pure function, so answering from memory changes nothing but the cost; the key is the input
// as a latin1 string, built by one native call (a JS loop over the bytes would cost more than it saves).
//
// Bounded: two generations of MEMO_GENERATION entries; when the young one fills up it becomes the old one
// and the oldest are dropped, so memory stays below 2 * MEMO_GENERATION entries of at most 64 + 32 bytes.
// In update and timer messages the memory persists from block to block; in a query it is discarded with
// the rest of the heap.

import { latin1Key } from '../codec/bytes.js';

/** Longest input remembered: two words (a mapping slot); bloom entries are 20 and 32 bytes. */
export const MEMO_MAX_INPUT = 64;
export const MEMO_GENERATION = 4096;

export type Keccak256 = (data: Uint8Array) => Uint8Array;

/** A memoizing keccak256 over `hash`; every call returns a fresh array (callers may keep or view it). */
export function memoizedKeccak256(hash: Keccak256): Keccak256 & { readonly hits: () => number } {
  let young = new Map<string, Uint8Array>();
  let old = new Map<string, Uint8Array>();
  let hits = 0;
  const fn = (data: Uint8Array): Uint8Array => {
    if (data.length > MEMO_MAX_INPUT) return hash(data);
    const key = latin1Key(data);
    let h = young.get(key);
    if (h === undefined) {
      h = old.get(key);
      if (h === undefined) h = hash(data);
      else hits++;
      if (young.size >= MEMO_GENERATION) {
        old = young;
        young = new Map();
      }
      young.set(key, h);
    } else hits++;
    return h.slice();
  };
  return Object.assign(fn, { hits: () => hits });
}

/**
 * The KECCAK256 opcode's digests as words, remembered the same way (inputs of up to MEMO_MAX_INPUT bytes, two
 * generations). A hit answers the stack word itself: no digest copy, no DataView, no reading the word back
 * from its 32 bytes, and no budget reserve (a hit is cheaper than a stepped operation). The interpreter keeps
 * one per keccak function, so EVMs with another hash never share entries.
 */
export class KeccakWordMemo {
  private young = new Map<string, bigint>();
  private old = new Map<string, bigint>();

  /** The remembered word for `data` (at most MEMO_MAX_INPUT bytes), or undefined. */
  get(data: Uint8Array): bigint | undefined {
    const key = latin1Key(data);
    let w = this.young.get(key);
    if (w !== undefined) return w;
    w = this.old.get(key);
    if (w !== undefined) this.add(key, w);
    return w;
  }

  set(data: Uint8Array, word: bigint): void {
    this.add(latin1Key(data), word);
  }

  private add(key: string, word: bigint): void {
    if (this.young.size >= MEMO_GENERATION) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, word);
  }
}
