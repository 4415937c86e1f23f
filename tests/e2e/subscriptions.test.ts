// Filters, WebSocket subscriptions and the block-by-hash family against `npm start`, through the clients that
// use them: ethers v6 `contract.on` (eth_newFilter + eth_getFilterChanges over HTTP, eth_subscribe over its
// WebSocketProvider), viem `watchContractEvent` / `watchBlocks` over its http and webSocket transports, web3.js
// `subscribe('logs')`. Each listener must see every Transfer of a run of transactions exactly once, in order,
// also when several land in one block. Development account 6 is this file's.
import { Contract, ContractFactory, JsonRpcProvider, Wallet, WebSocketProvider, type Log as EthersLog } from 'ethers';
import { createPublicClient, http, webSocket, type Abi, type Hex } from 'viem';
import { Web3 } from 'web3';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CHAIN_ID } from '../../src/core/constants.js';
import { devAccounts } from '../../src/devnet/accounts.js';
import { compileFixture } from '../fixtures/solidity/compile.js';
import { gatewayInternalErrors, rpc, SHARED_FILTER_TIMEOUT_MS, sleep, waitForReceipt } from '../support/e2e.js';

const url = inject('devnetUrl');
const wsUrl = url.replace(/^http/, 'ws');
const account = devAccounts()[6]!;
const token = compileFixture('Token.sol', 'Token');
const abi = token.abi as Abi;
const SUPPLY = 10n ** 24n;
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const dest = (n: number) => `0x${(0x5b000 + n).toString(16).padStart(40, '0')}`;

let provider: JsonRpcProvider;
let wallet: Wallet;
let tokenAddress: string;
let nonce: number;
/** Value of the next transfer: every transfer of the file has a distinct value, so a duplicate or a gap shows. */
let nextValue = 1n;

/** Sends `count` transfers with consecutive nonces, two at once then one (so blocks hold one or several), and waits for all receipts. */
async function sendTransfers(count: number): Promise<{ values: bigint[]; receipts: any[] }> {
  const c = new Contract(tokenAddress, token.abi as never, wallet);
  const hashes: string[] = [];
  const values: bigint[] = [];
  for (let i = 0; i < count; i++) {
    const value = nextValue++;
    values.push(value);
    const tx = await c.getFunction('transfer').send(dest(i), value, { nonce: nonce++, gasLimit: 100_000n });
    hashes.push(tx.hash);
    if (i % 3 === 2) await waitForReceipt(url, tx.hash);
  }
  const receipts = [];
  for (const h of hashes) receipts.push(await waitForReceipt(url, h));
  for (const r of receipts) expect(r.status).toBe('0x1');
  return { values, receipts };
}

/** Waits until `got()` has `n` entries (bounded), then two more blocks' time so a late duplicate would show. */
async function collect<T>(got: () => T[], n: number, timeoutMs = 60_000): Promise<T[]> {
  const until = Date.now() + timeoutMs;
  while (got().length < n && Date.now() < until) await sleep(100);
  await sleep(4500);
  return got();
}

beforeAll(async () => {
  provider = new JsonRpcProvider(url, CHAIN_ID, { staticNetwork: true, pollingInterval: 250 });
  wallet = new Wallet(account.privateKey, provider);
  nonce = await provider.getTransactionCount(account.address, 'pending');
  const factory = new ContractFactory(token.abi as never, token.bytecode, wallet);
  const c = await factory.deploy('Subs', 'SUB', SUPPLY, { nonce: nonce++, gasLimit: 2_000_000n });
  const r = await waitForReceipt(url, c.deploymentTransaction()!.hash);
  expect(r.status).toBe('0x1');
  tokenAddress = r.contractAddress as string;
});
afterAll(() => provider?.destroy());

