// What one client can make the gateway hold. A client that never finishes its headers is
// cut off, connections past the cap are refused, and a batch runs at most BATCH_CONCURRENCY items at once.
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/gateway/config.js';
import { BATCH_CONCURRENCY } from '../../src/gateway/rpc.js';
import { startGateway, type Gateway } from '../../src/gateway/server.js';
import { FakeClient } from '../support/gateway_fake.js';

let gw: Gateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const open = (port: number): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
/** Resolves when the server ends the connection (with whatever it sent first). */
const closed = (s: Socket): Promise<string> =>
  new Promise((resolve) => {
    let got = '';
    s.on('data', (d) => (got += d.toString()));
    s.on('error', () => resolve(got));
    s.on('close', () => resolve(got));
  });

describe('gateway limits', () => {
  it('cuts off a client that never finishes its headers (slowloris)', async () => {
    gw = await startGateway({ config: { ...DEFAULT_CONFIG, port: 0, host: '127.0.0.1' }, client: new FakeClient(), log: () => {}, limits: { headersTimeoutMs: 300, requestTimeoutMs: 600 } });
    const s = await open(gw.port);
    s.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n');
    const got = await closed(s);
    expect(s.destroyed || got.startsWith('HTTP/1.1 408')).toBe(true);
  });

  it('refuses connections past the cap', async () => {
    gw = await startGateway({ config: { ...DEFAULT_CONFIG, port: 0, host: '127.0.0.1' }, client: new FakeClient(), log: () => {}, limits: { maxConnections: 2 } });
    const a = await open(gw.port);
    const b = await open(gw.port);
    const c = await open(gw.port);
    // The third is closed by the server without an answer; the first two stay usable.
    await closed(c);
    expect(a.destroyed).toBe(false);
    expect(b.destroyed).toBe(false);
    a.destroy();
    b.destroy();
  });

  it(`runs at most ${BATCH_CONCURRENCY} batch items at once`, async () => {
    let inFlight = 0;
    let most = 0;
    const client = new FakeClient({
      rpc_eth_get_balance: async () => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        return { Ok: 1n };
      },
    });
    gw = await startGateway({ config: { ...DEFAULT_CONFIG, port: 0, host: '127.0.0.1' }, client, log: () => {} });
    const batch = Array.from({ length: 20 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_getBalance', params: [`0x${String(i).padStart(40, '0')}`, 'latest'] }));
    const res = await fetch(gw.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(batch) });
    const out = (await res.json()) as { id: number; result?: string }[];
    expect(out.map((x) => x.id)).toEqual(batch.map((x) => x.id));
    expect(out.every((x) => x.result === '0x1')).toBe(true);
    expect(most).toBe(BATCH_CONCURRENCY);
  });
});

describe('eth_getLogs answers are bounded in bytes', () => {
  it('answers -32005 once the logs pass GATEWAY_MAX_LOG_BYTES, even below the count limit', async () => {
    const { GATEWAY_MAX_LOG_BYTES } = await import('../../src/gateway/methods/eth_getLogs.js');
    const log = (i: number) => ({
      address: new Uint8Array(20), topics: [], data: new Uint8Array(64 * 1024), block_number: 1n, block_hash: new Uint8Array(32),
      transaction_hash: new Uint8Array(32), transaction_index: 0, log_index: i,
    });
    let pages = 0;
    const client = new FakeClient({
      rpc_eth_block_number: () => 10n,
      // Pages of 100 logs of 64 KiB each, always with a next cursor: only the byte limit can stop it.
      rpc_eth_get_logs_filtered: () => {
        pages++;
        return { Ok: { logs: Array.from({ length: 100 }, (_, i) => log(i)), next_cursor: [{ block_number: 1n, log_index: 0 }] } };
      },
    });
    gw = await startGateway({ config: { ...DEFAULT_CONFIG, port: 0, host: '127.0.0.1' }, client, log: () => {} });
    const res = await fetch(gw.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: 'latest' }] }) });
    const out = (await res.json()) as { error?: { code: number; message: string } };
    expect(out.error?.code).toBe(-32005);
    expect(out.error?.message).toContain('bytes of logs');
    expect(pages).toBe(Math.floor(GATEWAY_MAX_LOG_BYTES / (100 * 64 * 1024)) + 1);
  });
});
