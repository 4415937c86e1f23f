// Core values <-> Candid values. The Candid types are defined in idl.ts and their TypeScript shapes in
// values.ts; these functions are the only place that knows both sides. No azle import: the host tests can use them too.

import type { BlockTag } from '../core/block_tag.js';
import type {
  CallObjectView as CandidCallObject,
  CandidBlockRef,
  CandidBlockTag,
  CandidError,
  CandidResult,
  ExportCursorView as CandidExportCursor,
  LogCursorView as CandidLogCursor,
  LogFilterView as CandidLogFilter,
  Opt,
  PrunePolicyView as CandidPrunePolicy,
} from './values.js';

import type { CoreError, Result } from '../core/errors.js';
import type { CallObject, FeeHistory, LogCursor, LogFilter, LogPage } from '../core/index.js';
import type {
  EthBlockView,
  EthLogView,
  EthReceiptView,
  EthTxView,
  PendingStatusView,
  RpcBlockLookupView,
  RpcBlockReceiptsLookupView,
  RpcReceiptLookupView,
} from '../core/index.js';
import type { ExportResult } from '../core/export/export.js';
import { EXPORT_FORMAT_VERSION, type ExportCursor } from '../core/export/format.js';
import type { CoreMetrics, PruneStatusView } from '../core/ops/lifecycle.js';
import type { OpsMode, OpsStatus } from '../core/ops/state.js';
import type { PruneTickResult } from '../core/prune/pruner.js';
import type { PrunePolicy } from '../core/prune/store.js';

export type { CandidBlockRef, CandidBlockTag, CandidCallObject, CandidError, CandidExportCursor, CandidLogCursor, CandidLogFilter, CandidPrunePolicy, CandidResult, Opt };

export const opt = <T>(v: T | undefined): Opt<T> => (v === undefined ? [] : [v]);
export const fromOpt = <T>(v: Opt<T>): T | undefined => (v.length === 0 ? undefined : v[0]);

export const candidError = (e: CoreError): CandidError => ({ code: e.code, message: e.message, data: opt(e.data) });

export function candidResult<T, C>(r: Result<T>, map: (v: T) => C): CandidResult<C> {
  return r.ok ? { Ok: map(r.value) } : { Err: candidError(r.error) };
}

export function blockTagFromCandid(t: CandidBlockTag): BlockTag {
  if ('Number' in t) return { kind: 'Number', number: t.Number };
  if ('Latest' in t) return { kind: 'Latest' };
  if ('Pending' in t) return { kind: 'Pending' };
  if ('Safe' in t) return { kind: 'Safe' };
  if ('Finalized' in t) return { kind: 'Finalized' };
  return { kind: 'Earliest' };
}

export const logToCandid = (l: EthLogView) => ({
  address: l.address,
  topics: [...l.topics],
  data: l.data,
  block_number: l.blockNumber,
  block_hash: l.blockHash,
  transaction_hash: l.transactionHash,
  transaction_index: l.transactionIndex,
  log_index: l.logIndex,
});

export const txToCandid = (t: EthTxView) => ({
  hash: t.hash,
  tx_id: t.txId,
  origin: t.origin === 'IcSynthetic' ? { IcSynthetic: null } : t.origin === 'Impersonated' ? { Impersonated: null } : { EthSigned: null },
  tx_type: t.type,
  chain_id: t.chainId,
  nonce: t.nonce,
  from: t.from,
  to: opt(t.to),
  value: t.value,
  input: t.input,
  gas: t.gas,
  gas_price: t.gasPrice,
  max_fee_per_gas: opt(t.maxFeePerGas),
  max_priority_fee_per_gas: opt(t.maxPriorityFeePerGas),
  access_list: opt(t.accessList?.map(([address, keys]) => ({ address, storage_keys: [...keys] }))),
  v: t.v,
  r: t.r,
  s: t.s,
  y_parity: opt(t.yParity),
  block_hash: opt(t.blockHash),
  block_number: opt(t.blockNumber),
  transaction_index: opt(t.transactionIndex),
});

export const receiptToCandid = (r: EthReceiptView) => ({
  transaction_hash: r.transactionHash,
  tx_id: r.txId,
  transaction_index: r.transactionIndex,
  block_hash: r.blockHash,
  block_number: r.blockNumber,
  from: r.from,
  to: opt(r.to),
  tx_type: r.type,
  status: r.status,
  gas_used: r.gasUsed,
  cumulative_gas_used: r.cumulativeGasUsed,
  effective_gas_price: r.effectiveGasPrice,
  contract_address: opt(r.contractAddress),
  logs: r.logs.map(logToCandid),
  logs_bloom: r.logsBloom,
  failure_code: opt(r.failureCode),
});