describe('log filters and subscriptions deliver every event exactly once', () => {
  it('ethers v6 contract.on over HTTP polling (eth_newFilter / eth_getFilterChanges)', async () => {
    const p = new JsonRpcProvider(url, CHAIN_ID, { staticNetwork: true, pollingInterval: 250 });
    try {
      const c = new Contract(tokenAddress, token.abi as never, p);
      const got: bigint[] = [];
      await c.on('Transfer', (_from: string, _to: string, value: bigint) => void got.push(value));
      await sleep(1000); // ethers installs its filter on its first poll
      const { values } = await sendTransfers(6);
      expect(await collect(() => got, values.length)).toEqual(values);
      await c.removeAllListeners();
    } finally {
      p.destroy();
    }
  });

  it('ethers v6 contract.on over WebSocketProvider (eth_subscribe logs)', async () => {
    const p = new WebSocketProvider(wsUrl, CHAIN_ID, { staticNetwork: true });
    try {
      const c = new Contract(tokenAddress, token.abi as never, p);
      const got: bigint[] = [];
      const blocks: number[] = [];
      await c.on('Transfer', (_from: string, _to: string, value: bigint) => void got.push(value));
      await p.on('block', (n: number) => void blocks.push(n));
      await sleep(1000);
      const { values, receipts } = await sendTransfers(6);
      expect(await collect(() => got, values.length)).toEqual(values);
      // newHeads: consecutive block numbers, each once, covering every transfer's block.
      for (let i = 1; i < blocks.length; i++) expect(blocks[i]).toBe(blocks[i - 1]! + 1);
      for (const r of receipts) expect(blocks).toContain(Number(r.blockNumber));
      await c.removeAllListeners();
      await p.removeAllListeners();
      await sleep(500); // let ethers' eth_unsubscribe calls finish before destroy cancels them
    } finally {
      await p.destroy();
    }
  });

  for (const kind of ['http', 'webSocket'] as const) {
    it(`viem watchContractEvent and watchBlocks over its ${kind} transport`, async () => {
      const client = createPublicClient({ transport: kind === 'http' ? http(url) : webSocket(wsUrl), pollingInterval: 250 });
      const got: bigint[] = [];
      const blocks: bigint[] = [];
      const errors: unknown[] = [];
      const unwatchEvents = client.watchContractEvent({
        address: tokenAddress as Hex,
        abi,
        eventName: 'Transfer',
        onLogs: (logs) => {
          for (const l of logs) got.push((l as unknown as { args: { value: bigint } }).args.value);
        },
        onError: (e) => errors.push(e),
      });
      const unwatchBlocks = client.watchBlocks({ onBlock: (b) => void blocks.push(b.number!), onError: (e) => errors.push(e) });
      try {
        await sleep(1500);
        const { values, receipts } = await sendTransfers(5);
        expect(await collect(() => got, values.length)).toEqual(values);
        // Over http viem polls eth_getBlockByNumber("latest") and emits each block it sees; over webSocket every
        // newHeads. Either way: increasing numbers, no duplicates, the last transfer's block among them.
        for (let i = 1; i < blocks.length; i++) expect(blocks[i]).toBeGreaterThan(blocks[i - 1]!);
        if (kind === 'webSocket') for (let i = 1; i < blocks.length; i++) expect(blocks[i]).toBe(blocks[i - 1]! + 1n);
        expect(blocks).toContain(BigInt(receipts.at(-1).blockNumber));
        expect(errors).toEqual([]);
      } finally {
        unwatchEvents();
        unwatchBlocks();
        if (kind === 'webSocket') await (client.transport as unknown as { getRpcClient(): Promise<{ close(): void }> }).getRpcClient().then((c) => c.close());
      }
    });
  }

  it("web3.js subscribe('logs') over its WebSocketProvider", async () => {
    const web3 = new Web3(new Web3.providers.WebsocketProvider(wsUrl));
    try {
      const sub = await web3.eth.subscribe('logs', { address: tokenAddress, topics: [TRANSFER_TOPIC] });
      const got: bigint[] = [];
      sub.on('data', (log) => void got.push(BigInt(log.data as string)));
      await sleep(500);
      const { values } = await sendTransfers(5);
      expect(await collect(() => got, values.length)).toEqual(values);
      await sub.unsubscribe();
    } finally {
      (web3.currentProvider as unknown as { disconnect(): void }).disconnect();
    }
  });
});

