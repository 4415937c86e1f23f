// A Node host for one IC canister: runs the built canister wasm and implements the ic0 System API, with the
// IC's message semantics (atomic messages, discarded queries, asynchronous inter-canister calls, the global
// timer, instruction limits). The rooms: instance.ts (one instance and the execution of a message), ic0.ts
// (the System API), inter_canister.ts, clock.ts, persist.ts (the stable-memory file), query_lane.ts (remembered
// replies, the query replica's leader side, the fast lane), follower.ts (the replica's side); prepare.ts
// (wasm rewrite), heap.ts and stable.ts (atomicity, persistence).
import { readFileSync } from 'node:fs';
import { IDL } from '@dfinity/candid';
import { Principal } from '@dfinity/principal';
import { IC_QUERY_INSTRUCTION_LIMIT, IC_UPDATE_INSTRUCTION_LIMIT } from '../core/constants.js';
import type { CallOptions, CallResult } from './calls.js';
import { Clock } from './clock.js';
import { CanisterInstallError, HostStateError, RejectCode } from './errors.js';
import { CanisterInstance, type HostStateSnapshot } from './instance.js';
import { deliver } from './inter_canister.js';
import { ANONYMOUS, toBytes, type MessageStats } from './message.js';
import type { IcHostOptions } from './options.js';
import { Persistence } from './persist.js';
import { WasmProfiler } from './profile.js';
import { QueryLane } from './query_lane.js';
import type { QueryReplica } from './replica.js';
import { DEFAULT_MAX_STABLE_PAGES, StableMemory } from './stable.js';
import { sha256Hex } from './wasm_names.js';

export { CanisterInstallError, HostError, HostSetupError, HostStateError, RejectCode } from './errors.js';
export type { CallOptions, CallResult, PrincipalLike } from './calls.js';
export type { HostStateSnapshot } from './instance.js';
export type { MessageStats } from './message.js';
export type { IcHostOptions } from './options.js';
export { IC_INSTALL_INSTRUCTION_LIMIT } from './instance.js';
export { DEFAULT_MAX_STABLE_PAGES } from './stable.js';
export { ANONYMOUS } from './message.js';
export const MANAGEMENT_CANISTER = Principal.fromText('aaaaa-aa');

const emptyArg = (): Uint8Array => new Uint8Array(IDL.encode([], []));

export class IcHost {
  readonly canisterId: Principal;
  readonly instrumented: boolean;
  readonly clockMode: 'manual' | 'wall';
  private readonly core: CanisterInstance;
  private readonly clock: Clock;
  private readonly lane: QueryLane;
  private readonly persistence: Persistence | undefined;
  private readonly opts: IcHostOptions;
  private wallTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Per-function instruction attribution, when created with `profile: true`. */
  readonly profiler: WasmProfiler | undefined;
  /** True when a stable-memory file with metadata existed at creation: call resume(), not install(). */
  readonly hasPersistedState: boolean;

