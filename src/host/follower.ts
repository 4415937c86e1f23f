// The query replica's side (replica_worker.ts): an instance core over the leader's already prepared module,
// with no file and a manual clock, whose state comes from the leader (a whole state, then what committed
// since) and which only runs queries, at the leader's query time, cycle balance and controllers.
import { Principal } from '@dfinity/principal';
import { IC_UPDATE_INSTRUCTION_LIMIT } from '../core/constants.js';
import { Clock } from './clock.js';
import { CanisterInstance } from './instance.js';
import { DEFAULT_MAX_STABLE_PAGES, StableMemory } from './stable.js';
import type { ReplicaQuery, ReplicaQueryResult, ReplicaReset, ReplicaSync } from './replica.js';

export class ReplicaFollower {
  private readonly core: CanisterInstance;

  constructor(r: ReplicaReset, debugPrint: (m: string) => void) {
    this.core = new CanisterInstance({
      canisterId: Principal.fromText(r.canisterId),
      controllers: [],
      cycleBalance: 0n, // each query brings the leader's
      instrumented: r.instrumented,
      clock: new Clock('manual', 0n) /* each query sets the leader's query time */,
      stable: new StableMemory(DEFAULT_MAX_STABLE_PAGES),
      queryLimit: r.queryLimit,
      updateLimit: IC_UPDATE_INSTRUCTION_LIMIT,
      module: r.module,
      wasmHash: r.wasmHash,
      debugPrint,
    });
    this.load(r);
  }

  /** Start over from the leader's state (a fresh instance of its module). */
  load(r: ReplicaReset): void {
    const core = this.core;
    core.module = r.module;
    core.wasmHash = r.wasmHash;
    const live = core.instantiate(r.module);
    core.live = live;
    live.heap.replace(r.heap);
    core.rebuild(live);
    live.globals.forEach((g, i) => (g.value = r.globals[i]!));
    live.savedGlobals = [...r.globals];
    core.stable.applyShared(r.stable, r.stableSize, true);
    core.version = r.version;
  }

  /** Apply what the leader committed since. */
  apply(d: ReplicaSync): void {
    const live = this.core.requireLive();
    live.heap.applyPages(live.memory, d.heapSize, d.index, d.bytes);
    live.globals.forEach((g, i) => (g.value = d.globals[i]!));
    live.savedGlobals = [...d.globals];
    this.core.stable.applyShared(d.stable, d.stableSize, false);
    this.core.version = d.version;
  }

  /** One query at the leader's query time, cycle balance and controllers. */
  query(q: ReplicaQuery): ReplicaQueryResult {
    this.core.clock.timeNs = q.timeNs;
    this.core.cycleBalance = q.cycleBalance;
    this.core.controllers = q.controllers.map((c) => Principal.fromUint8Array(c));
    return this.core.runQuery(q.method, q.arg, q.caller);
  }
}
