// Pure read-API logic over in-memory stores: log pages (filters, cursor, page limits, the instruction soft
// limit) and fee reads (reward percentiles, fee history, priority-fee estimate, gas price).
import { describe, expect, it } from 'vitest';
import { DEFAULT_MIN_GAS_PRICE, DEFAULT_MIN_PRIORITY_FEE, MAX_LOGS_PER_PAGE } from '../../src/core/constants.js';
import { ErrorCode } from '../../src/core/errors.js';
import { MemoryKvMap } from '../../src/core/host.js';
import { decodeFeeSummary, encodeFeeSummary, groupTips, rewardPercentiles, type FeeSummary } from '../../src/core/chain/fee_summary.js';
import { ChainStore, type StoredLog } from '../../src/core/chain/store.js';
import { feeHistory, gasPrice, maxPriorityFeePerGas } from '../../src/core/query/fees.js';
import { getLogsPage, type LogCursor, type LogFilter } from '../../src/core/query/logs.js';

const GWEI = 1_000_000_000n;
const word = (n: number): Uint8Array => {
  const w = new Uint8Array(32);
  w[31] = n & 0xff;
  w[30] = n >> 8;
  return w;
};
const addr = (n: number): Uint8Array => new Uint8Array(20).fill(n);

function store(): ChainStore {
  return new ChainStore({ blocks: new MemoryKvMap(), blockHashToNumber: new MemoryKvMap(), receipts: new MemoryKvMap(), blockLogs: new MemoryKvMap(), blockFeeSummary: new MemoryKvMap() });
}

function putBlock(s: ChainStore, n: bigint, logs: StoredLog[], txCount = 2, baseFee = 250n * GWEI): void {
  const hash = word(Number(n) + 1000);
  s.putBlock(
    {
      number: n, hash, parentHash: word(0), timestamp: n, gasLimit: 3_000_000n, gasUsed: 42_000n, baseFeePerGas: baseFee,
      stateRoot: word(0), transactionsRoot: word(0), receiptsRoot: word(0), logsBloom: new Uint8Array(256), coinbase: addr(0), mixHash: word(0), size: 1,
      txs: Array.from({ length: txCount }, (_, i) => ({ txId: new Uint8Array(8).fill(i), ethHash: word(Number(n) * 10 + i) })),
    },
    logs,
  );
}

const log = (txIndex: number, address: number, topics: number[], data = 32): StoredLog => ({ txIndex, address: addr(address), topics: topics.map(word), data: new Uint8Array(data).fill(7) });

