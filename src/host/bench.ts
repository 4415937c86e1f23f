// Small benchmarks of the host itself (not timed tests): query throughput and the cost of message atomicity.
import { HeapSnapshot, HEAP_PAGE } from './heap.js';
import type { IcHost } from './index.js';

export interface HostBenchResult {
  queries: number;
  queriesPerSecond: number;
  /** Mean wall time of one query, ms (execution + rollback). */
  queryMs: number;
  /** Mean time of the per-message heap compare/restore and stable undo, ms. */
  snapshotMsPerQuery: number;
  /** Mean instructions of the query (undefined for the plain wasm). */
  instructionsPerQuery: bigint | undefined;
  heapBytes: number;
}

/** Runs `method` as a query repeatedly for about `durationMs` and reports throughput and atomicity cost. */
export function benchmarkQueries(host: IcHost, method: string, arg?: Uint8Array, durationMs = 2000): HostBenchResult {
  let n = 0;
  let snap = 0;
  let instr: bigint | undefined = 0n;
  const start = performance.now();
  while (performance.now() - start < durationMs) {
    const r = host.query(method, arg);
    if (r.kind !== 'reply') throw new Error(`benchmark query ${method} rejected: ${r.message}`);
    snap += host.lastMessage?.snapshotMs ?? 0;
    instr = r.instructions === undefined || instr === undefined ? undefined : instr + r.instructions;
    n++;
  }
  const elapsed = performance.now() - start;
  return {
    queries: n,
    queriesPerSecond: (n * 1000) / elapsed,
    queryMs: elapsed / n,
    snapshotMsPerQuery: snap / n,
    instructionsPerQuery: instr === undefined ? undefined : instr / BigInt(n),
    heapBytes: host.heapBytes,
  };
}

export interface SnapshotCost {
  heapMiB: number;
  dirtyPages: number;
  /** Compare all pages and restore the dirty ones (what the host does per message), ms. */
  diffRestoreMs: number;
  /** A full copy of the heap (what a naive snapshot per message would cost), ms. */
  fullCopyMs: number;
}

/** Measures the per-message atomicity cost for a heap of `heapMiB` with `dirtyPages` pages written. */
export function measureSnapshotCost(heapMiB: number, dirtyPages = 16, rounds = 10): SnapshotCost {
  const memory = new WebAssembly.Memory({ initial: (heapMiB * 1024 * 1024) / HEAP_PAGE });
  const bytes = new Uint8Array(memory.buffer);
  for (let i = 0; i < bytes.length; i += 4096) bytes[i] = i & 0xff; // non-zero pages, like a used heap
  const snap = new HeapSnapshot(memory);
  const pages = bytes.length / HEAP_PAGE;
  let diff = 0;
  let copy = 0;
  const scratch = Buffer.alloc(bytes.length);
  for (let r = 0; r < rounds; r++) {
    for (let d = 0; d < dirtyPages; d++) {
      const at = ((d * 7919 + r) % pages) * HEAP_PAGE + 100;
      bytes[at] = (bytes[at] ?? 0) ^ 0xff;
    }
    let t = performance.now();
    snap.restore(memory);
    diff += performance.now() - t;
    t = performance.now();
    scratch.set(bytes);
    copy += performance.now() - t;
  }
  return { heapMiB, dirtyPages, diffRestoreMs: diff / rounds, fullCopyMs: copy / rounds };
}
