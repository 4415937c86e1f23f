// The figures behind the gateway's byte budgets and quotas (docs/hardening.md "Gateway: answers bounded in bytes"
// and "Gateway: quotas per client"), part of the `rpc` group. The gateway's own costs are measured on the real
// gateway with a scripted canister (the canister's costs are the read_api group's); the fairness figure on the
// devnet as users run it.
//
//   rpc.gateway.getlogs_16mib.json_bytes    JSON of the largest eth_getLogs answer (16 MiB of log data): what one
//                                           answer needs of RPC_GATEWAY_MAX_RESPONSE_BYTES
//   rpc.gateway.getlogs_16mib.ms            the gateway's time for it (pages in, format, serialize, send)
//   rpc.gateway.getlogs_16mib_10000_logs.json_bytes
//                                           the same 16 MiB in 10,000 logs (the most JSON around the data)
//   rpc.gateway.batch20_getlogs_16mib.ms / .json_bytes
//                                           the attack: a batch of 20 such eth_getLogs, answered within the budget
//   rpc.gateway.cache_size_estimate.ms_per_mib
//                                           sizing a cached block for the byte-bounded cache
//   rpc.gateway.logs_dispatch.ns_per_log_per_sub
//                                           the shared read's matching: one log offered to one subscription
//   rpc.gateway.logs_dispatch.max_hold_ms   the longest the event loop waits while 1,024 subscriptions take
//                                           every log of a 10,000-log block (the dispatch yields in slices)
//   rpc.gateway.logs_dispatch.block_10000_logs_1024_subs_ms
//                                           that dispatch's whole time
//   rpc.gateway.query_gate.overhead_us      one pass through the query gate (no contention)
//   rpc.gateway.sender_key_recovery_ms      recovering a signed transfer's sender key for the canister's hint
//                                           (src/gateway/sender_key.ts), median
//   rpc.victim_eth_blockNumber_under_call_flood.p50_ms / .p90_ms, rpc.call_flood.refused
//                                           on `npm start`: one client keeps 200 distinct eth_calls in flight while
//                                           another (another address) reads eth_blockNumber
import { request } from 'node:http';
import { hexToBytes } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { LogView } from '../src/client/schema.js';
import { MAX_LOG_PAGE_BYTES } from '../src/core/constants.js';
import { approxJsonBytes } from '../src/gateway/cache.js';
import { DEFAULT_CONFIG } from '../src/gateway/config.js';
import { SharedLogRead, type LogListener } from '../src/gateway/log_feed.js';
import { QueryGate } from '../src/gateway/query_gate.js';
import { senderPublicKey } from '../src/gateway/sender_key.js';
import { startGateway } from '../src/gateway/server.js';
import { FakeClient, fakeContext } from '../tests/support/gateway_fake.js';
import type { Report } from './evm.js';

const KIB64 = new Uint8Array(64 * 1024).fill(0x5a);
const fill = (n: number, len: number): Uint8Array => new Uint8Array(len).fill(n);
const bigLog = (index: number, data: Uint8Array = KIB64): LogView => ({
  address: fill(1, 20), topics: [fill(2, 32), fill(3, 32), fill(4, 32), fill(5, 32)], data, block_number: 2n, block_hash: fill(9, 32),
  transaction_hash: fill(7, 32), transaction_index: index, log_index: index,
});

/**
 * A canister with 16 MiB of logs (data and 4 topics each) in block 2, paged as the canister pages them: logs of
 * `dataLen` bytes, as many as fit in 16 MiB and eth_getLogs's 10,000.
 */
function bigLogsCanister(dataLen = KIB64.length): FakeClient {
  const data = new Uint8Array(dataLen).fill(0x5a);
  const count = Math.min(10_000, Math.floor((16 * 1024 * 1024) / (dataLen + 128)));
  const perPage = Math.min(1000, Math.floor(MAX_LOG_PAGE_BYTES / (dataLen + 128)));
  return new FakeClient({
    rpc_eth_block_number: () => 3n,
    rpc_eth_get_logs_filtered: ([, cursor]) => {
      const at = (cursor as [{ log_index: number }] | [])[0]?.log_index ?? 0;
      const n = Math.min(perPage, count - at);
      return { Ok: { logs: Array.from({ length: n }, (_, i) => bigLog(at + i, data)), next_cursor: at + n < count ? [{ block_number: 2n, log_index: at + n }] : [] } };
    },
  });
}

