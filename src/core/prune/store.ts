// Prune policy and progress, in the Meta map under `prune_cfg` and `prune_state` (raw bytes).
//
// prune_cfg   = u8 version(1) || u8 enabled || keep_recent_blocks u64 || max_history_bytes u64
//               || timer_interval_ms u64 || max_ops_per_tick u32
// prune_state = u8 version(1) || pruned_before u64 || max_pruned_tx_seq u64 || u8 in_progress || block u64
//               || next_op u32 || pruned_blocks u64 || total_ops u64 || last_tick_ns u64 || last_tick_ops u32
//
// pruned_before     the first block still available: every block below it is pruned (or being pruned).
// max_pruned_tx_seq the highest tx_id sequence number of any transaction of a pruned block.
// in_progress       a block whose entries are being deleted across ticks; pruned_before is already past it.

import {
  DEFAULT_PRUNE_MAX_OPS_PER_TICK,
  DEFAULT_PRUNE_TIMER_INTERVAL_MS,
  MIN_PRUNE_MAX_OPS_PER_TICK,
  MIN_PRUNE_TIMER_INTERVAL_MS,
} from '../constants.js';
import { ErrorCode, err, ok, type Result } from '../errors.js';
import type { KvMap } from '../host.js';
import { ByteReader, ByteWriter } from '../codec/bytes.js';
import { MetaKey, metaKey } from '../store/meta_keys.js';

const K_CFG = metaKey(MetaKey.PruneConfig);
const K_STATE = metaKey(MetaKey.PruneState);

/**
 * Pruning never removes the most recent 256 blocks: BLOCKHASH reads the hashes of the last 256 blocks, so
 * pruning inside that window would change execution results.
 */
export const PRUNE_MIN_KEEP_BLOCKS = 256n;
/**
 * Most deletions one tick or one prune_blocks call may do. Measured (`npm run bench`, prune.tick.instructions
 * and prune.op.instructions, the latter for the default 5000 deletions; each is a read to meter the bytes,
 * then the removal), so 50 000 deletions, ten times prune.op.instructions, stay well under the
 * 40 B a timer or update message may spend.
 */
export const MAX_PRUNE_OPS_PER_TICK = 50_000;

export interface PrunePolicy {
  /** Keep at least this many most recent blocks; 0: no count limit. Otherwise at least PRUNE_MIN_KEEP_BLOCKS. */
  readonly keepRecentBlocks: bigint;
  /** Prune oldest blocks while history_bytes is above this; 0: no size budget. */
  readonly maxHistoryBytes: bigint;
  /** A whole number of seconds (azle's timers take seconds): set_prune_policy rounds up to the next 1000. */
  readonly timerIntervalMs: bigint;
  readonly maxOpsPerTick: number;
}

export interface PruneConfig {
  readonly enabled: boolean;
  readonly policy: PrunePolicy;
}

export const DEFAULT_PRUNE_POLICY: PrunePolicy = {
  keepRecentBlocks: 0n,
  maxHistoryBytes: 0n,
  timerIntervalMs: BigInt(DEFAULT_PRUNE_TIMER_INTERVAL_MS),
  maxOpsPerTick: DEFAULT_PRUNE_MAX_OPS_PER_TICK,
};

export interface PruneState {
  prunedBefore: bigint;
  maxPrunedTxSeq: bigint;
  inProgress: { block: bigint; nextOp: number } | undefined;
  prunedBlocks: bigint;
  totalOps: bigint;
  lastTickNs: bigint;
  lastTickOps: number;
}

