// The read API behind the EvmCore facade: eth_call (callObject and raw tx), eth_estimateGas, paged logs and
// fee reads. Every entry point is a query: nothing here writes to a store.

import { requireHeadState, type BlockTag } from '../block_tag.js';
import { QUERY_CALL_INSTRUCTION_BUDGET } from '../constants.js';
import type { ExecTx, ExecutionEngine } from '../engine.js';
import { ErrorCode, err, ok, type Result } from '../errors.js';
import type { CoreHost } from '../host.js';
import type { MetaStore } from '../chain/meta.js';
import type { ChainStore } from '../chain/store.js';
import { callObjectToExecTx, nextBlockEnv, rawTxToExecTx, type CallContext, type CallObject } from './call.js';
import { estimateGas, failureResult } from './estimate.js';
import { feeHistory, gasPrice, maxPriorityFeePerGas, type FeeDeps, type FeeHistory } from './fees.js';
import { getLogsPage, type LogCursor, type LogFilter, type LogFilterRules, type LogPage } from './logs.js';

export type { CallObject } from './call.js';
export type { FeeHistory } from './fees.js';
export type { LogCursor, LogFilter, LogFilterRules, LogPage } from './logs.js';

export interface ReadDeps {
  readonly host: CoreHost;
  readonly engine: ExecutionEngine;
  readonly meta: MetaStore;
  readonly store: ChainStore;
  /** Lowest block whose history is still stored (pruning moves it up). */
  firstAvailableBlock(): bigint;
}

const notInitialized = (): Result<never> => err(ErrorCode.ExecStateUnavailable, 'chain not initialized');

export class ReadApi {
  constructor(private readonly d: ReadDeps) {}

  private ctx(): CallContext {
    return { blockGasLimit: this.d.meta.getConfig().blockGasLimit, nonceOf: (a) => this.d.engine.getNonce(a) };
  }

  /** Head check for calls: only the head state exists (SPEC "Block tags"). */
  private headGuard(tag: BlockTag): Result<void> {
    const head = this.d.meta.getHead();
    if (head === undefined) return notInitialized();
    return requireHeadState(tag, head.number);
  }

  /** Instructions a call may still spend: the query budget counted from the start of the message. */
  private budgetLeft(): bigint {
    const left = QUERY_CALL_INSTRUCTION_BUDGET - this.d.host.instructionCounter();
    return left > 0n ? left : 0n;
  }

  private async run(tx: ExecTx): Promise<Result<Uint8Array>> {
    const head = this.d.meta.getHead()!;
    const env = nextBlockEnv(head, this.d.host.timeNs(), this.d.meta.getConfig(), this.d.meta.getNextBaseFee());
    const out = await this.d.engine.call(tx, env, { instructionBudget: this.budgetLeft() });
    return out.status === 1 ? ok(out.returnData) : failureResult(out);
  }

  async callObject(o: CallObject, tag: BlockTag): Promise<Result<Uint8Array>> {
    const g = this.headGuard(tag);
    if (!g.ok) return g;
    const tx = callObjectToExecTx(o, this.ctx());
    return tx.ok ? this.run(tx.value) : tx;
  }

  async callRawTx(raw: Uint8Array, tag: BlockTag): Promise<Result<Uint8Array>> {
    const g = this.headGuard(tag);
    if (!g.ok) return g;
    const tx = rawTxToExecTx(raw, this.ctx());
    return tx.ok ? this.run(tx.value) : tx;
  }

  async estimateGasObject(o: CallObject, tag: BlockTag): Promise<Result<bigint>> {
    const g = this.headGuard(tag);
    if (!g.ok) return g;
    const built = callObjectToExecTx(o, this.ctx());
    if (!built.ok) return built;
    const tx = built.value;
    const head = this.d.meta.getHead()!;
    const env = nextBlockEnv(head, this.d.host.timeNs(), this.d.meta.getConfig(), this.d.meta.getNextBaseFee());
    const r = await estimateGas({
      run: (gas, instructionBudget, first) => this.d.engine.call({ ...tx, gasLimit: gas }, env, { instructionBudget, checkGasUsedRun: first }),
      counter: () => this.d.host.instructionCounter(),
      deadline: QUERY_CALL_INSTRUCTION_BUDGET,
      cap: tx.gasLimit,
    });
    return r.ok ? ok(r.value.gas) : r;
  }

  getLogsPaged(filter: LogFilter, cursor: LogCursor | undefined, limit: number | undefined, rules: LogFilterRules = 'spec'): Result<LogPage> {
    const head = this.d.meta.getHead();
    if (head === undefined) return notInitialized();
    const deps = { store: this.d.store, head: head.number, firstAvailableBlock: this.d.firstAvailableBlock(), counter: () => this.d.host.instructionCounter() };
    return getLogsPage(filter, cursor, limit, deps, rules);
  }

  private feeDeps(): FeeDeps | undefined {
    const head = this.d.meta.getHead();
    if (head === undefined) return undefined;
    const cfg = this.d.meta.getConfig();
    return { store: this.d.store, head: head.number, nextBaseFee: this.d.meta.getNextBaseFee(), minGasPrice: cfg.minGasPrice, minPriorityFee: cfg.minPriorityFee };
  }

  gasPrice(): Result<bigint> {
    const d = this.feeDeps();
    return d === undefined ? notInitialized() : ok(gasPrice(d));
  }

  maxPriorityFeePerGas(): Result<bigint> {
    const d = this.feeDeps();
    return d === undefined ? notInitialized() : ok(maxPriorityFeePerGas(d));
  }

  feeHistory(blockCount: bigint, newest: BlockTag, percentiles: readonly number[]): Result<FeeHistory> {
    const d = this.feeDeps();
    return d === undefined ? notInitialized() : feeHistory(d, blockCount, newest, percentiles);
  }
}