async function timedPost(url: string, body: string): Promise<{ ms: number; bytes: number; ok: boolean }> {
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  const text = await res.text();
  return { ms: performance.now() - t0, bytes: text.length, ok: !text.includes('"error"') };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;
const round = (v: number, d = 10): number => Math.round(v * d) / d;

export async function benchGatewayBounds(report: Report): Promise<void> {
  const gw = await startGateway({ config: { ...DEFAULT_CONFIG, port: 0, host: '127.0.0.1' }, client: bigLogsCanister(), log: () => {} });
  try {
    const one = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: '0x3' }] });
    await timedPost(gw.url, one);
    const runs = [await timedPost(gw.url, one), await timedPost(gw.url, one), await timedPost(gw.url, one)];
    if (!runs.every((r) => r.ok)) throw new Error('16 MiB eth_getLogs: not answered');
    report('rpc.gateway.getlogs_16mib.json_bytes', runs[0]!.bytes, 'bytes');
    report('rpc.gateway.getlogs_16mib.ms', round(median(runs.map((r) => r.ms))), 'ms');
    const batch = JSON.stringify(Array.from({ length: 20 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: '0x3' }] })));
    const b = await timedPost(gw.url, batch);
    report('rpc.gateway.batch20_getlogs_16mib.ms', round(b.ms), 'ms');
    report('rpc.gateway.batch20_getlogs_16mib.json_bytes', b.bytes, 'bytes');
  } finally {
    await gw.close();
  }
  // The same 16 MiB in 10,000 small logs: the most JSON per log byte (the fields around each log).
  const small = await startGateway({ config: { ...DEFAULT_CONFIG, port: 0, host: '127.0.0.1' }, client: bigLogsCanister(1549), log: () => {} });
  try {
    const r = await timedPost(small.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: '0x3' }] }));
    if (!r.ok) throw new Error('10,000 small logs: not answered');
    report('rpc.gateway.getlogs_16mib_10000_logs.json_bytes', r.bytes, 'bytes');
  } finally {
    await small.close();
  }

  // Sizing: a block-shaped value of 1 MiB of hex strings.
  const block = { number: '0x1', transactions: Array.from({ length: 64 }, (_, i) => ({ hash: `0x${'ab'.repeat(32)}`, input: `0x${'cd'.repeat(8 * 1024)}`, i })) };
  const mib = approxJsonBytes(block) / (1024 * 1024);
  const t0 = performance.now();
  for (let i = 0; i < 200; i++) approxJsonBytes(block);
  report('rpc.gateway.cache_size_estimate.ms_per_mib', round((performance.now() - t0) / 200 / mib, 1000), 'ms');

  // Matching: 1000 logs offered to 1024 subscriptions (the default global cap), half matching the address.
  const logs = Array.from({ length: 1000 }, (_, i) => ({ ...bigLog(i), data: new Uint8Array(32), address: fill(i % 2, 20) }));
  const client = new FakeClient({
    rpc_eth_get_logs_filtered: ([, cursor]) => ((cursor as unknown[]).length === 0 ? { Ok: { logs, next_cursor: [] } } : { Ok: { logs: [], next_cursor: [] } }),
  });
  const read = new SharedLogRead(fakeContext(client));
  const subs = DEFAULT_CONFIG.maxTotalSubscriptions;
  for (let i = 0; i < subs; i++) {
    const l: LogListener = { criteria: { address: [[fill(1, 20)]], topics: [[[], [[fill(3, 32)]]]] }, from: 2n, last: undefined, deliver: () => true };
    read.add(l);
  }
  const t1 = performance.now();
  await read.tick(2n);
  report('rpc.gateway.logs_dispatch.ns_per_log_per_sub', round(((performance.now() - t1) * 1e6) / (logs.length * subs)), 'ns');

  // The worst case for the loop: 1,024 subscriptions that take every log, over a 10,000-log block. The dispatch
  // yields every DISPATCH_SLICE evaluations; this is the longest the loop waited meanwhile.
  const everyLog = Array.from({ length: 10_000 }, (_, i) => ({ ...bigLog(i), data: new Uint8Array(32), address: fill(i % 2, 20) }));
  const wide = new SharedLogRead(fakeContext(new FakeClient({
    rpc_eth_get_logs_filtered: ([, cursor]) => ((cursor as unknown[]).length === 0 ? { Ok: { logs: everyLog, next_cursor: [] } } : { Ok: { logs: [], next_cursor: [] } }),
  })));
  for (let i = 0; i < subs; i++) wide.add({ criteria: { address: [], topics: [] }, from: 2n, last: undefined, deliver: () => true });
  let maxGap = 0;
  let lastBeat = performance.now();
  let beating = true;
  const beat = () => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - lastBeat);
    lastBeat = now;
    if (beating) setImmediate(beat);
  };
  setImmediate(beat);
  const t4 = performance.now();
  await wide.tick(2n);
  const wideMs = performance.now() - t4;
  beating = false;
  report('rpc.gateway.logs_dispatch.max_hold_ms', round(maxGap, 10), 'ms');
  report('rpc.gateway.logs_dispatch.block_10000_logs_1024_subs_ms', round(wideMs), 'ms');

  const gate = new QueryGate(DEFAULT_CONFIG.maxConcurrentQueries, DEFAULT_CONFIG.maxQueuedQueries, DEFAULT_CONFIG.maxQueuedQueriesPerClient);
  const n = 100_000;
  const t2 = performance.now();
  for (let i = 0; i < n; i++) await gate.run('a', async () => undefined);
  const t3 = performance.now();
  for (let i = 0; i < n; i++) await (async () => undefined)();
  report('rpc.gateway.query_gate.overhead_us', round((((t3 - t2) - (performance.now() - t3)) * 1000) / n, 1000), 'us');

  const signer = privateKeyToAccount(`0x${'11'.repeat(32)}`);
  const raw = hexToBytes(await signer.signTransaction({ chainId: 4801360, type: 'eip1559', to: `0x${'22'.repeat(20)}`, value: 1n, gas: 21_000n, maxFeePerGas: 10n ** 12n, maxPriorityFeePerGas: 1n, nonce: 0 }));
  const recoveries: number[] = [];
  for (let i = 0; i < 201; i++) {
    const t = performance.now();
    if (senderPublicKey(raw) === undefined) throw new Error('sender key bench: the transfer does not recover');
    recoveries.push(performance.now() - t);
  }
  report('rpc.gateway.sender_key_recovery_ms', round(median(recoveries.slice(1)), 1000), 'ms');
}