export const blockToCandid = (b: EthBlockView) => ({
  number: b.number,
  hash: b.hash,
  parent_hash: b.parentHash,
  nonce: b.nonce,
  sha3_uncles: b.sha3Uncles,
  logs_bloom: b.logsBloom,
  transactions_root: b.transactionsRoot,
  state_root: b.stateRoot,
  receipts_root: b.receiptsRoot,
  miner: b.miner,
  difficulty: b.difficulty,
  total_difficulty: b.totalDifficulty,
  extra_data: b.extraData,
  size: b.size,
  gas_limit: b.gasLimit,
  gas_used: b.gasUsed,
  timestamp: b.timestamp,
  base_fee_per_gas: b.baseFeePerGas,
  mix_hash: b.mixHash,
  withdrawals_root: b.withdrawalsRoot,
  blob_gas_used: b.blobGasUsed,
  excess_blob_gas: b.excessBlobGas,
  parent_beacon_block_root: b.parentBeaconBlockRoot,
  requests_hash: b.requestsHash,
  transactions:
    b.transactions.kind === 'Hashes' ? { Hashes: [...b.transactions.hashes] } : { Full: b.transactions.txs.map(txToCandid) },
});

export function pendingToCandid(p: PendingStatusView) {
  switch (p.kind) {
    case 'Queued':
      return { Queued: null };
    case 'Included':
      return { Included: { block_number: p.blockNumber, tx_index: p.txIndex } };
    case 'Dropped':
      return { Dropped: { code: p.code } };
    case 'Unknown':
      return { Unknown: null };
  }
}

export function receiptLookupToCandid(v: RpcReceiptLookupView) {
  switch (v.kind) {
    case 'NotFound':
      return { NotFound: null };
    case 'Found':
      return { Found: receiptToCandid(v.receipt) };
    case 'PossiblyPruned':
      return { PossiblyPruned: { pruned_before_block: v.prunedBeforeBlock } };
    case 'Pruned':
      return { Pruned: { pruned_before_block: v.prunedBeforeBlock } };
  }
}

export function blockLookupToCandid(v: RpcBlockLookupView) {
  switch (v.kind) {
    case 'NotFound':
      return { NotFound: null };
    case 'Found':
      return { Found: blockToCandid(v.block) };
    case 'Pruned':
      return { Pruned: { pruned_before_block: v.prunedBeforeBlock } };
  }
}

export const blockRefFromCandid = (r: CandidBlockRef): { number: bigint } | { hash: Uint8Array } => ('Number' in r ? { number: r.Number } : { hash: r.Hash });

export function blockReceiptsLookupToCandid(v: RpcBlockReceiptsLookupView) {
  switch (v.kind) {
    case 'NotFound':
      return { NotFound: null };
    case 'Found':
      return {
        Found: {
          block_number: v.page.blockNumber,
          block_hash: v.page.blockHash,
          transaction_count: v.page.transactionCount,
          receipts: v.page.receipts.map(receiptToCandid),
          next_index: opt(v.page.nextIndex),
        },
      };
    case 'Pruned':
      return { Pruned: { pruned_before_block: v.prunedBeforeBlock } };
  }
}

// ---- Read API (docs/read-api.md) ----

export function callObjectFromCandid(c: CandidCallObject): CallObject {
  return {
    to: fromOpt(c.to),
    from: fromOpt(c.from),
    gas: fromOpt(c.gas),
    gasPrice: fromOpt(c.gas_price),
    value: fromOpt(c.value),
    data: fromOpt(c.data),
    nonce: fromOpt(c.nonce),
    maxFeePerGas: fromOpt(c.max_fee_per_gas),
    maxPriorityFeePerGas: fromOpt(c.max_priority_fee_per_gas),
    chainId: fromOpt(c.chain_id),
    type: fromOpt(c.tx_type),
    accessList: fromOpt(c.access_list)?.map((e) => [e.address, e.storage_keys] as const),
  };
}

export function logFilterFromCandid(f: CandidLogFilter): LogFilter {
  const from = fromOpt(f.from_block);
  const to = fromOpt(f.to_block);
  return {
    fromBlock: from === undefined ? undefined : blockTagFromCandid(from),
    toBlock: to === undefined ? undefined : blockTagFromCandid(to),
    blockHash: fromOpt(f.block_hash),
    addresses: fromOpt(f.address),
    topics: fromOpt(f.topics)?.map((t) => fromOpt(t)),
  };
}

export const logCursorFromCandid = (c: Opt<CandidLogCursor>): LogCursor | undefined => {
  const v = fromOpt(c);
  return v === undefined ? undefined : { blockNumber: v.block_number, logIndex: v.log_index };
};

