// The instance core shared by the host (index.ts) and the query replica's follower (follower.ts): one wasm
// instance of the canister's module and its committed state, and the execution of one message atomically
// (queries, replicated queries and traps discard every change; committed messages apply them and queue the
// calls they made). The System API is in ic0.ts; the host delivers the calls (inter_canister.ts).
import type { Principal } from '@dfinity/principal';
import { IC_INSPECT_INSTRUCTION_LIMIT } from '../core/constants.js';
import type { CallResult } from './calls.js';
import type { Clock, ClockState } from './clock.js';
import { HostStateError, RejectCode, Trap } from './errors.js';
import { HeapSnapshot } from './heap.js';
import { ic0Imports, type SystemApiHost } from './ic0.js';
import { ANONYMOUS, type CallContext, type Callback, type Live, type Message, type MessageKind, type MessageStats, type OutgoingCall, type Response } from './message.js';
import type { WasmProfiler } from './profile.js';
import type { ReplicaQueryResult } from './replica.js';
import { WASM_PAGE, type StableMemory } from './stable.js';
import { COUNTER_EXPORT, GLOBAL_EXPORT_PREFIX, LIMIT_EXPORT, TABLE_EXPORT } from './wasm_names.js';

/** The IC's limit for canister_init / canister_post_upgrade (pre_upgrade + post_upgrade together). */
export const IC_INSTALL_INSTRUCTION_LIMIT = 300_000_000_000n;

/** IcHost.snapshotState(): opaque to callers; valid for restoreState() on the same host. */
export interface HostStateSnapshot {
  readonly heap: Buffer;
  readonly globals: readonly (number | bigint)[];
  readonly stable: { readonly pages: ReadonlyMap<number, Buffer>; readonly size: bigint };
  readonly timerDeadline: bigint;
  readonly certifiedData: Uint8Array;
  readonly version: bigint;
  readonly clock: ClockState;
  readonly wasmHash: string;
}

export interface InstanceOptions {
  canisterId: Principal;
  controllers: Principal[];
  cycleBalance: bigint;
  instrumented: boolean;
  clock: Clock;
  stable: StableMemory;
  queryLimit: bigint;
  updateLimit: bigint;
  module: WebAssembly.Module;
  wasmHash: string;
  debugPrint: (m: string) => void;
  profiler?: WasmProfiler;
  onMessage?: (stats: MessageStats) => void;
}

export class CanisterInstance implements SystemApiHost {
  readonly canisterId: Principal;
  readonly selfBytes: Uint8Array;
  controllers: Principal[];
  cycleBalance: bigint;
  readonly instrumented: boolean;
  readonly clock: Clock;
  readonly stable: StableMemory;
  readonly queryLimit: bigint;
  readonly updateLimit: bigint;
  readonly debugPrint: (m: string) => void;
  readonly profiler: WasmProfiler | undefined;
  private readonly onMessage: ((stats: MessageStats) => void) | undefined;
  module: WebAssembly.Module;
  wasmHash: string;
  live: Live | undefined;
  timerDeadline = 0n;
  certifiedData: Uint8Array = new Uint8Array();
  version = 0n;
  /** Bumped whenever committed state may have changed: remembered query replies are only valid within one epoch. */
  epoch = 0n;
  readonly queue: (() => void)[] = [];
  current: Message | undefined;
  impure = false;
  timeRead: bigint | undefined;
  /** The instruction limit of the query running in the fast lane (query_lane.ts), if one is. */
  fastLaneLimit: bigint | undefined;
  /** Statistics of the last message executed (for benchmarks and reports). */
  lastMessage: MessageStats | undefined;
  /** Called after a committed message (not a lifecycle one) has applied its changes: the host persists them. */
  onCommit: () => void = () => {};
  /**
   * Delivers a call a committed message made (the host sets inter_canister.ts's deliver; the query replica's
   * follower commits nothing, so makes no calls).
   */
  deliverCall: (call: OutgoingCall) => void = () => {
    throw new HostStateError('this instance delivers no calls');
  };

  constructor(o: InstanceOptions) {
    this.canisterId = o.canisterId;
    this.selfBytes = o.canisterId.toUint8Array();
    this.controllers = o.controllers;
    this.cycleBalance = o.cycleBalance;
    this.instrumented = o.instrumented;
    this.clock = o.clock;
    this.stable = o.stable;
    this.queryLimit = o.queryLimit;
    this.updateLimit = o.updateLimit;
    this.module = o.module;
    this.wasmHash = o.wasmHash;
    this.debugPrint = o.debugPrint;
    this.profiler = o.profiler;
    this.onMessage = o.onMessage;
  }

