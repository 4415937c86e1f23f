// Canister-level settings kept in the Meta map under their own key (the chain's config is the core's).
// Encoding: u8 version(1) || mining_interval_ms u64.
import type { KvMap } from '../core/host.js';
import { MetaKey, metaKey } from '../core/store/meta_keys.js';

const KEY = metaKey(MetaKey.CanisterSettings);

export interface CanisterSettings {
  readonly miningIntervalMs: bigint;
}

export function saveSettings(meta: KvMap, s: CanisterSettings): void {
  const b = new Uint8Array(9);
  b[0] = 1;
  new DataView(b.buffer).setBigUint64(1, s.miningIntervalMs);
  meta.insert(KEY, b);
}

export function loadSettings(meta: KvMap): CanisterSettings | undefined {
  const b = meta.get(KEY);
  if (b === undefined || b[0] !== 1 || b.length !== 9) return undefined;
  return { miningIntervalMs: new DataView(b.buffer, b.byteOffset).getBigUint64(1) };
}