describe('filters held by the gateway', () => {
  it('block and log filters report each block and log once across polls, whatever arrives between them', async () => {
    const blocksFilter = await rpc<string>(url, 'eth_newBlockFilter');
    const logsFilter = await rpc<string>(url, 'eth_newFilter', [{ address: tokenAddress, topics: [TRANSFER_TOPIC] }]);
    // No poll while several blocks arrive.
    const { values, receipts } = await sendTransfers(6);
    const hashes: string[] = [];
    const logs: EthersLog[] = [];
    for (let i = 0; i < 3; i++) {
      hashes.push(...(await rpc<string[]>(url, 'eth_getFilterChanges', [blocksFilter])));
      logs.push(...(await rpc<EthersLog[]>(url, 'eth_getFilterChanges', [logsFilter])));
    }
    expect(logs.map((l) => BigInt(l.data))).toEqual(values);
    expect(new Set(hashes).size).toBe(hashes.length);
    for (const r of receipts) expect(hashes).toContain(r.blockHash);
    // The blocks are consecutive, starting after the head at install.
    const numbers = await Promise.all(hashes.map(async (h) => BigInt((await rpc(url, 'eth_getBlockByHash', [h, false])).number)));
    for (let i = 1; i < numbers.length; i++) expect(numbers[i]).toBe(numbers[i - 1]! + 1n);
    // eth_getFilterLogs answers the installed filter as eth_getLogs would, without moving the changes.
    const all = await rpc<EthersLog[]>(url, 'eth_getFilterLogs', [logsFilter]);
    expect(all).toEqual(await rpc(url, 'eth_getLogs', [{ address: tokenAddress, topics: [TRANSFER_TOPIC] }]));
    expect(await rpc(url, 'eth_getFilterChanges', [logsFilter])).toEqual([]);
    expect(await rpc(url, 'eth_uninstallFilter', [logsFilter])).toBe(true);
    expect(await rpc(url, 'eth_uninstallFilter', [logsFilter])).toBe(false);
    expect(await rpc(url, 'eth_uninstallFilter', [blocksFilter])).toBe(true);
  });

  it('refuses what eth_getLogs refuses, with the same errors', async () => {
    const bad = (f: unknown) => rpc(url, 'eth_newFilter', [f]).catch((e: { code: number; message: string }) => e);
    expect(await bad({ address: Array.from({ length: 1001 }, () => tokenAddress) })).toMatchObject({ code: -32602, message: expect.stringMatching(/at most 1000 addresses/) });
    expect(await bad({ topics: [null, null, null, null, TRANSFER_TOPIC] })).toMatchObject({ code: -32602, message: expect.stringMatching(/at most 4 positions/) });
    expect(await bad({ topics: [null, Array.from({ length: 1001 }, () => TRANSFER_TOPIC)] })).toMatchObject({ code: -32602, message: expect.stringMatching(/topics\[1\]: at most 1000 alternatives/) });
    expect(await bad({ blockHash: TRANSFER_TOPIC })).toMatchObject({ code: -32602 });
    // Over HTTP, subscriptions are geth's "notifications not supported".
    expect(await rpc(url, 'eth_subscribe', ['newHeads']).catch((e: { code: number }) => e.code)).toBe(-32601);
  });

  it('a filter unused for longer than its lifetime is gone; one that is polled stays', async () => {
    const idle = await rpc<string>(url, 'eth_newBlockFilter');
    const polled = await rpc<string>(url, 'eth_newFilter', [{ address: tokenAddress }]);
    const until = Date.now() + SHARED_FILTER_TIMEOUT_MS + 1500;
    while (Date.now() < until) {
      expect(await rpc(url, 'eth_getFilterChanges', [polled])).toEqual([]);
      await sleep(SHARED_FILTER_TIMEOUT_MS / 4);
    }
    const e = await rpc(url, 'eth_getFilterChanges', [idle]).catch((x: { code: number; message: string }) => x);
    expect(e).toMatchObject({ code: -32000, message: 'filter not found' });
    expect(await rpc(url, 'eth_uninstallFilter', [idle])).toBe(false);
    expect(await rpc(url, 'eth_getFilterChanges', [polled])).toEqual([]);
    expect(await rpc(url, 'eth_uninstallFilter', [polled])).toBe(true);
  });
});