  now(): bigint {
    return this.clock.now();
  }

  queryTimeNs(): bigint {
    return this.clock.queryTimeNs();
  }

  requireLive(): Live {
    if (this.live === undefined) throw new HostStateError('canister is not installed');
    return this.live;
  }

  hasExport(name: string): boolean {
    return this.requireLive().instance.exports[name] !== undefined;
  }

  instantiate(module: WebAssembly.Module): Live {
    const imports = ic0Imports(this, module, this.profiler);
    const instance = new WebAssembly.Instance(module, imports);
    const ex = instance.exports;
    const memory = ex['memory'] as WebAssembly.Memory | undefined;
    if (memory === undefined) throw new HostStateError('canister wasm exports no memory');
    const globals: WebAssembly.Global[] = [];
    for (const [name, v] of Object.entries(ex)) if (name.startsWith(GLOBAL_EXPORT_PREFIX)) globals.push(v as WebAssembly.Global);
    const live: Live = {
      instance,
      memory,
      table: ex[TABLE_EXPORT] as WebAssembly.Table | undefined,
      globals,
      counter: ex[COUNTER_EXPORT] as WebAssembly.Global | undefined,
      limit: ex[LIMIT_EXPORT] as WebAssembly.Global | undefined,
      heap: new HeapSnapshot(memory),
      savedGlobals: globals.map((g) => g.value as number | bigint),
      module,
    };
    return live;
  }

  /**
   * Runs init / pre_upgrade / post_upgrade on `live`; the caller handles stable memory (one transaction
   * across pre and post upgrade). Returns the trap, if any.
   */
  runLifecycle(live: Live, exportName: string, kind: MessageKind, arg: Uint8Array): Trap | undefined {
    const fn = live.instance.exports[exportName] as (() => void) | undefined;
    if (fn === undefined) return undefined;
    const prev = this.live;
    this.live = live;
    const savedDeadline = this.timerDeadline;
    // Install and upgrade deactivate the global timer; init / post_upgrade may arm it again.
    if (kind !== 'pre_upgrade') this.timerDeadline = 0n;
    const ctx = this.newContext(this.selfBytes, exportName, undefined);
    const installer = this.controllers[0]?.toUint8Array() ?? ANONYMOUS.toUint8Array();
    const { trap, msg } = this.execute(kind, exportName, '', arg, installer, ctx, undefined, true);
    this.live = prev;
    this.timerDeadline = trap === undefined && kind !== 'pre_upgrade' ? msg.timerDeadline : savedDeadline;
    if (trap === undefined && kind === 'pre_upgrade') this.timerDeadline = 0n;
    return trap;
  }

  /**
   * Wasm memory cannot shrink: after a discarded message that grew it, build a new instance of the same
   * module and copy the committed heap and globals into it.
   */
  rebuild(live: Live): void {
    const fresh = new WebAssembly.Instance(live.module, ic0Imports(this, live.module, this.profiler));
    const ex = fresh.exports;
    const memory = ex['memory'] as WebAssembly.Memory;
    const bytes = live.heap.bytes;
    const need = bytes.length / WASM_PAGE - memory.buffer.byteLength / WASM_PAGE;
    if (need > 0) memory.grow(need);
    new Uint8Array(memory.buffer).set(bytes);
    live.instance = fresh;
    live.memory = memory;
    live.table = ex[TABLE_EXPORT] as WebAssembly.Table | undefined;
    live.globals = Object.entries(ex)
      .filter(([n]) => n.startsWith(GLOBAL_EXPORT_PREFIX))
      .map(([, v]) => v as WebAssembly.Global);
    live.counter = ex[COUNTER_EXPORT] as WebAssembly.Global | undefined;
    live.limit = ex[LIMIT_EXPORT] as WebAssembly.Global | undefined;
  }

  /**
   * Runs a query on this instance (under `limit` instead of the query limit when given); `remember`: its reply
   * may be remembered (no trap, nothing impure read).
   */
  runQuery(method: string, arg: Uint8Array, caller: Uint8Array, limit?: bigint): ReplicaQueryResult & { limitExceeded: boolean } {
    const ctx = this.newContext(caller, method, undefined);
    this.impure = false;
    this.timeRead = undefined;
    this.fastLaneLimit = limit;
    let trap: Trap | undefined;
    try {
      ({ trap } = this.execute('query', `canister_query ${method}`, method, arg, caller, ctx));
    } finally {
      this.fastLaneLimit = undefined;
    }
    return { result: this.resultOf(ctx, 'query'), remember: trap === undefined && !this.impure, timeRead: this.timeRead, limitExceeded: trap?.kind === 'limit' };
  }

