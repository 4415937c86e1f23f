// The host's non-replicated queries beyond running them in place: the remembered replies (a query's reply is a
// pure function of the committed state and its inputs unless it reads the clock, the cycle balance, the
// controllers or prints), the query replica's leader side (replica.ts: its whole state, then what committed
// since), and the fast lane that keeps cheap queries off a replica busy with a long one.
import { RejectCode } from './errors.js';
import type { CallResult } from './calls.js';
import type { CanisterInstance } from './instance.js';
import { QueryReplica, type ReplicaQuery, type ReplicaQueryResult, type ReplicaReset, type ReplicaSync } from './replica.js';

/** queryAsync: a replica busy with one query for this long is probably running a long one (fast lane). */
const REPLICA_BUSY_MS = 20;
/** queryAsync's fast lane: what a query may cost the calling thread while the replica is busy (about 0.1 s). */
const FAST_LANE_INSTRUCTIONS = 200_000_000n;
/** Larger arguments are not remembered (the key holds the whole argument). */
const MAX_REMEMBERED_ARG = 4096;
const replyKey = (method: string, caller: Uint8Array, arg: Uint8Array): string =>
  `${method}\0${Buffer.from(caller).toString('base64')}\0${Buffer.from(arg).toString('base64')}`;

export class QueryLane {
  private readonly replies = new Map<string, { epoch: bigint; time: bigint | undefined; result: CallResult }>();
  /** Rememberable queries (by their remembered-reply key) running in the replica, with their state and time. */
  private readonly inflight = new Map<string, { epoch: bigint; timeNs: bigint; promise: Promise<ReplicaQueryResult | undefined> }>();
  /** Query methods seen to cost more than FAST_LANE_INSTRUCTIONS: never run in the fast lane. */
  private readonly expensiveQueries = new Set<string>();
  /** Queries answered by the fast lane (statistics, tests). */
  fastLaneQueries = 0;
  /** Queries answered from remembered replies, or (queryAsync) shared with the same query in flight. */
  queryCacheHits = 0;
  replica: QueryReplica | undefined;
  /** The epoch the replica was last brought up to. */
  private replicaEpoch = -1n;

  constructor(
    private readonly core: CanisterInstance,
    private readonly capacity: number,
    /** Throws when the host was closed (checked again after waiting for the replica). */
    private readonly checkOpen: () => void,
  ) {}

  /** A query on this thread: the reply is returned, every state change is discarded. */
  query(method: string, arg: Uint8Array, caller: Uint8Array): CallResult {
    const p = this.prologue(method, arg, caller);
    if (p.answer !== undefined) return p.answer;
    return this.runHere(method, arg, caller, p.key);
  }

  /** A query that runs in the query replica when it is ready (IcHost.queryAsync), here otherwise. */
  async queryAsync(method: string, arg: Uint8Array, caller: Uint8Array): Promise<CallResult> {
    const core = this.core;
    const p = this.prologue(method, arg, caller);
    if (p.answer !== undefined) return p.answer;
    if (p.key !== undefined) {
      // The same query on the same state at the same query time is in the replica already: its reply is this
      // one's if it may be remembered (without this, every poller that asks while the first is in flight,
      // after each block, would queue one more run behind it).
      const same = this.inflight.get(p.key);
      if (same !== undefined && same.epoch === core.epoch && same.timeNs === core.queryTimeNs()) {
        const r = await same.promise;
        if (r?.remember === true) {
          this.queryCacheHits++;
          return r.result;
        }
        this.checkOpen();
      }
    }
    const replica = this.replica;
    if (replica?.ready === true) {
      // Fast lane: while the replica is busy with what looks like a long query, a query of a method never seen
      // to be expensive runs here under a small limit; past it, it goes to the replica (each method can cost
      // this thread that limit once: then it is marked expensive).
      if (core.instrumented && replica.busyMs() > REPLICA_BUSY_MS && !this.expensiveQueries.has(method)) {
        const epoch = core.epoch;
        const r = core.runQuery(method, arg, caller, FAST_LANE_INSTRUCTIONS);
        if (!r.limitExceeded) {
          if (p.key !== undefined && r.remember) this.remember(p.key, epoch, r);
          this.fastLaneQueries++;
          return r.result;
        }
        this.expensiveQueries.add(method);
      }
      const epoch = core.epoch;
      const q: ReplicaQuery = {
        method,
        arg,
        caller,
        timeNs: core.queryTimeNs(),
        cycleBalance: core.cycleBalance,
        controllers: core.controllers.map((c) => c.toUint8Array()),
      };
      const promise = replica.query(q, this.replicaSync());
      const key = p.key;
      if (key !== undefined) this.inflight.set(key, { epoch, timeNs: q.timeNs, promise });
      let r: ReplicaQueryResult | undefined;
      try {
        r = await promise;
      } finally {
        if (key !== undefined && this.inflight.get(key)?.promise === promise) this.inflight.delete(key);
      }
      if (r !== undefined) {
        if ((r.result.instructions ?? 0n) > FAST_LANE_INSTRUCTIONS) this.expensiveQueries.add(method);
        // Remembered only if nothing committed meanwhile (the reply is of the state at `epoch`).
        if (p.key !== undefined && r.remember && epoch === core.epoch) this.remember(p.key, epoch, r);
        return r.result;
      }
      // The replica failed before running it (and logged why): run it here, on the latest state.
      this.checkOpen();
      core.requireLive();
    }
    return this.runHere(method, arg, caller, p.key);
  }

