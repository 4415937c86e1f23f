// The small interface the core needs from whatever runs it: the Azle canister (stable memory,
// ic0 time and performance counter) or plain Node (in-memory maps, a test clock).

import { compareBytes, toHex } from './codec/bytes.js';

/** An ordered byte map: keys sort by their bytes (like ic-stable-structures' BTreeMap<Vec<u8>, Vec<u8>>). */
export interface KvMap {
  get(key: Uint8Array): Uint8Array | undefined;
  insert(key: Uint8Array, value: Uint8Array): void;
  /**
   * insert() that returns the value it replaced (undefined: none). Optional: azle's B-tree insert returns it
   * anyway, so a caller that needs the old value (the history meter) saves a get, one B-tree call.
   */
  insertOld?(key: Uint8Array, value: Uint8Array): Uint8Array | undefined;
  remove(key: Uint8Array): void;
  containsKey(key: Uint8Array): boolean;
  len(): bigint;
  /** Entries in key order, from the startIndex-th entry (an index, not a key: O(startIndex) in stable memory). */
  items(startIndex?: number, length?: number): [Uint8Array, Uint8Array][];
}

export interface CoreHost {
  /** Opens (or creates) the map with this memory id; ids come from the registry in src/core/store. */
  openMap(memoryId: number): KvMap;
  /** Wall time in nanoseconds since the Unix epoch (ic0.time). */
  timeNs(): bigint;
  /** Instructions executed so far in the current message (ic0.performance_counter(0)); 0n where unknown. */
  instructionCounter(): bigint;
}

/** In-memory KvMap with the same ordering semantics as the canister's stable maps; for Node tests and tools. */
export class MemoryKvMap implements KvMap {
  private readonly entries = new Map<string, [Uint8Array, Uint8Array]>();

  get(key: Uint8Array): Uint8Array | undefined {
    return this.entries.get(toHex(key))?.[1];
  }
  insert(key: Uint8Array, value: Uint8Array): void {
    this.entries.set(toHex(key), [key.slice(), value.slice()]);
  }
  insertOld(key: Uint8Array, value: Uint8Array): Uint8Array | undefined {
    const k = toHex(key);
    const old = this.entries.get(k)?.[1];
    this.entries.set(k, [key.slice(), value.slice()]);
    return old;
  }
  remove(key: Uint8Array): void {
    this.entries.delete(toHex(key));
  }
  containsKey(key: Uint8Array): boolean {
    return this.entries.has(toHex(key));
  }
  len(): bigint {
    return BigInt(this.entries.size);
  }
  items(startIndex = 0, length?: number): [Uint8Array, Uint8Array][] {
    const sorted = [...this.entries.values()].sort((x, y) => compareBytes(x[0], y[0]));
    return sorted.slice(startIndex, length === undefined ? undefined : startIndex + length);
  }
}

export class MemoryCoreHost implements CoreHost {
  private readonly maps = new Map<number, MemoryKvMap>();
  nowNs = 1_700_000_000_000_000_000n;
  instructions = 0n;

  openMap(memoryId: number): KvMap {
    let m = this.maps.get(memoryId);
    if (m === undefined) {
      m = new MemoryKvMap();
      this.maps.set(memoryId, m);
    }
    return m;
  }
  timeNs(): bigint {
    return this.nowNs;
  }
  instructionCounter(): bigint {
    return this.instructions;
  }
}