  hostReject(code: number, message: string, uncertified = false): CallResult {
    return { kind: 'reject', code, message, instructions: this.instrumented ? 0n : undefined, ...(uncertified ? { uncertified: true as const } : {}) };
  }

  resultOf(ctx: CallContext, kind: 'query' | 'update'): CallResult {
    if (ctx.result !== undefined) return ctx.result;
    // Only reachable for a query that did not reply (an update context is always finished by drain()).
    const instructions = this.instrumented ? ctx.instructions : undefined;
    return { kind: 'reject', code: RejectCode.CanisterError, message: `Canister ${this.canisterId.toText()} did not reply to the call (${kind})`, instructions };
  }

  newContext(caller: Uint8Array, method: string, onResponse: ((r: Response) => void) | undefined): CallContext {
    const ctx: CallContext = { caller, method, replied: false, outstanding: 0, instructions: 0n, onResponse };
    return ctx;
  }

  /** A call context with no outstanding calls and no reply is answered with CanisterError, as on the IC. */
  finishIfDone(ctx: CallContext): void {
    if (!ctx.replied && ctx.outstanding === 0 && ctx.result === undefined) {
      this.respond(ctx, { kind: 'reject', code: RejectCode.CanisterError, message: `Canister ${this.canisterId.toText()} did not reply to the call` });
    }
  }

  private respond(ctx: CallContext, r: Response): void {
    ctx.replied = true;
    const instructions = this.instrumented ? ctx.instructions : undefined;
    ctx.result = r.kind === 'reply' ? { kind: 'reply', bytes: r.bytes, instructions } : { kind: 'reject', code: r.code, message: r.message, instructions };
    ctx.onResponse?.(r);
  }

  /**
   * Executes one message atomically. `entry` is an export name or a table callback. Queries, replicated
   * queries and traps discard all changes (heap, globals, stable memory, timer, certified data, calls,
   * the reply of a trapped message); committed messages apply them and hand their calls to the queue.
   */
  execute(
    kind: MessageKind,
    entry: string | Callback,
    method: string,
    arg: Uint8Array,
    caller: Uint8Array,
    ctx: CallContext | undefined,
    setup?: (m: Message) => void,
    lifecycle = false,
  ): { trap: Trap | undefined; msg: Message } {
    const live = this.requireLive();
    const msg: Message = {
      kind,
      method,
      arg,
      caller,
      ctx,
      replyParts: [],
      rejectCode: 0,
      rejectMessage: '',
      performed: [],
      timerDeadline: this.timerDeadline,
      certifiedData: this.certifiedData,
      accepted: false,
      instructionsBefore: ctx?.instructions ?? 0n,
    };
    setup?.(msg);
    const limit =
      kind === 'inspect'
        ? IC_INSPECT_INSTRUCTION_LIMIT
        : kind === 'query' || kind === 'replicated_query'
        ? ((kind === 'query' ? this.fastLaneLimit : undefined) ?? this.queryLimit)
        : kind === 'init' || kind === 'post_upgrade' || kind === 'pre_upgrade'
          ? IC_INSTALL_INSTRUCTION_LIMIT
          : this.updateLimit;
    if (live.counter !== undefined) live.counter.value = 0n;
    if (live.limit !== undefined) live.limit.value = limit;
    this.profiler?.begin(kind);
    if (!lifecycle) this.stable.begin();
    this.current = msg;
    let trap: Trap | undefined;
    const t0 = performance.now();
    try {
      if (typeof entry === 'string') {
        (live.instance.exports[entry] as () => void)();
      } else {
        const fn = live.table?.get(entry.fun) as ((env: number | bigint) => void) | null | undefined;
        if (typeof fn !== 'function') throw new Trap(`callback table entry ${entry.fun} is not a function`);
        fn(entry.env);
      }
    } catch (e) {
      trap = toTrap(e);
    } finally {
      this.current = undefined;
    }
    const t1 = performance.now();
    const instructions = live.counter !== undefined ? (live.counter.value as bigint) : undefined;
    this.profiler?.end(Number(instructions ?? 0n));
    if (ctx !== undefined && instructions !== undefined) ctx.instructions += instructions;
    const discard = trap !== undefined || kind === 'query' || kind === 'replicated_query' || kind === 'inspect' || kind === 'pre_upgrade';
    let heapPages = 0;
    let stablePages = 0;
    if (discard) {
      const r = live.heap.restore(live.memory);
      if (r === undefined) this.rebuild(live);
      else heapPages = r.pages;
      live.globals.forEach((g, i) => (g.value = live.savedGlobals[i]!));
      if (!lifecycle) stablePages = this.stable.rollback();
    } else {
      heapPages = live.heap.commit(live.memory).pages;
      this.epoch++;
      this.clock.committed();
      live.savedGlobals = live.globals.map((g) => g.value as number | bigint);
      if (!lifecycle) stablePages = this.stable.commit();
    }
    this.lastMessage = {
      kind,
      method: typeof entry === 'string' ? entry : `callback#${entry.fun}`,
      instructions,
      trapped: trap !== undefined,
      ...(trap === undefined ? {} : { trapMessage: trap.message }),
      heapBytes: live.memory.buffer.byteLength,
      heapPagesChanged: heapPages,
      stablePagesTouched: stablePages,
      snapshotMs: performance.now() - t1,
      execMs: t1 - t0,
    };
    this.onMessage?.(this.lastMessage);
    if (trap !== undefined) {
      if (ctx !== undefined && !ctx.replied && (kind === 'update' || kind === 'replicated_query' || kind === 'query')) {
        this.respond(ctx, { kind: 'reject', code: RejectCode.CanisterError, message: `Canister ${this.canisterId.toText()} trapped: ${trap.message}` });
      }
      return { trap, msg };
    }
    // Replies leave even a query; everything else only when the message commits.
    if (msg.response !== undefined && ctx !== undefined) this.respond(ctx, msg.response);
    if (!discard && !lifecycle) {
      this.timerDeadline = msg.timerDeadline;
      this.certifiedData = msg.certifiedData;
      for (const call of msg.performed) {
        call.ctx.outstanding += 1;
        this.queue.push(() => this.deliverCall(call));
      }
      this.onCommit();
    } else if (!discard && lifecycle) {
      this.certifiedData = msg.certifiedData;
      for (const call of msg.performed) {
        call.ctx.outstanding += 1;
        this.queue.push(() => this.deliverCall(call));
      }
    }
    return { trap: undefined, msg };
  }

