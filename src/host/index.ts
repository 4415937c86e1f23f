// A Node host for one IC canister: runs the built canister wasm and implements the ic0 System API, with the
// IC's message semantics (atomic messages, discarded queries, asynchronous inter-canister calls, the global
// timer, instruction limits). See prepare.ts (wasm rewrite), heap.ts and stable.ts (atomicity, persistence).
import { existsSync, readFileSync } from 'node:fs';
import { IDL } from '@dfinity/candid';
import { Principal } from '@dfinity/principal';
import { IC_INSPECT_INSTRUCTION_LIMIT, IC_QUERY_INSTRUCTION_LIMIT, IC_UPDATE_INSTRUCTION_LIMIT } from '../core/constants.js';
import { CanisterInstallError, HostStateError, RejectCode, Trap } from './errors.js';
import type { CallOptions, CallResult, PrincipalLike } from './calls.js';
import { HeapSnapshot } from './heap.js';
import { QueryReplica, type ReplicaQuery, type ReplicaQueryResult, type ReplicaReset, type ReplicaSync } from './replica.js';
import { StableFile, StableMemory, WASM_PAGE } from './stable.js';
import { WasmProfiler } from './profile.js';
import { COUNTER_EXPORT, GLOBAL_EXPORT_PREFIX, LIMIT_EXPORT, LIMIT_IMPORT_MODULE, LIMIT_IMPORT_NAME, PROFILE_IMPORT_NAME, TABLE_EXPORT, sha256Hex } from './wasm_names.js';

export { CanisterInstallError, HostError, HostSetupError, HostStateError, RejectCode } from './errors.js';
export type { CallOptions, CallResult, PrincipalLike } from './calls.js';

/** The IC's limit for canister_init / canister_post_upgrade (pre_upgrade + post_upgrade together). */
export const IC_INSTALL_INSTRUCTION_LIMIT = 300_000_000_000n;
/** 400 GiB of stable memory, in 64 KiB pages (logical; only written pages are allocated). */
export const DEFAULT_MAX_STABLE_PAGES = (400n * 1024n * 1024n * 1024n) / 65536n;
export const ANONYMOUS = Principal.anonymous();
export const MANAGEMENT_CANISTER = Principal.fromText('aaaaa-aa');

/** IcHost.snapshotState(): opaque to callers; valid for restoreState() on the same host. */
export interface HostStateSnapshot {
  readonly heap: Buffer;
  readonly globals: readonly (number | bigint)[];
  readonly stable: { readonly pages: ReadonlyMap<number, Buffer>; readonly size: bigint };
  readonly timerDeadline: bigint;
  readonly certifiedData: Uint8Array;
  readonly version: bigint;
  readonly clock: { readonly timeNs: bigint; readonly lastTimeNs: bigint; readonly offsetNs: bigint; readonly commitTimeNs: bigint };
  readonly wasmHash: string;
}

export interface IcHostOptions {
  /** The plain canister wasm (bytes or a path). */
  wasm: Uint8Array | string;
  /** Run the ic-wasm instrumented copy (instruction counts and IC limits). Default true. */
  instrument?: boolean;
  /**
   * Profiling build (needs `instrument`, off by default): the counter's instructions are attributed to wasm
   * functions in `IcHost.profiler` (profile.ts). Counts are the same as without it; messages run slower.
   * Queries run in the query replica are not profiled.
   */
  profile?: boolean;
  canisterId?: PrincipalLike;
  controllers?: PrincipalLike[];
  cycleBalance?: bigint;
  /** 'manual' (default): time moves only by setTime/advanceTime. 'wall': Date.now(), timers fire by themselves. */
  clock?: 'manual' | 'wall';
  /** Start time in ns for the manual clock. */
  startTimeNs?: bigint;
  /** In wall-clock mode, how often (ms) the host checks the global timer. Default 50. */
  wallTickMs?: number;
  /** Back stable memory with this file (and `<file>.meta.json`): state survives a new host process. */
  stableMemoryFile?: string;
  /** fsync the journal and image on every commit (default true). */
  fsync?: boolean;
  maxStablePages?: bigint;
  debugPrint?: (message: string) => void;
  /** Called after every message with its statistics (benchmarks and the devnet's per-block report). */
  onMessage?: (stats: MessageStats) => void;
  /**
   * Awaited after every external update call (IcHost.update, so also the IC HTTP interface's calls) and before
   * its result is returned: the devnet's automine makes a block here, so whichever way a transaction arrives, it
   * is mined before its submit answers. It may make update calls of its own (they run this hook too).
   */
  afterUpdate?: (method: string, result: CallResult) => Promise<void>;
  queryInstructionLimit?: bigint;
  updateInstructionLimit?: bigint;
  /** Where prepared (instrumented / rewritten) wasm files are cached. */
  cacheDir?: string;
  /**
   * Remember up to this many query replies (default 0: off). A query's reply is a pure function of the
   * committed state and its inputs (method, argument, caller) unless it reads the clock, the cycle balance,
   * the controllers or prints: such queries are never remembered, and every committed message, upgrade or
   * revert forgets all. A remembered reply is returned without running the wasm (so nothing to discard).
   */
  queryCache?: number;
  /**
   * Run the queries made with queryAsync() in a query replica: a second instance of the same module in a
   * worker thread, brought up to the committed state before each query (replica.ts). The calling thread
   * stays free for updates, timers and I/O while a long query runs. query() still runs on this thread.
   * Queries run in the replica are not reported to onMessage / lastMessage. Default false.
   */
  queryReplica?: boolean;
  /** The host's own lines about the query replica (ready, failed, restarted); default debugPrint. */
  hostLog?: (line: string) => void;
}

export interface MessageStats {
  kind: MessageKind;
  method: string;
  instructions: bigint | undefined;
  trapped: boolean;
  /** The trap's message, when it trapped. */
  trapMessage?: string;
  heapBytes: number;
  heapPagesChanged: number;
  stablePagesTouched: number;
  /** Time spent making the message atomic (heap compare/copy, stable undo), ms. */
  snapshotMs: number;
  /** Time spent executing the wasm, ms. */
  execMs: number;
}

type MessageKind =
  | 'init'
  | 'pre_upgrade'
  | 'post_upgrade'
  | 'query'
  | 'replicated_query'
  | 'update'
  | 'inspect'
  | 'timer'
  | 'reply_callback'
  | 'reject_callback'
  | 'cleanup';

interface Callback {
  fun: number;
  env: number | bigint;
}

interface CallContext {
  caller: Uint8Array;
  method: string;
  replied: boolean;
  outstanding: number;
  instructions: bigint;
  /** Who gets the response: an external caller, a call made by this canister, or nobody (timer). */
  onResponse: ((r: Response) => void) | undefined;
  result?: CallResult;
}

type Response = { kind: 'reply'; bytes: Uint8Array } | { kind: 'reject'; code: number; message: string };

