// A compact per-block fee summary, written when the block is produced, so eth_feeHistory and the priority-fee
// estimate read one small record per block (a point get) instead of every receipt.
//
// BlockFeeSummary (30)  number u64 -> u8 version(1) || base_fee big || gas_used u64 || gas_limit u64
//                       || u32 n || n * (tip big || gas u64)
//   Entries are the block's transactions grouped by effective tip (effective gas price - base fee), in
//   ascending tip order, with the gas used of every transaction of that tip summed. Grouping equal tips
//   gives exactly Ethereum's reward percentiles (see rewardPercentiles) and keeps a block of 1024
//   transactions at the same price to one entry.

import { bigintToMinBytes, ByteReader, putBig, putU32 } from '../codec/bytes.js';

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
  // Most blocks pay one tip (every sender at the same fees): one pass, no copy, sort or comparator calls.
  if (txs.length > 0) {
    const tip = txs[0]!.tip;
    let gasUsed = 0n;
    let i = 0;
    for (; i < txs.length && txs[i]!.tip === tip; i++) gasUsed += txs[i]!.gasUsed;
    if (i === txs.length) return [{ tip, gasUsed }];
  }
  const sorted = [...txs].sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0));
  const out: { tip: bigint; gasUsed: bigint }[] = [];
  for (const t of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && last.tip === t.tip) last.gasUsed += t.gasUsed;
    else out.push({ tip: t.tip, gasUsed: t.gasUsed });
  }
  return out;
}

/** Sized first and written into one array: the bytes ByteWriter wrote (tests/unit/chain_fee_summary.test.ts keeps it as the reference). */
export function encodeFeeSummary(s: FeeSummary): Uint8Array {
  const base = bigintToMinBytes(s.baseFeePerGas);
  const n = s.tips.length;
  const tips: Uint8Array[] = new Array(n);
  let size = 22 + base.length;
  for (let i = 0; i < n; i++) size += 9 + (tips[i] = bigintToMinBytes(s.tips[i]!.tip)).length;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out[0] = 1;
  let o = putBig(out, 1, base);
  view.setBigUint64(o, s.gasUsed);
  view.setBigUint64(o + 8, s.gasLimit);
  o = putU32(out, o + 16, n);
  for (let i = 0; i < n; i++) {
    o = putBig(out, o, tips[i]!);
    view.setBigUint64(o, s.tips[i]!.gasUsed);
    o += 8;
  }
  return out;
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
