// Stable-layout upgrades (docs/lifecycle.md "Upgrades"). post_upgrade calls `checkLayout` before anything else
// touches the maps:
//   - layout == LAYOUT_VERSION and no migration running: nothing to do;
//   - an older known layout (or a migration left running by an earlier upgrade): a migration is started (or
//     resumed where it stopped) and the canister is in the Migration ops state until it ends: submits are
//     refused (ops.write.migration), block production and pruning pause, reads and export keep working
//     (every layout change keeps old records readable by the new code; a migration only completes derived
//     data). The canister runs `migrationStep` in timer messages, each visiting at most a fixed number of
//     records, so any amount of data migrates without a message near the instruction limit;
//   - a newer layout than this code knows: refused (the caller traps, the IC rolls the upgrade back and the
//     old wasm keeps running), never misread.
//
// Steps (one per layout change; each resumable from (phase, cursor) stored in Meta):
//   1 -> 2  history_bytes gains the index and status maps (ops/meter.ts). Phase 0 walks block numbers from the
//           lowest block that may still have entries (a block being pruned, else the first available) to the
//           head: the block's hash index entry and fee summary (and, for a block being pruned, the hash entries
//           of its transactions whose bodies are already deleted). Phase 1 walks tx sequence numbers 1 .. next - 1
//           (tx_ids are u64 big-endian sequence numbers): the status entry, and the hash index entry when the
//           body's hash maps back to this tx_id (every TxHashToId entry has a body with its hash). The sizes
//           (key + value) are added to history_bytes as the walk goes; nothing else writes these maps while
//           the migration runs (writes are refused), so the total ends exact.
//   2 -> 3  nothing to rewrite (store/layout.ts): it ends in the first timer message.

import type { KvMap } from '../host.js';
import type { MetaStore } from '../chain/meta.js';
import type { ChainStore } from '../chain/store.js';
import type { PruneStore } from '../prune/store.js';
import { bytesEqual, u64be } from '../codec/bytes.js';
import { LAYOUT_UNVERSIONED, LAYOUT_VERSION, type LayoutMigration, type LayoutStore } from '../store/layout.js';
import type { Meter } from './meter.js';

/** Records visited per timer message: measured by tests/wasm/canister-upgrade-golden-v1.test.ts, far under the 40 B limit. */
export const MIGRATION_STEP_VISITS = 256;

export interface MigrationDeps {
  readonly layout: LayoutStore;
  readonly meta: MetaStore;
  readonly prune: PruneStore;
  readonly meter: Meter;
  readonly store: ChainStore;
  readonly maps: {
    readonly blockHashToNumber: KvMap;
    readonly blockFeeSummary: KvMap;
    readonly txStatus: KvMap;
    readonly txs: KvMap;
    readonly txHashToId: KvMap;
  };
  readonly nowNs: () => bigint;
}

export type LayoutCheck =
  | { readonly kind: 'Current' }
  | { readonly kind: 'Migrating'; readonly from: number; readonly target: number }
  | { readonly kind: 'Refused'; readonly message: string };

/** Reads the layout at upgrade (or install over existing data) and starts a migration if one is needed. */
export function checkLayout(d: MigrationDeps, initialized: boolean): LayoutCheck {
  const stored = d.layout.stored();
  if (stored === undefined && !initialized) {
    // Nothing stored yet (install, or an upgrade of a canister that never initialized its chain).
    d.layout.setStored(LAYOUT_VERSION);
    return { kind: 'Current' };
  }
  const from = stored ?? LAYOUT_UNVERSIONED;
  if (from > LAYOUT_VERSION) {
    return {
      kind: 'Refused',
      message:
        `stable memory has layout version ${from}, but this wasm knows layouts up to ${LAYOUT_VERSION}: ` +
        `upgrade refused so the data is not misread (a downgrade past a layout change is not supported; install a release that knows layout ${from})`,
    };
  }
  if (from < LAYOUT_UNVERSIONED) return { kind: 'Refused', message: `stable memory has layout version ${from}, which no release wrote` };
  const running = d.layout.migration();
  if (running !== undefined && running.from === from) {
    // An earlier upgrade's migration did not finish: resume it where it stopped, towards this code's layout.
    if (running.target !== LAYOUT_VERSION) d.layout.setMigration({ ...running, target: LAYOUT_VERSION });
    return { kind: 'Migrating', from, target: LAYOUT_VERSION };
  }
  if (from === LAYOUT_VERSION) {
    if (running !== undefined) d.layout.setMigration(undefined);
    return { kind: 'Current' };
  }
  d.layout.setMigration({ from, target: LAYOUT_VERSION, phase: 0, cursor: 0n, visited: 0n, steps: 0, startedNs: d.nowNs() });
  return { kind: 'Migrating', from, target: LAYOUT_VERSION };
}

