// Fewer stable-map calls in block production, with the maps ending the same (docs/performance.md, "Block
// production outside the EVM, second pass"): the history meter takes a replaced value from insertOld() instead of a get,
// and the next base fee is not rewritten when it does not change.
import { describe, expect, it } from 'vitest';
import { MetaStore } from '../../src/core/chain/meta.js';
import { DEFAULT_BASE_FEE } from '../../src/core/constants.js';
import { MemoryKvMap, type KvMap } from '../../src/core/host.js';
import { Meter } from '../../src/core/ops/meter.js';
import { MetaKey, metaKey } from '../../src/core/store/meta_keys.js';

/** A map without insertOld (every KvMap before it, and any host that does not offer it), counting its calls. */
function plainMap(inner: MemoryKvMap, calls: string[]): KvMap {
  return {
    get: (k) => (calls.push('get'), inner.get(k)),
    insert: (k, v) => (calls.push('insert'), inner.insert(k, v)),
    remove: (k) => (calls.push('remove'), inner.remove(k)),
    containsKey: (k) => inner.containsKey(k),
    len: () => inner.len(),
    items: (s, l) => inner.items(s, l),
  };
}

describe('the history meter over a map with insertOld', () => {
  it('counts the same history bytes as with a get before each insert, in one map call', () => {
    const writes: [Uint8Array, Uint8Array][] = [
      [Uint8Array.of(1), Uint8Array.of(0)],
      [Uint8Array.of(1), new Uint8Array(45).fill(7)],
      [Uint8Array.of(2, 2), new Uint8Array(3)],
      [Uint8Array.of(1), new Uint8Array(2)],
      [Uint8Array.of(2, 2), new Uint8Array(0)],
    ];
    const counted = (withInsertOld: boolean): { bytes: bigint; calls: string[]; entries: [Uint8Array, Uint8Array][] } => {
      const metaMap = new MemoryKvMap();
      const meter = new Meter(metaMap);
      const inner = new MemoryKvMap();
      const calls: string[] = [];
      const map = withInsertOld ? { ...plainMap(inner, calls), insertOld: (k: Uint8Array, v: Uint8Array) => (calls.push('insertOld'), inner.insertOld(k, v)) } : plainMap(inner, calls);
      const m = meter.meteredIndex(map);
      for (const [k, v] of writes) m.insert(k, v);
      m.remove(Uint8Array.of(1));
      meter.flush();
      return { bytes: meter.get().historyBytes, calls, entries: inner.items() };
    };
    const a = counted(false);
    const b = counted(true);
    expect(b.bytes).toBe(a.bytes);
    expect(b.entries).toEqual(a.entries);
    expect(a.bytes).toBe(2n); // what is left: key [2, 2] and its empty value
    expect(b.calls.filter((c) => c === 'get').length).toBe(1); // the remove's only
    expect(a.calls.filter((c) => c === 'get').length).toBe(writes.length + 1);
  });
});

describe('the next base fee', () => {
  it('is not rewritten unchanged, but written when the map did not hold it yet', () => {
    const inner = new MemoryKvMap();
    const calls: string[] = [];
    const meta = new MetaStore(plainMap(inner, calls));
    const key = metaKey(MetaKey.BaseFee);
    expect(meta.getNextBaseFee()).toBe(DEFAULT_BASE_FEE);
    meta.setNextBaseFee(DEFAULT_BASE_FEE);
    expect(inner.get(key)).toBeDefined();
    const written = inner.get(key)!;
    calls.length = 0;
    meta.setNextBaseFee(DEFAULT_BASE_FEE);
    expect(calls).toEqual([]);
    expect(inner.get(key)).toEqual(written);
    meta.setNextBaseFee(DEFAULT_BASE_FEE + 1n);
    expect(calls).toEqual(['insert']);
    // A store that read the stored entry (after an upgrade) skips the same value too.
    const again = new MetaStore(plainMap(inner, calls));
    calls.length = 0;
    expect(again.getNextBaseFee()).toBe(DEFAULT_BASE_FEE + 1n);
    again.setNextBaseFee(DEFAULT_BASE_FEE + 1n);
    expect(calls).toEqual(['get']);
    expect(new MetaStore(inner).getNextBaseFee()).toBe(DEFAULT_BASE_FEE + 1n);
  });
});
