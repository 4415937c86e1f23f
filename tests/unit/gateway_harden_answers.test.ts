// Answers without a byte bound, attacked with a fake canister: a log filter poll and the logs subscriptions'
// read over blocks of large logs stop at eth_getLogs's byte budget and resume at the canister's cursor; a batch
// of 20 eth_getLogs of 16 MiB each shares one response budget (items past it get -32005, every id answered);
// an answer that cannot be serialized is answered, not left open; the block cache holds bytes, not entries.
import { request } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LogView } from '../../src/client/schema.js';
import { MAX_LOG_PAGE_BYTES } from '../../src/core/constants.js';
import { approxJsonBytes, Lru } from '../../src/gateway/cache.js';
import { DEFAULT_CONFIG } from '../../src/gateway/config.js';
import { SharedLogRead, type LogListener } from '../../src/gateway/log_feed.js';
import { GATEWAY_MAX_LOG_BYTES } from '../../src/gateway/methods/eth_getLogs.js';
import { METHOD_TABLE } from '../../src/gateway/methods/index.js';
import { startGateway, type Gateway } from '../../src/gateway/server.js';
import { bytes, FakeClient, fakeContext, hx } from '../support/gateway_fake.js';

const KIB64 = new Uint8Array(64 * 1024).fill(0x5a);
const bigLog = (block: bigint, index: number): LogView => ({
  address: bytes(20, 1 + (index % 2)),
  topics: [bytes(32, 2)],
  data: KIB64,
  block_number: block,
  block_hash: bytes(32, 9),
  transaction_hash: bytes(32, 3),
  transaction_index: 0,
  log_index: index,
});

/**
 * A canister whose block 2 holds `count` logs of 64 KiB, paged as the canister pages them (at most
 * MAX_LOG_PAGE_BYTES a page), resuming at the cursor; every other block is empty.
 */
function bigLogsCanister(count: number, head: () => bigint) {
  const perPage = Math.floor(MAX_LOG_PAGE_BYTES / KIB64.length);
  return new FakeClient({
    rpc_eth_block_number: () => head(),
    rpc_eth_get_logs_filtered: ([f, cursor, limit]) => {
      const v = f as { from_block: [{ Number: bigint }]; to_block: [{ Number: bigint }] };
      if (v.from_block[0].Number > 2n || v.to_block[0].Number < 2n) return { Ok: { logs: [], next_cursor: [] } };
      const at = (cursor as [{ log_index: number }] | [])[0]?.log_index ?? 0;
      const n = Math.min(perPage, (limit as [number])[0], count - at);
      const logs = Array.from({ length: n }, (_, i) => bigLog(2n, at + i));
      return { Ok: { logs, next_cursor: at + n < count ? [{ block_number: 2n, log_index: at + n }] : [] } };
    },
  });
}
const rawBytes = (logs: { data: string; topics: string[] }[]): number => logs.reduce((n, l) => n + (l.data.length - 2) / 2 + 32 * l.topics.length, 0);

let gw: Gateway | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await gw?.close();
  gw = undefined;
});

