// Ethereum's 2048-bit logs bloom: for the address and each topic, three bits chosen by the low 11 bits
// of the first three byte pairs of its keccak. Hashes are memoised because the same contract address and
// event signature repeat across logs (an ERC-20 Transfer burst hashes each once); the producer keeps one
// hasher across blocks, so what recurs from block to block (token and pair addresses, Transfer's signature,
// active accounts as topics) is not hashed again in each block (one keccak block each, keccak.block.instructions).

import { keccak256 } from '../crypto.js';
import type { ExecLog } from '../engine.js';
import { latin1Key } from '../codec/bytes.js';

export const BLOOM_BYTES = 256;

/** Items a hasher remembers before it forgets them all (a memo of a pure function: about 150 bytes an entry). */
const MEMO_ENTRIES = 2048;

/** The all-zero bloom of a receipt or block without logs, shared: never mutated (only encoded and hashed). */
export const EMPTY_BLOOM = new Uint8Array(BLOOM_BYTES);

export class BloomHasher {
  private readonly memo = new Map<string, Uint8Array>();

  /** The item's three (byte index, bit mask) pairs (bloomProbe), remembered. */
  private probe(item: Uint8Array): Uint8Array {
    const k = latin1Key(item);
    let p = this.memo.get(k);
    if (p === undefined) {
      p = bloomProbe(item);
      if (this.memo.size >= MEMO_ENTRIES) this.memo.clear();
      this.memo.set(k, p);
    }
    return p;
  }

  addItem(bloom: Uint8Array, item: Uint8Array): void {
    const p = this.probe(item);
    bloom[p[0]!]! |= p[1]!;
    bloom[p[2]!]! |= p[3]!;
    bloom[p[4]!]! |= p[5]!;
  }

  logsBloom(logs: readonly ExecLog[]): Uint8Array {
    const bloom = new Uint8Array(BLOOM_BYTES);
    // index loops: for-of runs the iterator protocol in QuickJS
    for (let i = 0; i < logs.length; i++) {
      const l = logs[i]!;
      this.addItem(bloom, l.address);
      const topics = l.topics;
      for (let j = 0; j < topics.length; j++) this.addItem(bloom, topics[j]!);
    }
    return bloom;
  }
}

export function orInto(acc: Uint8Array, b: Uint8Array): void {
  for (let i = 0; i < BLOOM_BYTES; i++) acc[i]! |= b[i]!;
}

/** The three (byte index, bit mask) pairs an item sets in a bloom: [i0, m0, i1, m1, i2, m2]. */
export function bloomProbe(item: Uint8Array): Uint8Array {
  const h = keccak256(item);
  const out = new Uint8Array(6);
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
    out[i] = BLOOM_BYTES - 1 - (bit >> 3);
    out[i + 1] = 1 << (bit & 7);
  }
  return out;
}

/** Whether every bit of the probe is set in the bloom at `off` (the item may be in the set; false: it is not). */
export function bloomMayContain(bloom: Uint8Array, off: number, p: Uint8Array): boolean {
  return (bloom[off + p[0]!]! & p[1]!) !== 0 && (bloom[off + p[2]!]! & p[3]!) !== 0 && (bloom[off + p[4]!]! & p[5]!) !== 0;
}
