// The canister's heap state, shared by every method class: the core over stable maps, the EVM engine,
// the timers. The JS heap is rebuilt on upgrade; everything durable is in the maps.
import { performanceCounter, setTimer, setTimerInterval, StableBTreeMap, time } from 'azle';

import { requireHeadState } from '../core/block_tag.js';
import { DEFAULT_MINING_INTERVAL_MS } from '../core/constants.js';
import { ErrorCode, err, type Result } from '../core/errors.js';
import type { CoreHost, KvMap } from '../core/host.js';
import { EvmCore } from '../core/index.js';
import { createEvmEngine, WARM_UP_STEPS, type EvmEngine } from '../core/evm/index.js';
import { MemoryId } from '../core/store/memory_ids.js';
import { blockTagFromCandid, candidResult, type CandidBlockTag, type CandidResult } from './convert.js';
import { loadSettings, type CanisterSettings } from './settings.js';

const raw = { toBytes: (x: Uint8Array) => x, fromBytes: (x: Uint8Array) => x };

/** One StableBTreeMap per memory id, with raw-byte keys and values (DESIGN rule 7). */
function stableKvMap(memoryId: number): KvMap {
  const m = new StableBTreeMap<Uint8Array, Uint8Array>(memoryId, raw, raw);
  return {
    get: (k) => m.get(k),
    insert: (k, v) => void m.insert(k, v),
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
} = {
  core: undefined,
  engine: undefined,
  settings: { miningIntervalMs: BigInt(DEFAULT_MINING_INTERVAL_MS) },
};

/** Creates the engine and the core over the stable maps (install and every upgrade). */
export async function openRuntime(): Promise<EvmCore> {
  let core: EvmCore | undefined;
  const engine = await createEvmEngine({ host, blockHash: (n) => core?.getBlockHash(n) });
  core = new EvmCore(host, engine);
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
  setTimerInterval(Number(runtime.settings.miningIntervalMs) / 1000, mine);
}

async function mine(): Promise<void> {
  if (runtime.core === undefined) return;
  await runtime.core.produceBlock();
}

export const notReady = <T>(): Result<T> => err(ErrorCode.ExecStateUnavailable, 'the canister is starting; try again shortly');

/** Runs a head-state read when the block tag names the head (SPEC "Block tags"). */
export function atHead<V>(tag: CandidBlockTag, read: (core: EvmCore) => Result<V>): CandidResult<V> {
  const core = runtime.core;
  if (core === undefined) return candidResult(notReady<V>(), (v) => v);
  const t = requireHeadState(blockTagFromCandid(tag), core.blockNumber());
  return candidResult(t.ok ? read(core) : t, (v) => v);
}
