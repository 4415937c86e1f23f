// Devnet queries that run for seconds (eth_calls looping to near the query
// instruction limit, one after another) must not stop block production. The devnet runs queries in its host's query replica
// (src/host/replica.ts), so while the long eth_call runs the block timer keeps mining, a transaction sent
// meanwhile is mined, dev methods answer; the eth_calls still answer their correct results afterwards.
import { rmSync } from 'node:fs';
import { keccak256, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { CHAIN_ID } from '../../src/core/constants.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';
import { DEFAULT_CONFIG } from '../../src/gateway/config.js';
import { callObject } from '../../src/gateway/methods/common.js';
import { projectTempDir } from '../../src/host/paths.js';
import { asm, label, ref } from '../support/asm.js';
import { rpc } from '../support/e2e.js';

const dataDir = projectTempDir('devnet-replica-');
let devnet: Devnet | undefined;
afterAll(async () => {
  await devnet?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
async function until(cond: () => boolean, what: string, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Contract-creation code that counts `n` down to 0 (7 opcodes a turn), then returns `n` as one word. */
const loop = (n: number): Hex =>
  `0x${Buffer.from(asm(n, label('loop'), 1, 'SWAP1', 'SUB', 'DUP1', ref('loop'), 'JUMPI', n, 0, 'MSTORE', 32, 0, 'RETURN')).toString('hex')}`;
const word = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`;

describe('devnet: a long query does not stop block production', () => {
  it('mines blocks (by the timer, with a transaction sent meanwhile, and by evm_mine) while an eth_call of about 4 B instructions runs', async () => {
    const lines: string[] = [];
    devnet = await startDevnet({ dataDir, blockTime: 1, gateway: { ...DEFAULT_CONFIG, port: 0 }, log: (l) => lines.push(l) });
    const d = devnet;
    const url = d.rpcUrl;
    await until(() => d.host.queryReplica?.ready === true, 'the query replica');
    expect(lines.some((l) => l.startsWith('query replica ready'))).toBe(true);

    // Size the loop from two short runs on the host's own thread (instructions grow linearly with n).
    const cost = (n: number): bigint => {
      const r = d.evm.queryMeasured('rpc_eth_call_object', [callObject({ data: loop(n) }), { Latest: null }]);
      expect('Ok' in r.value).toBe(true);
      return r.instructions!;
    };
    const [a, b] = [cost(1000), cost(3000)];
    const perTurn = Number(b - a) / 2000;
    const n = Math.floor((3.8e9 - (Number(a) - 1000 * perTurn)) / perTurn); // under the canister's 4.5 B budget

    // The head and the main-thread view of the chain: the test's own reads run on the host's thread.
    const head = (): bigint => d.evm.querySync('rpc_eth_block_number', []);
    const receiptFound = (hash: Hex): boolean =>
      'Found' in d.evm.querySync('rpc_eth_get_transaction_receipt_with_status_by_eth_hash', [Buffer.from(hash.slice(2), 'hex')]);
    const account = privateKeyToAccount(d.accounts[2]!.privateKey);
    const nonce = Number(BigInt(await rpc<string>(url, 'eth_getTransactionCount', [account.address, 'pending'])));
    const raw = await account.signTransaction({ type: 'legacy', chainId: Number(CHAIN_ID), nonce, gasPrice: 1000n * 10n ** 9n, gas: 21_000n, to: '0x000000000000000000000000000000000000bEEF', value: 1n });
    const h0 = head();
    const t0 = BigInt((await rpc<{ timestamp: string }>(url, 'eth_getBlockByNumber', ['latest', false])).timestamp);

    // One such call is well under a second of V8 time on a fast machine, shorter than the 1 s block timer: five
    // distinct ones (the replica runs queries one after another) keep it busy for seconds.
    const ns = [n, n - 1, n - 2, n - 3, n - 4];
    let callDone = false;
    const call = Promise.all(ns.map((k) => rpc<string>(url, 'eth_call', [{ data: loop(k) }, 'latest']))).finally(() => (callDone = true));
    await until(() => d.host.queryReplica!.busyMs() > 50 || callDone, 'the eth_calls to run in the replica');
    // A transaction sent meanwhile: the submit (an update) runs at once, the 1 s block timer mines it, and the
    // cheap reads (the gateway's follow-up query, the receipt) answer in the host's fast lane.
    const sent = await rpc<string>(url, 'eth_sendRawTransaction', [raw]);
    const sentDuringCall = !callDone;
    await until(() => receiptFound(keccak256(raw)) || callDone, 'the transfer to be mined');
    const minedDuringCall = !callDone;
    const receipt = await rpc<{ blockNumber: string; status: string } | null>(url, 'eth_getTransactionReceipt', [keccak256(raw)]);
    const receiptDuringCall = !callDone;
    // A dev method that makes a block (an update, no query) answers through the gateway meanwhile too.
    const mined = await rpc<string>(url, 'evm_mine', []);
    const evmMineDuringCall = !callDone;
    const headDuringCall = head();

    expect(await call).toEqual(ns.map(word)); // the long calls' correct answers
    expect(sentDuringCall).toBe(true);
    expect(minedDuringCall).toBe(true);
    expect(receiptDuringCall).toBe(true);
    expect(receipt?.status).toBe('0x1');
    expect(evmMineDuringCall).toBe(true);
    expect(mined).toBe('0x0');
    expect(headDuringCall).toBeGreaterThanOrEqual(h0 + 2n);
    expect(sent).toBe(keccak256(raw));
    // The blocks made meanwhile are in the chain, later in time, and the queries see them.
    const r = await rpc<{ blockNumber: string; status: string }>(url, 'eth_getTransactionReceipt', [keccak256(raw)]);
    expect(r.status).toBe('0x1');
    const block = await rpc<{ timestamp: string }>(url, 'eth_getBlockByNumber', [r.blockNumber, false]);
    expect(BigInt(block.timestamp)).toBeGreaterThanOrEqual(t0);
    expect(BigInt(await rpc<string>(url, 'eth_blockNumber', []))).toBe(headDuringCall);
  });

  it('a query after an evm_revert sees the restored state, and one after a submit sees the submit', async () => {
    const d = devnet!;
    const url = d.rpcUrl;
    const to = '0x000000000000000000000000000000000000cafE';
    const id = await rpc<string>(url, 'evm_snapshot', []);
    const n = BigInt(await rpc<string>(url, 'eth_blockNumber', []));
    await rpc(url, 'evm_mine', [{ blocks: 2 }]);
    expect(BigInt(await rpc<string>(url, 'eth_blockNumber', []))).toBe(n + 2n);
    expect(await rpc(url, 'evm_revert', [id])).toBe(true);
    expect(BigInt(await rpc<string>(url, 'eth_blockNumber', []))).toBe(n);
    // The pending nonce (a query) counts a submit answered just before.
    const account = privateKeyToAccount(d.accounts[3]!.privateKey);
    const pending = async (): Promise<bigint> => BigInt(await rpc<string>(url, 'eth_getTransactionCount', [account.address, 'pending']));
    const before = await pending();
    const raw = await account.signTransaction({ type: 'legacy', chainId: Number(CHAIN_ID), nonce: Number(before), gasPrice: 1000n * 10n ** 9n, gas: 21_000n, to, value: 1n });
    await rpc(url, 'eth_sendRawTransaction', [raw]);
    expect(await pending()).toBe(before + 1n);
    expect(d.host.queryReplica!.served).toBeGreaterThan(0);
  });
});
