// rpc_eth_get_logs_paged through the real canister wasm: paging across a range with more logs than one page
// (checked against the receipts), the maximum page (1000 logs) inside the 5 B query limit, each filter
// form and each error, and the cost of scanning blocks without logs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployCode, word } from '../support/asm.js';
import { Evm, LATEST, errCode, type BlockTag, type CandidResult, type Log } from '../support/canister.js';
import { ETH, GWEI, account, createAddress, feeMarketTx, hex, keccak, plainAddress, transfer } from '../support/eth.js';
import { EMITTER_RUNTIME, EMIT_TOPIC, logFilter, type LogFilterFields, type LogPage } from '../support/read.js';

const ALICE = account(1);
const CAROL = account(2);
const DAVE = account(3);
const BOB = plainAddress(1);
const QUERY_LIMIT = 5_000_000_000n;
const OTHER_TOPIC = keccak(new TextEncoder().encode("Other(uint256)"));

let evm: Evm;
let emitter: Uint8Array;
let emitter2: Uint8Array;
/** Every log of the chain in order, as the receipts report them. */
const expected: Log[] = [];
let firstLogBlock = 0n;
const nonces = new Map<Uint8Array, bigint>();
const next = (a: Uint8Array): bigint => {
  const n = nonces.get(a) ?? 0n;
  nonces.set(a, n + 1n);
  return n;
};

type LogsMethod = 'rpc_eth_get_logs_paged' | 'rpc_eth_get_logs_filtered';

function page(f: LogFilterFields, cursor?: { block_number: bigint; log_index: number }, limit?: number, method: LogsMethod = 'rpc_eth_get_logs_paged'): { value: CandidResult<LogPage>; instructions: bigint } {
  const r = evm.client.queryMeasured(method, [logFilter(f), cursor === undefined ? [] : [cursor], limit === undefined ? [] : [limit]]);
  return { value: r.value, instructions: r.instructions! };
}

/** Reads every page; returns the logs and the page sizes. */
function readAll(f: LogFilterFields, limit?: number, method: LogsMethod = 'rpc_eth_get_logs_paged'): { logs: Log[]; pages: number[]; maxInstructions: bigint } {
  const logs: Log[] = [];
  const pages: number[] = [];
  let cursor: { block_number: bigint; log_index: number } | undefined;
  let maxInstructions = 0n;
  for (let i = 0; i < 1000; i++) {
    const r = page(f, cursor, limit, method);
    if ('Err' in r.value) throw new Error(`${r.value.Err.code}: ${r.value.Err.message}`);
    if (r.instructions > maxInstructions) maxInstructions = r.instructions;
    logs.push(...r.value.Ok.logs);
    pages.push(r.value.Ok.logs.length);
    cursor = r.value.Ok.next_cursor[0];
    if (cursor === undefined) return { logs, pages, maxInstructions };
  }
  throw new Error('too many pages');
}

const key = (l: Log): string => `${l.block_number}:${l.log_index}:${hex(l.transaction_hash)}:${hex(l.address)}:${l.topics.map(hex).join(',')}:${hex(l.data)}:${hex(l.block_hash)}:${l.transaction_index}`;

beforeAll(async () => {
  evm = await Evm.start({ genesis: [ALICE, CAROL, DAVE].map((a) => ({ address: a.address, balance: 1000n * ETH })) });
  const tx = (from: typeof ALICE, f: { to?: Uint8Array; data?: Uint8Array; gasLimit: bigint }) =>
    feeMarketTx(from, { nonce: next(from.address), ...f, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI });
  await evm.submit(tx(ALICE, { data: deployCode(EMITTER_RUNTIME), gasLimit: 200_000n }));
  await evm.submit(tx(CAROL, { data: deployCode(EMITTER_RUNTIME), gasLimit: 200_000n }));
  emitter = createAddress(ALICE.address, 0n);
  emitter2 = createAddress(CAROL.address, 0n);
  await evm.mine();
  // Blocks with logs: 12 txs of 64 logs from ALICE's emitter (3 blocks of 4), a few from CAROL's, and
  // plain transfers (no logs) in between.
  const ids: Uint8Array[] = [];
  firstLogBlock = evm.blockNumber() + 1n;
  for (let b = 0; b < 5; b++) {
    for (let i = 0; i < 4; i++) ids.push(await evm.submit(tx(ALICE, { to: emitter, data: word(64n), gasLimit: 400_000n })));
    if (b % 2 === 0) ids.push(await evm.submit(tx(CAROL, { to: emitter2, data: word(3n), gasLimit: 100_000n })));
    ids.push(await evm.submit(transfer(DAVE, next(DAVE.address), BOB, 1n)));
    await evm.mine();
    // A block without logs between blocks with logs.
    ids.push(await evm.submit(transfer(DAVE, next(DAVE.address), BOB, 1n)));
    await evm.mine();
  }
  for (const id of ids) {
    const r = evm.receipt(id);
    if (r === undefined || r.status !== 1) throw new Error('setup transaction failed');
    expected.push(...r.logs);
  }
  expected.sort((a, b) => (a.block_number !== b.block_number ? Number(a.block_number - b.block_number) : a.log_index - b.log_index));
});
afterAll(() => evm?.close());