describe('raw WebSocket JSON-RPC on the HTTP port', () => {
  it('answers every method, batches included, and notifies newPendingTransactions of this gateway\'s submits', async () => {
    const ws = new WebSocket(wsUrl);
    const messages: any[] = [];
    ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
    await new Promise((r, j) => ws.once('open', r).once('error', j));
    const answer = async (id: number) => {
      const until = Date.now() + 10_000;
      for (;;) {
        const m = Array.isArray(messages.at(-1)) ? messages.find((x) => Array.isArray(x)) : messages.find((x) => x.id === id);
        if (m !== undefined) return m;
        if (Date.now() > until) throw new Error(`no answer ${id}`);
        await sleep(20);
      }
    };
    try {
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }));
      expect(await answer(1)).toEqual({ jsonrpc: '2.0', id: 1, result: `0x${CHAIN_ID.toString(16)}` });
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['newPendingTransactions'] }));
      const sub = (await answer(2)).result as string;
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'eth_subscribe', params: ['syncing'] }));
      expect(await answer(3)).toMatchObject({ error: { code: -32602 } });
      const { receipts } = await sendTransfers(2);
      const notes = messages.filter((m) => m.method === 'eth_subscription' && m.params.subscription === sub).map((m) => m.params.result);
      expect(notes).toEqual(receipts.map((r) => r.transactionHash));
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'eth_unsubscribe', params: [sub] }));
      expect(await answer(4)).toMatchObject({ result: true });
      ws.send(JSON.stringify([{ jsonrpc: '2.0', id: 5, method: 'eth_blockNumber' }, { jsonrpc: '2.0', id: 6, method: 'nope' }]));
      const batch = await answer(5);
      expect(batch).toEqual([
        { jsonrpc: '2.0', id: 5, result: expect.stringMatching(/^0x[0-9a-f]+$/) },
        { jsonrpc: '2.0', id: 6, error: { code: -32601, message: 'the method nope does not exist/is not available' } },
      ]);
    } finally {
      ws.close();
    }
  });
});

describe('blocks by hash and whole blocks\' receipts', () => {
  it('eth_getBlockByHash and eth_getBlockReceipts equal the by-number answers', async () => {
    const { receipts } = await sendTransfers(3);
    const numbers = [...new Set(receipts.map((r) => r.blockNumber as string))];
    for (const n of numbers) {
      for (const full of [false, true]) {
        const byNumber = await rpc(url, 'eth_getBlockByNumber', [n, full]);
        expect(await rpc(url, 'eth_getBlockByHash', [byNumber.hash, full])).toEqual(byNumber);
      }
      const block = await rpc(url, 'eth_getBlockByNumber', [n, true]);
      const each = await Promise.all(block.transactions.map((t: { hash: string }) => rpc(url, 'eth_getTransactionReceipt', [t.hash])));
      expect(each.length).toBeGreaterThan(0);
      expect(await rpc(url, 'eth_getBlockReceipts', [n])).toEqual(each);
      expect(await rpc(url, 'eth_getBlockReceipts', [block.hash])).toEqual(each);
      expect(await rpc(url, 'eth_getBlockReceipts', [{ blockHash: block.hash }])).toEqual(each);
      expect(await rpc(url, 'eth_getBlockTransactionCountByNumber', [n])).toBe(`0x${block.transactions.length.toString(16)}`);
      expect(await rpc(url, 'eth_getBlockTransactionCountByHash', [block.hash])).toBe(`0x${block.transactions.length.toString(16)}`);
      for (const [i, t] of block.transactions.entries()) {
        const idx = `0x${i.toString(16)}`;
        expect(await rpc(url, 'eth_getTransactionByBlockHashAndIndex', [block.hash, idx])).toEqual(t);
        expect(await rpc(url, 'eth_getTransactionByBlockNumberAndIndex', [n, idx])).toEqual(t);
        expect(await rpc(url, 'eth_getTransactionByHash', [t.hash])).toEqual(t);
      }
      expect(await rpc(url, 'eth_getTransactionByBlockHashAndIndex', [block.hash, `0x${block.transactions.length.toString(16)}`])).toBeNull();
    }
    const unknown = `0x${'77'.repeat(32)}`;
    expect(await rpc(url, 'eth_getBlockByHash', [unknown, false])).toBeNull();
    expect(await rpc(url, 'eth_getBlockReceipts', [unknown])).toBeNull();
    expect(await rpc(url, 'eth_getBlockTransactionCountByHash', [unknown])).toBeNull();
    expect(await rpc(url, 'eth_getBlockReceipts', ['0xffffffff'])).toBeNull();
  });

  it('left no internal error in the gateway log', () => {
    expect(gatewayInternalErrors(inject('devnetLog'))).toEqual([]);
  });
});
