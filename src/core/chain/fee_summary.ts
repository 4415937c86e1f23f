// A compact per-block fee summary, written when the block is produced, so eth_feeHistory and the priority-fee
// estimate read one small record per block (a point get) instead of every receipt.
//
// BlockFeeSummary (30)  number u64 -> u8 version(1) || base_fee big || gas_used u64 || gas_limit u64
//                       || u32 n || n * (tip big || gas u64)
//   Entries are the block's transactions grouped by effective tip (effective gas price - base fee), in
//   ascending tip order, with the gas used of every transaction of that tip summed. Grouping equal tips
//   gives exactly Ethereum's reward percentiles (see rewardPercentiles) and keeps a block of 1024
//   transactions at the same price to one entry.

import { ByteReader, ByteWriter } from '../codec/bytes.js';

export interface TipGroup {
  readonly tip: bigint;
  readonly gasUsed: bigint;
}

export interface FeeSummary {
  readonly baseFeePerGas: bigint;
  readonly gasUsed: bigint;
  readonly gasLimit: bigint;
  /** Ascending by tip, distinct tips. */
  readonly tips: readonly TipGroup[];
}

/** Groups (tip, gas used) pairs by tip, ascending. */
export function groupTips(txs: readonly TipGroup[]): TipGroup[] {
  const sorted = [...txs].sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0));
  const out: { tip: bigint; gasUsed: bigint }[] = [];
  for (const t of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && last.tip === t.tip) last.gasUsed += t.gasUsed;
    else out.push({ tip: t.tip, gasUsed: t.gasUsed });
  }
  return out;
}

export function encodeFeeSummary(s: FeeSummary): Uint8Array {
  const w = new ByteWriter(40 + s.tips.length * 16).u8(1).big(s.baseFeePerGas).u64(s.gasUsed).u64(s.gasLimit).u32(s.tips.length);
  for (const t of s.tips) w.big(t.tip).u64(t.gasUsed);
  return w.finish();
}

export function decodeFeeSummary(b: Uint8Array): FeeSummary {
  const r = new ByteReader(b);
  r.u8();
  const baseFeePerGas = r.big();
  const gasUsed = r.u64();
  const gasLimit = r.u64();
  const n = r.u32();
  const tips: TipGroup[] = [];
  for (let i = 0; i < n; i++) tips.push({ tip: r.big(), gasUsed: r.u64() });
  return { baseFeePerGas, gasUsed, gasLimit, tips };
}

/**
 * Ethereum's eth_feeHistory reward for one block (geth's definition): transactions sorted by effective tip,
 * for each percentile p the tip of the first transaction at which the cumulative gas used reaches
 * floor(block gas used * p / 100). A block without transactions rewards 0. `percentiles` ascending.
 */
export function rewardPercentiles(s: FeeSummary, percentiles: readonly number[]): bigint[] {
  if (s.tips.length === 0) return percentiles.map(() => 0n);
  const out: bigint[] = [];
  let i = 0;
  let sum = s.tips[0]!.gasUsed;
  const gasUsed = Number(s.gasUsed);
  for (const p of percentiles) {
    const threshold = BigInt(Math.floor((gasUsed * p) / 100));
    while (sum < threshold && i < s.tips.length - 1) {
      i++;
      sum += s.tips[i]!.gasUsed;
    }
    out.push(s.tips[i]!.tip);
  }
  return out;
}
