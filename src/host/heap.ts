// Heap (wasm linear memory) atomicity by page comparison.
//
// The host keeps a committed copy of the canister's memory. After a message it compares live and committed
// memory 64 KiB at a time (Buffer.compare is a memcmp) and copies only the pages that differ: towards the
// committed copy when the message commits, back into the live memory when it traps or was a query. This
// reads the whole heap twice per message but writes only what changed, instead of copying the whole heap.
// Measured on this machine (2 shared cores, src/host/bench.ts): it is memory-bandwidth bound, about
// 0.16 ms per MiB of heap (16 MiB: 2.8 ms, 128 MiB: 21 ms, 256 MiB: 36 ms) against 1.5 / 27 / 42 ms for a
// full copy, so it saves the copy's writes but not the reads. Azle canisters today have an 11 MiB heap:
// ~0.8 ms per message, about 60% of a trivial query (~1.3 ms, ~770 queries/s). A store-tracking rewrite
// (dirty-page bitmap maintained by the wasm) would make this proportional to the pages written.
export const HEAP_PAGE = 65536;

export interface DiffResult {
  pages: number;
  ms: number;
}

export class HeapSnapshot {
  private committed: Buffer;

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
    const pages = copyDiffering(live, this.committed, this.committed);
    return { pages, ms: performance.now() - t };
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
function copyDiffering(live: Buffer, committed: Buffer, into: Buffer): number {
  const from = into === live ? committed : live;
  const len = committed.length;
  let n = 0;
  for (let off = 0; off < len; off += HEAP_PAGE) {
    const end = Math.min(off + HEAP_PAGE, len);
    if (live.compare(committed, off, end, off, end) !== 0) {
      from.copy(into, off, off, end);
      n++;
    }
  }
  return n;
}
