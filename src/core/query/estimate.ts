// eth_estimateGas: the minimum gas limit with which the call succeeds (not its gasUsed), found by binary
// search between the intrinsic gas and the cap, inside one query's instruction budget.
//
// 1. Run at the cap (the callObject's gas, default and at most the block gas limit). A failure there is the
//    answer: the execution error with its revert data (exec.reverted + data), or exec.halt.instruction_budget
//    when the call does not even fit a query's budget.
// 2. When the engine reports the first run the same at a limit of its gasUsed (IncludedOutcome.sameAtGasUsed:
//    no refund, a top-level frame that cannot observe its gas, the stipend check proven; src/core/evm/gas_left.ts),
//    gasUsed is the answer after that one run: step 3 would probe gasUsed, find it succeeds, and stop, since
//    gasUsed - 1 is taken to fail.
// 3. Probe gasUsed + refund (the gas the run consumed before refunds): for most calls the minimum is exactly
//    that, and one more probe one below it proves it (3 runs in all).
// 4. Otherwise binary search, starting near (gasUsed + refund + 2300) * 64 / 63 (63/64 rule for calls, the
//    call stipend) as geth does, so a handful of runs converge. lo = gasUsed - 1 always fails (a limit below
//    the gas a run consumes cannot succeed), hi always succeeds.
// Every run spends from one shared budget: the message's instruction counter may not pass `deadline`. A run
// is not started unless the budget left is at least 1.25x the most expensive run so far; a search that
// cannot finish gives exec.estimate.instruction_budget (a clear error, never a trap).

import type { IncludedOutcome } from '../engine.js';
import { ErrorCode, err, ok, type Result } from '../errors.js';

export interface EstimateDeps {
  /** Runs the call with this gas limit and this many instructions at most; `first`: the run at the cap (CallOptions.checkGasUsedRun). */
  run(gas: bigint, instructionBudget: bigint, first: boolean): Promise<IncludedOutcome>;
  /** Instructions spent so far by this message. */
  counter(): bigint;
  /** Counter value the whole estimate must stay under. */
  readonly deadline: bigint;
  /** The highest gas the search may answer (the cap). */
  readonly cap: bigint;
}

export interface EstimateResult {
  readonly gas: bigint;
  /** Runs of the call, the first at the cap. */
  readonly runs: number;
}

const CALL_STIPEND = 2300n;

export function failureResult(out: IncludedOutcome): Result<never> {
  const f = out.failure ?? { code: ErrorCode.ExecHalt, message: 'execution failed' };
  if (f.code === ErrorCode.ExecReverted) return err(ErrorCode.ExecReverted, 'execution reverted', out.returnData);
  return err(f.code, f.message);
}

export async function estimateGas(d: EstimateDeps): Promise<Result<EstimateResult>> {
  let runs = 0;
  let maxRunCost = 0n;
  const attempt = async (gas: bigint, first: boolean): Promise<IncludedOutcome | Result<never>> => {
    const left = d.deadline - d.counter();
    if (!first && left < maxRunCost + maxRunCost / 4n) {
      return err(ErrorCode.ExecEstimateInstructionBudget, `gas estimation did not finish within one query's instruction budget after ${runs} runs`);
    }
    const before = d.counter();
    const out = await d.run(gas, left > 0n ? left : 0n, first);
    runs++;
    const cost = d.counter() - before;
    if (cost > maxRunCost) maxRunCost = cost;
    if (!first && out.status === 0 && out.failure?.code === ErrorCode.ExecInstructionBudget) {
      return err(ErrorCode.ExecEstimateInstructionBudget, `gas estimation ran out of the query's instruction budget after ${runs} runs`);
    }
    return out;
  };
  const isErr = (x: IncludedOutcome | Result<never>): x is Result<never> => 'ok' in x;

  const top = await attempt(d.cap, true);
  if (isErr(top)) return top;
  if (top.status === 0) return failureResult(top);
  if (top.sameAtGasUsed === true) return ok({ gas: top.gasUsed, runs });

  let lo = top.gasUsed - 1n; // fails
  let hi = d.cap; // succeeds
  const probe = async (gas: bigint): Promise<boolean | Result<never>> => {
    const out = await attempt(gas, false);
    if (isErr(out)) return out;
    return out.status === 1;
  };

  // Fast path: the gas consumed before refunds.
  const consumed = top.gasUsed + (top.gasRefund ?? 0n);
  if (consumed > lo && consumed < hi) {
    const r = await probe(consumed);
    if (typeof r !== 'boolean') return r;
    if (r) {
      hi = consumed;
      if (hi - 1n > lo) {
        const below = await probe(hi - 1n);
        if (typeof below !== 'boolean') return below;
        if (below) hi -= 1n;
        else lo = hi - 1n;
      }
    } else lo = consumed;
  }
  if (lo + 1n < hi) {
    const optimistic = ((consumed + CALL_STIPEND) * 64n) / 63n;
    if (optimistic > lo && optimistic < hi) {
      const r = await probe(optimistic);
      if (typeof r !== 'boolean') return r;
      if (r) hi = optimistic;
      else lo = optimistic;
    }
  }
  while (lo + 1n < hi) {
    let mid = (lo + hi) / 2n;
    // Most calls need little more than lo: search the low end first (geth does the same).
    if (mid > lo * 2n) mid = lo * 2n;
    const r = await probe(mid);
    if (typeof r !== 'boolean') return r;
    if (r) hi = mid;
    else lo = mid;
  }
  return ok({ gas: hi, runs });
}