interface OutgoingCall {
  callee: Uint8Array;
  method: string;
  args: Uint8Array[];
  reply: Callback;
  reject: Callback;
  cleanup?: Callback;
  ctx: CallContext;
}

interface Message {
  kind: MessageKind;
  method: string;
  arg: Uint8Array;
  caller: Uint8Array;
  ctx: CallContext | undefined;
  replyParts: Uint8Array[];
  response?: Response;
  rejectCode: number;
  rejectMessage: string;
  building?: OutgoingCall;
  performed: OutgoingCall[];
  timerDeadline: bigint;
  certifiedData: Uint8Array;
  accepted: boolean;
  instructionsBefore: bigint;
}

interface Live {
  instance: WebAssembly.Instance;
  memory: WebAssembly.Memory;
  table: WebAssembly.Table | undefined;
  globals: WebAssembly.Global[];
  counter: WebAssembly.Global | undefined;
  limit: WebAssembly.Global | undefined;
  heap: HeapSnapshot;
  savedGlobals: (number | bigint)[];
  module: WebAssembly.Module;
}

interface PersistedMeta {
  version: 1;
  canisterId: string;
  controllers: string[];
  wasmHash: string;
  timerDeadline: string;
  certifiedData: string;
  canisterVersion: string;
  stableSizePages: string;
  timeNs: string;
}

const toBytes = (p: PrincipalLike): Uint8Array =>
  p instanceof Uint8Array ? p : typeof p === 'string' ? Principal.fromText(p).toUint8Array() : p.toUint8Array();
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;
const u128 = (v: bigint): Buffer => {
  const b = Buffer.alloc(16);
  b.writeBigUInt64LE(v & 0xffffffffffffffffn, 0);
  b.writeBigUInt64LE(v >> 64n, 8);
  return b;
};
const num = (v: number | bigint): number => (typeof v === 'bigint' ? Number(v) : v);

export class IcHost {
  readonly canisterId: Principal;
  private readonly selfBytes: Uint8Array;
  controllers: Principal[];
  cycleBalance: bigint;
  readonly instrumented: boolean;
  readonly clockMode: 'manual' | 'wall';
  private timeNs: bigint;
  private lastTimeNs = 0n;
  /** Wall mode: added to Date.now() (the devnet's evm_increaseTime / evm_setNextBlockTimestamp). */
  private clockOffsetNs = 0n;
  /** Bumped whenever committed state may have changed: remembered query replies are only valid within one epoch. */
  private epoch = 0n;
  private readonly replies = new Map<string, { epoch: bigint; time: bigint | undefined; result: CallResult }>();
  private readonly replyCapacity: number;
  /** Set by the System API when the running message reads something outside (state, method, argument, caller). */
  private impure = false;
  /** The time a running query read, if it did (a remembered reply is valid only at that same query time). */
  private timeRead: bigint | undefined;
  /** IC time at the last committed message: queries never see an earlier time. */
  private commitTimeNs = 0n;
  private timerDeadline = 0n;
  private certifiedData: Uint8Array = new Uint8Array();
  private version = 0n;
  private wasmHash: string;
  private module: WebAssembly.Module;
  private live: Live | undefined;
  private readonly stable: StableMemory;
  private readonly file: StableFile | undefined;
  private readonly queue: (() => void)[] = [];
  private current: Message | undefined;
  private readonly debugPrint: (m: string) => void;
  private readonly queryLimit: bigint;
  private readonly updateLimit: bigint;
  private readonly opts: IcHostOptions;
  private wallTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Statistics of the last message executed (for benchmarks and reports). */
  lastMessage: MessageStats | undefined;
  /** Per-function instruction attribution, when created with `profile: true`. */
  readonly profiler: WasmProfiler | undefined;
  /** True when a stable-memory file with metadata existed at creation: call resume(), not install(). */
  readonly hasPersistedState: boolean;

  private constructor(opts: IcHostOptions, module: WebAssembly.Module, wasmHash: string, functionNames?: string[]) {
    this.opts = opts;
    this.profiler = functionNames === undefined ? undefined : new WasmProfiler(functionNames);
    this.instrumented = opts.instrument ?? true;
    this.clockMode = opts.clock ?? 'manual';
    this.timeNs = opts.startTimeNs ?? 1_700_000_000_000_000_000n;
    this.queryLimit = opts.queryInstructionLimit ?? IC_QUERY_INSTRUCTION_LIMIT;
    this.updateLimit = opts.updateInstructionLimit ?? IC_UPDATE_INSTRUCTION_LIMIT;
    this.cycleBalance = opts.cycleBalance ?? 100_000_000_000_000n;
    this.replyCapacity = opts.queryCache ?? 0;
    this.stable = new StableMemory(opts.maxStablePages ?? DEFAULT_MAX_STABLE_PAGES);
    let meta: PersistedMeta | undefined;
    if (opts.stableMemoryFile !== undefined) {
      this.file = new StableFile(opts.stableMemoryFile, opts.fsync ?? true);
      if (existsSync(this.file.metaPath)) meta = JSON.parse(readFileSync(this.file.metaPath, 'utf8')) as PersistedMeta;
    }
    this.hasPersistedState = meta !== undefined;
    const id = meta?.canisterId ?? opts.canisterId ?? 'rrkah-fqaaa-aaaaa-aaaaq-cai';
    this.canisterId = typeof id === 'string' ? Principal.fromText(id) : id instanceof Uint8Array ? Principal.fromUint8Array(id) : id;
    this.selfBytes = this.canisterId.toUint8Array();
    this.controllers = (meta?.controllers ?? opts.controllers ?? []).map((c) => Principal.fromUint8Array(toBytes(c)));
    if (meta !== undefined && this.file !== undefined) {
      this.timerDeadline = 0n; // like an upgrade: the global timer is deactivated (the persisted value is informational)
      this.certifiedData = Buffer.from(meta.certifiedData, 'hex');
      this.version = BigInt(meta.canisterVersion);
      if (this.clockMode === 'manual' && opts.startTimeNs === undefined) this.timeNs = BigInt(meta.timeNs);
      // Wall mode: a clock moved forward before the restart stays forward (IC time never goes back).
      const wallNs = BigInt(Date.now()) * 1_000_000n;
      if (this.clockMode === 'wall' && BigInt(meta.timeNs) > wallNs) this.clockOffsetNs = BigInt(meta.timeNs) - wallNs;
      this.stable.loadImage(this.file.descriptor, BigInt(meta.stableSizePages));
    }
    const sink = (m: string): void => void process.stderr.write(`[ic-host ${this.canisterId.toText()}] ${m}\n`);
    this.debugPrint = opts.debugPrint ?? sink;
    this.wasmHash = wasmHash;
    this.module = module;
  }

