// The one registry of stable-memory ids (StableBTreeMap memoryId 0..253). Never reuse or renumber an id:
// stable memory outlives the code, and a changed id silently reads another map after an upgrade.

export const MemoryId = {
  /** Singleton values: config, base fee, head, counters (key: a short ASCII name, registered in meta_keys.ts). */
  Meta: 0,
  // Live EVM state, owned by src/core/evm (flat, never pruned).
  Accounts: 1,
  Code: 2,
  Storage: 3,
  // Pending pool and its indexes, owned by src/core/mempool.
  Pending: 10,
  PendingBySenderNonce: 11,
  PendingByPrincipal: 12,
  TxStatus: 13,
  /** drop time u64 || tx_id -> empty: the statuses of dropped transactions, oldest first, for their lifetime. */
  DroppedStatusByTime: 14,
  // Chain history, owned by src/core/chain.
  Blocks: 20,
  BlockHashToNumber: 21,
  Txs: 22,
  TxHashToId: 23,
  Receipts: 24,
  BlockLogs: 25,
  // Read API (src/core/query): per-block fee summary (base fee, gas used, tips by gas) for fee history.
  BlockFeeSummary: 30,
  // Reserved for the probe used by host tests (tests/fixtures/probe).
  ProbeTest: 250,
} as const;

export type MemoryId = (typeof MemoryId)[keyof typeof MemoryId];
