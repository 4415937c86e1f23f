// The query replica: a second instance of the canister's module in a worker thread that runs non-replicated
// queries (IcHost.queryAsync), so a query of up to the 5 B instruction limit (seconds of V8 time) does not
// hold the leader's thread, which runs updates, timers (block production) and I/O meanwhile.
//
// State. The leader (IcHost) sends a `reset` with its whole committed state when the replica starts, after a
// whole-state restore (evm_revert) and after an upgrade (a new instance, maybe a new module): the module,
// a copy of the committed heap, the mutable globals and every stable-memory page. Before each query it sends
// a `sync` with what committed since the last one, if anything: the heap pages that differ (the leader finds
// them anyway when it commits a message), the globals, and the stable pages written. Stable pages are shared,
// not copied (stable.ts: copy on write in SharedArrayBuffers; a committed page is never written again), so the
// replica holds one extra copy of the heap (its live memory and its committed copy, as the leader does) and
// no extra copy of stable memory.
//
// Order. One message port, read in order by a worker that does one thing at a time: a query sees exactly
// the syncs sent before it, that is the state committed when queryAsync was called (an update answered
// before is in it; a message still running is not, since syncs are taken between messages). Queries run one
// after another; a long query delays the queries behind it, never the leader. (IcHost.queryAsync runs cheap
// queries made while the worker is busy on the leader's thread under a small limit: its fast lane.)
//
// Failure. If the worker dies (an error outside the wasm, out of memory, terminated), the query it was
// running (the oldest unanswered) gets a transient reject, the queries behind it run on the leader's thread,
// and a new worker starts from a reset after a pause; after MAX_FAILURES within FAILURE_WINDOW_MS the leader
// gives up and runs every query itself. Each step is logged. The worker never keeps the process alive and
// close() terminates it.
import { Worker } from 'node:worker_threads';
import { HostStateError, RejectCode } from './errors.js';
import type { CallResult } from './calls.js';

export interface ReplicaReset {
  readonly module: WebAssembly.Module;
  readonly wasmHash: string;
  readonly instrumented: boolean;
  readonly canisterId: string;
  readonly queryLimit: bigint;
  /** A copy of the committed heap (its buffer is transferred to the worker). */
  readonly heap: Uint8Array;
  readonly globals: readonly (number | bigint)[];
  readonly stable: readonly [number, Buffer][];
  readonly stableSize: bigint;
  readonly version: bigint;
}

export interface ReplicaSync {
  /** The committed heap's size in bytes (it only grows). */
  readonly heapSize: number;
  /** Heap page numbers; page `index[i]` is at `bytes[i * 64 KiB]` (its buffer is transferred). */
  readonly index: Uint32Array;
  readonly bytes: Uint8Array;
  readonly globals: readonly (number | bigint)[];
  readonly stable: readonly [number, Buffer][];
  readonly stableSize: bigint;
  readonly version: bigint;
}

export interface ReplicaQuery {
  readonly method: string;
  readonly arg: Uint8Array;
  readonly caller: Uint8Array;
  /** The time the query reads (the leader's IcHost.queryTimeNs() when it was called). */
  readonly timeNs: bigint;
  readonly cycleBalance: bigint;
  readonly controllers: readonly Uint8Array[];
}

export interface ReplicaQueryResult {
  readonly result: CallResult;
  /** No trap and nothing impure read: the leader may remember the reply (IcHostOptions.queryCache). */
  readonly remember: boolean;
  readonly timeRead: bigint | undefined;
}

export type WorkerMessage = { t: 'reset'; reset: ReplicaReset } | { t: 'sync'; sync: ReplicaSync } | { t: 'query'; id: number; query: ReplicaQuery };
type FromWorker = { t: 'ready' } | { t: 'print'; text: string } | { t: 'reply'; id: number; answer: ReplicaQueryResult };

/** Failures within FAILURE_WINDOW_MS after which the leader stops restarting the worker. */
const MAX_FAILURES = 3;
const FAILURE_WINDOW_MS = 60_000;
const RESTART_DELAY_MS = 500;

const here = import.meta.url;
const BOOT = new URL('./replica_worker.mjs', here);
const ENTRY = new URL(`./replica_worker${here.endsWith('.ts') ? '.ts' : '.js'}`, here).href;

interface Waiting {
  readonly id: number;
  /** When it was sent (performance.now()). */
  readonly at: number;
  resolve(r: ReplicaQueryResult | undefined): void;
  reject(e: Error): void;
}

export interface ReplicaOptions {
  /** The leader's whole committed state (between messages); the leader starts recording changes from here. */
  state(): ReplicaReset;
  /** The replica's own log lines (start, failure, restart). */
  log(line: string): void;
  /** The canister's debug prints from queries run in the replica. */
  print(text: string): void;
}

export class QueryReplica {
  private worker: Worker | undefined;
  private isReady = false;
  /** Queries sent and not answered, oldest first (the worker answers in order). */
  private readonly waiting: Waiting[] = [];
  private nextId = 0;
  private lastAnswerAt = 0;
  private failures: number[] = [];
  private restartTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Queries answered by the replica. */
  served = 0;
  /** Workers started after a failure. */
  restarts = 0;

