// Read API query methods (docs/read-api.md): eth_call (callObject and raw tx), eth_estimateGas, paged
// logs, gas price, priority fee and fee history. Thin wrappers over the core facade; no chain logic here.
import type { BlockTag } from '../core/block_tag.js';
import type { Result } from '../core/errors.js';
import {
  blockTagFromCandid,
  callObjectFromCandid,
  candidResult,
  feeHistoryToCandid,
  fromOpt,
  logCursorFromCandid,
  logFilterFromCandid,
  logPageToCandid,
  type CandidBlockTag,
  type CandidCallObject,
  type CandidLogCursor,
  type CandidLogFilter,
  type CandidResult,
  type Opt,
} from './convert.js';
import { evmMethod } from './decorators.js';
import { notReady, runtime } from './runtime.js';

const same = <V>(v: V): V => v;

export class ReadMethods {
  @evmMethod()
  async rpc_eth_call_object(call: CandidCallObject, tag: CandidBlockTag): Promise<CandidResult<Uint8Array>> {
    const core = runtime.core;
    if (core === undefined) return candidResult(notReady<Uint8Array>(), same);
    return candidResult(await core.callObject(callObjectFromCandid(call), blockTagFromCandid(tag)), same);
  }

  @evmMethod()
  async rpc_eth_call_rawtx(raw: Uint8Array, tag: Opt<CandidBlockTag>): Promise<CandidResult<Uint8Array>> {
    const core = runtime.core;
    if (core === undefined) return candidResult(notReady<Uint8Array>(), same);
    const t = fromOpt(tag);
    const blockTag: BlockTag = t === undefined ? { kind: 'Latest' } : blockTagFromCandid(t);
    return candidResult(await core.callRawTx(raw, blockTag), same);
  }

  @evmMethod()
  async rpc_eth_estimate_gas_object(call: CandidCallObject, tag: CandidBlockTag): Promise<CandidResult<bigint>> {
    const core = runtime.core;
    if (core === undefined) return candidResult(notReady<bigint>(), same);
    return candidResult(await core.estimateGasObject(callObjectFromCandid(call), blockTagFromCandid(tag)), same);
  }

  @evmMethod()
  rpc_eth_get_logs_paged(filter: CandidLogFilter, cursor: Opt<CandidLogCursor>, limit: Opt<number>) {
    const core = runtime.core;
    const r = core === undefined ? notReady<never>() : core.getLogsPaged(logFilterFromCandid(filter), logCursorFromCandid(cursor), fromOpt(limit));
    return candidResult(r, logPageToCandid);
  }

  /** The same pages under Ethereum's whole filter: address lists and OR lists on every topic position. */
  @evmMethod()
  rpc_eth_get_logs_filtered(filter: CandidLogFilter, cursor: Opt<CandidLogCursor>, limit: Opt<number>) {
    const core = runtime.core;
    const r = core === undefined ? notReady<never>() : core.getLogsPaged(logFilterFromCandid(filter), logCursorFromCandid(cursor), fromOpt(limit), 'full');
    return candidResult(r, logPageToCandid);
  }

  @evmMethod()
  rpc_eth_gas_price(): CandidResult<bigint> {
    return candidResult(runtime.core?.gasPrice() ?? notReady<bigint>(), same);
  }

  @evmMethod()
  rpc_eth_max_priority_fee_per_gas(): CandidResult<bigint> {
    return candidResult(runtime.core?.maxPriorityFeePerGas() ?? notReady<bigint>(), same);
  }

  @evmMethod()
  rpc_eth_fee_history(blockCount: bigint, newest: CandidBlockTag, percentiles: number[]) {
    const core = runtime.core;
    const r: Result<Parameters<typeof feeHistoryToCandid>[0]> =
      core === undefined ? notReady() : core.feeHistory(blockCount, blockTagFromCandid(newest), percentiles);
    return candidResult(r, feeHistoryToCandid);
  }
}
