// rpc_eth_get_logs_filtered's matching ('full' rules) over an in-memory store whose blocks carry real
// logsBlooms: address lists, OR lists and wildcards on every topic position, geth's rule on the number of
// positions (trailing wildcards included), the limits, the bloom skip (counted in BlockLogs reads) and paging.
// A naive matcher written from geth's rule is the oracle for seeded random filters.
import { describe, expect, it } from 'vitest';
import { BloomHasher } from '../../src/core/chain/bloom.js';
import { ChainStore, type StoredLog } from '../../src/core/chain/store.js';
import { MAX_LOG_FILTER_ADDRESSES, MAX_LOG_FILTER_TOPIC_ALTERNATIVES, MAX_LOG_TOPICS } from '../../src/core/constants.js';
import { ErrorCode } from '../../src/core/errors.js';
import { MemoryKvMap } from '../../src/core/host.js';
import { getLogsPage, type LogCursor, type LogFilter } from '../../src/core/query/logs.js';
import { rng } from '../support/random.js';

const word = (n: number): Uint8Array => {
  const w = new Uint8Array(32);
  w[31] = n & 0xff;
  w[30] = (n >> 8) & 0xff;
  return w;
};
const addr = (n: number): Uint8Array => new Uint8Array(20).fill(n);


/** Counts BlockLogs reads, to see blocks skipped without reading their logs. */
class CountingMap extends MemoryKvMap {
  gets = 0;
  override get(key: Uint8Array): Uint8Array | undefined {
    this.gets++;
    return super.get(key);
  }
}

interface Flat {
  block: bigint;
  index: number;
  address: Uint8Array;
  topics: Uint8Array[];
}

const HEAD = 60n;

function build(seed: number): { store: ChainStore; logsMap: CountingMap; all: Flat[] } {
  const r = rng(seed);
  const logsMap = new CountingMap();
  const store = new ChainStore({ blocks: new MemoryKvMap(), blockHashToNumber: new MemoryKvMap(), receipts: new MemoryKvMap(), blockLogs: logsMap });
  const all: Flat[] = [];
  const hasher = new BloomHasher();
  for (let n = 0n; n <= HEAD; n++) {
    // Address 9 and topic value 99 only ever appear in block 40: a filter on them reads one block's logs.
    const logs: StoredLog[] = [];
    const count = n === 0n ? 0 : r(5);
    for (let i = 0; i < count; i++) {
      const k = r(5);
      logs.push({ txIndex: i % 2, address: addr(1 + r(4)), topics: Array.from({ length: k }, () => word(r(6))), data: new Uint8Array(r(3) * 16).fill(i) });
    }
    if (n === 40n) logs.push({ txIndex: 1, address: addr(9), topics: [word(1), word(99), word(2)], data: new Uint8Array(0) });
    logs.forEach((l, i) => all.push({ block: n, index: i, address: l.address, topics: [...l.topics] }));
    store.putBlock(
      {
        number: n, hash: word(Number(n) + 1000), parentHash: word(0), timestamp: n, gasLimit: 3_000_000n, gasUsed: 0n, baseFeePerGas: 7n,
        stateRoot: word(0), transactionsRoot: word(0), receiptsRoot: word(0), logsBloom: hasher.logsBloom(logs), coinbase: addr(0), mixHash: word(0), size: 1,
        txs: [0, 1].map((i) => ({ txId: new Uint8Array(8).fill(i), ethHash: word(Number(n) * 10 + i) })),
      },
      logs,
    );
  }
  return { store, logsMap, all };
}

const eq = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** geth's rule, written plainly. */
function oracle(all: Flat[], f: LogFilter, from: bigint, to: bigint): Flat[] {
  const topics = f.topics ?? [];
  return all.filter((l) => {
    if (l.block < from || l.block > to) return false;
    if ((f.addresses?.length ?? 0) > 0 && !f.addresses!.some((a) => eq(a, l.address))) return false;
    if (l.topics.length < topics.length) return false;
    return topics.every((alts, i) => alts === undefined || alts.length === 0 || alts.some((t) => eq(t, l.topics[i]!)));
  });
}