export const logPageToCandid = (p: LogPage) => ({
  logs: p.logs.map(logToCandid),
  next_cursor: opt(p.nextCursor === undefined ? undefined : { block_number: p.nextCursor.blockNumber, log_index: p.nextCursor.logIndex }),
});

export const feeHistoryToCandid = (h: FeeHistory) => ({
  oldest_block: h.oldestBlock,
  base_fee_per_gas: [...h.baseFeePerGas],
  gas_used_ratio: [...h.gasUsedRatio],
  reward: h.reward.map((r) => [...r]),
});

// ---- Lifecycle and admin (docs/lifecycle.md) ----

export const exportCursorFromCandid = (c: CandidExportCursor): ExportCursor => ({ blockNumber: c.block_number, segment: c.segment, byteOffset: c.byte_offset });
const exportCursorToCandid = (c: ExportCursor): CandidExportCursor => ({ block_number: c.blockNumber, segment: c.segment, byte_offset: c.byteOffset });

export function exportResultToCandid(r: ExportResult) {
  if (!r.ok) {
    const e = r.error;
    switch (e.kind) {
      case 'Pruned':
        return { Err: { Pruned: { first_available_block: e.firstAvailableBlock } } };
      case 'InvalidCursor':
        return { Err: { InvalidCursor: e.message } };
      case 'InvalidArgument':
        return { Err: { InvalidArgument: e.message } };
      case 'Unavailable':
        return { Err: { Unavailable: e.message } };
    }
  }
  const v = r.value;
  return {
    Ok: {
      format_version: EXPORT_FORMAT_VERSION,
      chunks: v.chunks.map((c) => ({ block_number: c.blockNumber, segment: c.segment, byte_offset: c.byteOffset, segment_len: c.segmentLength, data: c.data })),
      next_cursor: exportCursorToCandid(v.nextCursor),
      head_block: v.headBlock,
      first_available_block: v.firstAvailableBlock,
    },
  };
}

export const prunePolicyFromCandid = (p: CandidPrunePolicy): PrunePolicy => ({
  keepRecentBlocks: p.keep_recent_blocks,
  maxHistoryBytes: p.max_history_bytes,
  timerIntervalMs: p.timer_interval_ms,
  maxOpsPerTick: p.max_ops_per_tick,
});

export const prunePolicyToCandid = (p: PrunePolicy): CandidPrunePolicy => ({
  keep_recent_blocks: p.keepRecentBlocks,
  max_history_bytes: p.maxHistoryBytes,
  timer_interval_ms: p.timerIntervalMs,
  max_ops_per_tick: p.maxOpsPerTick,
});

export const pruneStatusToCandid = (s: PruneStatusView) => ({
  enabled: s.enabled,
  policy: prunePolicyToCandid(s.policy),
  pruned_before_block: s.prunedBeforeBlock,
  max_pruned_tx_seq: s.maxPrunedTxSeq,
  in_progress_block: opt(s.inProgressBlock),
  pruned_blocks: s.prunedBlocks,
  total_ops: s.totalOps,
  last_tick_ns: s.lastTickNs,
  last_tick_ops: s.lastTickOps,
  history_bytes: s.historyBytes,
});

export const pruneTickToCandid = (r: PruneTickResult) => ({
  ops: r.ops,
  blocks_completed: r.blocksCompleted,
  pruned_before_block: r.prunedBefore,
  done: r.done,
});

export const opsModeToCandid = (m: OpsMode) => ({ [m]: null }) as { Normal: null } | { Migration: null } | { Cycle: null } | { CriticalCorrupt: null };

export const opsStatusToCandid = (s: OpsStatus) => ({
  mode: opsModeToCandid(s.mode),
  reason: opt(s.reason),
  since_ns: s.sinceNs,
  writes_allowed: s.writesAllowed,
});

export function metricsToCandid(m: CoreMetrics, extra: { timeNs: bigint; cyclesBalance: bigint; logLevel: string }) {
  return {
    time_ns: extra.timeNs,
    mode: opsModeToCandid(m.ops.mode),
    block_number: m.blockNumber,
    pending_txs: m.pendingTxs,
    blocks_produced: m.blocksProduced,
    txs_produced: m.txsProduced,
    drops: m.drops.map((d) => ({ code: d.code, count: d.count })),
    last_block_number: m.lastBlockNumber,
    last_block_instructions: m.lastBlockInstructions,
    cycles_balance: extra.cyclesBalance,
    history_bytes: m.historyBytes,
    stable_map_entries: m.mapEntries.map((e) => ({ name: e.name, memory_id: e.memoryId, entries: e.entries })),
    prune: pruneStatusToCandid(m.prune),
    log_level: { [extra.logLevel]: null },
  };
}
