// Pure read-API logic: callObject validation and defaults, and the gas-estimation search over a synthetic
// call (exact minimum, few runs, errors, the shared instruction budget).
import { describe, expect, it } from 'vitest';
import { CHAIN_ID } from '../../src/core/constants.js';
import type { IncludedOutcome } from '../../src/core/engine.js';
import { ErrorCode } from '../../src/core/errors.js';
import { callObjectToExecTx, nextBlockEnv, type CallObject } from '../../src/core/query/call.js';
import { estimateGas } from '../../src/core/query/estimate.js';

const A = new Uint8Array(20).fill(0xaa);
const ctx = { blockGasLimit: 3_000_000n, nonceOf: () => 7n };
const code = (o: CallObject) => {
  const r = callObjectToExecTx(o, ctx);
  return r.ok ? undefined : r.error.code;
};

describe('callObject -> transaction', () => {
  it('defaults: zero-address sender, its account nonce, block gas limit, no fees (type 2), empty data', () => {
    const r = callObjectToExecTx({ to: A }, ctx);
    expect(r).toEqual({
      ok: true,
      value: { type: 2, from: new Uint8Array(20), to: A, nonce: 7n, value: 0n, data: new Uint8Array(0), gasLimit: 3_000_000n, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, accessList: [] },
    });
  });

  it('chooses the type from the fee fields and clamps gas to the block gas limit', () => {
    const t = (o: CallObject) => {
      const r = callObjectToExecTx(o, ctx);
      if (!r.ok) throw new Error(r.error.code);
      return r.value;
    };
    expect(t({ gasPrice: 5n })).toMatchObject({ type: 0, maxFeePerGas: 5n, maxPriorityFeePerGas: 5n });
    expect(t({ gasPrice: 5n, accessList: [[A, []]] })).toMatchObject({ type: 1 });
    expect(t({ maxFeePerGas: 9n })).toMatchObject({ type: 2, maxFeePerGas: 9n, maxPriorityFeePerGas: 9n });
    expect(t({ maxPriorityFeePerGas: 4n })).toMatchObject({ type: 2, maxFeePerGas: 4n, maxPriorityFeePerGas: 4n });
    expect(t({ maxFeePerGas: 9n, maxPriorityFeePerGas: 2n, type: 2n })).toMatchObject({ type: 2, maxFeePerGas: 9n, maxPriorityFeePerGas: 2n });
    expect(t({ type: 0n })).toMatchObject({ type: 0 });
    expect(t({ gas: 50_000_000n }).gasLimit).toBe(3_000_000n);
    expect(t({ gas: 30_000n, nonce: 1n, chainId: CHAIN_ID }).gasLimit).toBe(30_000n);
  });

  it('rejects each inconsistent combination with its code', () => {
    expect(code({ gasPrice: 1n, maxFeePerGas: 1n })).toBe(ErrorCode.ArgInvalidFeeParams);
    expect(code({ gasPrice: 1n, maxPriorityFeePerGas: 1n })).toBe(ErrorCode.ArgInvalidFeeParams);
    expect(code({ maxFeePerGas: 1n, maxPriorityFeePerGas: 2n })).toBe(ErrorCode.ArgInvalidFeeParams);
    expect(code({ chainId: 1n })).toBe(ErrorCode.ArgInvalidChainId);
    expect(code({ type: 1n })).toBe(ErrorCode.ArgInvalidTxType);
    expect(code({ type: 4n })).toBe(ErrorCode.ArgInvalidTxType);
    expect(code({ type: 0n, maxFeePerGas: 1n })).toBe(ErrorCode.ArgInvalidTxType);
    expect(code({ type: 0n, accessList: [[A, []]] })).toBe(ErrorCode.ArgInvalidTxType);
    expect(code({ type: 2n, gasPrice: 1n })).toBe(ErrorCode.ArgInvalidTxType);
    expect(code({ to: new Uint8Array(32) })).toBe(ErrorCode.ArgAddressLength);
    expect(code({ from: new Uint8Array(0) })).toBe(ErrorCode.ArgAddressLength);
    expect(code({ gas: 1n << 64n })).toBe(ErrorCode.ArgInvalidCallObject);
    expect(code({ nonce: (1n << 64n) - 1n })).toBe(ErrorCode.ArgInvalidCallObject);
    expect(code({ maxFeePerGas: 1n << 256n })).toBe(ErrorCode.ArgInvalidCallObject);
    expect(code({ accessList: [[new Uint8Array(19), []]] })).toBe(ErrorCode.ArgInvalidCallObject);
    expect(code({ data: new Uint8Array(131073) })).toBe(ErrorCode.ArgInvalidCallObject);
  });

  it('runs in the next block: head + 1, next base fee, time not before head + 1 s', () => {
    const head = { number: 9n, hash: new Uint8Array(32).fill(1), timestamp: 2000n };
    const env = nextBlockEnv(head, 1000n * 1_000_000_000n, { blockGasLimit: 5n, coinbase: A }, 77n);
    expect(env).toMatchObject({ number: 10n, timestamp: 2001n, baseFeePerGas: 77n, gasLimit: 5n, coinbase: A });
    expect(nextBlockEnv(head, 3000n * 1_000_000_000n, { blockGasLimit: 5n, coinbase: A }, 77n).timestamp).toBe(3000n);
  });
});

