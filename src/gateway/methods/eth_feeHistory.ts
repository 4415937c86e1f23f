import { invalidParams } from '../errors.js';
import { qty } from '../hex.js';
import { blockParam, candidTag, MAX_U64, positional } from '../params.js';
import { numberOfHash, unwrap } from './common.js';
import type { MethodSpec } from './types.js';

export const MAX_FEE_HISTORY_BLOCK_COUNT = 256n;

/** blockCount: a JSON number, a QUANTITY or a decimal string (SPEC); at most 256. */
export function blockCount(v: unknown): bigint {
  let n: bigint | undefined;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) n = BigInt(v);
  else if (typeof v === 'string' && /^0x[0-9a-fA-F]{1,16}$/.test(v)) n = BigInt(v);
  else if (typeof v === 'string' && /^[0-9]{1,20}$/.test(v)) n = BigInt(v);
  if (n === undefined || n > MAX_U64) throw invalidParams('blockCount: expected a number, a hex quantity or a decimal string');
  if (n > MAX_FEE_HISTORY_BLOCK_COUNT) throw invalidParams(`blockCount: at most ${MAX_FEE_HISTORY_BLOCK_COUNT}, got ${n}`);
  return n;
}

export const eth_feeHistory: MethodSpec = {
  name: 'eth_feeHistory',
  canister: ['rpc_eth_max_priority_fee_per_gas', 'rpc_eth_fee_history'],
  blockTags: '`latest`, `pending` (= `latest`), `safe`, `finalized`, `earliest`, number (at most the head)',
  limits: '`blockCount` at most 256 (more: -32602); at most 100 percentiles, each in [0, 100], increasing',
  differences:
    '`blockCount` may be a JSON number, QUANTITY or decimal string. `reward` is omitted when no percentiles are asked; each reward is at least the `eth_maxPriorityFeePerGas` answer (never below the minimum priority fee): Ethereum reports effective tips (0 for an empty block, min(priority, max fee - base fee)), which Hardhat and Foundry/alloy reuse as their tip and submit would refuse. No `baseFeePerBlobGas`/`blobGasUsedRatio` (no blobs).',
  async handler(params, ctx) {
    const [count, newest, pct] = positional(params, 'eth_feeHistory', 2, 3);
    const n = blockCount(count);
    const p = blockParam(newest, 'newestBlock');
    const tag = 'hash' in p ? { Number: await numberOfHash(ctx, p.hash) } : candidTag(p);
    let percentiles: number[] = [];
    if (pct !== undefined && pct !== null) {
      if (!Array.isArray(pct) || !pct.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw invalidParams('rewardPercentiles: expected an array of numbers');
      }
      percentiles = pct as number[];
    }
    // Rewards are never below the priority fee the gateway suggests (eth_maxPriorityFeePerGas, itself never below
    // the minimum priority fee that submit requires, 250 gwei by default; asked only when rewards are). Ethereum's rewards are the
    // effective tips paid: 0 for a block without transactions, and min(priority, max fee - base fee) otherwise,
    // which can be under the minimum (Hardhat's max fee is next base fee x 81/64: a 66 gwei effective tip).
    // Clients price their next transaction from these rows: Hardhat takes the newest block's 50th percentile as
    // its tip, Foundry/alloy (cast send, forge create) the median of the non-zero 20th percentiles or 1 wei when
    // all are 0. Unfloored, both sent tips that submit refuses (cast send on a fresh chain; Hardhat's second
    // transaction).
    const floor = percentiles.length === 0 ? 0n : unwrap(ctx, await ctx.client.query('rpc_eth_max_priority_fee_per_gas', []));
    const r = unwrap(ctx, await ctx.client.query('rpc_eth_fee_history', [n, tag, percentiles]));
    const out: Record<string, unknown> = {
      oldestBlock: qty(r.oldest_block),
      baseFeePerGas: r.base_fee_per_gas.map(qty),
      gasUsedRatio: r.gas_used_ratio,
    };
    if (percentiles.length > 0) out.reward = r.reward.map((row) => row.map((v) => qty(v < floor ? floor : v)));
    return out;
  },
};
