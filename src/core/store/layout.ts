// The stable-memory layout version: which encodings and maps the stored data uses (docs/lifecycle.md
// "Upgrades"). Written at install, checked by post_upgrade before anything else reads or writes: an older
// known layout is migrated in bounded steps (src/core/ops/migration.ts), a newer one refuses the upgrade.
//
// Meta keys (memory 0):
//   layout            = u32 version                 absent: layout 1 (every release before the version existed)
//   layout_migration  = u8 format(1) || from u32 || target u32 || phase u8 || cursor u64 || visited u64
//                       || steps u32 || started_ns u64
//                       present only while a migration runs: `from` is the layout the data is in, the step in
//                       progress goes from `from` to `from + 1`; `phase` and `cursor` say where it resumes.
//
// Layouts:
//   1  the first release (no version key).
//   2  history_bytes (metrics, prune budget) also counts the index and status maps: BlockHashToNumber,
//      TxHashToId, TxStatus, BlockFeeSummary. Migration 1 -> 2 adds the sizes of their existing entries.
//   3  the chain's commitment version may be set (Meta key `commitment`, chain/commitments.ts): a chain
//      installed by layout 3 code commits with BLAKE3, which a layout 2 wasm would not know, so an older wasm
//      must refuse it rather than chain keccak roots onto it. Migration 2 -> 3 writes nothing: data from
//      layout 2 has no key, which reads as commitment version 1.

import type { KvMap } from '../host.js';
import { ByteReader, ByteWriter } from '../codec/bytes.js';
import { MetaKey, metaKey } from './meta_keys.js';

/** The layout this code writes and reads. Raise it (and add a migration step and a golden image) for every change of a stored encoding. */
export const LAYOUT_VERSION = 3;
/** Data with no layout key was written by a release before layout versions existed. */
export const LAYOUT_UNVERSIONED = 1;

const K_LAYOUT = metaKey(MetaKey.Layout);
const K_MIGRATION = metaKey(MetaKey.LayoutMigration);

export interface LayoutMigration {
  /** The layout the data is in; the running step moves it to from + 1. */
  readonly from: number;
  /** The layout the migration ends at. */
  readonly target: number;
  /** Which pass of the step is running, and where it resumes (meaning per step, see ops/migration.ts). */
  readonly phase: number;
  readonly cursor: bigint;
  /** Records visited so far (all steps), and timer messages used. */
  readonly visited: bigint;
  readonly steps: number;
  readonly startedNs: bigint;
}

export class LayoutStore {
  constructor(private readonly meta: KvMap) {}

  /** The stored layout, or undefined when the key is absent (layout 1 data, or nothing installed yet). */
  stored(): number | undefined {
    const b = this.meta.get(K_LAYOUT);
    return b === undefined ? undefined : new ByteReader(b).u32();
  }

  setStored(v: number): void {
    this.meta.insert(K_LAYOUT, new ByteWriter(4).u32(v).finish());
  }

  migration(): LayoutMigration | undefined {
    const b = this.meta.get(K_MIGRATION);
    if (b === undefined || b[0] !== 1) return undefined;
    const r = new ByteReader(b);
    r.u8();
    return { from: r.u32(), target: r.u32(), phase: r.u8(), cursor: r.u64(), visited: r.u64(), steps: r.u32(), startedNs: r.u64() };
  }

  setMigration(m: LayoutMigration | undefined): void {
    if (m === undefined) {
      this.meta.remove(K_MIGRATION);
      return;
    }
    this.meta.insert(
      K_MIGRATION,
      new ByteWriter(40).u8(1).u32(m.from).u32(m.target).u8(m.phase).u64(m.cursor).u64(m.visited).u32(m.steps).u64(m.startedNs).finish(),
    );
  }
}