describe('log pages', () => {
  // Blocks 1..30: block n has n % 3 logs from address 1 with topic 5, plus one from address 2 with topic 6
  // in even blocks; block 0 (genesis) has none.
  const s = store();
  putBlock(s, 0n, []);
  const all: { block: bigint; index: number; address: number; topic: number }[] = [];
  for (let n = 1n; n <= 30n; n++) {
    const logs: StoredLog[] = [];
    for (let i = 0; i < Number(n % 3n); i++) logs.push(log(i % 2, 1, [5, i]));
    if (n % 2n === 0n) logs.push(log(1, 2, [6]));
    logs.forEach((l, i) => all.push({ block: n, index: i, address: l.address[0]!, topic: l.topics[0]![31]! }));
    putBlock(s, n, logs);
  }
  const deps = (counter = () => 0n, firstAvailableBlock = 0n) => ({ store: s, head: 30n, firstAvailableBlock, counter });
  const readAll = (f: LogFilter, limit?: number, counter?: () => bigint) => {
    const out: { block: bigint; index: number; address: number; topic: number }[] = [];
    let cursor: LogCursor | undefined;
    let pages = 0;
    for (;;) {
      const r = getLogsPage(f, cursor, limit, deps(counter));
      if (!r.ok) throw new Error(r.error.code);
      pages++;
      for (const l of r.value.logs) out.push({ block: l.blockNumber, index: l.logIndex, address: l.address[0]!, topic: l.topics[0]![31]! });
      cursor = r.value.nextCursor;
      if (cursor === undefined) return { out, pages };
    }
  };

  it('pages through everything with any page size, with the block and transaction identity of each log', () => {
    for (const limit of [1, 2, 3, 7, 100]) {
      expect(readAll({ fromBlock: { kind: 'Earliest' } }, limit).out).toEqual(all);
    }
    const r = getLogsPage({ fromBlock: { kind: 'Number', number: 2n }, toBlock: { kind: 'Number', number: 2n } }, undefined, undefined, deps());
    expect(r.ok && r.value.logs.map((l) => [l.blockHash[31], l.transactionHash[31], l.transactionIndex, l.logIndex])).toEqual([
      [(1002 & 0xff), 20, 0, 0],
      [(1002 & 0xff), 21, 1, 1],
      [(1002 & 0xff), 21, 1, 2],
    ]);
  });

  it('filters by address, topic0 alternatives, minimum topic count, block hash', () => {
    expect(readAll({ fromBlock: { kind: 'Earliest' }, addresses: [addr(2)] }).out).toEqual(all.filter((l) => l.address === 2));
    expect(readAll({ fromBlock: { kind: 'Earliest' }, topics: [[word(6), word(9)]] }).out).toEqual(all.filter((l) => l.topic === 6));
    expect(readAll({ fromBlock: { kind: 'Earliest' }, topics: [undefined, []] }).out).toEqual(all.filter((l) => l.address === 1));
    expect(readAll({ blockHash: word(1004) }).out).toEqual(all.filter((l) => l.block === 4n));
    expect(readAll({}).out).toEqual(all.filter((l) => l.block === 30n));
  });

  it('stops a page at the instruction soft limit and resumes from the cursor', () => {
    // Each counter read costs 400 M: a page gets through a few blocks, and pages still cover everything.
    let c = 0n;
    const r = readAll({ fromBlock: { kind: 'Earliest' } }, undefined, () => (c += 400_000_000n));
    expect(r.out).toEqual(all);
    expect(r.pages).toBeGreaterThan(3);
    // The projected reply cost counts too: at 3.994 B spent, a second log (3 M each) does not fit.
    const p = getLogsPage({ fromBlock: { kind: 'Number', number: 2n } }, undefined, undefined, deps(() => 3_994_000_000n));
    expect(p.ok && p.value.logs.length).toBe(1);
    expect(p.ok && p.value.nextCursor).toEqual({ blockNumber: 2n, logIndex: 1 });
  });

  it('errors', () => {
    const code = (f: LogFilter, cursor?: LogCursor, limit?: number) => {
      const r = getLogsPage(f, cursor, limit, deps());
      return r.ok ? undefined : r.error.code;
    };
    expect(code({ addresses: [addr(1), addr(2)] })).toBe(ErrorCode.UnsupportedFilter);
    expect(code({ topics: [undefined, [word(1)]] })).toBe(ErrorCode.UnsupportedFilter);
    expect(code({ topics: [Array.from({ length: 17 }, (_, i) => word(i))] })).toBe(ErrorCode.UnsupportedFilter);
    expect(code({ topics: [[new Uint8Array(32)], undefined, undefined, undefined, undefined] })).toBe(ErrorCode.ArgInvalidFilter);
    expect(code({ blockHash: word(1004), fromBlock: { kind: 'Latest' } })).toBe(ErrorCode.ArgInvalidFilter);
    expect(code({ blockHash: word(9999) })).toBe(ErrorCode.NotFound);
    expect(code({ fromBlock: { kind: 'Number', number: 3n }, toBlock: { kind: 'Number', number: 2n } })).toBe(ErrorCode.ArgInvalidFilter);
    expect(code({ fromBlock: { kind: 'Number', number: 0n }, toBlock: { kind: 'Number', number: 10_000n } })).toBe(ErrorCode.LogsRangeTooLarge);
    expect(code({}, undefined, MAX_LOGS_PER_PAGE + 1)).toBe(ErrorCode.LogsTooManyResults);
    expect(code({}, undefined, 0)).toBe(ErrorCode.ArgInvalidFilter);
    expect(code({ fromBlock: { kind: 'Number', number: 5n } }, { blockNumber: 4n, logIndex: 0 })).toBe(ErrorCode.ArgInvalidFilter);
  });

  it('refuses a range that starts in pruned history instead of reading it as empty', () => {
    const from = (n: bigint) => getLogsPage({ fromBlock: { kind: 'Number', number: n } }, undefined, undefined, deps(() => 0n, 10n));
    const below = from(9n);
    expect(below.ok || below.error.code).toBe(ErrorCode.HistoryPruned);
    expect(from(10n).ok).toBe(true);
  });
});