  private constructor(opts: IcHostOptions, module: WebAssembly.Module, wasmHash: string, functionNames?: string[]) {
    this.opts = opts;
    this.profiler = functionNames === undefined ? undefined : new WasmProfiler(functionNames);
    this.instrumented = opts.instrument ?? true;
    this.clockMode = opts.clock ?? 'manual';
    this.clock = new Clock(this.clockMode, opts.startTimeNs ?? 1_700_000_000_000_000_000n);
    const stable = new StableMemory(opts.maxStablePages ?? DEFAULT_MAX_STABLE_PAGES);
    this.persistence = opts.stableMemoryFile === undefined ? undefined : Persistence.open(opts.stableMemoryFile, opts.fsync ?? true);
    const meta = this.persistence?.meta;
    this.hasPersistedState = meta !== undefined;
    const id = meta?.canisterId ?? opts.canisterId ?? 'rrkah-fqaaa-aaaaa-aaaaq-cai';
    this.canisterId = typeof id === 'string' ? Principal.fromText(id) : id instanceof Uint8Array ? Principal.fromUint8Array(id) : id;
    const sink = (m: string): void => void process.stderr.write(`[ic-host ${this.canisterId.toText()}] ${m}\n`);
    this.core = new CanisterInstance({
      canisterId: this.canisterId,
      controllers: (meta?.controllers ?? opts.controllers ?? []).map((c) => Principal.fromUint8Array(toBytes(c))),
      cycleBalance: opts.cycleBalance ?? 100_000_000_000_000n,
      instrumented: this.instrumented,
      clock: this.clock,
      stable,
      queryLimit: opts.queryInstructionLimit ?? IC_QUERY_INSTRUCTION_LIMIT,
      updateLimit: opts.updateInstructionLimit ?? IC_UPDATE_INSTRUCTION_LIMIT,
      module,
      wasmHash,
      debugPrint: opts.debugPrint ?? sink,
      ...(this.profiler === undefined ? {} : { profiler: this.profiler }),
      ...(opts.onMessage === undefined ? {} : { onMessage: opts.onMessage }),
    });
    this.core.onCommit = () => this.persist();
    this.core.deliverCall = (call) => deliver(this.core, call);
    if (meta !== undefined && this.persistence !== undefined) {
      this.core.timerDeadline = 0n; // like an upgrade: the global timer is deactivated (the persisted value is informational)
      this.core.certifiedData = Buffer.from(meta.certifiedData, 'hex');
      this.core.version = BigInt(meta.canisterVersion);
      if (this.clockMode === 'manual' && opts.startTimeNs === undefined) this.clock.timeNs = BigInt(meta.timeNs);
      // Wall mode: a clock moved forward before the restart stays forward (IC time never goes back).
      const wallNs = BigInt(Date.now()) * 1_000_000n;
      if (this.clockMode === 'wall' && BigInt(meta.timeNs) > wallNs) this.clock.offsetNs = BigInt(meta.timeNs) - wallNs;
      stable.loadImage(this.persistence.file.descriptor, BigInt(meta.stableSizePages));
    }
    this.lane = new QueryLane(this.core, opts.queryCache ?? 0, () => this.checkOpen());
  }

  /** Loads and prepares the wasm. Nothing runs until install() / resume(). */
  static async create(opts: IcHostOptions): Promise<IcHost> {
    const plain = typeof opts.wasm === 'string' ? readFileSync(opts.wasm) : opts.wasm;
    const prepared = await prepare(plain, opts.instrument ?? true, opts.cacheDir, opts.profile === true);
    return new IcHost(opts, prepared.module, prepared.wasmHash, prepared.functionNames);
  }

  // ---------------------------------------------------------------- state

  get controllers(): Principal[] {
    return this.core.controllers;
  }

  set controllers(c: Principal[]) {
    this.core.controllers = c;
  }

  get cycleBalance(): bigint {
    return this.core.cycleBalance;
  }

  set cycleBalance(v: bigint) {
    this.core.cycleBalance = v;
  }

  get installed(): boolean {
    return this.core.live !== undefined;
  }

  get canisterVersion(): bigint {
    return this.core.version;
  }

  get globalTimer(): bigint {
    return this.core.timerDeadline;
  }

  /** SHA-256 of the installed (plain) wasm module, as the IC certifies it under canister/<id>/module_hash. */
  get moduleHash(): Uint8Array {
    return new Uint8Array(Buffer.from(this.core.wasmHash, 'hex'));
  }

  get certified(): Uint8Array {
    return this.core.certifiedData;
  }

  get stableSizePages(): bigint {
    return this.core.stable.size;
  }

  get heapBytes(): number {
    return this.core.live?.memory.buffer.byteLength ?? 0;
  }

  /** Statistics of the last message executed (for benchmarks and reports). */
  get lastMessage(): MessageStats | undefined {
    return this.core.lastMessage;
  }

  /** Queries answered by the fast lane (statistics, tests). */
  get fastLaneQueries(): number {
    return this.lane.fastLaneQueries;
  }

