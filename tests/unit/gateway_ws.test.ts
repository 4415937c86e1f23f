// The WebSocket endpoint with a fake canister: methods over ws://, newHeads and logs subscriptions following a
// moving head (every block and log once, in order, the answer before the first notification), the bounds
// (connections, subscriptions per connection), the Origin check, and a slow consumer being disconnected.
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DEFAULT_CONFIG, type GatewayConfig } from '../../src/gateway/config.js';
import { startGateway, type Gateway } from '../../src/gateway/server.js';
import type { LogView } from '../../src/client/schema.js';
import { bytes, FakeClient } from '../support/gateway_fake.js';
import { openWs, until } from '../support/ws_client.js';

let head = 0n;
const log = (block: bigint, index: number, size = 1): LogView => ({
  address: bytes(20, 1),
  topics: [bytes(32, 2)],
  data: new Uint8Array(size).fill(index & 0xff),
  block_number: block,
  block_hash: bytes(32, Number(block & 0xffn)),
  transaction_hash: bytes(32, 3),
  transaction_index: 0,
  log_index: index,
});
function blockOf(n: bigint) {
  const b = (x: number, len: number) => bytes(len, x);
  return {
    number: n, hash: b(Number(n & 0xffn), 32), parent_hash: b(0, 32), nonce: b(0, 8), sha3_uncles: b(0, 32), logs_bloom: b(0, 256),
    transactions_root: b(0, 32), state_root: b(0, 32), receipts_root: b(0, 32), miner: b(0, 20), difficulty: 0n, total_difficulty: 0n,
    extra_data: new Uint8Array(), size: 1n, gas_limit: 1n, gas_used: 0n, timestamp: n, base_fee_per_gas: 1n, mix_hash: b(0, 32),
    withdrawals_root: b(0, 32), blob_gas_used: 0n, excess_blob_gas: 0n, parent_beacon_block_root: b(0, 32), requests_hash: b(0, 32),
    transactions: { Hashes: [] },
  };
}
let logSize = 1;
const client = () =>
  new FakeClient({
    rpc_eth_chain_id: () => 4801360n,
    rpc_eth_block_number: () => head,
    rpc_eth_get_block_by_number_with_status: ([n]) => ((n as bigint) <= head ? { Found: blockOf(n as bigint) } : { NotFound: null }),
    // One log per block in the range.
    rpc_eth_get_logs_filtered: ([f]) => {
      const v = f as { from_block: [{ Number: bigint }]; to_block: [{ Number: bigint }] };
      const logs: LogView[] = [];
      for (let n = v.from_block[0].Number; n <= v.to_block[0].Number && n <= head; n++) logs.push(log(n, Number(n), logSize));
      return { Ok: { logs, next_cursor: [] } };
    },
  });

let gw: Gateway | undefined;
const logged: string[] = [];
afterEach(async () => {
  await gw?.close();
  gw = undefined;
  logSize = 1;
});
async function start(config: Partial<GatewayConfig> = {}): Promise<string> {
  head = 10n;
  gw = await startGateway({ config: { ...DEFAULT_CONFIG, port: 0, headPollMs: 20, ...config }, client: client(), log: (m) => logged.push(m) });
  return gw.url.replace('http', 'ws');
}

describe('WebSocket endpoint', () => {
  it('answers methods and follows the head: every header and log once, in order, after the subscription id', async () => {
    const c = await openWs(await start());
    expect(await c.call('eth_chainId')).toEqual({ jsonrpc: '2.0', id: 1, result: '0x494350' });
    const heads = (await c.call('eth_subscribe', ['newHeads'])).result as string;
    const logs = (await c.call('eth_subscribe', ['logs', { address: `0x${'01'.repeat(20)}` }])).result as string;
    expect(heads).not.toBe(logs);
    // Nothing before the head moves; then three blocks at once, then one more.
    await new Promise((r) => setTimeout(r, 100));
    expect(c.msgs.filter((m) => m.method === 'eth_subscription')).toEqual([]);
    head = 13n;
    await new Promise((r) => setTimeout(r, 100));
    head = 14n;
    const notes = (id: string) => c.msgs.filter((m) => m.method === 'eth_subscription' && m.params.subscription === id).map((m) => m.params.result);
    await until(() => notes(heads).length >= 4 && notes(logs).length >= 4);
    await new Promise((r) => setTimeout(r, 100));
    expect(notes(heads).map((h) => h.number)).toEqual(['0xb', '0xc', '0xd', '0xe']);
    expect(notes(heads)[0]).not.toHaveProperty('transactions');
    expect(notes(heads)[0]).toHaveProperty('parentHash');
    expect(notes(logs).map((l) => l.blockNumber)).toEqual(['0xb', '0xc', '0xd', '0xe']);
    expect(await c.call('eth_unsubscribe', [heads])).toMatchObject({ result: true });
    expect(await c.call('eth_unsubscribe', [heads])).toMatchObject({ result: false });
    head = 15n;
    await until(() => notes(logs).length >= 5);
    expect(notes(heads)).toHaveLength(4);
    c.ws.close();
  });

  it('bounds subscriptions per connection and connections', async () => {
    const url = await start({ maxSubscriptions: 2, maxWsConnections: 1 });
    const c = await openWs(url);
    await c.call('eth_subscribe', ['newHeads']);
    await c.call('eth_subscribe', ['newPendingTransactions']);
    expect(await c.call('eth_subscribe', ['newHeads'])).toMatchObject({ error: { code: -32005 } });
    const refused = await new Promise<number>((r) => new WebSocket(url).on('unexpected-response', (_req, res) => r(res.statusCode!)).on('error', () => r(-1)));
    expect(refused).toBe(503);
    c.ws.close();
  });

  it('refuses an upgrade from another origin when a CORS origin is configured', async () => {
    const url = await start({ corsOrigin: 'https://app.example' });
    const status = await new Promise<number>((r) =>
      new WebSocket(url, { headers: { Origin: 'https://evil.example' } }).on('unexpected-response', (_q, res) => r(res.statusCode!)).on('error', () => r(-1)),
    );
    expect(status).toBe(403);
    const ok = await openWs(url, { Origin: 'https://app.example' });
    expect(await ok.call('eth_chainId')).toMatchObject({ result: '0x494350' });
    ok.ws.close();
  });

  it('disconnects a consumer that does not read instead of buffering without limit', async () => {
    logSize = 60_000; // each log notification is about 120 KB of JSON
    const c = await openWs(await start({ wsMaxBufferedBytes: 256 * 1024 }));
    await c.call('eth_subscribe', ['logs', {}]);
    let closed = false;
    c.ws.on('close', () => (closed = true));
    // Stop reading: the kernel buffers fill, then the server's queue.
    (c.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    head = 1000n;
    await until(() => logged.some((l) => l.includes('slow consumer')), 20_000);
    expect(logged.some((l) => l.includes('slow consumer'))).toBe(true);
    (c.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    await until(() => closed, 10_000);
    expect(closed).toBe(true);
  });
});