  /** Every remembered reply is forgotten (an upgrade or a restored snapshot; a commit moves the epoch instead). */
  forget(): void {
    this.replies.clear();
  }

  /** Starts the query replica (after install / resume). */
  startReplica(log: (line: string) => void): void {
    this.replica = new QueryReplica({ log, state: () => this.replicaState(), print: this.core.debugPrint });
  }

  /** A new instance (and perhaps module): the replica starts over. */
  resetReplica(): void {
    this.replica?.reset(this.replicaState());
  }

  closeReplica(): void {
    this.replica?.close();
    this.replica = undefined;
  }

  private runHere(method: string, arg: Uint8Array, caller: Uint8Array, key: string | undefined): CallResult {
    const epoch = this.core.epoch;
    const r = this.core.runQuery(method, arg, caller);
    if (key !== undefined && r.remember) this.remember(key, epoch, r);
    return r.result;
  }

  /**
   * Checks shared by query() and queryAsync() (the host has checked it is open and installed); `answer` when
   * no execution is needed (no such method, remembered).
   */
  private prologue(method: string, arg: Uint8Array, caller: Uint8Array): { key: string | undefined; answer?: CallResult } {
    const core = this.core;
    if (!core.hasExport(`canister_query ${method}`)) {
      return { key: undefined, answer: core.hostReject(RejectCode.DestinationInvalid, `Canister ${core.canisterId.toText()} has no query method '${method}'`) };
    }
    const key = this.capacity > 0 && arg.length <= MAX_REMEMBERED_ARG ? replyKey(method, caller, arg) : undefined;
    if (key !== undefined) {
      const hit = this.replies.get(key);
      if (hit !== undefined && hit.epoch === core.epoch && (hit.time === undefined || hit.time === core.queryTimeNs())) {
        this.replies.delete(key); // LRU order
        this.replies.set(key, hit);
        this.queryCacheHits++;
        return { key, answer: hit.result };
      }
    }
    return { key };
  }

  private remember(key: string, epoch: bigint, r: ReplicaQueryResult): void {
    this.replies.set(key, { epoch, time: r.timeRead, result: r.result });
    if (this.replies.size > this.capacity) this.replies.delete(this.replies.keys().next().value as string);
  }

  /** Everything the replica needs to start over: the module, the committed heap and globals, stable memory. */
  private replicaState(): ReplicaReset {
    const core = this.core;
    const live = core.requireLive();
    const stable = core.stable.follow();
    this.replicaEpoch = core.epoch;
    return {
      module: core.module,
      wasmHash: core.wasmHash,
      instrumented: core.instrumented,
      canisterId: core.canisterId.toText(),
      queryLimit: core.queryLimit,
      heap: live.heap.follow(),
      globals: [...live.savedGlobals],
      stable: stable.pages,
      stableSize: stable.size,
      version: core.version,
    };
  }

  /** What committed since the replica was last brought up to date (undefined: nothing). Between messages. */
  private replicaSync(): ReplicaSync | undefined {
    const core = this.core;
    if (this.replicaEpoch === core.epoch) return undefined;
    this.replicaEpoch = core.epoch;
    const live = core.requireLive();
    const heap = live.heap.takeChanged();
    const stable = core.stable.takeChanged();
    return {
      heapSize: heap.size,
      index: heap.index,
      bytes: heap.bytes,
      globals: [...live.savedGlobals],
      stable: stable.pages,
      stableSize: stable.size,
      version: core.version,
    };
  }
}
