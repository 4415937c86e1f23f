// Queues and tables one caller could fill, attacked over real HTTP and WebSocket connections with a fake
// canister: filters are limited per client (a remote address over HTTP, a connection over WebSocket) so one
// client holding its quota leaves the pool to the others; subscriptions have a global cap; the logs
// subscriptions share one read of each block; canister queries pass a bounded queue served round-robin by client,
// a flood answered -32005 while another client's read goes ahead of the flood's queue.
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogView } from '../../src/client/schema.js';
import { addressKey } from '../../src/gateway/client_key.js';
import { logMatches } from '../../src/gateway/log_feed.js';
import { DEFAULT_CONFIG, type GatewayConfig } from '../../src/gateway/config.js';
import { QueryGate } from '../../src/gateway/query_gate.js';
import { startGateway, type Gateway } from '../../src/gateway/server.js';
import { bytes, FakeClient, hx } from '../support/gateway_fake.js';
import { openWs, until } from '../support/ws_client.js';

let gw: Gateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

/** One JSON-RPC call over HTTP from a chosen local address (127.0.0.x are distinct clients). */
function post(url: string, from: string, method: string, params: unknown[] = []): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  return new Promise((resolve, reject) => {
    const r = request(url, { method: 'POST', localAddress: from, agent: false, headers: { 'Content-Type': 'application/json' } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve(JSON.parse(body)));
    });
    r.on('error', reject);
    r.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
  });
}

const log = (block: bigint): LogView => ({
  address: bytes(20, 1), topics: [bytes(32, 2)], data: new Uint8Array([1]), block_number: block, block_hash: bytes(32, 9),
  transaction_hash: bytes(32, 3), transaction_index: 0, log_index: 0,
});
let head = 10n;
const chain = (extra: ConstructorParameters<typeof FakeClient>[0] = {}) =>
  new FakeClient({
    rpc_eth_block_number: () => head,
    rpc_eth_get_logs_filtered: ([f]) => {
      const v = f as { from_block: [{ Number: bigint }]; to_block: [{ Number: bigint }] };
      const logs: LogView[] = [];
      for (let n = v.from_block[0].Number; n <= v.to_block[0].Number && n <= head; n++) logs.push(log(n));
      return { Ok: { logs, next_cursor: [] } };
    },
    ...extra,
  });
async function start(client: FakeClient, config: Partial<GatewayConfig> = {}): Promise<Gateway> {
  head = 10n;
  gw = await startGateway({ config: { ...DEFAULT_CONFIG, port: 0, host: '127.0.0.1', headPollMs: 20, ...config }, client, log: () => {} });
  return gw;
}

describe('filters: a quota per client', () => {
  it('one client holding its quota gets -32005; another address and another connection still install', async () => {
    const g = await start(chain(), { maxFiltersPerClient: 5, maxFilters: 1024 });
    for (let i = 0; i < 5; i++) expect((await post(g.url, '127.0.0.1', 'eth_newBlockFilter')).result).toMatch(/^0x/);
    // The attacker keeps polling its own filters; its sixth is refused...
    const refused = await post(g.url, '127.0.0.1', 'eth_newFilter', [{ address: hx(20, '01') }]);
    expect(refused.error).toMatchObject({ code: -32005 });
    expect(refused.error!.message).toContain('per client');
    // ...while another client is not.
    expect((await post(g.url, '127.0.0.2', 'eth_newBlockFilter')).result).toMatch(/^0x/);
    const c = await openWs(g.url);
    expect((await c.call('eth_newPendingTransactionFilter')).result).toMatch(/^0x/);
    c.ws.close();
    // Uninstalling gives the quota back.
    const mine = (await post(g.url, '127.0.0.3', 'eth_newBlockFilter')).result as string;
    for (let i = 0; i < 4; i++) await post(g.url, '127.0.0.3', 'eth_newBlockFilter');
    expect((await post(g.url, '127.0.0.3', 'eth_newBlockFilter')).error).toMatchObject({ code: -32005 });
    expect((await post(g.url, '127.0.0.3', 'eth_uninstallFilter', [mine])).result).toBe(true);
    expect((await post(g.url, '127.0.0.3', 'eth_newBlockFilter')).result).toMatch(/^0x/);
  });

  it('an IPv6 client is keyed by its /64; IPv4-mapped addresses as IPv4', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:fffe'));
    expect(addressKey('2001:db8:1:3::1')).not.toBe(addressKey('2001:db8:1:2::1'));
    expect(addressKey('::ffff:10.0.0.1')).toBe(addressKey('10.0.0.1'));
    expect(addressKey('fe80::1%eth0')).toBe(addressKey('fe80::2'));
    expect(addressKey('::1')).toBe('http:0:0:0:0::/64');
  });
});