describe('rpc_eth_get_logs_paged', () => {
  it('pages through a range with more logs than one page; every log matches the receipts', () => {
    expect(expected.length).toBe(20 * 64 + 3 * 3);
    const all = readAll({ from_block: { Number: 0n }, to_block: LATEST }, 100);
    expect(all.logs.map(key)).toEqual(expected.map(key));
    expect(all.pages.slice(0, -1).every((n) => n === 100)).toBe(true);
    // The default (and maximum) page: 1000 logs, then the rest.
    const big = readAll({ from_block: { Number: 0n } });
    expect(big.pages).toEqual([1000, expected.length - 1000]);
    expect(big.logs.map(key)).toEqual(expected.map(key));
    console.log(`get_logs: a page of 1000 logs (LOG3, 32 bytes of data): at most ${big.maxInstructions} instructions`);
    expect(big.maxInstructions < QUERY_LIMIT).toBe(true);
    // A cursor in the middle of a block resumes exactly there.
    const mid = expected[130]!;
    const rest = page({ from_block: { Number: 0n } }, { block_number: mid.block_number, log_index: mid.log_index }, 5);
    expect('Ok' in rest.value && rest.value.Ok.logs.map(key)).toEqual(expected.slice(130, 135).map(key));
  });

  it('filters by one address, by topics[0] (one value or an OR list), by block hash and by range', () => {
    const fromA = expected.filter((l) => hex(l.address) === hex(emitter));
    const fromC = expected.filter((l) => hex(l.address) === hex(emitter2));
    expect(fromC.length).toBe(9);
    expect(readAll({ from_block: { Earliest: null }, address: [emitter2] }).logs.map(key)).toEqual(fromC.map(key));
    expect(readAll({ from_block: { Earliest: null }, address: [emitter] }).logs.length).toBe(fromA.length);
    expect(readAll({ from_block: { Earliest: null }, topics: [[OTHER_TOPIC, EMIT_TOPIC]] }).logs.length).toBe(expected.length);
    expect(readAll({ from_block: { Earliest: null }, topics: [[OTHER_TOPIC]] }).logs).toEqual([]);
    expect(readAll({ from_block: { Earliest: null }, address: [BOB] }).logs).toEqual([]);
    // Wildcard positions still need a topic there: every log has 3 topics, none has 4.
    expect(readAll({ from_block: { Earliest: null }, topics: [null, null, null] }).logs.length).toBe(expected.length);
    expect(readAll({ from_block: { Earliest: null }, topics: [null, null, null, null] }).logs).toEqual([]);
    // One block by hash; one block by number; default range = the head only.
    const b = evm.block(firstLogBlock)!;
    const inBlock = expected.filter((l) => l.block_number === firstLogBlock);
    expect(readAll({ block_hash: b.hash }).logs.map(key)).toEqual(inBlock.map(key));
    expect(readAll({ from_block: { Number: firstLogBlock }, to_block: { Number: firstLogBlock } }).logs.map(key)).toEqual(inBlock.map(key));
    expect(readAll({}).logs).toEqual([]); // the head block holds a plain transfer
    // toBlock beyond the head is clamped; fromBlock beyond the head gives nothing.
    const head = evm.blockNumber();
    expect(readAll({ from_block: { Number: firstLogBlock }, to_block: { Number: head + 100n } }).logs.length).toBe(expected.length);
    expect(readAll({ from_block: { Number: head + 1n }, to_block: { Number: head + 5n } }).logs).toEqual([]);
  });

  it('gives the documented error for each unsupported or invalid filter and for the limits', () => {
    const code = (f: LogFilterFields, cursor?: { block_number: bigint; log_index: number }, limit?: number) => errCode(page(f, cursor, limit).value);
    expect(code({ address: [emitter, emitter2] })).toBe('UnsupportedFilter');
    expect(code({ topics: [null, [EMIT_TOPIC]] })).toBe('UnsupportedFilter');
    expect(code({ topics: [[EMIT_TOPIC], null, [EMIT_TOPIC]] })).toBe('UnsupportedFilter');
    expect(code({ topics: [Array.from({ length: 17 }, (_, i) => word(BigInt(i)))] })).toBe('UnsupportedFilter');
    expect(code({ topics: [Array.from({ length: 16 }, (_, i) => word(BigInt(i)))] })).toBeUndefined();
    expect(code({ topics: [null, null, null, null, null] })).toBe('arg.invalid.filter');
    expect(code({ topics: [[new Uint8Array(31)]] })).toBe('arg.invalid.filter');
    expect(code({ address: [new Uint8Array(19)] })).toBe('arg.address_length');
    const b = evm.block(firstLogBlock)!;
    expect(code({ block_hash: b.hash, from_block: { Number: 0n } })).toBe('arg.invalid.filter');
    expect(code({ block_hash: b.hash, to_block: LATEST })).toBe('arg.invalid.filter');
    expect(code({ block_hash: keccak(Uint8Array.of(1)) })).toBe('not_found');
    expect(code({ from_block: { Number: 5n }, to_block: { Number: 4n } })).toBe('arg.invalid.filter');
    expect(code({ from_block: { Number: 0n }, to_block: { Number: 10_000n } })).toBe('logs.range_too_large');
    expect(code({ from_block: { Number: 0n }, to_block: { Number: 9_999n } })).toBeUndefined();
    expect(code({ from_block: { Number: 0n } }, undefined, 1001)).toBe('logs.too_many_results');
    expect(code({ from_block: { Number: 0n } }, undefined, 0)).toBe('arg.invalid.filter');
    expect(code({ from_block: { Number: 2n } }, { block_number: 1n, log_index: 0 })).toBe('arg.invalid.filter');
  });

  it('scans blocks without logs cheaply (one missing-key get each)', async () => {
    const from = evm.blockNumber() + 1n;
    for (let i = 0; i < 40; i++) {
      await evm.submit(transfer(DAVE, next(DAVE.address), BOB, 1n));
      await evm.mine();
    }
    const to = evm.blockNumber();
    const one = page({ from_block: { Number: from }, to_block: { Number: from } });
    const many = page({ from_block: { Number: from }, to_block: { Number: to } });
    expect('Ok' in many.value && many.value.Ok.logs).toEqual([]);
    const perBlock = (many.instructions - one.instructions) / (to - from);
    console.log(`get_logs over blocks without logs: ${perBlock} instructions per block (${many.instructions} for ${to - from + 1n} blocks)`);
    // Non-matching logs are matched on the stored bytes: a filter that matches nothing over the busy blocks.
    const busy = page({ from_block: { Number: firstLogBlock }, to_block: { Number: firstLogBlock + 9n }, address: [BOB] });
    console.log(`get_logs over ${expected.length} non-matching logs: ${busy.instructions} instructions`);
    expect(perBlock * 10_000n < 3_000_000_000n).toBe(true);
  });
});

