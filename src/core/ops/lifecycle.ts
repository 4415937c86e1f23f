// Canister lifecycle in the core: pruning, export, operational states, integrity and metrics. The facade
// (src/core/index.ts) owns one Lifecycle and delegates to it; docs/lifecycle.md describes the behaviour.

import type { Bytes32 } from '../engine.js';
import { ErrorCode, err, ok, type CoreError, type Result } from '../errors.js';
import type { CoreHost, KvMap } from '../host.js';
import { readU64be } from '../codec/bytes.js';
import type { ChainStore } from '../chain/store.js';
import type { MetaStore } from '../chain/meta.js';
import type { PendingPool } from '../mempool/pool.js';
import { MemoryId } from '../store/memory_ids.js';
import type { RpcBlockLookupView, RpcReceiptLookupView } from '../views.js';
import { exportBlocks, type ExportResult } from '../export/export.js';
import type { ExportCursor } from '../export/format.js';
import { pruneFloor, pruneStep, type PruneTickResult } from '../prune/pruner.js';
import { PRUNE_MIN_KEEP_BLOCKS, PruneStore, validateMaxOps, validatePolicy, type PrunePolicy } from '../prune/store.js';
import { checkIntegrity } from './integrity.js';
import { checkLayout, migrationStep, type LayoutCheck, type MigrationDeps, type MigrationProgress } from './migration.js';
import { LayoutStore } from '../store/layout.js';
import type { Meter } from './meter.js';
import type { OpsStatus, OpsStore, WriteOp } from './state.js';

export interface LifecycleDeps {
  readonly host: CoreHost;
  readonly metaMap: KvMap;
  readonly meta: MetaStore;
  readonly pool: PendingPool;
  readonly store: ChainStore;
  readonly txs: KvMap;
  readonly meter: Meter;
  readonly ops: OpsStore;
  readonly guard: (op: WriteOp) => CoreError | undefined;
}

export interface PruneStatusView {
  readonly enabled: boolean;
  readonly policy: PrunePolicy;
  /** The first block still available (0 when nothing was pruned). */
  readonly prunedBeforeBlock: bigint;
  /** Highest tx_id sequence number of a pruned block's transactions (0 when none). */
  readonly maxPrunedTxSeq: bigint;
  readonly inProgressBlock: bigint | undefined;
  readonly prunedBlocks: bigint;
  readonly totalOps: bigint;
  readonly lastTickNs: bigint;
  readonly lastTickOps: number;
  readonly historyBytes: bigint;
}

export interface CoreMetrics {
  readonly blockNumber: bigint;
  readonly pendingTxs: bigint;
  readonly blocksProduced: bigint;
  readonly txsProduced: bigint;
  readonly drops: readonly { readonly code: string; readonly count: bigint }[];
  readonly lastBlockNumber: bigint;
  readonly lastBlockInstructions: bigint;
  readonly historyBytes: bigint;
  /** Entries of every stable map, by name (the size azle exposes; see docs/lifecycle.md). */
  readonly mapEntries: readonly { readonly name: string; readonly memoryId: number; readonly entries: bigint }[];
  readonly prune: PruneStatusView;
  readonly ops: OpsStatus;
}

export class Lifecycle {
  readonly prune: PruneStore;

  constructor(private readonly d: LifecycleDeps) {
    this.prune = new PruneStore(d.metaMap);
  }

  // ---- pruning ----

  firstAvailableBlock(): bigint {
    return this.prune.getState().prunedBefore;
  }

  pruneStatus(): PruneStatusView {
    const c = this.prune.config();
    const s = this.prune.getState();
    return {
      enabled: c.enabled,
      policy: c.policy,
      prunedBeforeBlock: s.prunedBefore,
      maxPrunedTxSeq: s.maxPrunedTxSeq,
      inProgressBlock: s.inProgress?.block,
      prunedBlocks: s.prunedBlocks,
      totalOps: s.totalOps,
      lastTickNs: s.lastTickNs,
      lastTickOps: s.lastTickOps,
      historyBytes: this.d.meter.get().historyBytes,
    };
  }