  /** Loads and prepares the wasm. Nothing runs until install() / resume(). */
  static async create(opts: IcHostOptions): Promise<IcHost> {
    const plain = typeof opts.wasm === 'string' ? readFileSync(opts.wasm) : opts.wasm;
    const prepared = await prepare(plain, opts.instrument ?? true, opts.cacheDir, opts.profile === true);
    return new IcHost(opts, prepared.module, prepared.wasmHash, prepared.functionNames);
  }

  /**
   * @internal The query replica's side (replica_worker.ts): a host over an already prepared module, with no
   * file and a manual clock, whose state comes from loadReplica / applyReplicaSync and which only runs queries.
   */
  static forReplica(r: ReplicaReset, debugPrint: (m: string) => void): IcHost {
    const host = new IcHost(
      { wasm: new Uint8Array(), instrument: r.instrumented, canisterId: r.canisterId, queryInstructionLimit: r.queryLimit, debugPrint },
      r.module,
      r.wasmHash,
    );
    host.loadReplica(r);
    return host;
  }

  // ---------------------------------------------------------------- lifecycle

  get installed(): boolean {
    return this.live !== undefined;
  }

  get canisterVersion(): bigint {
    return this.version;
  }

  get globalTimer(): bigint {
    return this.timerDeadline;
  }

  /** SHA-256 of the installed (plain) wasm module, as the IC certifies it under canister/<id>/module_hash. */
  get moduleHash(): Uint8Array {
    return new Uint8Array(Buffer.from(this.wasmHash, 'hex'));
  }

  get certified(): Uint8Array {
    return this.certifiedData;
  }

  get stableSizePages(): bigint {
    return this.stable.size;
  }

  get heapBytes(): number {
    return this.live?.memory.buffer.byteLength ?? 0;
  }

  /** Runs canister_init with the Candid-encoded argument (default: empty argument), then runs until idle. */
  async install(arg: Uint8Array = new Uint8Array(IDL.encode([], []))): Promise<void> {
    this.checkOpen();
    if (this.live !== undefined) throw new HostStateError('canister is already installed; use upgrade()');
    if (this.hasPersistedState) throw new HostStateError('stable memory file holds a canister; use resume()');
    this.file?.reset();
    await this.start('canister_init', 'init', arg);
  }

  /** Restarts from a persisted stable-memory file: a fresh instance runs canister_post_upgrade (like an upgrade). */
  async resume(arg: Uint8Array = new Uint8Array(IDL.encode([], []))): Promise<void> {
    this.checkOpen();
    if (this.live !== undefined) throw new HostStateError('canister is already running');
    if (!this.hasPersistedState) throw new HostStateError('no persisted canister state to resume; use install()');
    await this.start('canister_post_upgrade', 'post_upgrade', arg);
  }

  /** A fresh instance runs its lifecycle entry as one stable-memory transaction, then serves. */
  private async start(entry: 'canister_init' | 'canister_post_upgrade', phase: 'init' | 'post_upgrade', arg: Uint8Array): Promise<void> {
    this.stable.begin();
    const live = this.instantiate(this.module);
    const r = this.runLifecycle(live, entry, phase, arg);
    if (r !== undefined) {
      this.stable.rollback();
      throw new CanisterInstallError(phase, r.message);
    }
    this.stable.commit();
    this.live = live;
    this.version += 1n;
    this.persist();
    this.startWallClock();
    if (this.opts.queryReplica === true) {
      this.replica = new QueryReplica({ log: this.opts.hostLog ?? this.debugPrint, state: () => this.replicaState(), print: this.debugPrint });
    }
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
    const old = this.requireLive();
    await this.runUntilIdle();
    let module = this.module;
    let wasmHash = this.wasmHash;
    if (opts.wasm !== undefined) {
      const plain = typeof opts.wasm === 'string' ? readFileSync(opts.wasm) : opts.wasm;
      ({ module, wasmHash } = await prepare(plain, this.instrumented, this.opts.cacheDir, this.opts.profile === true));
    }
    this.stable.begin();
    if (WebAssembly.Module.exports(old.module).some((e) => e.name === 'canister_pre_upgrade')) {
      // pre_upgrade's heap changes are always discarded (the old instance is dropped, or kept as it was).
      const r = this.runLifecycle(old, 'canister_pre_upgrade', 'pre_upgrade', new Uint8Array());
      if (r !== undefined) {
        this.stable.rollback();
        throw new CanisterInstallError('pre_upgrade', r.message);
      }
    }
    const live = this.instantiate(module);
    const r = this.runLifecycle(live, 'canister_post_upgrade', 'post_upgrade', opts.arg ?? new Uint8Array(IDL.encode([], [])));
    if (r !== undefined) {
      this.stable.rollback();
      throw new CanisterInstallError('post_upgrade', r.message);
    }
    this.stable.commit();
    this.live = live;
    this.module = module;
    this.wasmHash = wasmHash;
    this.version += 1n;
    this.epoch++;
    this.replies.clear();
    this.persist();
    this.replica?.reset(this.replicaState()); // a new instance (and perhaps module): the replica starts over
    await this.runUntilIdle();
  }

  /** Releases the stable-memory file and stops the wall-clock timer. The host is unusable afterwards. */
  close(): void {
    this.replica?.close();
    this.replica = undefined;
    if (this.wallTimer !== undefined) clearInterval(this.wallTimer);
    this.wallTimer = undefined;
    this.file?.close();
    this.closed = true;
    this.live = undefined;
  }

  // ---------------------------------------------------------------- clock and timers

  /** Current IC time in ns. */
  now(): bigint {
    if (this.clockMode === 'wall') {
      const t = BigInt(Date.now()) * 1_000_000n + this.clockOffsetNs;
      // IC time is monotonic; never go back even if the system clock does.
      this.lastTimeNs = t > this.lastTimeNs ? t : this.lastTimeNs;
      return this.lastTimeNs;
    }
    return this.timeNs;
  }

  setTime(ns: bigint): void {
    if (this.clockMode !== 'manual') throw new HostStateError('setTime needs the manual clock');
    if (ns < this.timeNs) throw new HostStateError('IC time cannot go backwards');
    this.timeNs = ns;
  }

  /**
   * Moves the clock forward by `ns` in either mode (wall mode: an offset added to Date.now() from now on).
   * Does not run anything; timers that became due fire at the next tick or call.
   */
  shiftClock(ns: bigint): void {
    if (ns < 0n) throw new HostStateError('IC time cannot go backwards');
    if (this.clockMode === 'manual') this.timeNs += ns;
    else this.clockOffsetNs += ns;
  }

  /** How far (ns) the wall clock has been moved forward by shiftClock (0 in manual mode). */
  get clockOffset(): bigint {
    return this.clockOffsetNs;
  }

  /**
   * The time a (non-replicated) query reads. On the IC a query runs on the latest certified state and reads
   * that state's time, which advances once per round, not continuously. Wall mode emulates 1 s rounds: the
   * current second, but never before the last committed message. Manual mode: the clock itself.
   */
  queryTimeNs(): bigint {
    if (this.clockMode === 'manual') return this.timeNs;
    const round = (this.now() / QUERY_ROUND_NS) * QUERY_ROUND_NS;
    return round > this.commitTimeNs ? round : this.commitTimeNs;
  }

