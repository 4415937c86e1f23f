import type { CandidResult, FeeHistoryView } from '../candid.js';
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
  canister: ['rpc_eth_fee_history'],
  blockTags: '`latest`, `pending` (= `latest`), `safe`, `finalized`, `earliest`, number (at most the head)',
  limits: '`blockCount` at most 256 (more: -32602); at most 100 percentiles, each in [0, 100], increasing',
  differences:
    '`blockCount` may be a JSON number, QUANTITY or decimal string. `reward` is omitted when no percentiles are asked. No `baseFeePerBlobGas`/`blobGasUsedRatio` (no blobs).',
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
    const r = unwrap(ctx, await ctx.client.query<CandidResult<FeeHistoryView>>('rpc_eth_fee_history', [n, tag, percentiles]));
    const out: Record<string, unknown> = {
      oldestBlock: qty(r.oldest_block),
      baseFeePerGas: r.base_fee_per_gas.map(qty),
      gasUsedRatio: r.gas_used_ratio,
    };
    if (percentiles.length > 0) out.reward = r.reward.map((row) => row.map(qty));
    return out;
  },
};
