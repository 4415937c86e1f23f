// The one registry of keys in the shared Meta map (MemoryId.Meta), beside the memory-id registry. Every module
// that keeps a singleton in Meta takes its key from here, so two owners can never pick the same key, and a
// key, like a memory id, is never renamed or reused: stable memory outlives the code.

export const MetaKey = {
  /** Chain config: gas limit, soft limit, fee minimums, coinbase (src/core/chain/meta.ts). */
  Config: 'config',
  /** Head block number, hash, timestamp (chain/meta.ts). */
  Head: 'head',
  /** Base fee of the next block (chain/meta.ts). */
  BaseFee: 'basefee',
  /** Next tx_id sequence number (chain/meta.ts). */
  TxSeq: 'txseq',
  /** Operational mode and reason (ops/state.ts). */
  Ops: 'ops',
  /** Counters behind `metrics` (ops/meter.ts). */
  Metrics: 'metrics',
  /** Prune policy and progress (prune/store.ts). */
  PruneConfig: 'prune_cfg',
  PruneState: 'prune_state',
  /** Canister-only settings: the mining interval (src/canister/settings.ts). */
  CanisterSettings: 'canister_settings',
  /** The canister's debug-print level (src/canister/runtime.ts). */
  LogLevel: 'log_level',
  /** The stable layout version, and a running layout migration's progress (store/layout.ts). */
  Layout: 'layout',
  LayoutMigration: 'layout_migration',
  /** Present (u8 1) on a canister installed with development = opt true; written only by the install (dev/dev_api.ts). */
  Development: 'development',
  /** The chain's commitment version (u8; absent: 1), written only by the install (chain/commitments.ts). */
  Commitment: 'commitment',
  /** Development cheats since the last block, as an encoded state-change list (dev/pending_changes.ts). */
  DevStateChanges: 'dev_state_changes',
} as const;

export type MetaKey = (typeof MetaKey)[keyof typeof MetaKey];

const te = new TextEncoder();
/** The key's bytes in the Meta map. */
export const metaKey = (k: MetaKey): Uint8Array => te.encode(k);
