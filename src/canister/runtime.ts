// The canister's heap state, shared by every method class: the core over stable maps, the EVM engine,
// the timers. The JS heap is rebuilt on upgrade; everything durable is in the maps.
import { canisterCycleBalance, clearTimer, performanceCounter, setTimer, setTimerInterval, StableBTreeMap, time } from 'azle';

import { requireHeadState } from '../core/block_tag.js';
import { DEFAULT_MINING_INTERVAL_MS } from '../core/constants.js';
import { ErrorCode, err, type Result } from '../core/errors.js';
import type { CoreHost, KvMap } from '../core/host.js';
import { EvmCore } from '../core/index.js';
import { createEvmEngine, WARM_UP_STEPS, type EvmEngine } from '../core/evm/index.js';
import { MemoryId } from '../core/store/memory_ids.js';
import { MetaKey, metaKey } from '../core/store/meta_keys.js';
import { formatBlockLine } from './block_line.js';
import { blockTagFromCandid, candidResult, type CandidBlockTag, type CandidResult } from './convert.js';
import { loadSettings, type CanisterSettings } from './settings.js';
import { installFastTextCodecs } from './text_codec.js';
import { OPS_CHECK_INTERVAL_MS, OpsStore } from '../core/ops/state.js';

// After azle's globals (set when its library loaded, through the `azle` import above).
installFastTextCodecs();

const raw = { toBytes: (x: Uint8Array) => x, fromBytes: (x: Uint8Array) => x };

/** One StableBTreeMap per memory id, with raw-byte keys and values (DESIGN rule 7). */
function stableKvMap(memoryId: number): KvMap {
  const m = new StableBTreeMap<Uint8Array, Uint8Array>(memoryId, raw, raw);
  return {
    get: (k) => m.get(k),
    insert: (k, v) => void m.insert(k, v),
    insertOld: (k, v) => m.insert(k, v),
    remove: (k) => void m.remove(k),
    containsKey: (k) => m.containsKey(k),
    len: () => BigInt(m.len()),
    items: (start, length) => m.items(start, length),
  };
}

const maps = new Map<number, KvMap>();
export const host: CoreHost = {
  openMap(memoryId) {
    let m = maps.get(memoryId);
    if (m === undefined) {
      m = stableKvMap(memoryId);
      maps.set(memoryId, m);
    }
    return m;
  },
  timeNs: () => time(),
  instructionCounter: () => performanceCounter(0),
};

export const runtime: {
  core: EvmCore | undefined;
  engine: EvmEngine | undefined;
  settings: CanisterSettings;
  /** The operational state; the core's writeGuard reads this same object (one heap cache). */
  ops: OpsStore | undefined;
  pruneTimer: bigint | undefined;
  miningTimer: bigint | undefined;
} = {
  core: undefined,
  engine: undefined,
  settings: { miningIntervalMs: BigInt(DEFAULT_MINING_INTERVAL_MS) },
  ops: undefined,
  pruneTimer: undefined,
  miningTimer: undefined,
};

/** Creates the engine and the core over the stable maps (install and every upgrade). */
export async function openRuntime(): Promise<EvmCore> {
  let core: EvmCore | undefined;
  const engine = await createEvmEngine({ host, blockHash: (n) => core?.getBlockHash(n), requireWarmUp: true });
  const ops = new OpsStore(host.openMap(MemoryId.Meta));
  // Writes refused by the operational state answer ops.write.* before any decoding (SPEC submit order).
  core = new EvmCore(host, engine, { writeGuard: (op) => ops.guard(op), ops });
  runtime.ops = ops;
  runtime.engine = engine;
  runtime.core = core;
  runtime.settings = loadSettings(host.openMap(MemoryId.Meta)) ?? runtime.settings;
  return core;
}

/**
 * Warm-up and mining. Each warm-up step is its own timer message (one step costs up to tens of billions of
 * instructions), and all of them are armed here rather than each arming the next: a step that traps (e.g.
 * past the message instruction limit) is rolled back on its own, and the other steps and block production
 * still run. Chained steps would lose the rest of the chain, and mining with it, on one trap.
 * Blocks still wait for the tables (no table building inside a transaction's budget): the mining timer's
 * first deadline is later than the steps', ic-cdk-timers issues due timers in deadline order, and calls to
 * self are delivered in order, so every step has run (or trapped) before the first mining tick.
 */
export function startTimers(): void {
  for (const step of WARM_UP_STEPS) {
    setTimer(0, async () => {
      const engine = runtime.engine;
      if (engine !== undefined) await step.run(engine);
    });
  }
  restartMiningTimer();
  restartPruneTimer();
  setTimerInterval(OPS_CHECK_INTERVAL_MS / 1000, opsCheck);
  if (runtime.core?.opsStatus().mode === 'Migration') setTimer(0, migrate);
}

