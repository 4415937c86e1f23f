// Operational states (SPEC "Operational states"), kept in the Meta map under the key `ops`.
//
// Three independent conditions, each with its own reason and the time it was raised; the mode `get_ops_status`
// reports is the most severe one raised, else Normal:
//
//   CriticalCorrupt  raised by the integrity check (post_upgrade and the ops timer) when a stable-store
//                    invariant is broken; cleared by the same check once it passes again (after an upgrade
//                    that repairs the store). Refuses submit, block production, pruning and config changes
//                    (ops.write.critical_corrupt); head-state reads answer exec.state.unavailable. Block,
//                    receipt and export reads keep working so an indexer can drain what is there.
//   Migration        raised and cleared only by a controller (`set_ops_mode`), and kept across upgrades: enter
//                    it before moving or upgrading the canister, leave it after checking. Refuses submit
//                    (ops.write.migration), pauses block production and pruning so the history is frozen.
//                    Reads, export and admin methods keep working.
//                    A stable-layout migration after an upgrade (ops/migration.ts) is the same state, raised
//                    by post_upgrade and cleared by its last step, not by `set_ops_mode`; its reason shows
//                    the progress.
//   Cycle            raised by the ops timer when the cycle balance is below OPS_CYCLE_LOW_THRESHOLD, cleared
//                    when it is back at or above OPS_CYCLE_RESUME_THRESHOLD (hysteresis, no flapping).
//                    Refuses submit (ops.write.cycle); already accepted transactions are still mined and
//                    pruning goes on (both shrink what the canister holds).
//
// ops = u8 version(1) || 3 * (u8 raised || since_ns u64 || reason str)   in the order corrupt, migration, cycle
//       || normal_since_ns u64   (when the last condition was cleared; 0 if never raised)

import type { CoreError } from '../errors.js';
import { ErrorCode } from '../errors.js';
import type { KvMap } from '../host.js';
import { ByteReader, ByteWriter } from '../codec/bytes.js';
import { MetaKey, metaKey } from '../store/meta_keys.js';
import { LayoutStore } from '../store/layout.js';
import { migrationReason } from './migration.js';

const KEY = metaKey(MetaKey.Ops);

export type OpsMode = 'Normal' | 'Migration' | 'Cycle' | 'CriticalCorrupt';
export type WriteOp = 'submit' | 'produce' | 'admin' | 'prune';

/** Below this cycle balance the canister enters Cycle mode (1 T cycles: weeks of idle storage, a few thousand blocks). */
export const OPS_CYCLE_LOW_THRESHOLD = 1_000_000_000_000n;
/** Cycle mode is left at or above this balance (2 T cycles). */
export const OPS_CYCLE_RESUME_THRESHOLD = 2_000_000_000_000n;
/** The ops timer (cycle balance + integrity check) runs this often. */
export const OPS_CHECK_INTERVAL_MS = 60_000;

interface Condition {
  raised: boolean;
  sinceNs: bigint;
  reason: string;
}

interface OpsRecord {
  corrupt: Condition;
  migration: Condition;
  cycle: Condition;
  normalSinceNs: bigint;
}

export interface OpsStatus {
  readonly mode: OpsMode;
  readonly reason: string | undefined;
  readonly sinceNs: bigint;
  readonly writesAllowed: boolean;
}

const none = (): Condition => ({ raised: false, sinceNs: 0n, reason: '' });

function decode(b: Uint8Array | undefined): OpsRecord {
  if (b === undefined || b[0] !== 1) return { corrupt: none(), migration: none(), cycle: none(), normalSinceNs: 0n };
  const r = new ByteReader(b);
  r.u8();
  const c = (): Condition => ({ raised: r.u8() === 1, sinceNs: r.u64(), reason: r.str() });
  return { corrupt: c(), migration: c(), cycle: c(), normalSinceNs: r.u64() };
}

function encode(o: OpsRecord): Uint8Array {
  const w = new ByteWriter(128).u8(1);
  for (const c of [o.corrupt, o.migration, o.cycle]) w.u8(c.raised ? 1 : 0).u64(c.sinceNs).str(c.reason.slice(0, 200));
  return w.u64(o.normalSinceNs).finish();
}