  setPrunePolicy(p: PrunePolicy): Result<PrunePolicy> {
    const g = this.d.guard('admin');
    if (g !== undefined) return { ok: false, error: g };
    const v = validatePolicy(p);
    if (!v.ok) return v;
    this.prune.setConfig({ ...this.prune.config(), policy: v.value });
    return v;
  }

  setPruningEnabled(enabled: boolean): Result<void> {
    const g = this.d.guard('admin');
    if (g !== undefined) return { ok: false, error: g };
    this.prune.setConfig({ ...this.prune.config(), enabled });
    return ok(undefined);
  }

  /** Install / upgrade arguments: either may be absent (keeps the stored value). No ops guard: the controller is installing. */
  configurePruning(policy: PrunePolicy | undefined, enabled: boolean | undefined): Result<void> {
    let cfg = this.prune.config();
    if (policy !== undefined) {
      const v = validatePolicy(policy);
      if (!v.ok) return v;
      cfg = { ...cfg, policy: v.value };
    }
    if (enabled !== undefined) cfg = { ...cfg, enabled };
    this.prune.setConfig(cfg);
    return ok(undefined);
  }

  /**
   * The prune timer's body: under the policy, at most max_ops_per_tick deletions. Does nothing when pruning is
   * disabled, and in the states that pause pruning (Migration, CriticalCorrupt).
   */
  pruneTick(): PruneTickResult | undefined {
    const c = this.prune.config();
    if (!c.enabled || this.d.guard('produce') !== undefined) return undefined;
    const head = this.d.meta.getHead();
    if (head === undefined) return undefined;
    const p = c.policy;
    const floor = pruneFloor(head.number, PRUNE_MIN_KEEP_BLOCKS);
    const byCount = p.keepRecentBlocks === 0n ? 0n : pruneFloor(head.number, p.keepRecentBlocks);
    const meter = this.d.meter;
    const want = (n: bigint): boolean => {
      if (n >= floor) return false;
      if (n < byCount) return true;
      return p.maxHistoryBytes > 0n && meter.get().historyBytes > p.maxHistoryBytes;
    };
    if (this.prune.getState().inProgress === undefined && !want(this.prune.getState().prunedBefore)) return undefined;
    const r = pruneStep(this.pruneDeps(), want, p.maxOpsPerTick, this.d.host.timeNs());
    meter.flush();
    return r;
  }

  /**
   * prune_blocks: prunes the blocks below `beforeBlock` (never inside the last 256), whatever the policy and
   * the enabled switch say, doing at most `maxOps` deletions. Call again while `done` is false.
   */
  pruneBlocks(beforeBlock: bigint, maxOps: number): Result<PruneTickResult> {
    const g = this.d.guard('produce');
    if (g !== undefined) return { ok: false, error: g };
    const v = validateMaxOps(maxOps, 'max_ops');
    if (!v.ok) return v;
    const head = this.d.meta.getHead();
    if (head === undefined) return err(ErrorCode.ExecStateUnavailable, 'chain not initialized');
    const floor = pruneFloor(head.number, PRUNE_MIN_KEEP_BLOCKS);
    const target = beforeBlock < floor ? beforeBlock : floor;
    const r = pruneStep(this.pruneDeps(), (n) => n < target, maxOps, this.d.host.timeNs());
    this.d.meter.flush();
    return ok(r);
  }

  private pruneDeps() {
    return { store: this.d.store, pool: this.d.pool, txs: this.d.txs, prune: this.prune };
  }

  // ---- lookups with the prune boundary (rules in prune/pruner.ts) ----

  blockLookup<B>(n: bigint, read: (n: bigint) => B | undefined): { kind: 'NotFound' } | { kind: 'Found'; block: B } | { kind: 'Pruned'; prunedBeforeBlock: bigint } {
    const first = this.firstAvailableBlock();
    if (n < first) return { kind: 'Pruned', prunedBeforeBlock: first };
    const b = read(n);
    return b === undefined ? { kind: 'NotFound' } : { kind: 'Found', block: b };
  }

