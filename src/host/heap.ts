// Heap (wasm linear memory) atomicity by page comparison.
//
// The host keeps a committed copy of the canister's memory. After a message it compares live and committed
// memory 64 KiB at a time (Buffer.compare is a memcmp) and copies only the pages that differ: towards the
// committed copy when the message commits, back into the live memory when it traps or was a query. This
// reads the whole heap twice per message but writes only what changed, instead of copying the whole heap.
// It is memory-bandwidth bound (`host.heap_snapshot.diff_restore_ms_per_mib` against
// `host.heap_snapshot.full_copy_ms_per_mib`, bench group ic_http): it saves the copy's writes but not the reads,
// so its cost follows the heap's size, not what a message wrote, and is a large part of a trivial query's. A
// dirty-page bitmap kept by the wasm would make it proportional to the pages written.
export const HEAP_PAGE = 65536;

export interface DiffResult {
  pages: number;
  ms: number;
}

export class HeapSnapshot {
  private committed: Buffer;
  /** Indices of pages committed since the follower (the query replica) last took them; undefined: no follower. */
  private changed: Set<number> | undefined;

  constructor(memory: WebAssembly.Memory) {
    this.committed = Buffer.from(new Uint8Array(memory.buffer)); // copies
  }

  get size(): number {
    return this.committed.length;
  }

  /** The committed bytes (to rebuild a live memory after a trap that grew it). */
  get bytes(): Buffer {
    return this.committed;
  }

  /** Replaces the committed contents (a whole-state revert); the caller rebuilds the live memory from them. */
  replace(bytes: Uint8Array): void {
    this.committed = Buffer.from(bytes);
  }

  /** The message committed: bring the committed copy up to date with the live memory. */
  commit(memory: WebAssembly.Memory): DiffResult {
    const t = performance.now();
    const live = Buffer.from(memory.buffer);
    if (live.length > this.committed.length) {
      const grown = Buffer.alloc(live.length);
      this.committed.copy(grown);
      this.committed = grown;
    }
    const pages = copyDiffering(live, this.committed, this.committed, this.changed);
    return { pages, ms: performance.now() - t };
  }

  /** Starts recording committed pages for a follower; returns a copy of the whole committed heap. */
  follow(): Uint8Array {
    this.changed = new Set();
    return new Uint8Array(this.committed); // a copy in its own ArrayBuffer (transferred to the follower)
  }

  /**
   * The pages committed since follow() or the last call, copied into one buffer (page i of `index` at
   * i * HEAP_PAGE), and the committed size (the heap may have grown).
   */
  takeChanged(): { size: number; index: Uint32Array; bytes: Buffer } {
    const index = Uint32Array.from([...(this.changed ?? [])].sort((a, b) => a - b));
    this.changed?.clear();
    const bytes = Buffer.allocUnsafeSlow(index.length * HEAP_PAGE);
    index.forEach((p, i) => this.committed.copy(bytes, i * HEAP_PAGE, p * HEAP_PAGE, Math.min((p + 1) * HEAP_PAGE, this.committed.length)));
    return { size: this.committed.length, index, bytes };
  }

  /**
   * A follower's side: the leader's committed pages go into both the committed copy and the live memory
   * (equal between messages), growing both to `size` first.
   */
  applyPages(memory: WebAssembly.Memory, size: number, index: Uint32Array, bytes: Uint8Array): void {
    const have = memory.buffer.byteLength;
    if (size > have) memory.grow((size - have) / HEAP_PAGE);
    if (size > this.committed.length) {
      const grown = Buffer.alloc(size);
      this.committed.copy(grown);
      this.committed = grown;
    }
    const live = new Uint8Array(memory.buffer);
    index.forEach((p, i) => {
      const page = bytes.subarray(i * HEAP_PAGE, (i + 1) * HEAP_PAGE);
      this.committed.set(page, p * HEAP_PAGE);
      live.set(page, p * HEAP_PAGE);
    });
  }

  /**
   * The message is discarded: put the committed contents back into the live memory.
   * Returns undefined when the live memory grew (wasm memory cannot shrink): the caller must re-instantiate.
   */
  restore(memory: WebAssembly.Memory): DiffResult | undefined {
    const t = performance.now();
    const live = Buffer.from(memory.buffer);
    if (live.length !== this.committed.length) return undefined;
    const pages = copyDiffering(live, this.committed, live);
    return { pages, ms: performance.now() - t };
  }
}

/** Compares a and b page by page (over b's length) and copies the differing pages into `into` from the other. */
function copyDiffering(live: Buffer, committed: Buffer, into: Buffer, changed?: Set<number>): number {
  const from = into === live ? committed : live;
  const len = committed.length;
  let n = 0;
  for (let off = 0; off < len; off += HEAP_PAGE) {
    const end = Math.min(off + HEAP_PAGE, len);
    if (live.compare(committed, off, end, off, end) !== 0) {
      from.copy(into, off, off, end);
      changed?.add(off / HEAP_PAGE);
      n++;
    }
  }
  return n;
}