describe('subscriptions: a global cap and one shared read', () => {
  it('refuses subscriptions past RPC_GATEWAY_MAX_TOTAL_SUBSCRIPTIONS across connections, and frees them on unsubscribe and close', async () => {
    const g = await start(chain(), { maxSubscriptions: 3, maxTotalSubscriptions: 4 });
    const a = await openWs(g.url);
    const b = await openWs(g.url);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await a.call('eth_subscribe', ['newHeads'])).result);
    expect((await b.call('eth_subscribe', ['logs', {}])).result).toMatch(/^0x/);
    const over = await b.call('eth_subscribe', ['newPendingTransactions']);
    expect(over.error).toMatchObject({ code: -32005 });
    expect(over.error.message).toContain('at most 4');
    expect((await a.call('eth_unsubscribe', [ids[0]])).result).toBe(true);
    expect((await b.call('eth_subscribe', ['newHeads'])).result).toMatch(/^0x/);
    a.ws.close();
    await until(() => false, 100);
    const c = await openWs(g.url);
    for (let i = 0; i < 2; i++) expect((await c.call('eth_subscribe', ['newHeads'])).result).toMatch(/^0x/);
    b.ws.close();
    c.ws.close();
  });

  it("reads each block's logs once for every logs subscription of every connection", async () => {
    const client = chain();
    const g = await start(client);
    const conns = await Promise.all(Array.from({ length: 4 }, () => openWs(g.url)));
    for (const c of conns) for (let i = 0; i < 8; i++) expect((await c.call('eth_subscribe', ['logs', { address: hx(20, '01') }])).result).toMatch(/^0x/);
    const mark = client.calls.length;
    head = 15n;
    await until(() => conns.every((c) => c.msgs.filter((m) => m.method === 'eth_subscription').length === 8 * 5));
    for (const c of conns) expect(c.msgs.filter((m) => m.method === 'eth_subscription')).toHaveLength(8 * 5);
    const after = client.calls.slice(mark);
    const heads = after.filter((x) => x.method === 'rpc_eth_block_number').length;
    const logReads = after.filter((x) => x.method === 'rpc_eth_get_logs_filtered').length;
    // 32 subscriptions, one read of the new blocks (the follower's read has no criteria: it is shared).
    expect(logReads).toBeGreaterThanOrEqual(1);
    expect(logReads).toBeLessThanOrEqual(heads);
    expect(logReads).toBeLessThan(32);
    for (const c of conns) c.ws.close();
  });
});

