// Filters held by the gateway with a fake canister: lifetime and bound, one poll at a time per filter, the
// ranges each poll asks the canister for (every block once, none skipped), resuming inside a block after a
// poll stopped at its limit, block and pending filters, and the pending feed's ring.
import { describe, expect, it } from 'vitest';
import type { LogView } from '../../src/client/schema.js';
import { FilterStore } from '../../src/gateway/filters.js';
import { METHOD_TABLE } from '../../src/gateway/methods/index.js';
import { GATEWAY_MAX_LOGS } from '../../src/gateway/methods/eth_getLogs.js';
import { PendingFeed } from '../../src/gateway/pending.js';
import { RpcError } from '../../src/gateway/errors.js';
import { bytes, FakeClient, fakeContext, hx } from '../support/gateway_fake.js';

const call = (ctx: ReturnType<typeof fakeContext>, method: string, params: unknown[]) => METHOD_TABLE.get(method)!.handler(params, ctx);
const log = (block: bigint, index: number): LogView => ({
  address: bytes(20, 1),
  topics: [bytes(32, 2)],
  data: new Uint8Array([index]),
  block_number: block,
  block_hash: bytes(32, Number(block)),
  transaction_hash: bytes(32, 3),
  transaction_index: 0,
  log_index: index,
});

