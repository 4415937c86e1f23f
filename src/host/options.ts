// The options of an IcHost (index.ts).
import type { CallResult, PrincipalLike } from './calls.js';
import type { MessageStats } from './message.js';

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