export class OpsStore {
  private cached: OpsRecord | undefined;
  private readonly layout: LayoutStore;

  constructor(private readonly meta: KvMap) {
    this.layout = new LayoutStore(meta);
  }

  private rec(): OpsRecord {
    return (this.cached ??= decode(this.meta.get(KEY)));
  }

  private save(o: OpsRecord): void {
    this.meta.insert(KEY, encode(o));
    this.cached = o;
  }

  status(): OpsStatus {
    const o = this.rec();
    const mode = this.mode();
    const lm = mode === 'Migration' ? this.layout.migration() : undefined;
    if (lm !== undefined) return { mode, reason: migrationReason(lm), sinceNs: lm.startedNs, writesAllowed: false };
    const c = mode === 'CriticalCorrupt' ? o.corrupt : mode === 'Migration' ? o.migration : mode === 'Cycle' ? o.cycle : undefined;
    return {
      mode,
      reason: c === undefined || c.reason === '' ? undefined : c.reason,
      sinceNs: c?.sinceNs ?? o.normalSinceNs,
      writesAllowed: mode === 'Normal',
    };
  }

  mode(): OpsMode {
    const o = this.rec();
    if (o.corrupt.raised) return 'CriticalCorrupt';
    if (o.migration.raised || this.layout.migration() !== undefined) return 'Migration';
    if (o.cycle.raised) return 'Cycle';
    return 'Normal';
  }

  /** The facade's WriteGuard: undefined allows the write, an ops.write.* error refuses it. */
  guard(op: WriteOp): CoreError | undefined {
    // Every submit and block asks: the Normal answer builds no reason text (status() reads the mode again).
    const mode = this.mode();
    if (mode === 'Normal') return undefined;
    const reason = this.status().reason;
    const why = reason === undefined ? '' : ` (${reason})`;
    if (mode === 'CriticalCorrupt') {
      return { code: ErrorCode.OpsWriteCriticalCorrupt, message: `the canister is in critical_corrupt state${why}; writes are refused until the integrity check passes` };
    }
    if (mode === 'Migration' && (op === 'submit' || op === 'produce' || op === 'prune')) {
      return { code: ErrorCode.OpsWriteMigration, message: `the canister is in migration state${why}; writes are refused until a controller leaves it` };
    }
    if (mode === 'Cycle' && op === 'submit') {
      return { code: ErrorCode.OpsWriteCycle, message: `the canister's cycle balance is low${why}; writes are refused until it is topped up` };
    }
    return undefined;
  }

  /** Reads of live state refuse in CriticalCorrupt (exec.state.unavailable). */
  stateReadable(): boolean {
    return !this.rec().corrupt.raised;
  }

  private set(which: 'corrupt' | 'migration' | 'cycle', raised: boolean, reason: string, nowNs: bigint): boolean {
    const o = this.rec();
    const c = o[which];
    if (c.raised === raised && (!raised || c.reason === reason)) return false;
    const next: OpsRecord = { ...o, [which]: raised ? { raised, sinceNs: c.raised ? c.sinceNs : nowNs, reason } : none() };
    if (!raised && !next.corrupt.raised && !next.migration.raised && !next.cycle.raised) next.normalSinceNs = nowNs;
    this.save(next);
    return true;
  }

  /** Result of the integrity check: a failure message raises CriticalCorrupt, undefined clears it. Returns true if the state changed. */
  setIntegrity(failure: string | undefined, nowNs: bigint): boolean {
    return this.set('corrupt', failure !== undefined, failure ?? '', nowNs);
  }

  setMigration(on: boolean, reason: string, nowNs: bigint): boolean {
    return this.set('migration', on, reason, nowNs);
  }

  /** Cycle balance observed by the ops timer; returns true if the state changed. */
  observeCycles(balance: bigint, nowNs: bigint): boolean {
    const o = this.rec();
    if (!o.cycle.raised && balance < OPS_CYCLE_LOW_THRESHOLD) {
      return this.set('cycle', true, `cycle balance ${balance} is below ${OPS_CYCLE_LOW_THRESHOLD}`, nowNs);
    }
    if (o.cycle.raised && balance >= OPS_CYCLE_RESUME_THRESHOLD) return this.set('cycle', false, '', nowNs);
    return false;
  }
}