describe('rpc_eth_get_logs_filtered', () => {
  const all = (f: LogFilterFields, limit?: number) => readAll({ from_block: { Earliest: null }, ...f }, limit, 'rpc_eth_get_logs_filtered').logs.map(key);
  const callerTopic = (a: Uint8Array) => {
    const t = new Uint8Array(32);
    t.set(a, 12);
    return t;
  };

  it('matches address lists and OR lists on every position, with geth\'s rule for wildcard positions', () => {
    // Emitter logs: topics [EMIT_TOPIC, i, caller].
    expect(all({ address: [emitter, emitter2] })).toEqual(expected.map(key));
    expect(all({ address: [BOB, emitter2] })).toEqual(expected.filter((l) => hex(l.address) === hex(emitter2)).map(key));
    const at1 = (l: Log) => hex(l.topics[1]!);
    expect(all({ topics: [null, [word(3n), word(64n)]] }, 7)).toEqual(expected.filter((l) => at1(l) === hex(word(3n)) || at1(l) === hex(word(64n))).map(key));
    const carol = expected.filter((l) => hex(l.topics[2]!) === hex(callerTopic(CAROL.address)));
    expect(carol.length).toBe(9);
    expect(all({ topics: [[EMIT_TOPIC], null, [callerTopic(CAROL.address)]] })).toEqual(carol.map(key));
    expect(all({ address: [emitter], topics: [null, null, [callerTopic(CAROL.address)]] })).toEqual([]);
    // Every log has 3 topics: a fourth (trailing wildcard) position matches none of them.
    expect(all({ topics: [[EMIT_TOPIC], null, null] }).length).toBe(expected.length);
    expect(all({ topics: [[EMIT_TOPIC], null, null, null] })).toEqual([]);
  });

  it('skips blocks whose logsBloom rules the filter out: far fewer instructions than reading their logs', () => {
    const range = { from_block: { Number: firstLogBlock }, to_block: { Number: evm.blockNumber() } };
    const scan = page({ ...range, address: [BOB] });
    const skip = page({ ...range, address: [BOB] }, undefined, undefined, 'rpc_eth_get_logs_filtered');
    const rare = page({ ...range, topics: [null, null, [callerTopic(BOB)]] }, undefined, undefined, 'rpc_eth_get_logs_filtered');
    expect('Ok' in skip.value && skip.value.Ok.logs).toEqual([]);
    console.log(`get_logs over ${expected.length} non-matching logs: ${scan.instructions} instructions reading them, ${skip.instructions} (address) / ${rare.instructions} (topics[2]) skipping by bloom`);
    expect(skip.instructions * 2n < scan.instructions).toBe(true);
    expect(rare.instructions * 2n < scan.instructions).toBe(true);
  });

  it('refuses above its limits with arg.invalid.filter; takes 1000 addresses', () => {
    const code = (f: LogFilterFields) => errCode(page(f, undefined, undefined, 'rpc_eth_get_logs_filtered').value);
    const addresses = (n: number) => Array.from({ length: n }, (_, i) => plainAddress(i + 10));
    expect(code({ address: addresses(1000) })).toBeUndefined();
    expect(code({ address: addresses(1001) })).toBe('arg.invalid.filter');
    expect(code({ topics: [null, null, null, null, null] })).toBe('arg.invalid.filter');
    expect(code({ topics: [null, Array.from({ length: 1001 }, (_, i) => word(BigInt(i)))] })).toBe('arg.invalid.filter');
  });
});