  /** Queries answered from remembered replies (IcHostOptions.queryCache), or (queryAsync) shared with the same query in flight. */
  get queryCacheHits(): number {
    return this.lane.queryCacheHits;
  }

  /** The query replica when IcHostOptions.queryReplica is on (statistics, tests); `ready` says whether it runs queries now. */
  get queryReplica(): QueryReplica | undefined {
    return this.lane.replica;
  }

  // ---------------------------------------------------------------- lifecycle

  /** Runs canister_init with the Candid-encoded argument (default: empty argument), then runs until idle. */
  async install(arg: Uint8Array = emptyArg()): Promise<void> {
    this.checkOpen();
    if (this.core.live !== undefined) throw new HostStateError('canister is already installed; use upgrade()');
    if (this.hasPersistedState) throw new HostStateError('stable memory file holds a canister; use resume()');
    this.persistence?.file.reset();
    await this.start('canister_init', 'init', arg);
  }

  /** Restarts from a persisted stable-memory file: a fresh instance runs canister_post_upgrade (like an upgrade). */
  async resume(arg: Uint8Array = emptyArg()): Promise<void> {
    this.checkOpen();
    if (this.core.live !== undefined) throw new HostStateError('canister is already running');
    if (!this.hasPersistedState) throw new HostStateError('no persisted canister state to resume; use install()');
    await this.start('canister_post_upgrade', 'post_upgrade', arg);
  }

  /** A fresh instance runs its lifecycle entry as one stable-memory transaction, then serves. */
  private async start(entry: 'canister_init' | 'canister_post_upgrade', phase: 'init' | 'post_upgrade', arg: Uint8Array): Promise<void> {
    const core = this.core;
    core.stable.begin();
    const live = core.instantiate(core.module);
    const r = core.runLifecycle(live, entry, phase, arg);
    if (r !== undefined) {
      core.stable.rollback();
      throw new CanisterInstallError(phase, r.message);
    }
    core.stable.commit();
    core.live = live;
    core.version += 1n;
    this.persist();
    this.startWallClock();
    if (this.opts.queryReplica === true) this.lane.startReplica(this.opts.hostLog ?? core.debugPrint);
    await this.runUntilIdle();
  }

  /**
   * Upgrade: pending messages are drained first (a stopped canister), then canister_pre_upgrade (if exported)
   * on the old instance, then canister_post_upgrade on a fresh instance of `wasm` (default: the same wasm).
   * Stable memory is kept, the heap starts anew, the global timer is deactivated. If either step traps the
   * whole upgrade is rolled back (old instance, old stable memory) and CanisterInstallError is thrown.
   */
  async upgrade(opts: { wasm?: Uint8Array | string; arg?: Uint8Array } = {}): Promise<void> {
    this.checkOpen();
    const core = this.core;
    const old = core.requireLive();
    await this.runUntilIdle();
    let module = core.module;
    let wasmHash = core.wasmHash;
    if (opts.wasm !== undefined) {
      const plain = typeof opts.wasm === 'string' ? readFileSync(opts.wasm) : opts.wasm;
      ({ module, wasmHash } = await prepare(plain, this.instrumented, this.opts.cacheDir, this.opts.profile === true));
    }
    core.stable.begin();
    if (WebAssembly.Module.exports(old.module).some((e) => e.name === 'canister_pre_upgrade')) {
      // pre_upgrade's heap changes are always discarded (the old instance is dropped, or kept as it was).
      const r = core.runLifecycle(old, 'canister_pre_upgrade', 'pre_upgrade', new Uint8Array());
      if (r !== undefined) {
        core.stable.rollback();
        throw new CanisterInstallError('pre_upgrade', r.message);
      }
    }
    const live = core.instantiate(module);
    const r = core.runLifecycle(live, 'canister_post_upgrade', 'post_upgrade', opts.arg ?? emptyArg());
    if (r !== undefined) {
      core.stable.rollback();
      throw new CanisterInstallError('post_upgrade', r.message);
    }
    core.stable.commit();
    core.live = live;
    core.module = module;
    core.wasmHash = wasmHash;
    core.version += 1n;
    core.epoch++;
    this.lane.forget();
    this.persist();
    this.lane.resetReplica(); // a new instance (and perhaps module): the replica starts over
    await this.runUntilIdle();
  }