  /**
   * A copy of the canister's whole committed state between messages: heap, mutable globals, stable memory,
   * global timer, certified data and the clock. restore() puts it back exactly.
   */
  snapshot(): HostStateSnapshot {
    const live = this.requireLive();
    if (this.queue.length > 0 || this.current !== undefined) throw new HostStateError('snapshot needs an idle canister');
    return {
      heap: Buffer.from(live.heap.bytes),
      globals: [...live.savedGlobals],
      stable: this.stable.copyAll(),
      timerDeadline: this.timerDeadline,
      certifiedData: this.certifiedData,
      version: this.version,
      clock: this.clock.save(),
      wasmHash: this.wasmHash,
    };
  }

  /** Restores a snapshot of this canister (same wasm): the live instance is rebuilt from it. */
  restore(snap: HostStateSnapshot): void {
    const live = this.requireLive();
    if (this.queue.length > 0 || this.current !== undefined) throw new HostStateError('restore needs an idle canister');
    if (snap.wasmHash !== this.wasmHash) throw new HostStateError('the snapshot was taken with another wasm');
    live.heap.replace(snap.heap);
    this.rebuild(live); // memory cannot shrink: a fresh instance gets the snapshot's heap
    live.globals.forEach((g, i) => (g.value = snap.globals[i]!));
    live.savedGlobals = [...snap.globals];
    this.stable.replaceAll(snap.stable);
    this.timerDeadline = snap.timerDeadline;
    this.certifiedData = snap.certifiedData;
    this.version = snap.version;
    this.clock.restore(snap.clock);
    this.epoch++;
  }
}

function toTrap(e: unknown): Trap {
  if (e instanceof Trap) return e;
  if (e instanceof WebAssembly.RuntimeError) return new Trap(`Canister trapped: ${e.message}`, 'runtime');
  if (e instanceof RangeError) return new Trap(`Canister trapped: ${e.message}`, 'runtime'); // e.g. stack overflow
  return new Trap(`Canister trapped (host error): ${e instanceof Error ? e.message : String(e)}`, 'runtime');
}
