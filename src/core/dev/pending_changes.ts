// The development cheats made since the last block, net per key (export/state_changes.ts), kept encoded in
// Meta until the next block records them as its state changes (chain/producer.ts). The heap copy means a
// production canister, which never has any, pays no stable-memory read per block after the first; a trap
// or a devnet snapshot restore rolls the heap back together with the map.

import type { KvMap } from '../host.js';
import { MetaKey, metaKey } from '../store/meta_keys.js';

const KEY = metaKey(MetaKey.DevStateChanges);

export class PendingStateChanges {
  /** null: read, none pending; undefined: not read yet. */
  private cached: Uint8Array | null | undefined;

  constructor(private readonly meta: KvMap) {}

  /** The encoded list waiting for the next block, or undefined. */
  pending(): Uint8Array | undefined {
    if (this.cached === undefined) this.cached = this.meta.get(KEY) ?? null;
    return this.cached ?? undefined;
  }

  set(encoded: Uint8Array): void {
    this.meta.insert(KEY, encoded);
    this.cached = encoded;
  }

  clear(): void {
    if (this.pending() === undefined) return;
    this.meta.remove(KEY);
    this.cached = null;
  }
}