function postFrom(url: string, from: string, body: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const r = request(url, { method: 'POST', localAddress: from, headers: { 'Content-Type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve(JSON.parse(text)));
    });
    r.on('error', reject);
    r.end(body);
  });
}

/**
 * On a running devnet: FLOOD distinct eth_calls in flight at once from 127.0.0.1 (re-sent as each answers) while
 * 127.0.0.2 reads eth_blockNumber one after another; the victim's latencies and how many of the flood were refused.
 */
export async function benchCallFlood(url: string, call: () => unknown[], report: Report): Promise<void> {
  const FLOOD = 200;
  const DURATION_MS = 5000;
  let refused = 0;
  let answered = 0;
  let stop = false;
  const flood = async (): Promise<void> => {
    while (!stop) {
      const a = await postFrom(url, '127.0.0.1', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: call() }));
      if (a.error?.code === -32005) {
        refused++;
        await new Promise((r) => setTimeout(r, 50));
      } else answered++;
    }
  };
  const flooders = Array.from({ length: FLOOD }, flood);
  await new Promise((r) => setTimeout(r, 500));
  const lat: number[] = [];
  const end = performance.now() + DURATION_MS;
  while (performance.now() < end) {
    const t = performance.now();
    const a = await postFrom(url, '127.0.0.2', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }));
    if (a.result === undefined) throw new Error(`victim refused: ${JSON.stringify(a)}`);
    lat.push(performance.now() - t);
  }
  stop = true;
  await Promise.all(flooders);
  report('rpc.victim_eth_blockNumber_under_call_flood.p50_ms', round(median(lat)), 'ms');
  report('rpc.victim_eth_blockNumber_under_call_flood.p90_ms', round(pct(lat, 0.9)), 'ms');
  report('rpc.call_flood.answered_per_s', round(answered / ((DURATION_MS + 500) / 1000)), 'requests/s');
  report('rpc.call_flood.refused_per_s', round(refused / ((DURATION_MS + 500) / 1000)), 'requests/s');
}