/** A synthetic call: succeeds iff gas >= need; reports gasUsed = used and refund; each run costs `cost` instructions. */
function synthetic(o: { need: bigint; used: bigint; refund?: bigint; cost?: bigint; revert?: boolean; cap?: bigint; deadline?: bigint; haltAbove?: bigint }) {
  let counter = 0n;
  const gases: bigint[] = [];
  const deps = {
    cap: o.cap ?? 3_000_000n,
    deadline: o.deadline ?? 4_500_000_000n,
    counter: () => counter,
    async run(gas: bigint, budget: bigint): Promise<IncludedOutcome> {
      gases.push(gas);
      const cost = o.cost ?? 1000n;
      const base = { kind: 'included' as const, logs: [], contractAddress: undefined, instructions: cost };
      if (cost > budget || (o.haltAbove !== undefined && gas > o.haltAbove)) {
        counter += budget;
        return { ...base, status: 0, gasUsed: gas, returnData: new Uint8Array(0), failure: { code: ErrorCode.ExecInstructionBudget, message: 'budget' } };
      }
      counter += cost;
      if (o.revert) return { ...base, status: 0, gasUsed: o.used, returnData: Uint8Array.of(1, 2, 3), failure: { code: ErrorCode.ExecReverted, message: 'reverted' } };
      if (gas < o.need) return { ...base, status: 0, gasUsed: gas, returnData: new Uint8Array(0), failure: { code: ErrorCode.ExecHalt, message: 'out of gas' } };
      return { ...base, status: 1, gasUsed: o.used, gasRefund: o.refund ?? 0n, returnData: new Uint8Array(0), failure: undefined };
    },
  };
  return { deps, gases };
}

describe('estimateGas search', () => {
  it('exact gas used: two runs (the cap, then gasUsed; gasUsed - 1 is known to fail)', async () => {
    const s = synthetic({ need: 51_498n, used: 51_498n });
    expect(await estimateGas(s.deps)).toEqual({ ok: true, value: { gas: 51_498n, runs: 2 } });
  });

  it('a refund: the gas consumed before refunds, proven minimal in three runs', async () => {
    const s = synthetic({ need: 51_498n, used: 46_698n, refund: 4_800n });
    expect(await estimateGas(s.deps)).toEqual({ ok: true, value: { gas: 51_498n, runs: 3 } });
    expect(s.gases).toEqual([3_000_000n, 51_498n, 51_497n]);
  });

  it('63/64-style calls needing more than gasUsed + refund: the exact minimum in a bounded number of runs', async () => {
    // [need, gasUsed, most runs]: within the optimistic bound (gasUsed + 2300) * 64 / 63 it is a binary search
    // over about 1.6% of gasUsed (~12 runs for 100 K gas); a need far above gasUsed
    // (an extreme 63/64 chain) costs about two binary searches' worth.
    for (const [need, used, most] of [
      [99_500n, 99_000n, 16],
      [101_000n, 99_000n, 16],
      [150_000n, 60_000n, 24],
      [2_999_999n, 21_000n, 32],
      [3_000_000n, 2_900_000n, 24],
    ] as const) {
      const s = synthetic({ need, used });
      const r = await estimateGas(s.deps);
      expect(r).toMatchObject({ ok: true, value: { gas: need } });
      if (r.ok) expect(r.value.runs).toBeLessThanOrEqual(most);
    }
  });

  it('failing at the cap: the execution error, with revert data for a revert', async () => {
    expect(await estimateGas(synthetic({ need: 0n, used: 30_000n, revert: true }).deps)).toEqual({
      ok: false,
      error: { code: ErrorCode.ExecReverted, message: 'execution reverted', data: Uint8Array.of(1, 2, 3) },
    });
    const oog = await estimateGas(synthetic({ need: 4_000_000n, used: 0n }).deps);
    expect(!oog.ok && oog.error.code).toBe(ErrorCode.ExecHalt);
    const heavy = await estimateGas(synthetic({ need: 1n, used: 1n, haltAbove: 0n }).deps);
    expect(!heavy.ok && heavy.error.code).toBe(ErrorCode.ExecInstructionBudget);
  });

  it('shares one budget: stops with exec.estimate.instruction_budget instead of running past it', async () => {
    // Each run costs 1 B of a 4.5 B budget; a search that needs many runs cannot finish.
    const s = synthetic({ need: 150_000n, used: 60_000n, cost: 1_000_000_000n });
    const r = await estimateGas(s.deps);
    expect(!r.ok && r.error.code).toBe(ErrorCode.ExecEstimateInstructionBudget);
    expect(s.gases.length).toBe(4); // after 4 runs 0.5 B is left, less than 1.25x a run
    expect(s.deps.counter() <= 4_500_000_000n).toBe(true);
    // A run that halts on the budget mid-search gives the same error.
    const t = synthetic({ need: 150_000n, used: 60_000n, haltAbove: 2_000_000n });
    const r2 = await estimateGas({ ...t.deps, cap: 1_500_000n });
    expect(r2).toMatchObject({ ok: true, value: { gas: 150_000n } });
  });
});