  /** Releases the stable-memory file and stops the wall-clock timer. The host is unusable afterwards. */
  close(): void {
    this.lane.closeReplica();
    if (this.wallTimer !== undefined) clearInterval(this.wallTimer);
    this.wallTimer = undefined;
    this.persistence?.file.close();
    this.closed = true;
    this.core.live = undefined;
  }

  // ---------------------------------------------------------------- clock and timers

  /** Current IC time in ns. */
  now(): bigint {
    return this.clock.now();
  }

  setTime(ns: bigint): void {
    this.clock.set(ns);
  }

  /**
   * Moves the clock forward by `ns` in either mode (wall mode: an offset added to Date.now() from now on).
   * Does not run anything; timers that became due fire at the next tick or call.
   */
  shiftClock(ns: bigint): void {
    this.clock.shift(ns);
  }

  /** How far (ns) the wall clock has been moved forward by shiftClock (0 in manual mode). */
  get clockOffset(): bigint {
    return this.clock.offsetNs;
  }

  /** The time a (non-replicated) query reads (clock.ts). */
  queryTimeNs(): bigint {
    return this.clock.queryTimeNs();
  }

  /** Moves the manual clock forward and processes everything that became due (timers and their calls). */
  async advanceTime(ms: number): Promise<void> {
    this.setTime(this.clock.timeNs + BigInt(Math.round(ms * 1e6)));
    await this.runUntilIdle();
  }

  /** Fires the global timer if it is due; returns whether it fired. Does not process the calls it makes. */
  tick(): boolean {
    this.checkOpen();
    const core = this.core;
    if (core.live === undefined || core.timerDeadline === 0n || this.now() < core.timerDeadline) return false;
    this.persistence?.requireWritable(core);
    core.timerDeadline = 0n; // the IC deactivates the timer when it fires
    const ctx = core.newContext(core.selfBytes, 'canister_global_timer', undefined);
    core.execute('timer', 'canister_global_timer', '', new Uint8Array(), core.selfBytes, ctx);
    core.finishIfDone(ctx);
    return true;
  }

  /** Processes queued messages and due timers until nothing is left. */
  async runUntilIdle(maxMessages = 100_000): Promise<void> {
    this.drain(maxMessages);
  }

  private drain(maxMessages: number): void {
    let n = 0;
    for (;;) {
      const task = this.core.queue.shift();
      if (task !== undefined) task();
      else if (!this.tick()) return;
      if (++n > maxMessages) throw new HostStateError(`still busy after ${maxMessages} messages (a timer firing in a loop?)`);
    }
  }

  private startWallClock(): void {
    if (this.clockMode !== 'wall' || this.wallTimer !== undefined) return;
    this.wallTimer = setInterval(() => {
      try {
        if (this.core.timerDeadline !== 0n && this.now() >= this.core.timerDeadline) this.drain(100_000);
      } catch (e) {
        this.core.debugPrint(`timer processing failed: ${(e as Error).message}`);
      }
    }, this.opts.wallTickMs ?? 50);
    this.wallTimer.unref();
  }

  // ---------------------------------------------------------------- whole-state snapshots (the devnet's evm_snapshot)

  /**
   * A copy of the canister's whole committed state between messages: heap, mutable globals, stable memory,
   * global timer, certified data and the clock. restoreState() puts it back exactly.
   */
  snapshotState(): HostStateSnapshot {
    this.checkOpen();
    return this.core.snapshot();
  }

  /** Restores a snapshot of this canister (same wasm): the live instance is rebuilt from it and the state persisted. */
  restoreState(snap: HostStateSnapshot): void {
    this.checkOpen();
    this.core.restore(snap);
    this.lane.forget();
    this.persist();
    this.lane.resetReplica();
  }