describe('log filters and subscriptions are bounded in bytes', () => {
  it('a filter poll over 26 MiB of logs answers at most the byte budget and the next poll resumes at the cursor', async () => {
    let head = 1n;
    const count = 400; // 400 x 64 KiB = 25 MiB in one block
    const client = bigLogsCanister(count, () => head);
    const ctx = fakeContext(client);
    const call = (m: string, p: unknown[]) => METHOD_TABLE.get(m)!.handler(p, ctx);
    const id = (await call('eth_newFilter', [{}])) as string;
    head = 3n;
    const first = (await call('eth_getFilterChanges', [id])) as { data: string; topics: string[]; logIndex: string }[];
    // Stopped at the byte budget (plus at most the page that passed it), not at the 10,000-log count limit.
    expect(first.length).toBeLessThan(count);
    expect(rawBytes(first)).toBeGreaterThan(GATEWAY_MAX_LOG_BYTES);
    expect(rawBytes(first)).toBeLessThanOrEqual(GATEWAY_MAX_LOG_BYTES + MAX_LOG_PAGE_BYTES);
    const second = (await call('eth_getFilterChanges', [id])) as { logIndex: string }[];
    const third = (await call('eth_getFilterChanges', [id])) as unknown[];
    // Every log exactly once, in order, over the polls.
    expect([...first, ...second].map((l) => Number(l.logIndex))).toEqual(Array.from({ length: count }, (_, i) => i));
    expect(third).toEqual([]);
  });

  it('the logs subscriptions read each block once however many subscribe, within the byte budget, resuming at the cursor', async () => {
    const count = 400;
    const run = async (subscribers: number) => {
      const client = bigLogsCanister(count, () => 3n);
      const read = new SharedLogRead(fakeContext(client));
      const got: number[][] = [];
      for (let i = 0; i < subscribers; i++) {
        const seen: number[] = [];
        got.push(seen);
        // Half want every log, half address 0x01.. (the even logs).
        const criteria = i % 2 === 1 ? { address: [[bytes(20, 1)]] as [Uint8Array[]], topics: [] as [] } : { address: [] as [], topics: [] as [] };
        const l: LogListener = { criteria, from: 1n, last: undefined, deliver: (log) => (seen.push(Number(log.logIndex)), true) };
        read.add(l);
      }
      await read.tick(3n);
      const firstTickPages = client.count('rpc_eth_get_logs_filtered');
      const firstTickLogs = got[0]!.length;
      await read.tick(3n);
      await read.tick(3n);
      return { pages: client.count('rpc_eth_get_logs_filtered'), firstTickPages, firstTickLogs, got };
    };
    const one = await run(1);
    const many = await run(200);
    // One read shared by all: 200 subscriptions cost the canister what one costs.
    expect(many.pages).toBe(one.pages);
    // The first tick stopped at the byte budget; the rest came on the next tick.
    expect(many.firstTickLogs * KIB64.length).toBeGreaterThan(GATEWAY_MAX_LOG_BYTES);
    expect(many.firstTickLogs * KIB64.length).toBeLessThanOrEqual(GATEWAY_MAX_LOG_BYTES + MAX_LOG_PAGE_BYTES);
    const all = Array.from({ length: count }, (_, i) => i);
    expect(one.got[0]).toEqual(all);
    expect(many.got[0]).toEqual(all);
    expect(many.got[1]).toEqual(all.filter((i) => i % 2 === 0));
    expect(many.got.every((g, i) => g.length === (i % 2 === 0 ? count : count / 2))).toBe(true);
  });
});