  /** Whether a receipt of this tx_id is pruned (Pruned), or else undefined (look it up normally). */
  receiptPruned(txId: Uint8Array): RpcReceiptLookupView | undefined {
    const s = this.prune.getState();
    if (s.prunedBefore === 0n || txId.length !== 8) return undefined;
    const pruned: RpcReceiptLookupView = { kind: 'Pruned', prunedBeforeBlock: s.prunedBefore };
    const st = this.d.pool.getStatus(txId);
    if (st !== undefined) return st.kind === 'Included' && st.blockNumber < s.prunedBefore ? pruned : undefined;
    const seq = readU64be(txId);
    return seq >= 1n && seq <= s.maxPrunedTxSeq ? pruned : undefined;
  }

  /** For a hash the index does not know: PossiblyPruned once anything was pruned, else NotFound. */
  unknownHash(_hash: Bytes32): RpcReceiptLookupView {
    const first = this.firstAvailableBlock();
    return first > 0n ? { kind: 'PossiblyPruned', prunedBeforeBlock: first } : { kind: 'NotFound' };
  }

  // ---- export ----

  exportBlocks(cursor: ExportCursor | undefined, maxBytes: number): ExportResult {
    const head = this.d.meta.getHead();
    if (head === undefined) return { ok: false, error: { kind: 'Unavailable', message: 'chain not initialized' } };
    return exportBlocks(
      { host: this.d.host, store: this.d.store, txs: this.d.txs, headNumber: head.number, firstAvailableBlock: this.firstAvailableBlock(), commitment: this.d.meta.getCommitmentVersion() },
      cursor,
      maxBytes,
    );
  }

  // ---- stable layout (ops/migration.ts) ----

  checkLayout(): LayoutCheck {
    return checkLayout(this.migrationDeps(), this.d.meta.getHead() !== undefined);
  }

  migrationStep(maxVisits?: number): MigrationProgress {
    return migrationStep(this.migrationDeps(), maxVisits);
  }

  private migrationDeps(): MigrationDeps {
    const { store, pool } = this.d;
    return {
      layout: new LayoutStore(this.d.metaMap),
      meta: this.d.meta,
      prune: this.prune,
      meter: this.d.meter,
      // Reads only: the walk never writes these maps.
      store,
      maps: {
        blockHashToNumber: store.maps.blockHashToNumber,
        blockFeeSummary: this.d.host.openMap(MemoryId.BlockFeeSummary),
        txStatus: pool.maps.status,
        txs: this.d.txs,
        txHashToId: pool.maps.hashToId,
      },
      nowNs: () => this.d.host.timeNs(),
    };
  }

  // ---- operational state ----

  /** Runs the integrity check and raises or clears CriticalCorrupt. Returns the failure, if any. */
  runIntegrityCheck(): string | undefined {
    const failure = checkIntegrity({ meta: this.d.meta, store: this.d.store, pool: this.d.pool, txs: this.d.txs, firstAvailableBlock: this.firstAvailableBlock() });
    this.d.ops.setIntegrity(failure, this.d.host.timeNs());
    return failure;
  }

  // ---- metrics ----

  metrics(blockNumber: bigint): CoreMetrics {
    const c = this.d.meter.get();
    const entries = Object.entries(MemoryId)
      .filter(([name]) => name !== 'ProbeTest')
      .map(([name, memoryId]) => ({ name, memoryId, entries: this.d.host.openMap(memoryId).len() }));
    return {
      blockNumber,
      pendingTxs: this.d.pool.maps.pending.len(),
      blocksProduced: c.blocksProduced,
      txsProduced: c.txsProduced,
      drops: [...c.drops].map(([code, count]) => ({ code, count })),
      lastBlockNumber: c.lastBlockNumber,
      lastBlockInstructions: c.lastBlockInstructions,
      historyBytes: c.historyBytes,
      mapEntries: entries,
      prune: this.pruneStatus(),
      ops: this.d.ops.status(),
    };
  }
}