  constructor(private readonly o: ReplicaOptions) {
    this.spawn();
  }

  /** True once the worker has loaded the state; until then (and after a failure) the leader runs queries itself. */
  get ready(): boolean {
    return this.isReady && this.worker !== undefined;
  }

  /** The leader's state was replaced (restore, upgrade): the worker starts over from it. */
  reset(state: ReplicaReset): void {
    this.worker?.postMessage({ t: 'reset', reset: state } satisfies WorkerMessage, [state.heap.buffer as ArrayBuffer]);
  }

  /**
   * Runs a query after `sync` (what committed since the last one). Resolves undefined when the worker failed
   * before answering and the query was not the one it was running: the caller runs it itself.
   */
  query(q: ReplicaQuery, sync: ReplicaSync | undefined): Promise<ReplicaQueryResult | undefined> {
    const w = this.worker;
    if (w === undefined) return Promise.resolve(undefined);
    if (sync !== undefined) w.postMessage({ t: 'sync', sync } satisfies WorkerMessage, [sync.bytes.buffer as ArrayBuffer]);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.waiting.length === 0) w.ref(); // an answer is awaited: keep the process alive until it comes
      this.waiting.push({ id, at: performance.now(), resolve, reject });
      w.postMessage({ t: 'query', id, query: q } satisfies WorkerMessage);
    });
  }

  /**
   * How long the worker has had queries to run without a break (0 when idle): since the oldest unanswered
   * query was sent, or since the previous answer if that came later.
   */
  busyMs(): number {
    const oldest = this.waiting[0];
    if (oldest === undefined) return 0;
    return performance.now() - Math.max(oldest.at, this.lastAnswerAt);
  }

  /** Ends the worker as a crash would (for tests of the failure path). */
  async terminateWorker(): Promise<void> {
    await this.worker?.terminate();
  }

  /** Stops the worker; unanswered queries fail with HostStateError. */
  close(): void {
    this.closed = true;
    if (this.restartTimer !== undefined) clearTimeout(this.restartTimer);
    const w = this.worker;
    this.worker = undefined;
    void w?.terminate();
    for (const p of this.waiting.splice(0)) p.reject(new HostStateError('host is closed'));
  }

  private spawn(): void {
    const state = this.o.state();
    const w = new Worker(BOOT, { workerData: { entry: ENTRY }, execArgv: [] });
    w.unref(); // idle, never what keeps a process (or a test run) alive
    w.on('message', (m: FromWorker) => this.onMessage(w, m));
    w.on('error', (e) => this.onFailure(w, e.message));
    w.on('exit', (code) => this.onFailure(w, `exited with code ${code}`));
    this.worker = w;
    this.isReady = false;
    w.postMessage({ t: 'reset', reset: state } satisfies WorkerMessage, [state.heap.buffer as ArrayBuffer]);
  }

  private onMessage(w: Worker, m: FromWorker): void {
    if (w !== this.worker) return;
    if (m.t === 'ready') {
      this.isReady = true;
      this.o.log(`query replica ready (thread ${w.threadId}): queries run beside block production`);
    } else if (m.t === 'print') this.o.print(m.text);
    else {
      const p = this.waiting.shift();
      if (p === undefined || p.id !== m.id) {
        // Cannot happen (one port, answered in order); if it did, no answer can be trusted to its query.
        this.o.log(`query replica: reply ${m.id} out of order; restarting it`);
        if (p !== undefined) this.waiting.unshift(p);
        void w.terminate();
        return;
      }
      this.served++;
      this.lastAnswerAt = performance.now();
      if (this.waiting.length === 0) w.unref();
      p.resolve(m.answer);
    }
  }

  private onFailure(w: Worker, why: string): void {
    if (w !== this.worker || this.closed) return; // 'error' is followed by 'exit'; a closed replica's exit is expected
    this.worker = undefined;
    this.isReady = false;
    const running = this.waiting.shift();
    running?.resolve({
      result: { kind: 'reject', code: RejectCode.SysTransient, message: `the query replica failed while running this query (${why}); retry`, instructions: undefined },
      remember: false,
      timeRead: undefined,
    });
    for (const p of this.waiting.splice(0)) p.resolve(undefined);
    const now = Date.now();
    this.failures = [...this.failures.filter((t) => now - t < FAILURE_WINDOW_MS), now];
    if (this.failures.length >= MAX_FAILURES) {
      this.o.log(`query replica failed (${why}), ${this.failures.length} times within ${FAILURE_WINDOW_MS / 1000} s: giving up, queries run on the main thread`);
      return;
    }
    this.o.log(`query replica failed (${why}): queries run on the main thread until a new one is ready`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.closed) return;
      this.restarts++;
      this.spawn();
    }, RESTART_DELAY_MS);
    this.restartTimer.unref();
  }
}