  /** Moves the manual clock forward and processes everything that became due (timers and their calls). */
  async advanceTime(ms: number): Promise<void> {
    this.setTime(this.timeNs + BigInt(Math.round(ms * 1e6)));
    await this.runUntilIdle();
  }

  /** Fires the global timer if it is due; returns whether it fired. Does not process the calls it makes. */
  tick(): boolean {
    this.checkOpen();
    if (this.live === undefined || this.timerDeadline === 0n || this.now() < this.timerDeadline) return false;
    this.requireWritableStorage();
    this.timerDeadline = 0n; // the IC deactivates the timer when it fires
    const ctx = this.newContext(this.selfBytes, 'canister_global_timer', undefined);
    this.execute('timer', 'canister_global_timer', '', new Uint8Array(), this.selfBytes, ctx);
    this.finishIfDone(ctx);
    return true;
  }

  /** Processes queued messages and due timers until nothing is left. */
  async runUntilIdle(maxMessages = 100_000): Promise<void> {
    this.drain(maxMessages);
  }

  private drain(maxMessages: number): void {
    let n = 0;
    for (;;) {
      const task = this.queue.shift();
      if (task !== undefined) task();
      else if (!this.tick()) return;
      if (++n > maxMessages) throw new HostStateError(`still busy after ${maxMessages} messages (a timer firing in a loop?)`);
    }
  }