export interface MigrationProgress {
  readonly done: boolean;
  /** This step ended a running migration (false when none was running). */
  readonly ended: boolean;
  readonly visited: number;
  /** The migration record after the step (undefined once done). */
  readonly state: LayoutMigration | undefined;
}

/** One bounded migration step (a timer message): at most `maxVisits` records. */
export function migrationStep(d: MigrationDeps, maxVisits = MIGRATION_STEP_VISITS): MigrationProgress {
  let m = d.layout.migration();
  if (m === undefined) return { done: true, ended: false, visited: 0, state: undefined };
  let budget = maxVisits;
  let visited = 0;
  while (budget > 0 && m !== undefined) {
    const r = runStep(d, m, budget);
    budget -= r.visited;
    visited += r.visited;
    m = { ...m, phase: r.phase, cursor: r.cursor, visited: m.visited + BigInt(r.visited) };
    if (!r.stepDone) continue;
    // Step from -> from + 1 finished: the data is in layout from + 1.
    const next: number = m.from + 1;
    d.layout.setStored(next);
    m = next >= m.target ? undefined : { ...m, from: next, phase: 0, cursor: 0n };
  }
  if (m !== undefined) m = { ...m, steps: m.steps + 1 };
  d.layout.setMigration(m);
  d.meter.flush();
  return { done: m === undefined, ended: m === undefined, visited, state: m };
}

interface StepResult {
  readonly visited: number;
  readonly phase: number;
  readonly cursor: bigint;
  readonly stepDone: boolean;
}

function runStep(d: MigrationDeps, m: LayoutMigration, budget: number): StepResult {
  if (m.from === 1) return step1to2(d, m, budget);
  // 2 -> 3 only marks the layout (store/layout.ts): no record changes.
  if (m.from === 2) return { visited: 0, phase: 0, cursor: 0n, stepDone: true };
  // A layout between 1 and LAYOUT_VERSION without a step would be a programming error; checkLayout never starts one.
  throw new Error(`no migration step from layout ${m.from}`);
}

const BLOCKS = 0;
const TXS = 1;

function step1to2(d: MigrationDeps, m: LayoutMigration, budget: number): StepResult {
  let phase = m.phase;
  let cursor = m.cursor;
  let visited = 0;
  let bytes = 0;
  if (phase === BLOCKS) {
    const s = d.prune.getState();
    const from = s.inProgress?.block ?? s.prunedBefore;
    if (cursor < from) cursor = from;
    const head = d.meta.getHead()?.number ?? -1n;
    while (visited < budget && cursor <= head) {
      const key = u64be(cursor);
      const block = d.store.getBlock(cursor);
      if (block !== undefined) {
        const n = d.maps.blockHashToNumber.get(block.hash);
        if (n !== undefined) bytes += block.hash.length + n.length;
        // A block being pruned may have lost a transaction's body before its hash entry: count those entries
        // here (the tx walk counts hash entries through the bodies).
        if (cursor === s.inProgress?.block) {
          for (const t of block.txs) {
            if (d.maps.txs.containsKey(t.txId)) continue;
            const owner = d.maps.txHashToId.get(t.ethHash);
            if (owner !== undefined && bytesEqual(owner, t.txId)) bytes += t.ethHash.length + owner.length;
          }
        }
      }
      const fee = d.maps.blockFeeSummary.get(key);
      if (fee !== undefined) bytes += key.length + fee.length;
      visited++;
      cursor++;
    }
    if (cursor > head) {
      phase = TXS;
      cursor = 1n;
    }
  }
  if (phase === TXS) {
    const next = d.meta.peekTxSeq();
    if (cursor < 1n) cursor = 1n;
    while (visited < budget && cursor < next) {
      const id = u64be(cursor);
      const st = d.maps.txStatus.get(id);
      if (st !== undefined) bytes += id.length + st.length;
      const body = d.maps.txs.get(id);
      // StoredTx: u8 origin || from[20] || eth_tx_hash[32] || ... (tx/stored.ts).
      if (body !== undefined) {
        const hash = body.subarray(21, 53);
        const owner = d.maps.txHashToId.get(hash);
        if (owner !== undefined && bytesEqual(owner, id)) bytes += hash.length + owner.length;
      }
      visited++;
      cursor++;
    }
    d.meter.addHistoryBytes(bytes);
    return { visited, phase, cursor, stepDone: cursor >= next };
  }
  d.meter.addHistoryBytes(bytes);
  return { visited, phase, cursor, stepDone: false };
}

/** The Migration reason shown by get_ops_status and health while a layout migration runs. */
export function migrationReason(m: LayoutMigration): string {
  const what = m.phase === BLOCKS ? `block ${m.cursor}` : `tx ${m.cursor}`;
  return `stable layout migration ${m.from} -> ${m.target}: ${m.visited} records visited in ${m.steps} steps, at ${what}`;
}