/** Checks a policy and returns it with the interval rounded up to whole seconds. */
export function validatePolicy(p: PrunePolicy): Result<PrunePolicy> {
  if (p.keepRecentBlocks !== 0n && p.keepRecentBlocks < PRUNE_MIN_KEEP_BLOCKS) {
    return err(ErrorCode.ArgInvalid, `keep_recent_blocks must be 0 (no count limit) or at least ${PRUNE_MIN_KEEP_BLOCKS} (the BLOCKHASH window)`);
  }
  if (p.timerIntervalMs < BigInt(MIN_PRUNE_TIMER_INTERVAL_MS)) {
    return err(ErrorCode.ArgInvalid, `timer_interval_ms must be at least ${MIN_PRUNE_TIMER_INTERVAL_MS}`);
  }
  if (p.timerIntervalMs > 30n * 86_400_000n) return err(ErrorCode.ArgInvalid, 'timer_interval_ms must be at most 30 days');
  const ops = validateMaxOps(p.maxOpsPerTick, 'max_ops_per_tick');
  if (!ops.ok) return ops;
  const rounded = ((p.timerIntervalMs + 999n) / 1000n) * 1000n;
  return ok({ ...p, timerIntervalMs: rounded });
}

export function validateMaxOps(n: number, name: string): Result<number> {
  if (!Number.isInteger(n) || n < MIN_PRUNE_MAX_OPS_PER_TICK || n > MAX_PRUNE_OPS_PER_TICK) {
    return err(ErrorCode.ArgInvalid, `${name} must be in [${MIN_PRUNE_MAX_OPS_PER_TICK}, ${MAX_PRUNE_OPS_PER_TICK}]`);
  }
  return ok(n);
}

export class PruneStore {
  private cfg: PruneConfig | undefined;
  private state: PruneState | undefined;

  constructor(private readonly meta: KvMap) {}

  config(): PruneConfig {
    if (this.cfg !== undefined) return this.cfg;
    const b = this.meta.get(K_CFG);
    if (b === undefined || b[0] !== 1) return (this.cfg = { enabled: false, policy: DEFAULT_PRUNE_POLICY });
    const r = new ByteReader(b);
    r.u8();
    const enabled = r.u8() === 1;
    return (this.cfg = {
      enabled,
      policy: { keepRecentBlocks: r.u64(), maxHistoryBytes: r.u64(), timerIntervalMs: r.u64(), maxOpsPerTick: r.u32() },
    });
  }

  setConfig(c: PruneConfig): void {
    const p = c.policy;
    this.meta.insert(
      K_CFG,
      new ByteWriter(40).u8(1).u8(c.enabled ? 1 : 0).u64(p.keepRecentBlocks).u64(p.maxHistoryBytes).u64(p.timerIntervalMs).u32(p.maxOpsPerTick).finish(),
    );
    this.cfg = c;
  }

  getState(): PruneState {
    if (this.state !== undefined) return this.state;
    const b = this.meta.get(K_STATE);
    if (b === undefined || b[0] !== 1) {
      return (this.state = { prunedBefore: 0n, maxPrunedTxSeq: 0n, inProgress: undefined, prunedBlocks: 0n, totalOps: 0n, lastTickNs: 0n, lastTickOps: 0 });
    }
    const r = new ByteReader(b);
    r.u8();
    const prunedBefore = r.u64();
    const maxPrunedTxSeq = r.u64();
    const has = r.u8() === 1;
    const block = r.u64();
    const nextOp = r.u32();
    return (this.state = {
      prunedBefore,
      maxPrunedTxSeq,
      inProgress: has ? { block, nextOp } : undefined,
      prunedBlocks: r.u64(),
      totalOps: r.u64(),
      lastTickNs: r.u64(),
      lastTickOps: r.u32(),
    });
  }

  setState(s: PruneState): void {
    this.meta.insert(
      K_STATE,
      new ByteWriter(64)
        .u8(1)
        .u64(s.prunedBefore)
        .u64(s.maxPrunedTxSeq)
        .u8(s.inProgress === undefined ? 0 : 1)
        .u64(s.inProgress?.block ?? 0n)
        .u32(s.inProgress?.nextOp ?? 0)
        .u64(s.prunedBlocks)
        .u64(s.totalOps)
        .u64(s.lastTickNs)
        .u32(s.lastTickOps)
        .finish(),
    );
    this.state = s;
  }
}