  private startWallClock(): void {
    if (this.clockMode !== 'wall' || this.wallTimer !== undefined) return;
    this.wallTimer = setInterval(() => {
      try {
        if (this.timerDeadline !== 0n && this.now() >= this.timerDeadline) this.drain(100_000);
      } catch (e) {
        this.debugPrint(`timer processing failed: ${(e as Error).message}`);
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
    const live = this.requireLive();
    if (this.queue.length > 0 || this.current !== undefined) throw new HostStateError('snapshot needs an idle canister');
    return {
      heap: Buffer.from(live.heap.bytes),
      globals: [...live.savedGlobals],
      stable: this.stable.copyAll(),
      timerDeadline: this.timerDeadline,
      certifiedData: this.certifiedData,
      version: this.version,
      clock: { timeNs: this.timeNs, lastTimeNs: this.lastTimeNs, offsetNs: this.clockOffsetNs, commitTimeNs: this.commitTimeNs },
      wasmHash: this.wasmHash,
    };
  }

  /** Restores a snapshot of this canister (same wasm): the live instance is rebuilt from it and the state persisted. */
  restoreState(snap: HostStateSnapshot): void {
    this.checkOpen();
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
    this.timeNs = snap.clock.timeNs;
    this.lastTimeNs = snap.clock.lastTimeNs;
    this.clockOffsetNs = snap.clock.offsetNs;
    this.commitTimeNs = snap.clock.commitTimeNs;
    this.epoch++;
    this.replies.clear();
    this.persist();
    this.replica?.reset(this.replicaState());
  }

  // ---------------------------------------------------------------- calls

  /** A query call (non-replicated) on this thread: the reply is returned, every state change is discarded. */
  query(method: string, arg: Uint8Array = new Uint8Array(IDL.encode([], [])), opts: CallOptions = {}): CallResult {
    const p = this.queryPrologue(method, arg, opts);
    if (p.answer !== undefined) return p.answer;
    const epoch = this.epoch;
    const r = this.runQuery(method, arg, p.caller);
    if (p.key !== undefined && r.remember) this.remember(p.key, epoch, r);
    return r.result;
  }

  /**
   * A query call that, with IcHostOptions.queryReplica, runs in the query replica (a worker thread) so this
   * thread stays free meanwhile; the same answer as query() otherwise. The query sees the state committed
   * when it is called (every update answered before, nothing of a message still running), and its writes are
   * discarded. Runs here while the replica starts, or after it failed (see replica.ts).
   */
  async queryAsync(method: string, arg: Uint8Array = new Uint8Array(IDL.encode([], [])), opts: CallOptions = {}): Promise<CallResult> {
    const p = this.queryPrologue(method, arg, opts);
    if (p.answer !== undefined) return p.answer;
    if (p.key !== undefined) {
      // The same query on the same state at the same query time is in the replica already: its reply is this
      // one's if it may be remembered (without this, every poller that asks while the first is in flight,
      // after each block, would queue one more run behind it).
      const same = this.inflight.get(p.key);
      if (same !== undefined && same.epoch === this.epoch && same.timeNs === this.queryTimeNs()) {
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
      if (this.instrumented && replica.busyMs() > REPLICA_BUSY_MS && !this.expensiveQueries.has(method)) {
        const epoch = this.epoch;
        const r = this.runQuery(method, arg, p.caller, FAST_LANE_INSTRUCTIONS);
        if (!r.limitExceeded) {
          if (p.key !== undefined && r.remember) this.remember(p.key, epoch, r);
          this.fastLaneQueries++;
          return r.result;
        }
        this.expensiveQueries.add(method);
      }
      const epoch = this.epoch;
      const q: ReplicaQuery = {
        method,
        arg,
        caller: p.caller,
        timeNs: this.queryTimeNs(),
        cycleBalance: this.cycleBalance,
        controllers: this.controllers.map((c) => c.toUint8Array()),
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
        if (p.key !== undefined && r.remember && epoch === this.epoch) this.remember(p.key, epoch, r);
        return r.result;
      }
      // The replica failed before running it (and logged why): run it here, on the latest state.
      this.checkOpen();
      this.requireLive();
    }
    const epoch = this.epoch;
    const r = this.runQuery(method, arg, p.caller);
    if (p.key !== undefined && r.remember) this.remember(p.key, epoch, r);
    return r.result;
  }

  /** Checks shared by query() and queryAsync(); `answer` when no execution is needed (no such method, remembered). */
  private queryPrologue(method: string, arg: Uint8Array, opts: CallOptions): { caller: Uint8Array; key: string | undefined; answer?: CallResult } {
    this.checkOpen();
    const live = this.requireLive();
    const caller = toBytes(opts.caller ?? ANONYMOUS);
    if (live.instance.exports[`canister_query ${method}`] === undefined) {
      return { caller, key: undefined, answer: this.hostReject(RejectCode.DestinationInvalid, `Canister ${this.canisterId.toText()} has no query method '${method}'`) };
    }
    const key = this.replyCapacity > 0 && arg.length <= MAX_REMEMBERED_ARG ? replyKey(method, caller, arg) : undefined;
    if (key !== undefined) {
      const hit = this.replies.get(key);
      if (hit !== undefined && hit.epoch === this.epoch && (hit.time === undefined || hit.time === this.queryTimeNs())) {
        this.replies.delete(key); // LRU order
        this.replies.set(key, hit);
        this.queryCacheHits++;
        return { caller, key, answer: hit.result };
      }
    }
    return { caller, key };
  }

  /**
   * Runs a query on this thread's instance (under `limit` instead of the query limit when given); `remember`:
   * its reply may be remembered (no trap, nothing impure read).
   */
  private runQuery(method: string, arg: Uint8Array, caller: Uint8Array, limit?: bigint): ReplicaQueryResult & { limitExceeded: boolean } {
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

  /** Rememberable queries (by their remembered-reply key) running in the replica, with their state and time. */
  private readonly inflight = new Map<string, { epoch: bigint; timeNs: bigint; promise: Promise<ReplicaQueryResult | undefined> }>();

  /** The instruction limit of the query running in the fast lane (queryAsync), if one is. */
  private fastLaneLimit: bigint | undefined;
  /** Query methods seen to cost more than FAST_LANE_INSTRUCTIONS: never run in the fast lane. */
  private readonly expensiveQueries = new Set<string>();
  /** Queries answered by the fast lane (statistics, tests). */
  fastLaneQueries = 0;

  private remember(key: string, epoch: bigint, r: ReplicaQueryResult): void {
    this.replies.set(key, { epoch, time: r.timeRead, result: r.result });
    if (this.replies.size > this.replyCapacity) this.replies.delete(this.replies.keys().next().value as string);
  }

  // ---------------------------------------------------------------- the query replica (replica.ts)

  private replica: QueryReplica | undefined;
  /** The epoch the replica was last brought up to. */
  private replicaEpoch = -1n;

  /** The query replica when IcHostOptions.queryReplica is on (statistics, tests); `ready` says whether it runs queries now. */
  get queryReplica(): QueryReplica | undefined {
    return this.replica;
  }

  /** Everything the replica needs to start over: the module, the committed heap and globals, stable memory. */
  private replicaState(): ReplicaReset {
    const live = this.requireLive();
    const stable = this.stable.follow();
    this.replicaEpoch = this.epoch;
    return {
      module: this.module,
      wasmHash: this.wasmHash,
      instrumented: this.instrumented,
      canisterId: this.canisterId.toText(),
      queryLimit: this.queryLimit,
      heap: live.heap.follow(),
      globals: [...live.savedGlobals],
      stable: stable.pages,
      stableSize: stable.size,
      version: this.version,
    };
  }

  /** What committed since the replica was last brought up to date (undefined: nothing). Between messages. */
  private replicaSync(): ReplicaSync | undefined {
    if (this.replicaEpoch === this.epoch) return undefined;
    this.replicaEpoch = this.epoch;
    const live = this.requireLive();
    const heap = live.heap.takeChanged();
    const stable = this.stable.takeChanged();
    return {
      heapSize: heap.size,
      index: heap.index,
      bytes: heap.bytes,
      globals: [...live.savedGlobals],
      stable: stable.pages,
      stableSize: stable.size,
      version: this.version,
    };
  }

  /** @internal The replica's side: start over from the leader's state (a fresh instance of its module). */
  loadReplica(r: ReplicaReset): void {
    this.module = r.module;
    this.wasmHash = r.wasmHash;
    const live = this.instantiate(r.module);
    this.live = live;
    live.heap.replace(r.heap);
    this.rebuild(live);
    live.globals.forEach((g, i) => (g.value = r.globals[i]!));
    live.savedGlobals = [...r.globals];
    this.stable.applyShared(r.stable, r.stableSize, true);
    this.version = r.version;
  }

  /** @internal The replica's side: apply what the leader committed since. */
  applyReplicaSync(d: ReplicaSync): void {
    const live = this.requireLive();
    live.heap.applyPages(live.memory, d.heapSize, d.index, d.bytes);
    live.globals.forEach((g, i) => (g.value = d.globals[i]!));
    live.savedGlobals = [...d.globals];
    this.stable.applyShared(d.stable, d.stableSize, false);
    this.version = d.version;
  }

  /** @internal The replica's side: one query at the leader's query time, cycle balance and controllers. */
  runReplicaQuery(q: ReplicaQuery): ReplicaQueryResult {
    this.timeNs = q.timeNs;
    this.cycleBalance = q.cycleBalance;
    this.controllers = q.controllers.map((c) => Principal.fromUint8Array(c));
    return this.runQuery(q.method, q.arg, q.caller);
  }

  /** Queries answered from remembered replies (IcHostOptions.queryCache), or (queryAsync) shared with the same query in flight. */
  queryCacheHits = 0;

  /**
   * An update call from an external caller. Runs the message, then everything it causes (calls to itself,
   * callbacks, due timers) until idle, and returns the reply. An update call to a query method runs it as a
   * replicated query (state discarded), as the IC does.
   */
  async update(method: string, arg: Uint8Array = new Uint8Array(IDL.encode([], [])), opts: CallOptions = {}): Promise<CallResult> {
    this.checkOpen();
    this.requireWritableStorage();
    const live = this.requireLive();
    const caller = toBytes(opts.caller ?? ANONYMOUS);
    const isUpdate = live.instance.exports[`canister_update ${method}`] !== undefined;
    const isQuery = live.instance.exports[`canister_query ${method}`] !== undefined;
    if (!isUpdate && !isQuery) {
      return this.hostReject(RejectCode.DestinationInvalid, `Canister ${this.canisterId.toText()} has no update method '${method}'`, true);
    }
    if (isUpdate && opts.fromCanister !== true && live.instance.exports['canister_inspect_message'] !== undefined) {
      const ictx = this.newContext(caller, method, undefined);
      const m = this.execute('inspect', 'canister_inspect_message', method, arg, caller, ictx);
      if (m.trap !== undefined || !m.msg.accepted) {
        return this.hostReject(RejectCode.CanisterReject, `Canister ${this.canisterId.toText()} rejected the message${m.trap ? `: ${m.trap.message}` : ''}`, true);
      }
    }
    const ctx = this.newContext(caller, method, undefined);
    this.execute(isUpdate ? 'update' : 'replicated_query', `${isUpdate ? 'canister_update' : 'canister_query'} ${method}`, method, arg, caller, ctx);
    this.finishIfDone(ctx);
    this.drain(100_000);
    const result = this.resultOf(ctx, 'update');
    if (this.opts.afterUpdate !== undefined) await this.opts.afterUpdate(method, result);
    return result;
  }

  private hostReject(code: number, message: string, uncertified = false): CallResult {
    return { kind: 'reject', code, message, instructions: this.instrumented ? 0n : undefined, ...(uncertified ? { uncertified: true as const } : {}) };
  }

  private resultOf(ctx: CallContext, kind: 'query' | 'update'): CallResult {
    if (ctx.result !== undefined) return ctx.result;
    // Only reachable for a query that did not reply (an update context is always finished by drain()).
    const instructions = this.instrumented ? ctx.instructions : undefined;
    return { kind: 'reject', code: RejectCode.CanisterError, message: `Canister ${this.canisterId.toText()} did not reply to the call (${kind})`, instructions };
  }

  private newContext(caller: Uint8Array, method: string, onResponse: ((r: Response) => void) | undefined): CallContext {
    const ctx: CallContext = { caller, method, replied: false, outstanding: 0, instructions: 0n, onResponse };
    return ctx;
  }

  /** A call context with no outstanding calls and no reply is answered with CanisterError, as on the IC. */
  private finishIfDone(ctx: CallContext): void {
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

  // Delivery of a call made by the canister: to itself, to the management canister (raw_rand), or a reject.
  private deliver(call: OutgoingCall): void {
    const respond = (r: Response): void => {
      this.queue.push(() => this.deliverResponse(call, r));
    };
    if (sameBytes(call.callee, this.selfBytes)) {
      const live = this.requireLive();
      const arg = new Uint8Array(Buffer.concat(call.args));
      const isUpdate = live.instance.exports[`canister_update ${call.method}`] !== undefined;
      const isQuery = live.instance.exports[`canister_query ${call.method}`] !== undefined;
      if (!isUpdate && !isQuery) {
        respond({ kind: 'reject', code: RejectCode.DestinationInvalid, message: `Canister ${this.canisterId.toText()} has no update method '${call.method}'` });
        return;
      }
      const ctx = this.newContext(this.selfBytes, call.method, respond);
      const exp = `${isUpdate ? 'canister_update' : 'canister_query'} ${call.method}`;
      this.execute(isUpdate ? 'update' : 'replicated_query', exp, call.method, arg, this.selfBytes, ctx);
      this.finishIfDone(ctx);
    } else if (call.callee.length === 0 && call.method === 'raw_rand') {
      const rand = crypto.getRandomValues(new Uint8Array(32));
      respond({ kind: 'reply', bytes: new Uint8Array(IDL.encode([IDL.Vec(IDL.Nat8)], [rand])) });
    } else {
      const callee = Principal.fromUint8Array(call.callee).toText();
      respond({
        kind: 'reject',
        code: RejectCode.DestinationInvalid,
        message: `call to ${callee}.${call.method} is not supported by the Node IC host (only the canister itself and aaaaa-aa.raw_rand)`,
      });
    }
  }

  private deliverResponse(call: OutgoingCall, r: Response): void {
    const ctx = call.ctx;
    ctx.outstanding -= 1;
    const kind = r.kind === 'reply' ? 'reply_callback' : 'reject_callback';
    const cb = r.kind === 'reply' ? call.reply : call.reject;
    const m = this.execute(kind, cb, '', r.kind === 'reply' ? r.bytes : new Uint8Array(), ctx.caller, ctx, (msg) => {
      if (r.kind === 'reject') {
        msg.rejectCode = r.code;
        msg.rejectMessage = r.message;
      }
    });
    if (m.trap !== undefined && call.cleanup !== undefined) {
      this.execute('cleanup', call.cleanup, '', new Uint8Array(), ctx.caller, ctx);
    }
    this.finishIfDone(ctx);
  }

  // ---------------------------------------------------------------- message execution

  private instantiate(module: WebAssembly.Module): Live {
    const imports = this.imports(module);
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

  // Runs init / pre_upgrade / post_upgrade on `live`; the caller handles stable memory (one transaction
  // across pre and post upgrade). Returns the trap, if any.
  private runLifecycle(live: Live, exportName: string, kind: MessageKind, arg: Uint8Array): Trap | undefined {
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

  // Wasm memory cannot shrink: after a discarded message that grew it, build a new instance of the same
  // module and copy the committed heap and globals into it.
  private rebuild(live: Live): void {
    const fresh = new WebAssembly.Instance(live.module, this.imports(live.module));
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
   * Executes one message atomically. `entry` is an export name or a table callback. Queries, replicated
   * queries and traps discard all changes (heap, globals, stable memory, timer, certified data, calls,
   * the reply of a trapped message); committed messages apply them and hand their calls to the queue.
   */
  private execute(
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
      this.commitTimeNs = this.now();
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
    this.opts.onMessage?.(this.lastMessage);
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
        this.queue.push(() => this.deliver(call));
      }
      this.persist();
    } else if (!discard && lifecycle) {
      this.certifiedData = msg.certifiedData;
      for (const call of msg.performed) {
        call.ctx.outstanding += 1;
        this.queue.push(() => this.deliver(call));
      }
    }
    return { trap: undefined, msg };
  }

  private lastMetaKey = '';

  /**
   * Why the last flush of stable memory to its file failed (disk full, I/O error), until one succeeds. While
   * set, the host refuses every message that could write (updates, timers) with a clear error rather than go
   * on as if written; the dirty pages are kept, and each refused attempt first retries the flush.
   */
  private storageError: string | undefined;

  /** Retries a failed flush; throws a clear HostStateError when stable memory still cannot be written. */
  private requireWritableStorage(): void {
    if (this.storageError === undefined) return;
    this.persist();
    if (this.storageError !== undefined) {
      throw new HostStateError(`stable memory file cannot be written (${this.storageError}); no new writes are accepted until a flush succeeds`);
    }
  }

  private persist(): void {
    if (this.file === undefined || this.live === undefined) return;
    const { pages, size } = this.stable.peekDirty();
    const meta: PersistedMeta = {
      version: 1,
      canisterId: this.canisterId.toText(),
      controllers: this.controllers.map((c) => c.toText()),
      wasmHash: this.wasmHash,
      timerDeadline: this.timerDeadline.toString(),
      certifiedData: Buffer.from(this.certifiedData).toString('hex'),
      canisterVersion: this.version.toString(),
      stableSizePages: size.toString(),
      timeNs: this.now().toString(),
    };
    // Skip the write (and its fsyncs) when neither pages nor metadata changed; the clock alone does not count.
    const key = JSON.stringify({ ...meta, timeNs: '' });
    if (pages.length === 0 && key === this.lastMetaKey && this.storageError === undefined) return;
    try {
      this.file.flush(pages, JSON.stringify(meta, null, 2));
    } catch (e) {
      this.storageError = (e as Error).message;
      this.debugPrint(`stable memory flush failed: ${this.storageError}`);
      return;
    }
    this.storageError = undefined;
    this.lastMetaKey = key;
    this.stable.clearDirty(pages);
  }

  private requireLive(): Live {
    if (this.live === undefined) throw new HostStateError('canister is not installed');
    return this.live;
  }

  private checkOpen(): void {
    if (this.closed) throw new HostStateError('host is closed');
  }

  // ---------------------------------------------------------------- the System API

  private imports(module: WebAssembly.Module): WebAssembly.Imports {
    const impl = this.systemApi();
    const ic0: Record<string, (...a: never[]) => unknown> = {};
    for (const imp of WebAssembly.Module.imports(module)) {
      if (imp.module !== 'ic0' || imp.kind !== 'function') continue;
      ic0[imp.name] =
        impl[imp.name] ??
        ((): never => {
          throw new Trap(`ic0.${imp.name} is not supported by the Node IC host`);
        });
    }
    const limitExceeded = (): never => {
      const live = this.live;
      const lim = live?.limit?.value as bigint | undefined;
      throw new Trap(`Canister exceeded the limit of ${lim ?? '?'} instructions for single message execution.`, 'limit');
    };
    // A profiling build's trace hook; a host without a profiler (the query replica) ignores it.
    const profile = this.profiler?.event ?? ((): void => {});
    return { ic0, [LIMIT_IMPORT_MODULE]: { [LIMIT_IMPORT_NAME]: limitExceeded, [PROFILE_IMPORT_NAME]: profile } };
  }

  private systemApi(): Record<string, (...a: never[]) => unknown> {
    const msg = (): Message => {
      if (this.current === undefined) throw new Trap('system API called outside a message');
      return this.current;
    };
    const mem = (): Uint8Array => new Uint8Array(this.requireLive().memory.buffer);
    const read = (src: number | bigint, size: number | bigint): Uint8Array => {
      const s = num(src);
      const n = num(size);
      const m = mem();
      if (s < 0 || n < 0 || s + n > m.length) throw new Trap(`heap out of bounds: ${s}+${n}`);
      return m.slice(s, s + n);
    };
    const write = (dst: number | bigint, bytes: Uint8Array): void => {
      const d = num(dst);
      const m = mem();
      if (d < 0 || d + bytes.length > m.length) throw new Trap(`heap out of bounds: ${d}+${bytes.length}`);
      m.set(bytes, d);
    };
    const copyOut = (data: Uint8Array, dst: number | bigint, offset: number | bigint, size: number | bigint): void => {
      const o = num(offset);
      const n = num(size);
      if (o < 0 || n < 0 || o + n > data.length) throw new Trap(`copy out of bounds: offset ${o} size ${n} of ${data.length}`);
      write(dst, data.subarray(o, o + n));
    };
    const replied = (m: Message): boolean => m.response !== undefined || (m.ctx?.replied ?? false);
    const canReply = (m: Message, api: string): void => {
      if (m.ctx === undefined || m.kind === 'inspect' || m.kind === 'init' || m.kind === 'post_upgrade' || m.kind === 'pre_upgrade' || m.kind === 'timer' || m.kind === 'cleanup') {
        throw new Trap(`ic0.${api} cannot be called in ${m.kind}`);
      }
      if (replied(m)) throw new Trap(`ic0.${api}: the call was already replied`);
    };
    const replicated = (m: Message): boolean => m.kind !== 'query' && m.kind !== 'inspect';
    // A fresh exact-size Uint8Array: pooled Buffers share an ArrayBuffer, which Candid decoders may read whole.
    const reply = (): Uint8Array => new Uint8Array(Buffer.concat(msg().replyParts));
    const counter = (): bigint => (this.live?.counter?.value as bigint | undefined) ?? 0n;

    const api: Record<string, (...a: never[]) => unknown> = {
      msg_arg_data_size: () => msg().arg.length,
      msg_arg_data_copy: (dst: number, off: number, size: number) => copyOut(msg().arg, dst, off, size),
      msg_caller_size: () => msg().caller.length,
      msg_caller_copy: (dst: number, off: number, size: number) => copyOut(msg().caller, dst, off, size),
      msg_method_name_size: () => Buffer.byteLength(msg().method),
      msg_method_name_copy: (dst: number, off: number, size: number) => copyOut(Buffer.from(msg().method), dst, off, size),
      msg_reject_code: () => msg().rejectCode,
      msg_reject_msg_size: () => Buffer.byteLength(msg().rejectMessage),
      msg_reject_msg_copy: (dst: number, off: number, size: number) => copyOut(Buffer.from(msg().rejectMessage), dst, off, size),
      msg_reply_data_append: (src: number, size: number) => {
        const m = msg();
        canReply(m, 'msg_reply_data_append');
        m.replyParts.push(read(src, size));
      },
      msg_reply: () => {
        const m = msg();
        canReply(m, 'msg_reply');
        m.response = { kind: 'reply', bytes: reply() };
      },
      msg_reject: (src: number, size: number) => {
        const m = msg();
        canReply(m, 'msg_reject');
        m.response = { kind: 'reject', code: RejectCode.CanisterReject, message: Buffer.from(read(src, size)).toString('utf8') };
      },
      msg_deadline: () => 0n,
      msg_cycles_available: () => 0n,
      msg_cycles_available128: (dst: number) => write(dst, u128(0n)),
      msg_cycles_refunded: () => 0n,
      msg_cycles_refunded128: (dst: number) => write(dst, u128(0n)),
      msg_cycles_accept: () => 0n,
      msg_cycles_accept128: (_h: bigint, _l: bigint, dst: number) => write(dst, u128(0n)),
      accept_message: () => {
        const m = msg();
        if (m.kind !== 'inspect') throw new Trap('ic0.accept_message can only be called in canister_inspect_message');
        m.accepted = true;
      },
      canister_self_size: () => this.selfBytes.length,
      canister_self_copy: (dst: number, off: number, size: number) => copyOut(this.selfBytes, dst, off, size),
      canister_cycle_balance: () => ((this.impure = true), this.cycleBalance > 0xffffffffffffffffn ? -1n : BigInt.asIntN(64, this.cycleBalance)),
      canister_cycle_balance128: (dst: number) => ((this.impure = true), write(dst, u128(this.cycleBalance))),
      canister_liquid_cycle_balance128: (dst: number) => ((this.impure = true), write(dst, u128(this.cycleBalance))),
      canister_status: () => 1,
      canister_version: () => this.version,
      is_controller: (src: number, size: number) => {
        this.impure = true;
        const p = read(src, size);
        return this.controllers.some((c) => sameBytes(c.toUint8Array(), p)) ? 1 : 0;
      },
      in_replicated_execution: () => (replicated(msg()) ? 1 : 0),
      cycles_burn128: (high: bigint, low: bigint, dst: number) => {
        this.impure = true;
        const want = (BigInt.asUintN(64, high) << 64n) | BigInt.asUintN(64, low);
        const burnt = want < this.cycleBalance ? want : this.cycleBalance;
        if (replicated(msg())) this.cycleBalance -= burnt;
        write(dst, u128(burnt));
      },
      certified_data_set: (src: number, size: number) => {
        const m = msg();
        if (!replicated(m)) throw new Trap('ic0.certified_data_set cannot be called in a query');
        if (num(size) > 32) throw new Trap('ic0.certified_data_set: at most 32 bytes');
        m.certifiedData = read(src, size);
      },
      data_certificate_present: () => 0,
      data_certificate_size: () => {
        throw new Trap('ic0.data_certificate_size: no certificate is available (Node IC host)');
      },
      data_certificate_copy: () => {
        throw new Trap('ic0.data_certificate_copy: no certificate is available (Node IC host)');
      },
      time: () => {
        // Clock reads are taken once per message on the IC; wall mode reads Date.now (monotonic). A query reads
        // its state's time (queryTimeNs), which a remembered reply records.
        if (msg().kind !== 'query') return this.now();
        const t = this.queryTimeNs();
        this.timeRead = t;
        return t;
      },
      global_timer_set: (ts: bigint) => {
        const m = msg();
        const prev = m.timerDeadline;
        m.timerDeadline = BigInt.asUintN(64, ts);
        return prev;
      },
      performance_counter: (type: number) => {
        if (type === 0) return counter();
        if (type === 1) return msg().instructionsBefore + counter();
        throw new Trap(`ic0.performance_counter: unknown counter type ${type}`);
      },
      instruction_counter: () => counter(),
      debug_print: (src: number, size: number) => ((this.impure = true), this.debugPrint(Buffer.from(read(src, size)).toString('utf8'))),
      trap: (src: number, size: number) => {
        throw new Trap(`Canister called \`ic0.trap\` with message: '${Buffer.from(read(src, size)).toString('utf8')}'`);
      },
      cost_call: (nameSize: bigint, argSize: bigint, dst: number) =>
        write(dst, u128(260_000n + 1_000n * (BigInt.asUintN(64, nameSize) + BigInt.asUintN(64, argSize)))),
      cost_create_canister: (dst: number) => write(dst, u128(500_000_000_000n)),
      cost_http_request: (reqSize: bigint, maxRes: bigint, dst: number) =>
        write(dst, u128(49_140_000n + 5_200n * BigInt.asUintN(64, reqSize) + 10_400n * BigInt.asUintN(64, maxRes))),
      cost_sign_with_ecdsa: (_s: number, _n: number, _c: number, dst: number) => (write(dst, u128(26_153_846_153n)), 0),
      cost_sign_with_schnorr: (_s: number, _n: number, _c: number, dst: number) => (write(dst, u128(26_153_846_153n)), 0),
      cost_vetkd_derive_encrypted_key: (_s: number, _n: number, _c: number, dst: number) => (write(dst, u128(26_153_846_153n)), 0),
      // Inter-canister calls: built up across call_* and queued only if the message commits.
      call_new: (cs: number, cn: number, ns: number, nn: number, rf: number, re: number | bigint, jf: number, je: number | bigint) => {
        const m = msg();
        if (m.ctx === undefined || m.kind === 'query' || m.kind === 'inspect') throw new Trap('ic0.call_new cannot be called here');
        m.building = {
          callee: read(cs, cn),
          method: Buffer.from(read(ns, nn)).toString('utf8'),
          args: [],
          reply: { fun: rf, env: re },
          reject: { fun: jf, env: je },
          ctx: m.ctx,
        };
      },
      call_data_append: (src: number, size: number) => {
        const b = msg().building;
        if (b === undefined) throw new Trap('ic0.call_data_append without call_new');
        b.args.push(read(src, size));
      },
      call_on_cleanup: (fun: number, env: number | bigint) => {
        const b = msg().building;
        if (b === undefined) throw new Trap('ic0.call_on_cleanup without call_new');
        b.cleanup = { fun, env };
      },
      call_cycles_add: () => {},
      call_cycles_add128: () => {},
      call_with_best_effort_response: () => {},
      call_perform: () => {
        const m = msg();
        if (m.building === undefined) throw new Trap('ic0.call_perform without call_new');
        m.performed.push(m.building);
        m.building = undefined;
        return 0;
      },
      stable64_size: () => this.stable.size,
      stable64_grow: (n: bigint) => this.stable.grow(BigInt.asUintN(64, n)),
      stable64_read: (dst: bigint, off: bigint, size: bigint) => {
        const n = Number(size);
        const d = Number(dst);
        const m = mem();
        if (d < 0 || d + n > m.length) throw new Trap(`heap out of bounds: ${d}+${n}`);
        stableCall(() => this.stable.read(m.subarray(d, d + n), BigInt.asUintN(64, off), BigInt(n)));
      },
      stable64_write: (off: bigint, src: bigint, size: bigint) => {
        const data = read(src, size);
        stableCall(() => this.stable.write(BigInt.asUintN(64, off), data));
      },
      stable_size: () => {
        if (this.stable.size > 65536n) throw new Trap('ic0.stable_size: stable memory is larger than 4 GiB, use stable64_size');
        return Number(this.stable.size);
      },
      stable_grow: (n: number) => {
        if (this.stable.size + BigInt(n >>> 0) > 65536n) return -1;
        return Number(this.stable.grow(BigInt(n >>> 0)));
      },
      stable_read: (dst: number, off: number, size: number) => {
        const m = mem();
        if (dst < 0 || dst + size > m.length) throw new Trap('heap out of bounds');
        stableCall(() => this.stable.read(m.subarray(dst, dst + size), BigInt(off >>> 0), BigInt(size >>> 0)));
      },
      stable_write: (off: number, src: number, size: number) => {
        const data = read(src, size);
        stableCall(() => this.stable.write(BigInt(off >>> 0), data));
      },
    };
    return api;
  }
}

/** queryAsync: a replica busy with one query for this long is probably running a long one (fast lane). */
const REPLICA_BUSY_MS = 20;
/** queryAsync's fast lane: what a query may cost the calling thread while the replica is busy (about 0.1 s). */
const FAST_LANE_INSTRUCTIONS = 200_000_000n;

/** Wall mode: the length of the emulated round whose start a query reads as its time (queryTimeNs). */
const QUERY_ROUND_NS = 1_000_000_000n;
/** Larger arguments are not remembered (the key holds the whole argument). */
const MAX_REMEMBERED_ARG = 4096;
const replyKey = (method: string, caller: Uint8Array, arg: Uint8Array): string =>
  `${method}\0${Buffer.from(caller).toString('base64')}\0${Buffer.from(arg).toString('base64')}`;

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

function stableCall(f: () => void): void {
  try {
    f();
  } catch (e) {
    if (e instanceof RangeError) throw new Trap(e.message);
    throw e;
  }
}

function toTrap(e: unknown): Trap {
  if (e instanceof Trap) return e;
  if (e instanceof WebAssembly.RuntimeError) return new Trap(`Canister trapped: ${e.message}`, 'runtime');
  if (e instanceof RangeError) return new Trap(`Canister trapped: ${e.message}`, 'runtime'); // e.g. stack overflow
  return new Trap(`Canister trapped (host error): ${e instanceof Error ? e.message : String(e)}`, 'runtime');
}

/** A self-authenticating principal for a DER-encoded public key (what a user's identity signs with). */
export function selfAuthenticatingPrincipal(publicKeyDer: Uint8Array): Principal {
  return Principal.selfAuthenticating(publicKeyDer);
}

export { Principal, sha256Hex };