  // ---------------------------------------------------------------- calls

  /** A query call (non-replicated) on this thread: the reply is returned, every state change is discarded. */
  query(method: string, arg: Uint8Array = emptyArg(), opts: CallOptions = {}): CallResult {
    this.checkOpen();
    this.core.requireLive();
    return this.lane.query(method, arg, toBytes(opts.caller ?? ANONYMOUS));
  }

  /**
   * A query call that, with IcHostOptions.queryReplica, runs in the query replica (a worker thread) so this
   * thread stays free meanwhile; the same answer as query() otherwise. The query sees the state committed
   * when it is called (every update answered before, nothing of a message still running), and its writes are
   * discarded. Runs here while the replica starts, or after it failed (see replica.ts).
   */
  async queryAsync(method: string, arg: Uint8Array = emptyArg(), opts: CallOptions = {}): Promise<CallResult> {
    this.checkOpen();
    this.core.requireLive();
    return this.lane.queryAsync(method, arg, toBytes(opts.caller ?? ANONYMOUS));
  }

  /**
   * An update call from an external caller. Runs the message, then everything it causes (calls to itself,
   * callbacks, due timers) until idle, and returns the reply. An update call to a query method runs it as a
   * replicated query (state discarded), as the IC does.
   */
  async update(method: string, arg: Uint8Array = emptyArg(), opts: CallOptions = {}): Promise<CallResult> {
    this.checkOpen();
    const core = this.core;
    this.persistence?.requireWritable(core);
    core.requireLive();
    const caller = toBytes(opts.caller ?? ANONYMOUS);
    const isUpdate = core.hasExport(`canister_update ${method}`);
    const isQuery = core.hasExport(`canister_query ${method}`);
    const who = `Canister ${this.canisterId.toText()}`;
    if (!isUpdate && !isQuery) return core.hostReject(RejectCode.DestinationInvalid, `${who} has no update method '${method}'`, true);
    if (isUpdate && opts.fromCanister !== true && core.hasExport('canister_inspect_message')) {
      const ictx = core.newContext(caller, method, undefined);
      const m = core.execute('inspect', 'canister_inspect_message', method, arg, caller, ictx);
      if (m.trap !== undefined || !m.msg.accepted) {
        return core.hostReject(RejectCode.CanisterReject, `${who} rejected the message${m.trap ? `: ${m.trap.message}` : ''}`, true);
      }
    }
    const ctx = core.newContext(caller, method, undefined);
    core.execute(isUpdate ? 'update' : 'replicated_query', `${isUpdate ? 'canister_update' : 'canister_query'} ${method}`, method, arg, caller, ctx);
    core.finishIfDone(ctx);
    this.drain(100_000);
    const result = core.resultOf(ctx, 'update');
    if (this.opts.afterUpdate !== undefined) await this.opts.afterUpdate(method, result);
    return result;
  }

  private persist(): void {
    this.persistence?.save(this.core);
  }

  private checkOpen(): void {
    if (this.closed) throw new HostStateError('host is closed');
  }
}

/** Prepares a wasm (binaryen, loaded only here: the query replica's worker never needs it). */
async function prepare(
  plain: Uint8Array,
  instrument: boolean,
  cacheDir: string | undefined,
  profile: boolean,
): Promise<{ module: WebAssembly.Module; wasmHash: string; functionNames?: string[] }> {
  const { prepareWasm } = await import('./prepare.js');
  const p = prepareWasm(plain, { instrument, cacheDir, profile });
  return { module: new WebAssembly.Module(p.wasm), wasmHash: p.wasmHash, ...(p.functionNames === undefined ? {} : { functionNames: p.functionNames }) };
}

/** A self-authenticating principal for a DER-encoded public key (what a user's identity signs with). */
export function selfAuthenticatingPrincipal(publicKeyDer: Uint8Array): Principal {
  return Principal.selfAuthenticating(publicKeyDer);
}

export { Principal, sha256Hex };