describe('FilterStore', () => {
  it('drops a filter unused for its lifetime, keeps one that is used, and bounds the live count', async () => {
    let now = 0;
    const s = new FilterStore(1000, 2, () => now);
    const a = s.add({ kind: 'blocks', next: 1n });
    const b = s.add({ kind: 'blocks', next: 1n });
    expect(a).toMatch(/^0x[0-9a-f]{32}$/);
    expect(() => s.add({ kind: 'blocks', next: 1n })).toThrow(/at most 2 live filters/);
    now = 900;
    await s.use(a, async () => 1);
    now = 1500; // b unused for 1500 ms, a for 600 ms
    await expect(s.use(b, async () => 1)).rejects.toMatchObject({ code: -32000, message: 'filter not found' });
    expect(s.size).toBe(1);
    const c = s.add({ kind: 'blocks', next: 1n }); // b's place is free again
    expect(s.remove(c)).toBe(true);
    expect(s.remove(c)).toBe(false);
    now = 1800; // a was used at 900
    await expect(s.use(a, async () => 2)).resolves.toBe(2);
  });

  it('runs the polls of one filter one after another', async () => {
    const s = new FilterStore(60_000, 10);
    const id = s.add({ kind: 'pending', next: 0 });
    const order: string[] = [];
    let release!: () => void;
    const first = s.use(id, async () => {
      order.push('first start');
      await new Promise<void>((r) => (release = r));
      order.push('first end');
    });
    const second = s.use(id, async () => void order.push('second'));
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual(['first start']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first start', 'first end', 'second']);
  });
});

describe('PendingFeed', () => {
  it('hands each reader what was published since its place, within the ring', () => {
    const f = new PendingFeed(3);
    const start = f.next;
    f.publish('a');
    f.publish('b');
    f.publish('a'); // a resubmission is announced once
    const r1 = f.since(start);
    expect(r1.hashes).toEqual(['a', 'b']);
    f.publish('c');
    f.publish('d');
    f.publish('e'); // 'a' and 'b' fall off the ring
    expect(f.since(r1.next)).toEqual({ hashes: ['c', 'd', 'e'], next: 5 });
    // A reader that fell further behind than the ring gets what is left.
    expect(f.since(start)).toEqual({ hashes: ['c', 'd', 'e'], next: 5 });
    const heard: string[] = [];
    const stop = f.listen((h) => heard.push(h));
    f.publish('x');
    stop();
    f.publish('y');
    expect(heard).toEqual(['x']);
  });
});

describe('filter methods', () => {
  it('a log filter asks for each block once, from the block after the head at install', async () => {
    let head = 10n;
    const asked: { from: bigint; to: bigint; cursor: unknown }[] = [];
    const client = new FakeClient({
      rpc_eth_block_number: () => head,
      rpc_eth_get_logs_filtered: ([f, cursor]) => {
        const v = f as { from_block: [{ Number: bigint }]; to_block: [{ Number: bigint }] };
        asked.push({ from: v.from_block[0].Number, to: v.to_block[0].Number, cursor });
        return { Ok: { logs: v.from_block[0].Number === v.to_block[0].Number ? [] : [log(v.to_block[0].Number, 0)], next_cursor: [] } };
      },
    });
    const ctx = fakeContext(client);
    const id = (await call(ctx, 'eth_newFilter', [{ address: hx(20, '01'), topics: [hx(32, '02')] }])) as string;
    // The install checked the criteria with the canister over the head block only.
    expect(asked).toEqual([{ from: 10n, to: 10n, cursor: [] }]);
    expect(await call(ctx, 'eth_getFilterChanges', [id])).toEqual([]);
    head = 13n;
    const got = (await call(ctx, 'eth_getFilterChanges', [id])) as { blockNumber: string }[];
    expect(got.map((l) => l.blockNumber)).toEqual(['0xd']);
    head = 15n;
    await call(ctx, 'eth_getFilterChanges', [id]);
    expect(await call(ctx, 'eth_getFilterChanges', [id])).toEqual([]);
    expect(asked.slice(1)).toEqual([
      { from: 11n, to: 13n, cursor: [] },
      { from: 14n, to: 15n, cursor: [] },
    ]);
    expect(await call(ctx, 'eth_uninstallFilter', [id])).toBe(true);
    await expect(call(ctx, 'eth_getFilterChanges', [id])).rejects.toMatchObject({ code: -32000, message: 'filter not found' });
  });

  it('a poll that reaches its limit resumes at the canister cursor on the next poll', async () => {
    let head = 1n;
    const pages: unknown[] = [];
    const client = new FakeClient({
      rpc_eth_block_number: () => head,
      rpc_eth_get_logs_filtered: ([, cursor, limit]) => {
        pages.push(cursor);
        const n = (limit as [number])[0];
        if (head === 1n) return { Ok: { logs: [], next_cursor: [] } };
        // An endless run of logs in block 2: every page is full and has a cursor.
        const at = (cursor as [{ log_index: number }] | [])[0]?.log_index ?? 0;
        return { Ok: { logs: Array.from({ length: n }, (_, i) => log(2n, at + i)), next_cursor: [{ block_number: 2n, log_index: at + n }] } };
      },
    });
    const ctx = fakeContext(client);
    const id = (await call(ctx, 'eth_newFilter', [{}])) as string;
    head = 5n;
    const first = (await call(ctx, 'eth_getFilterChanges', [id])) as { logIndex: string }[];
    expect(first).toHaveLength(GATEWAY_MAX_LOGS);
    const second = (await call(ctx, 'eth_getFilterChanges', [id])) as { logIndex: string }[];
    expect(second[0]!.logIndex).toBe(`0x${GATEWAY_MAX_LOGS.toString(16)}`);
    expect(pages.at(-1)).toEqual([{ block_number: 2n, log_index: 2 * GATEWAY_MAX_LOGS - 1000 }]);
  });

  it('refuses blockHash, a bad id and full pending transactions; canister refusals keep their codes', async () => {
    const client = new FakeClient({
      rpc_eth_block_number: () => 3n,
      rpc_eth_get_logs_filtered: () => ({ Err: { code: 'arg.invalid.filter', message: 'address: at most 1000 addresses, got 1001', data: [] } }),
    });
    const ctx = fakeContext(client);
    const e = (p: Promise<unknown>) => p.then(() => undefined, (x: RpcError) => x.toJSON());
    expect(await e(call(ctx, 'eth_newFilter', [{ blockHash: hx(32) }]))).toMatchObject({ code: -32602 });
    expect(await e(call(ctx, 'eth_newFilter', [{ address: [hx(20), hx(20, 'cd')] }]))).toMatchObject({ code: -32602, message: 'address: at most 1000 addresses, got 1001' });
    expect(await e(call(ctx, 'eth_getFilterChanges', ['nope']))).toMatchObject({ code: -32602 });
    expect(await e(call(ctx, 'eth_newPendingTransactionFilter', [true]))).toMatchObject({ code: -32602 });
    expect(await e(call(ctx, 'eth_subscribe', ['newHeads']))).toMatchObject({ code: -32601, message: expect.stringMatching(/notifications not supported/) });
  });

  it('block and pending filters report what came since the last poll', async () => {
    let head = 4n;
    const client = new FakeClient({
      rpc_eth_block_number: () => head,
      rpc_eth_get_block_by_number_with_status: ([n]) => ({ Found: { ...blockOf(n as bigint) } }),
    });
    const ctx = fakeContext(client);
    const blocks = (await call(ctx, 'eth_newBlockFilter', [])) as string;
    const pending = (await call(ctx, 'eth_newPendingTransactionFilter', [])) as string;
    head = 7n;
    ctx.pending.publish('0xaa');
    expect(await call(ctx, 'eth_getFilterChanges', [blocks])).toEqual([5, 6, 7].map((n) => hx(32, n.toString(16).padStart(2, '0'))));
    expect(await call(ctx, 'eth_getFilterChanges', [blocks])).toEqual([]);
    expect(await call(ctx, 'eth_getFilterChanges', [pending])).toEqual(['0xaa']);
    expect(await call(ctx, 'eth_getFilterChanges', [pending])).toEqual([]);
    // eth_getFilterLogs is for log filters only.
    await expect(call(ctx, 'eth_getFilterLogs', [blocks])).rejects.toMatchObject({ code: -32000 });
  });
});

function blockOf(n: bigint) {
  return {
    number: n,
    hash: bytes(32, Number(n)),
    parent_hash: bytes(32, Number(n) - 1),
    nonce: bytes(8, 0),
    sha3_uncles: bytes(32, 0),
    logs_bloom: bytes(256, 0),
    transactions_root: bytes(32, 0),
    state_root: bytes(32, 0),
    receipts_root: bytes(32, 0),
    miner: bytes(20, 0),
    difficulty: 0n,
    total_difficulty: 0n,
    extra_data: new Uint8Array(),
    size: 500n,
    gas_limit: 3_000_000n,
    gas_used: 0n,
    timestamp: 1n,
    base_fee_per_gas: 1n,
    mix_hash: bytes(32, 0),
    withdrawals_root: bytes(32, 0),
    blob_gas_used: 0n,
    excess_blob_gas: 0n,
    parent_beacon_block_root: bytes(32, 0),
    requests_hash: bytes(32, 0),
    transactions: { Hashes: [] },
  };
}

describe('eth_getBlockReceipts', () => {
  const receipt = (i: number) => ({
    transaction_hash: bytes(32, i + 1),
    tx_id: bytes(8, i),
    transaction_index: i,
    block_hash: bytes(32, 9),
    block_number: 4n,
    from: bytes(20, 2),
    to: [bytes(20, 3)],
    tx_type: 2,
    status: 1,
    gas_used: 21000n,
    cumulative_gas_used: 21000n * BigInt(i + 1),
    effective_gas_price: 500n,
    contract_address: [],
    logs: [],
    logs_bloom: bytes(256, 0),
    failure_code: [],
  });
  const all = [0, 1, 2, 3, 4].map(receipt);

  it('joins the canister pages, by number, tag or hash, and caches the answer', async () => {
    const firsts: number[] = [];
    const client = new FakeClient({
      rpc_eth_block_number: () => 4n,
      rpc_eth_get_block_receipts_paged: ([ref, first]) => {
        firsts.push(first as number);
        const f = first as number;
        const r = ref as { Number?: bigint; Hash?: Uint8Array };
        if (r.Number !== undefined && r.Number !== 4n) return { NotFound: null };
        const end = Math.min(f + 2, all.length);
        return { Found: { block_number: 4n, block_hash: bytes(32, 9), transaction_count: all.length, receipts: all.slice(f, end), next_index: end < all.length ? [end] : [] } };
      },
    });
    const ctx = fakeContext(client);
    const got = (await call(ctx, 'eth_getBlockReceipts', ['latest'])) as { transactionIndex: string }[];
    expect(got.map((r) => r.transactionIndex)).toEqual(['0x0', '0x1', '0x2', '0x3', '0x4']);
    expect(firsts).toEqual([0, 2, 4]);
    // Cached under the number and the hash.
    expect(await call(ctx, 'eth_getBlockReceipts', ['0x4'])).toEqual(got);
    expect(await call(ctx, 'eth_getBlockReceipts', [hx(32, '09')])).toEqual(got);
    expect(await call(ctx, 'eth_getBlockReceipts', [{ blockHash: hx(32, '09') }])).toEqual(got);
    expect(firsts).toHaveLength(3);
    expect(await call(ctx, 'eth_getBlockReceipts', ['0x5'])).toBeNull();
  });

  it('a block being pruned (fewer receipts than transactions) or pruned is -32001', async () => {
    const short = new FakeClient({
      rpc_eth_get_block_receipts_paged: () => ({ Found: { block_number: 4n, block_hash: bytes(32, 9), transaction_count: 5, receipts: all.slice(0, 2), next_index: [] } }),
    });
    await expect(call(fakeContext(short), 'eth_getBlockReceipts', ['0x4'])).rejects.toMatchObject({ code: -32001 });
    const pruned = new FakeClient({ rpc_eth_get_block_receipts_paged: () => ({ Pruned: { pruned_before_block: 10n } }) });
    await expect(call(fakeContext(pruned), 'eth_getBlockReceipts', ['0x4'])).rejects.toMatchObject({ code: -32001, message: expect.stringMatching(/first available block is 10/) });
  });
});
