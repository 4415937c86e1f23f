// Fee reads: eth_maxPriorityFeePerGas, eth_gasPrice, eth_feeHistory, from the per-block fee summaries
// (src/core/chain/fee_summary.ts; one point get per block).
//
// Priority fee estimate: the PRIORITY_FEE_PERCENTILE-th percentile (60th) of the lowest effective tip of each
// of the last PRIORITY_FEE_LOOKBACK_BLOCKS (20) blocks that have transactions (the cheapest tip that still
// made it into each block, as geth's oracle samples the cheapest transactions), never below the configured
// minimum priority fee (submit rejects less). "Enough data" is nothing at all: with no transaction observed
// yet (a fresh chain) the answer is the minimum priority fee itself, so wallets never fall back to their own
// defaults (ethers 1 gwei, web3.js 2.5 gwei), which submit would reject. The only error is a chain that is
// not initialised (exec.state.unavailable).
//
// Gas price: max(next base fee + max(priority estimate, min priority fee), min gas price): a legacy gas price
// that submit accepts and the next block includes, not the raw base fee.
//
// Fee history (Ethereum's definition): blockCount clamped to MAX_FEE_HISTORY_BLOCKS (256) and to the blocks
// that exist; newestBlock a tag (pending = latest = head; a block above the head is
// invalid.block_range.out_of_window); baseFeePerGas has blockCount + 1 entries, the last being the base fee
// of the block after newest (for the head: the next block's, as block production will use it);
// gasUsedRatio = gas used / gas limit; reward[i][j] = rewardPercentiles of block i at percentile j.
// Percentiles: at most 100, each in [0, 100], strictly increasing (as geth).

import { type BlockTag } from '../block_tag.js';
import {
  MAX_FEE_HISTORY_BLOCKS,
  MAX_FEE_HISTORY_PERCENTILES,
  PRIORITY_FEE_LOOKBACK_BLOCKS,
  PRIORITY_FEE_PERCENTILE,
} from '../constants.js';
import { ErrorCode, err, ok, type Result } from '../errors.js';
import { rewardPercentiles, type FeeSummary } from '../chain/fee_summary.js';
import type { ChainStore } from '../chain/store.js';

export interface FeeDeps {
  readonly store: ChainStore;
  readonly head: bigint;
  readonly nextBaseFee: bigint;
  readonly minGasPrice: bigint;
  readonly minPriorityFee: bigint;
}

export interface FeeHistory {
  readonly oldestBlock: bigint;
  /** blockCount + 1 entries (empty when blockCount is 0). */
  readonly baseFeePerGas: readonly bigint[];
  readonly gasUsedRatio: readonly number[];
  /** One row per block, one column per requested percentile; empty when no percentiles were asked. */
  readonly reward: readonly (readonly bigint[])[];
}

/**
 * The block's summary: the stored one, or one rebuilt from the block record and its receipts (blocks
 * produced before summaries were stored; point reads).
 */
export function feeSummary(store: ChainStore, n: bigint): FeeSummary | undefined {
  const s = store.getFeeSummary(n);
  if (s !== undefined) return s;
  const b = store.getBlock(n);
  if (b === undefined) return undefined;
  const txs: { tip: bigint; gasUsed: bigint }[] = [];
  for (const t of b.txs) {
    const r = store.getReceipt(t.txId);
    if (r !== undefined) txs.push({ tip: r.effectiveGasPrice - b.baseFeePerGas, gasUsed: r.gasUsed });
  }
  txs.sort((x, y) => (x.tip < y.tip ? -1 : x.tip > y.tip ? 1 : 0));
  return { baseFeePerGas: b.baseFeePerGas, gasUsed: b.gasUsed, gasLimit: b.gasLimit, tips: txs };
}

/** Percentile (nearest rank over the sorted samples) of a non-empty list. */
function percentileOf(samples: bigint[], p: number): bigint {
  const s = [...samples].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const i = Math.min(s.length - 1, Math.floor(((s.length - 1) * p) / 100));
  return s[i]!;
}

export function maxPriorityFeePerGas(d: FeeDeps): bigint {
  const samples: bigint[] = [];
  for (let n = d.head, seen = 0n; n >= 0n && seen < PRIORITY_FEE_LOOKBACK_BLOCKS; n--) {
    const s = feeSummary(d.store, n);
    if (s === undefined) break; // pruned history: use what is there
    if (s.tips.length === 0) continue;
    samples.push(s.tips[0]!.tip);
    seen++;
  }
  const estimate = samples.length === 0 ? d.minPriorityFee : percentileOf(samples, PRIORITY_FEE_PERCENTILE);
  return estimate > d.minPriorityFee ? estimate : d.minPriorityFee;
}

export function gasPrice(d: FeeDeps): bigint {
  const price = d.nextBaseFee + maxPriorityFeePerGas(d);
  return price > d.minGasPrice ? price : d.minGasPrice;
}

export function feeHistory(d: FeeDeps, blockCount: bigint, newest: BlockTag, percentiles: readonly number[]): Result<FeeHistory> {
  if (blockCount < 0n) return err(ErrorCode.ArgInvalidFilter, 'blockCount must not be negative');
  if (percentiles.length > MAX_FEE_HISTORY_PERCENTILES) {
    return err(ErrorCode.ArgInvalidFilter, `at most ${MAX_FEE_HISTORY_PERCENTILES} reward percentiles`);
  }
  for (const [i, p] of percentiles.entries()) {
    if (!Number.isFinite(p) || p < 0 || p > 100) return err(ErrorCode.ArgInvalidFilter, `reward percentile ${p} is not in [0, 100]`);
    if (i > 0 && p <= percentiles[i - 1]!) return err(ErrorCode.ArgInvalidFilter, 'reward percentiles must be strictly increasing');
  }
  let last: bigint;
  switch (newest.kind) {
    case 'Earliest':
      last = 0n;
      break;
    case 'Number':
      if (newest.number > d.head) {
        return err(ErrorCode.InvalidBlockRangeOutOfWindow, `newestBlock ${newest.number} is above the head (${d.head})`);
      }
      last = newest.number;
      break;
    default:
      last = d.head;
  }
  if (blockCount === 0n) return ok({ oldestBlock: 0n, baseFeePerGas: [], gasUsedRatio: [], reward: [] });
  let count = blockCount > MAX_FEE_HISTORY_BLOCKS ? MAX_FEE_HISTORY_BLOCKS : blockCount;
  if (count > last + 1n) count = last + 1n;

  const summaries: FeeSummary[] = [];
  for (let n = last; summaries.length < Number(count); n--) {
    const s = feeSummary(d.store, n);
    if (s === undefined) break; // pruned below here: the history starts at the oldest block still stored
    summaries.push(s);
  }
  if (summaries.length === 0) return err(ErrorCode.ExecStateUnavailable, `block ${last} is not available`);
  summaries.reverse();
  const oldestBlock = last - BigInt(summaries.length) + 1n;
  const next = last === d.head ? d.nextBaseFee : (feeSummary(d.store, last + 1n)?.baseFeePerGas ?? d.nextBaseFee);
  return ok({
    oldestBlock,
    baseFeePerGas: [...summaries.map((s) => s.baseFeePerGas), next],
    gasUsedRatio: summaries.map((s) => (s.gasLimit === 0n ? 0 : Number(s.gasUsed) / Number(s.gasLimit))),
    reward: percentiles.length === 0 ? [] : summaries.map((s) => rewardPercentiles(s, percentiles)),
  });
}