describe('rpc_eth_get_block_receipts_paged', () => {
  it('pages blocks of many logs inside the query limit; the pages join into the receipts, in order', async () => {
    const ids: Uint8Array[] = [];
    for (let i = 0; i < 12; i++) {
      ids.push(
        await evm.submit(feeMarketTx(ALICE, { nonce: next(ALICE.address), to: emitter, data: word(64n), gasLimit: 200_000n, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI })),
      );
    }
    // The instruction soft limit may spread them over more than one block.
    for (let i = 0; i < 12 && ids.some((id) => evm.receipt(id) === undefined); i++) await evm.mine();
    const receipts = ids.map((id) => evm.receipt(id)!);
    const blocks = [...new Set(receipts.map((r) => r.block_number))];
    type Page = { receipts: { logs: unknown[] }[]; next_index: [] | [number]; transaction_count: number };
    let max = 0n;
    const report: string[] = [];
    for (const n of blocks) {
      const inBlock = receipts.filter((r) => r.block_number === n).sort((a, b) => a.transaction_index - b.transaction_index);
      const got: unknown[] = [];
      const sizes: number[] = [];
      let first = 0;
      for (;;) {
        const r = evm.client.queryMeasured('rpc_eth_get_block_receipts_paged', [{ Number: n }, first]);
        if (r.instructions! > max) max = r.instructions!;
        if (!('Found' in r.value)) throw new Error(`block ${n}: no receipts page`);
        const page = r.value.Found;
        const logs = page.receipts.reduce((s, x) => s + x.logs.length, 0);
        expect(logs).toBeLessThanOrEqual(700);
        got.push(...page.receipts);
        sizes.push(page.receipts.length);
        expect(page.transaction_count).toBe(inBlock.length);
        const next = page.next_index[0];
        if (next === undefined) break;
        // A page stops only when the next receipt's 64 logs would pass 700.
        expect(logs + 64).toBeGreaterThan(700);
        first = next;
      }
      expect(got).toEqual(inBlock);
      report.push(`block ${n}: ${inBlock.length} receipts in pages of ${sizes.join(', ')}`);
    }
    console.log(`block receipts (64 logs each): ${report.join('; ')}; at most ${max} instructions a page`);
    expect(max < QUERY_LIMIT).toBe(true);
  });
});