describe('fee summaries and reads', () => {
  it('groups tips and encodes losslessly', () => {
    const g = groupTips([{ tip: 5n, gasUsed: 10n }, { tip: 1n, gasUsed: 3n }, { tip: 5n, gasUsed: 2n }]);
    expect(g).toEqual([{ tip: 1n, gasUsed: 3n }, { tip: 5n, gasUsed: 12n }]);
    const s: FeeSummary = { baseFeePerGas: 250n * GWEI, gasUsed: 15n, gasLimit: 3_000_000n, tips: g };
    expect(decodeFeeSummary(encodeFeeSummary(s))).toEqual(s);
  });

  it('reward percentiles: grouped tips give the same answers as per-transaction (geth) walking', () => {
    const txs = [{ tip: 3n, gasUsed: 21_000n }, { tip: 1n, gasUsed: 50_000n }, { tip: 3n, gasUsed: 30_000n }, { tip: 9n, gasUsed: 21_000n }, { tip: 1n, gasUsed: 21_000n }];
    const gas = txs.reduce((a, t) => a + t.gasUsed, 0n);
    const ps = [0, 10, 25, 50, 51, 75, 90, 99.9, 100];
    const perTx = rewardPercentiles({ baseFeePerGas: 0n, gasUsed: gas, gasLimit: 1n, tips: [...txs].sort((a, b) => Number(a.tip - b.tip)) }, ps);
    expect(rewardPercentiles({ baseFeePerGas: 0n, gasUsed: gas, gasLimit: 1n, tips: groupTips(txs) }, ps)).toEqual(perTx);
    expect(perTx).toEqual([1n, 1n, 1n, 3n, 3n, 3n, 9n, 9n, 9n]);
    expect(rewardPercentiles({ baseFeePerGas: 0n, gasUsed: 0n, gasLimit: 1n, tips: [] }, [50])).toEqual([0n]);
  });

  const s = store();
  putBlock(s, 0n, [], 0);
  const tipsOf: bigint[][] = [[300n, 500n], [260n], [10n, 900n], [400n]];
  tipsOf.forEach((tips, i) => s.putFeeSummary(BigInt(i + 1), { baseFeePerGas: (250n + BigInt(i)) * GWEI, gasUsed: 21_000n * BigInt(tips.length), gasLimit: 3_000_000n, tips: groupTips(tips.map((t) => ({ tip: t * GWEI, gasUsed: 21_000n }))) }));
  const deps = { store: s, head: 4n, nextBaseFee: 260n * GWEI, minGasPrice: DEFAULT_MIN_GAS_PRICE, minPriorityFee: DEFAULT_MIN_PRIORITY_FEE };

  it('priority fee: 60th percentile of each block\'s lowest tip, floored at the minimum; gas price adds the next base fee', () => {
    // lowest tips: 300, 260, 10, 400 gwei -> sorted 10, 260, 300, 400 -> index floor(3 * 0.6) = 1 -> 260 gwei
    expect(maxPriorityFeePerGas(deps)).toBe(260n * GWEI);
    expect(gasPrice(deps)).toBe(520n * GWEI);
    // A fresh chain (genesis only) answers the minimum.
    const fresh = store();
    putBlock(fresh, 0n, [], 0);
    expect(maxPriorityFeePerGas({ ...deps, store: fresh, head: 0n })).toBe(DEFAULT_MIN_PRIORITY_FEE);
    expect(gasPrice({ ...deps, store: fresh, head: 0n, nextBaseFee: 250n * GWEI })).toBe(500n * GWEI);
    // Low observed tips never go below the minimum; min gas price bounds the gas price from below.
    expect(maxPriorityFeePerGas({ ...deps, minPriorityFee: 1000n * GWEI })).toBe(1000n * GWEI);
    expect(gasPrice({ ...deps, minGasPrice: 10_000n * GWEI })).toBe(10_000n * GWEI);
  });

  it('fee history: blockCount + 1 base fees, ratios, rewards; clamping; genesis from its block record', () => {
    const r = feeHistory(deps, 3n, { kind: 'Latest' }, [0, 100]);
    expect(r).toEqual({
      ok: true,
      value: {
        oldestBlock: 2n,
        baseFeePerGas: [251n * GWEI, 252n * GWEI, 253n * GWEI, 260n * GWEI],
        gasUsedRatio: [21_000 / 3_000_000, 42_000 / 3_000_000, 21_000 / 3_000_000],
        reward: [[260n * GWEI, 260n * GWEI], [10n * GWEI, 900n * GWEI], [400n * GWEI, 400n * GWEI]],
      },
    });
    const past = feeHistory(deps, 2n, { kind: 'Number', number: 2n }, []);
    expect(past.ok && past.value).toEqual({ oldestBlock: 1n, baseFeePerGas: [250n * GWEI, 251n * GWEI, 252n * GWEI], gasUsedRatio: [14_000 / 1_000_000, 7_000 / 1_000_000], reward: [] });
    const everything = feeHistory(deps, 100_000n, { kind: 'Pending' }, [50]);
    expect(everything.ok && everything.value.oldestBlock).toBe(0n);
    expect(everything.ok && everything.value.reward[0]).toEqual([0n]); // genesis: rebuilt from the block record
    const code = (c: bigint, ps: number[], n: bigint = 4n) => {
      const x = feeHistory(deps, c, { kind: 'Number', number: n }, ps);
      return x.ok ? undefined : x.error.code;
    };
    expect(code(1n, [50, 50])).toBe(ErrorCode.ArgInvalidFilter);
    expect(code(1n, [-1])).toBe(ErrorCode.ArgInvalidFilter);
    expect(code(1n, [Number.NaN])).toBe(ErrorCode.ArgInvalidFilter);
    expect(code(1n, Array.from({ length: 101 }, (_, i) => i / 2))).toBe(ErrorCode.ArgInvalidFilter);
    expect(code(1n, [], 5n)).toBe(ErrorCode.InvalidBlockRangeOutOfWindow);
  });
});