describe('one byte budget per response', () => {
  it('a batch of 20 eth_getLogs of 16 MiB each: one fits, the others get -32005, every id is answered', async () => {
    const client = bigLogsCanister(250, () => 3n); // 250 x 64 KiB = 15.6 MiB: each item under eth_getLogs's own cap
    gw = await startGateway({ config: { ...DEFAULT_CONFIG, port: 0, host: '127.0.0.1' }, client, log: () => {} });
    const batch = Array.from({ length: 20 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: '0x3' }] }));
    const res = await fetch(gw.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(batch) });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text.length).toBeLessThanOrEqual(DEFAULT_CONFIG.maxResponseBytes + 20 * 400);
    const out = JSON.parse(text) as { id: number; result?: unknown[]; error?: { code: number; message: string } }[];
    expect(out.map((x) => x.id).sort((a, b) => a - b)).toEqual(batch.map((x) => x.id));
    const ok = out.filter((x) => x.result !== undefined);
    const refused = out.filter((x) => x.error !== undefined);
    expect(ok.length).toBe(1);
    expect(ok[0]!.result).toHaveLength(250);
    expect(refused.length).toBe(19);
    for (const r of refused) {
      expect(r.error!.code).toBe(-32005);
      expect(r.error!.message).toContain('response too large');
    }
  });

  it('an answer that cannot be serialized (past V8 string limit) is answered with an error for its id', async () => {
    const client = new FakeClient({ rpc_eth_block_number: () => 5n, rpc_eth_chain_id: () => 1n });
    gw = await startGateway({ config: { ...DEFAULT_CONFIG, port: 0, host: '127.0.0.1' }, client, log: () => {} });
    const real = JSON.stringify;
    // V8 throws RangeError: Invalid string length past its limit; make the answer to id 7 do that.
    vi.spyOn(JSON, 'stringify').mockImplementation(((v: unknown, ...rest: unknown[]) => {
      if (typeof v === 'object' && v !== null && (v as { id?: unknown; result?: unknown }).id === 7 && 'result' in v) throw new RangeError('Invalid string length');
      return real(v, ...(rest as []));
    }) as typeof JSON.stringify);
    const batch = [6, 7, 8].map((id) => ({ jsonrpc: '2.0', id, method: 'eth_blockNumber', params: [] }));
    const res = await fetch(gw.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: real(batch) });
    expect(res.status).toBe(200);
    const out = (await res.json()) as { id: number; result?: string; error?: { code: number } }[];
    expect(out).toEqual([
      { jsonrpc: '2.0', id: 6, result: '0x5' },
      { jsonrpc: '2.0', id: 7, error: expect.objectContaining({ code: -32005 }) },
      { jsonrpc: '2.0', id: 8, result: '0x5' },
    ]);
  });

  it('a failure while sending the answer is answered 500, the connection not left hanging', async () => {
    const client = new FakeClient({ rpc_eth_block_number: () => 5n });
    gw = await startGateway({ config: { ...DEFAULT_CONFIG, port: 0, host: '127.0.0.1' }, client, log: () => {} });
    // Buffer.byteLength throws for a string past the buffer limit; make the first send do that.
    const real = Buffer.byteLength;
    let thrown = 0;
    vi.spyOn(Buffer, 'byteLength').mockImplementation(((s: string, ...rest: unknown[]) => {
      if (typeof s === 'string' && s.startsWith('{"jsonrpc"') && thrown++ === 0) throw new RangeError('Invalid string length');
      return real(s, ...(rest as []));
    }) as typeof Buffer.byteLength);
    const status = await new Promise<number>((resolve, reject) => {
      const r = request(gw!.url, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      r.on('error', reject);
      r.setTimeout(3000, () => reject(new Error('request left unanswered')));
      r.end(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })));
    });
    expect(status).toBe(500);
  });
});

describe('the block and receipt cache is bounded in bytes', () => {
  it('holds at most RPC_GATEWAY_CACHE_BYTES of large blocks, whatever their number', async () => {
    const bigTx = (i: number) => ({ hash: hx(32, (i % 256).toString(16).padStart(2, '0')), input: `0x${'ab'.repeat(64 * 1024)}` });
    const block = (n: number) => ({ number: `0x${n.toString(16)}`, transactions: Array.from({ length: 20 }, (_, i) => bigTx(i)) }); // ~2.6 MB of JSON
    const maxBytes = 16 * 1024 * 1024;
    const cache = new Lru<unknown>(4096, maxBytes, approxJsonBytes);
    for (let n = 0; n < 100; n++) cache.set(`block:${n}`, block(n));
    expect(cache.bytes).toBeLessThanOrEqual(maxBytes);
    expect(cache.size).toBeLessThan(10);
    // The estimate is the JSON size to within a few percent.
    const b = block(1);
    expect(Math.abs(approxJsonBytes(b) - JSON.stringify(b).length) / JSON.stringify(b).length).toBeLessThan(0.05);
    // The newest stay, the oldest went.
    expect(cache.get('block:99')).toBeDefined();
    expect(cache.get('block:0')).toBeUndefined();
    // A value larger than the whole budget is not kept and evicts nothing.
    const small = new Lru<unknown>(10, 1000, approxJsonBytes);
    small.set('a', 'x'.repeat(10));
    small.set('huge', 'x'.repeat(5000));
    expect(small.get('huge')).toBeUndefined();
    expect(small.get('a')).toBe('x'.repeat(10));
  });

  it("the gateway's context bounds its cache by the configured bytes", async () => {
    const client = new FakeClient({});
    gw = await startGateway({ config: { ...DEFAULT_CONFIG, port: 0, host: '127.0.0.1', cacheBytes: 1_000_000 }, client, log: () => {} });
    for (let n = 0; n < 50; n++) gw.context.cache.set(`block:${n}`, { data: 'x'.repeat(100_000) });
    expect(gw.context.cache.bytes).toBeLessThanOrEqual(1_000_000);
    expect(gw.context.cache.size).toBeLessThanOrEqual(10);
  });
});