/** One bounded step of a stable-layout migration per timer message, each arming the next until it is done. */
function migrate(): void {
  const core = runtime.core;
  if (core === undefined) return;
  const r = core.migrationStep();
  if (r.done) {
    // a step that rewrites nothing (2 -> 3) ends with no record visited: still worth the operator's line
    if (r.ended) log('warn', `stable layout migration done (${r.visited} records in the last step)`);
  } else {
    log('info', `stable layout migration: ${r.state?.visited ?? 0n} records visited`);
    setTimer(0, migrate);
  }
}

/** (Re)starts the mining timer at the stored interval; 0 means no timer (blocks only through mine_block, the devnet's choice). */
export function restartMiningTimer(): void {
  if (runtime.miningTimer !== undefined) clearTimer(runtime.miningTimer);
  runtime.miningTimer = undefined;
  const ms = runtime.settings.miningIntervalMs;
  if (ms > 0n) runtime.miningTimer = setTimerInterval(Number(ms) / 1000, async () => void (await mine()));
}

/** One block now: the mining timer's body, and mine_block's (which may ask for an empty block). */
export async function mine(allowEmpty = false): Promise<Awaited<ReturnType<EvmCore['produceBlock']>> | undefined> {
  if (runtime.core === undefined) return undefined;
  const r = await runtime.core.produceBlock({ allowEmpty });
  // Built only when debug lines are kept (the hex of every transaction's hash costs instructions).
  if (r.kind === 'Produced' && logs('debug')) log('debug', formatBlockLine(r, () => performanceCounter(0)));
  return r;
}

// ---- lifecycle: prune timer, ops timer, log filter (docs/lifecycle.md) ----

/** (Re)starts the prune timer at the policy's interval: azle's timers take whole seconds (the policy is stored rounded up). */
export function restartPruneTimer(): void {
  if (runtime.pruneTimer !== undefined) clearTimer(runtime.pruneTimer);
  const ms = runtime.core?.pruneStatus().policy.timerIntervalMs ?? 3_600_000n;
  runtime.pruneTimer = setTimerInterval(Number((ms + 999n) / 1000n), pruneTick);
}

function pruneTick(): void {
  const r = runtime.core?.pruneTick();
  if (r !== undefined) log('info', `prune: ${r.ops} deletions, ${r.blocksCompleted} blocks done, first available block ${r.prunedBefore}`);
}

/** The ops timer: cycle balance (Cycle mode) and the integrity check (CriticalCorrupt). */
export function opsCheck(): void {
  const core = runtime.core;
  if (core === undefined) return;
  const before = core.opsStatus().mode;
  core.observeCycles(canisterCycleBalance());
  const failure = core.runIntegrityCheck();
  if (failure !== undefined) log('error', `integrity check failed: ${failure}`);
  const after = core.opsStatus();
  if (after.mode !== before) log('warn', `ops mode ${before} -> ${after.mode}${after.reason === undefined ? '' : `: ${after.reason}`}`);
}

/** The canister's own debug prints, by level; the filter is kept in Meta under `log_level` (u8 index below). */
export const LOG_LEVELS = ['Off', 'Error', 'Warn', 'Info', 'Debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const LOG_KEY = metaKey(MetaKey.LogLevel);
const DEFAULT_LOG_LEVEL: LogLevel = 'Info';

export function logLevel(): LogLevel {
  const b = host.openMap(MemoryId.Meta).get(LOG_KEY);
  return b === undefined || b[0]! >= LOG_LEVELS.length ? DEFAULT_LOG_LEVEL : LOG_LEVELS[b[0]!]!;
}

export function setLogLevel(l: LogLevel): void {
  host.openMap(MemoryId.Meta).insert(LOG_KEY, Uint8Array.of(LOG_LEVELS.indexOf(l)));
}

const LEVEL_RANK = { error: 1, warn: 2, info: 3, debug: 4 } as const;

/** Whether lines of this level are printed under the stored filter. */
export function logs(level: keyof typeof LEVEL_RANK): boolean {
  return LEVEL_RANK[level] <= LOG_LEVELS.indexOf(logLevel());
}

export function log(level: keyof typeof LEVEL_RANK, message: string): void {
  if (logs(level)) console.log(`[${level}] ${message}`);
}

export const notReady = <T>(): Result<T> => err(ErrorCode.ExecStateUnavailable, 'the canister is starting; try again shortly');

/** Runs a head-state read when the block tag names the head (SPEC "Block tags"). */
export function atHead<V>(tag: CandidBlockTag, read: (core: EvmCore) => Result<V>): CandidResult<V> {
  const core = runtime.core;
  if (core === undefined) return candidResult(notReady<V>(), (v) => v);
  // The CriticalCorrupt rule is the core's (every head-state read checks it there).
  const t = requireHeadState(blockTagFromCandid(tag), core.blockNumber());
  return candidResult(t.ok ? read(core) : t, (v) => v);
}
