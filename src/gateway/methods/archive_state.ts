// Reads below the head from the archive (src/archive, docs/archive.md), when the gateway has one: a block number
// below the canister's head, `earliest`, or an EIP-1898 {blockNumber}/{blockHash} naming such a block. Every
// other tag (and any number at or above the head) goes to the canister as before. An archive that does not hold
// the block (behind, stopped at a mismatch, or from before its history) answers -32000 state unavailable,
// naming the blocks it holds; other errors map as the canister's do (same revert shape and codes).
import type { CallObject } from '../../core/query/call.js';
import type { Result } from '../../core/errors.js';
import type { ArchiveReader } from '../../archive/reader.js';
import type { CallObjectView, CandidBlockTag, CandidResult } from '../../client/schema.js';
import { fromCanisterError } from '../errors.js';
import { blockParam, positional } from '../params.js';
import { callObject, headNumber, numberOfHash, stateTag, unwrap } from './common.js';
import type { MethodContext } from './types.js';

/** The archived block a state read's block parameter names, or undefined when the canister answers it. */
export async function archiveBlock(ctx: MethodContext, v: unknown, name = 'block'): Promise<bigint | undefined> {
  if (ctx.archive === undefined) return undefined;
  const p = blockParam(v, name);
  let n: bigint;
  if ('tag' in p) {
    if (p.tag !== 'earliest') return undefined;
    n = 0n;
  } else if ('number' in p) n = p.number;
  else n = (await ctx.archive.numberOfHash(p.hash)) ?? (await numberOfHash(ctx, p.hash));
  return n < (await headNumber(ctx)) ? n : undefined;
}

/** The archive's answer, or its error as the canister's would be mapped. */
export function fromArchive<T>(ctx: MethodContext, r: Result<T>): T {
  if (r.ok) return r.value;
  throw fromCanisterError({ code: r.error.code, message: r.error.message, data: r.error.data === undefined ? [] : [r.error.data] }, ctx.log);
}

/**
 * eth_call and eth_estimateGas: `[callObject, block?]` run by the archive below the head, else by the canister
 * at the block's tag; either way the devnet's watcher (ctx.calls) hears of it.
 */
export async function runCallObject<T>(
  ctx: MethodContext,
  name: 'eth_call' | 'eth_estimateGas',
  params: unknown,
  run: {
    archive(archive: ArchiveReader, call: CallObject, block: bigint): Promise<Result<T>>;
    canister(call: CallObjectView, tag: CandidBlockTag): Promise<CandidResult<T>>;
  },
): Promise<T> {
  const [o, b] = positional(params, name, 1, 2);
  const call = callObject(o);
  const n = await archiveBlock(ctx, b);
  try {
    if (n !== undefined) return fromArchive(ctx, await run.archive(ctx.archive!, archiveCallObject(call), n));
    return unwrap(ctx, await run.canister(call, await stateTag(ctx, b)));
  } finally {
    ctx.calls?.called(name, call, n);
  }
}

const opt = <T>(v: [] | [T]): T | undefined => v[0];

/** The gateway's decoded callObject (the canister's Candid record) as the core's CallObject. */
export function archiveCallObject(c: CallObjectView): CallObject {
  return {
    to: opt(c.to),
    from: opt(c.from),
    gas: opt(c.gas),
    gasPrice: opt(c.gas_price),
    value: opt(c.value),
    data: opt(c.data),
    nonce: opt(c.nonce),
    maxFeePerGas: opt(c.max_fee_per_gas),
    maxPriorityFeePerGas: opt(c.max_priority_fee_per_gas),
    chainId: opt(c.chain_id),
    type: opt(c.tx_type),
    accessList: opt(c.access_list)?.map((e) => [e.address, e.storage_keys] as const),
  };
}