describe('rpc_eth_get_logs_filtered matching', () => {
  const { store, logsMap, all } = build(23);
  const deps = (counter = () => 0n) => ({ store, head: HEAD, firstAvailableBlock: 0n, counter });
  const readAll = (f: LogFilter, limit?: number, counter?: () => bigint) => {
    const out: Flat[] = [];
    let cursor: LogCursor | undefined;
    let pages = 0;
    for (;;) {
      const r = getLogsPage(f, cursor, limit, deps(counter), 'full');
      if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
      pages++;
      for (const l of r.value.logs) out.push({ block: l.blockNumber, index: l.logIndex, address: l.address, topics: [...l.topics] });
      cursor = r.value.nextCursor;
      if (cursor === undefined) return { out, pages };
    }
  };
  const ids = (ls: Flat[]) => ls.map((l) => `${l.block}:${l.index}`);
  const code = (f: LogFilter) => {
    const r = getLogsPage(f, undefined, undefined, deps(), 'full');
    return r.ok ? undefined : `${r.error.code}: ${r.error.message}`;
  };
  const EARLIEST = { kind: 'Earliest' } as const;

  it('address lists, OR lists and wildcards on every position, trailing wildcards, fewer topics than positions', () => {
    const cases: LogFilter[] = [
      { fromBlock: EARLIEST, addresses: [addr(1), addr(3)] },
      { fromBlock: EARLIEST, topics: [undefined, [word(2)]] },
      { fromBlock: EARLIEST, topics: [[word(0), word(5)], undefined, [word(1), word(3)]] },
      { fromBlock: EARLIEST, topics: [undefined, undefined, undefined, [word(4)]] },
      // Trailing wildcards: only logs with at least 3 (then 4) topics.
      { fromBlock: EARLIEST, topics: [[word(1)], undefined, undefined] },
      { fromBlock: EARLIEST, topics: [undefined, undefined, undefined, undefined] },
      { fromBlock: EARLIEST, topics: [[], [word(2)], []] },
      { fromBlock: EARLIEST, addresses: [addr(2)], topics: [undefined, [word(0), word(1), word(2)]] },
    ];
    for (const f of cases) {
      const want = oracle(all, f, 0n, HEAD);
      expect(want.length).toBeGreaterThan(0);
      expect(ids(readAll(f).out)).toEqual(ids(want));
    }
    // Trailing wildcards really narrow: more logs have 1 topic than 3.
    expect(oracle(all, { topics: [[word(1)]] }, 0n, HEAD).length).toBeGreaterThan(oracle(all, { topics: [[word(1)], undefined, undefined] }, 0n, HEAD).length);
    // Topics and addresses of the answers are the stored ones.
    const one = readAll({ blockHash: word(1040), addresses: [addr(9)] }).out;
    expect(one.map((l) => [l.address[0], l.topics.map((t) => t[31])])).toEqual([[9, [1, 99, 2]]]);
  });

  it('agrees with the plain rule on 300 seeded random filters (ranges, blockHash, lists, page sizes)', () => {
    const r = rng(2323);
    const alts = (max: number, make: (i: number) => Uint8Array) => Array.from({ length: 1 + r(max) }, () => make(r(7)));
    for (let i = 0; i < 300; i++) {
      const f: { -readonly [K in keyof LogFilter]: LogFilter[K] } = {};
      let from = 0n;
      let to = HEAD;
      if (r(5) === 0) {
        const b = BigInt(r(Number(HEAD) + 1));
        f.blockHash = word(Number(b) + 1000);
        from = to = b;
      } else {
        from = BigInt(r(Number(HEAD) + 1));
        to = from + BigInt(r(Number(HEAD - from) + 1));
        f.fromBlock = { kind: 'Number', number: from };
        f.toBlock = { kind: 'Number', number: to };
      }
      const a = r(3);
      if (a === 1) f.addresses = [addr(1 + r(5))];
      if (a === 2) f.addresses = alts(3, (x) => addr(1 + (x % 5)));
      const positions = r(5);
      f.topics = Array.from({ length: positions }, () => (r(2) === 0 ? undefined : alts(3, word)));
      const limit = [undefined, 1, 3][r(3)];
      expect(ids(readAll(f, limit).out), JSON.stringify({ i, from: `${from}`, to: `${to}` })).toEqual(ids(oracle(all, f, from, to)));
    }
  });

  it('skips blocks whose bloom rules a match out, without reading their logs', () => {
    const blocksWithLogs = new Set(all.map((l) => l.block)).size;
    logsMap.gets = 0;
    expect(readAll({ fromBlock: EARLIEST, addresses: [addr(9)] }).out).toHaveLength(1);
    // Only block 40 can hold address 9 (a bloom false positive could add a few, never most blocks).
    expect(logsMap.gets).toBeLessThanOrEqual(3);
    logsMap.gets = 0;
    expect(readAll({ fromBlock: EARLIEST, topics: [undefined, [word(99)]] }).out).toHaveLength(1);
    expect(logsMap.gets).toBeLessThanOrEqual(3);
    // A filter without conditions reads every block's logs.
    logsMap.gets = 0;
    readAll({ fromBlock: EARLIEST });
    expect(logsMap.gets).toBe(Number(HEAD) + 1);
    expect(blocksWithLogs).toBeGreaterThan(30);
    // SPEC's method ('spec' rules) reads every block, as before.
    logsMap.gets = 0;
    const r = getLogsPage({ fromBlock: EARLIEST, addresses: [addr(9)] }, undefined, undefined, deps());
    expect(r.ok && r.value.logs.length).toBe(1);
    expect(logsMap.gets).toBe(Number(HEAD) + 1);
  });

  it('pages stop at the instruction soft limit and resume from the cursor with the same answer', () => {
    const f: LogFilter = { fromBlock: EARLIEST, addresses: [addr(1), addr(2)], topics: [undefined, [word(0), word(3)]] };
    let c = 0n;
    const paged = readAll(f, undefined, () => (c += 500_000_000n));
    expect(paged.pages).toBeGreaterThan(3);
    expect(ids(paged.out)).toEqual(ids(oracle(all, f, 0n, HEAD)));
    expect(ids(readAll(f, 2).out)).toEqual(ids(oracle(all, f, 0n, HEAD)));
  });

  it('limits: addresses, positions and alternatives, each named in the error', () => {
    const addresses = (n: number) => Array.from({ length: n }, (_, i) => addr(i % 256));
    const words = (n: number) => Array.from({ length: n }, (_, i) => word(i));
    expect(code({ addresses: addresses(MAX_LOG_FILTER_ADDRESSES) })).toBeUndefined();
    expect(code({ addresses: addresses(MAX_LOG_FILTER_ADDRESSES + 1) })).toBe(`${ErrorCode.ArgInvalidFilter}: address: at most ${MAX_LOG_FILTER_ADDRESSES} addresses, got ${MAX_LOG_FILTER_ADDRESSES + 1}`);
    expect(code({ topics: [undefined, words(MAX_LOG_FILTER_TOPIC_ALTERNATIVES)] })).toBeUndefined();
    expect(code({ topics: [undefined, words(MAX_LOG_FILTER_TOPIC_ALTERNATIVES + 1)] })).toBe(
      `${ErrorCode.ArgInvalidFilter}: topics[1]: at most ${MAX_LOG_FILTER_TOPIC_ALTERNATIVES} alternatives, got ${MAX_LOG_FILTER_TOPIC_ALTERNATIVES + 1}`,
    );
    expect(code({ topics: [undefined, undefined, undefined, undefined, undefined] })).toBe(`${ErrorCode.ArgInvalidFilter}: topics: at most ${MAX_LOG_TOPICS} positions, got 5`);
    expect(code({ addresses: [new Uint8Array(19)] })?.startsWith(ErrorCode.ArgAddressLength)).toBe(true);
    expect(code({ topics: [[new Uint8Array(31)]] })?.startsWith(ErrorCode.ArgInvalidFilter)).toBe(true);
    // A long list still matches exactly (looked up by first word, not tested against the bloom).
    const many = [...addresses(255).filter((a) => a[0] !== 9), addr(9)];
    expect(readAll({ fromBlock: EARLIEST, addresses: many, topics: [undefined, [word(99)]] }).out).toHaveLength(1);
    // SPEC's method keeps refusing what it refused.
    const spec = getLogsPage({ addresses: [addr(1), addr(2)] }, undefined, undefined, deps());
    expect(spec.ok || spec.error.code).toBe(ErrorCode.UnsupportedFilter);
    const specTopics = getLogsPage({ topics: [undefined, [word(1)]] }, undefined, undefined, deps());
    expect(specTopics.ok || specTopics.error.code).toBe(ErrorCode.UnsupportedFilter);
  });
});
