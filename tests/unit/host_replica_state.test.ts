// What the query replica (src/host/replica.ts) is sent: stable pages shared, never written after commit (copy
// on write), and the heap pages a commit changed; a follower applying them ends with the leader's bytes.
import { describe, expect, it } from 'vitest';
import { HEAP_PAGE, HeapSnapshot } from '../../src/host/heap.js';
import { StableMemory, WASM_PAGE } from '../../src/host/stable.js';

const bytes = (n: number, v: number): Uint8Array => new Uint8Array(n).fill(v);

describe('stable memory for a follower', () => {
  it('shares committed pages (SharedArrayBuffers) and never writes one again', () => {
    const s = new StableMemory(1000n);
    s.grow(4n);
    s.begin();
    s.write(0n, bytes(10, 1));
    s.commit();
    const { pages, size } = s.follow();
    expect(size).toBe(4n);
    expect(pages.map(([i]) => i)).toEqual([0]);
    const page0 = pages[0]![1];
    expect(page0.buffer).toBeInstanceOf(SharedArrayBuffer); // converted when the follower followed
    const before = Buffer.from(page0);

    // A committed write: a new page object; the one the follower holds keeps its bytes.
    s.begin();
    s.write(5n, bytes(10, 2));
    s.write(BigInt(WASM_PAGE + 1), bytes(3, 3));
    s.commit();
    expect(page0.equals(before)).toBe(true);
    const changed = s.takeChanged();
    expect(changed.pages.map(([i]) => i).sort()).toEqual([0, 1]);
    expect(changed.pages.every(([, p]) => p.buffer instanceof SharedArrayBuffer)).toBe(true);
    expect(s.takeChanged().pages).toEqual([]); // taken once

    // A discarded message (a query, a trap): nothing to send, nothing written in place.
    const committed1 = changed.pages.find(([i]) => i === 1)![1];
    const snap1 = Buffer.from(committed1);
    s.begin();
    s.write(BigInt(WASM_PAGE), bytes(100, 9));
    s.rollback();
    expect(committed1.equals(snap1)).toBe(true);
    expect(s.takeChanged().pages).toEqual([]);

    // The follower's copy, built from what it was sent, reads what the leader reads.
    const f = new StableMemory(1000n);
    f.applyShared(pages, size, true);
    f.applyShared(changed.pages, changed.size, false);
    const a = new Uint8Array(2 * WASM_PAGE);
    const b = new Uint8Array(2 * WASM_PAGE);
    s.read(a, 0n, BigInt(a.length));
    f.read(b, 0n, BigInt(b.length));
    expect(Buffer.from(b).equals(Buffer.from(a))).toBe(true);
    // The follower's own (query) writes copy too: the shared page stays the leader's.
    f.begin();
    f.write(0n, bytes(4, 7));
    f.rollback();
    s.read(a, 0n, BigInt(a.length));
    f.read(b, 0n, BigInt(b.length));
    expect(Buffer.from(b).equals(Buffer.from(a))).toBe(true);
  });
});

describe('heap for a follower', () => {
  it('sends the pages a commit changed, and the growth', () => {
    const leader = new WebAssembly.Memory({ initial: 4 });
    const snap = new HeapSnapshot(leader);
    const start = snap.follow();
    const follower = new WebAssembly.Memory({ initial: 4 });
    const fsnap = new HeapSnapshot(follower);
    fsnap.replace(start);
    new Uint8Array(follower.buffer).set(start);

    new Uint8Array(leader.buffer).fill(5, HEAP_PAGE + 10, HEAP_PAGE + 20);
    leader.grow(2);
    new Uint8Array(leader.buffer).fill(6, 5 * HEAP_PAGE, 5 * HEAP_PAGE + 1);
    snap.commit(leader);
    const d = snap.takeChanged();
    expect([...d.index]).toEqual([1, 5]);
    expect(d.size).toBe(6 * HEAP_PAGE);
    expect(snap.takeChanged().index.length).toBe(0);

    fsnap.applyPages(follower, d.size, d.index, d.bytes);
    expect(follower.buffer.byteLength).toBe(leader.buffer.byteLength);
    expect(Buffer.from(follower.buffer).equals(Buffer.from(leader.buffer))).toBe(true);
    expect(fsnap.bytes.equals(Buffer.from(leader.buffer))).toBe(true);
  });
});