describe("the shared read's matching", () => {
  it("matches address and topics as eth_getLogs does", () => {
    const l = { ...log(1n), address: bytes(20, 7), topics: [bytes(32, 1), bytes(32, 2)] };
    const m = (address: Uint8Array[] | undefined, topics: (Uint8Array[] | null)[] | undefined) =>
      logMatches({ address: address === undefined ? [] : [address], topics: topics === undefined ? [] : [topics.map((t) => (t === null ? [] : [t]))] }, l);
    expect(m(undefined, undefined)).toBe(true);
    expect(m([], undefined)).toBe(true);
    expect(m([bytes(20, 6), bytes(20, 7)], undefined)).toBe(true);
    expect(m([bytes(20, 6)], undefined)).toBe(false);
    expect(m(undefined, [[bytes(32, 1)]])).toBe(true);
    expect(m(undefined, [null, [bytes(32, 9), bytes(32, 2)]])).toBe(true);
    expect(m(undefined, [null, [bytes(32, 9)]])).toBe(false);
    expect(m(undefined, [[], [bytes(32, 2)]])).toBe(true);
    // A constrained position the log does not have.
    expect(m(undefined, [null, null, [bytes(32, 3)]])).toBe(false);
    // geth's rule: as many topics as the filter has positions, trailing nulls included (anvil would match).
    expect(m(undefined, [null, null, null])).toBe(false);
    expect(m(undefined, [null, null])).toBe(true);
  });
});

describe('canister queries: a bounded queue, fair between clients', () => {
  it('QueryGate serves waiting clients round-robin and refuses past the queue bounds', async () => {
    const gate = new QueryGate(1, 5, 3);
    const order: string[] = [];
    let release!: () => void;
    const first = gate.run('a', () => new Promise<void>((r) => (release = r)));
    const waits = [
      ...['a1', 'a2', 'a3'].map((n) => gate.run('a', async () => void order.push(n))),
      ...['b1', 'b2'].map((n) => gate.run('b', async () => void order.push(n))),
    ];
    // a has 3 waiting (its share); the queue holds 5 in all.
    await expect(gate.run('a', async () => undefined)).rejects.toMatchObject({ code: -32005 });
    await expect(gate.run('c', async () => undefined)).rejects.toMatchObject({ code: -32005 });
    release();
    await first;
    await Promise.all(waits);
    expect(order).toEqual(['a1', 'b1', 'a2', 'b2', 'a3']);
    expect(gate.running).toBe(0);
    expect(gate.waitingCount).toBe(0);
  });

  it('a flood of slow eth_calls from one address: in flight capped, the excess -32005, another client served ahead of the queue', async () => {
    let inFlight = 0;
    let most = 0;
    const served: string[] = [];
    // The canister holds every call until released: the queue's state is then exact, whatever the machine's speed.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const client = chain({
      rpc_eth_call_object: async ([call]) => {
        inFlight++;
        most = Math.max(most, inFlight);
        const data = (call as { data: [Uint8Array] }).data[0];
        served.push(data[0] === 0xbb ? 'victim' : 'flood');
        await held;
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        return { Ok: new Uint8Array([1]) };
      },
    });
    const g = await start(client, { maxConcurrentQueries: 2, maxQueuedQueries: 256, maxQueuedQueriesPerClient: 30 });
    const gate = g.context.queries!;
    const call = (from: string, byte: string) => post(g.url, from, 'eth_call', [{ to: hx(20, '01'), data: `0x${byte}` }, 'latest']);
    let answered = 0;
    const flood = Array.from({ length: 60 }, () => call('127.0.0.1', 'aa').then((a) => (answered++, a)));
    // 2 running, 30 queued (the client's share), 28 refused at once while the canister still holds the 2.
    await until(() => gate.running === 2 && gate.waitingCount === 30 && answered === 28);
    expect(answered).toBe(28);
    const victim = call('127.0.0.2', 'bb');
    await until(() => gate.waitingCount === 31);
    release();
    const answers = await Promise.all(flood);
    expect((await victim).result).toBe('0x01');
    // At most the gate's slots were ever in flight (without the gate: all 60 at once).
    expect(most).toBe(2);
    const busy = answers.filter((a) => a.error?.code === -32005);
    expect(busy).toHaveLength(28);
    expect(busy[0]!.error!.message).toContain('server busy');
    expect(answers.filter((a) => a.result === '0x01')).toHaveLength(32);
    // The victim's call went ahead of the flood's 30 queued: behind the 2 running and at most one more of the flood.
    expect(served.indexOf('victim')).toBeGreaterThanOrEqual(2);
    expect(served.indexOf('victim')).toBeLessThanOrEqual(3);
  });
});
