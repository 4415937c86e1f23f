// The devnet's block production options and development methods, through the JSON-RPC gateway as Hardhat,
// Foundry and ethers scripts call them: --block-time 0 (automine: the receipt exists when the submit answers,
// no wait for a block timer), evm_mine (empty blocks too), evm_setAutomine, evm_snapshot / evm_revert (the
// whole canister state, byte for byte, kept across a restart), evm_increaseTime / evm_setNextBlockTimestamp.
import { rmSync } from 'node:fs';
import { keccak256, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { CHAIN_ID } from '../../src/core/constants.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';
import { DEFAULT_CONFIG } from '../../src/gateway/config.js';
import { projectTempDir } from '../../src/host/paths.js';
import { rpc } from '../support/e2e.js';

const dataDir = projectTempDir('devnet-dev-');
let devnet: Devnet | undefined;
afterAll(async () => {
  await devnet?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const to = '0x000000000000000000000000000000000000bEEF' as Hex;
const url = (): string => devnet!.rpcUrl;
const num = async (method: string, params: unknown[] = []): Promise<bigint> => BigInt(await rpc<string>(url(), method, params));
const head = async (): Promise<{ number: string; timestamp: string; hash: string; transactions: string[] }> => rpc(url(), 'eth_getBlockByNumber', ['latest', false]);

async function signTransfer(key: Hex, value: bigint): Promise<Hex> {
  const account = privateKeyToAccount(key);
  const nonce = Number(await num('eth_getTransactionCount', [account.address, 'pending']));
  return account.signTransaction({ type: 'legacy', chainId: Number(CHAIN_ID), nonce, gasPrice: 1000n * 10n ** 9n, gas: 21_000n, to, value });
}

async function rpcError(method: string, params: unknown[]): Promise<{ code: number; message: string }> {
  const e = await rpc(url(), method, params).then(
    () => undefined,
    (x: { code: number; message: string }) => x,
  );
  expect(e, `${method} should fail`).toBeDefined();
  return e!;
}

describe('devnet --block-time 0 and the development methods', () => {
  it('automine: a transaction is in a block when eth_sendRawTransaction answers', async () => {
    devnet = await startDevnet({ dataDir, blockTime: 0, gateway: { ...DEFAULT_CONFIG, port: 0 }, log: () => {} });
    const key = devnet.accounts[0]!.privateKey;
    const before = await num('eth_blockNumber');
    const raw = await signTransfer(key, 1n);
    expect(await rpc(url(), 'eth_sendRawTransaction', [raw])).toBe(keccak256(raw));
    const receipt = await rpc(url(), 'eth_getTransactionReceipt', [keccak256(raw)]);
    expect(receipt?.status).toBe('0x1');
    expect(BigInt(receipt.blockNumber)).toBe(before + 1n);
    // Concurrent submits from several senders are all mined before each answers.
    const raws = await Promise.all(devnet.accounts.slice(1, 4).map((a) => signTransfer(a.privateKey, 2n)));
    await Promise.all(raws.map((r) => rpc(url(), 'eth_sendRawTransaction', [r])));
    for (const r of raws) expect((await rpc(url(), 'eth_getTransactionReceipt', [keccak256(r)]))?.status).toBe('0x1');
  });

  it('evm_mine makes blocks even with nothing pending; evm_setAutomine(false) leaves transactions pending', async () => {
    const n = await num('eth_blockNumber');
    expect(await rpc(url(), 'evm_mine', [])).toBe('0x0');
    expect(await num('eth_blockNumber')).toBe(n + 1n);
    expect((await head()).transactions).toEqual([]);
    expect(await rpc(url(), 'evm_mine', [{ blocks: 3 }])).toBe('0x0');
    expect(await num('eth_blockNumber')).toBe(n + 4n);

    expect(await rpc(url(), 'evm_setAutomine', [false])).toBe(null);
    const raw = await signTransfer(devnet!.accounts[0]!.privateKey, 3n);
    await rpc(url(), 'eth_sendRawTransaction', [raw]);
    expect(await rpc(url(), 'eth_getTransactionReceipt', [keccak256(raw)])).toBe(null);
    expect(await num('eth_blockNumber')).toBe(n + 4n);
    await rpc(url(), 'evm_mine', []);
    const receipt = await rpc(url(), 'eth_getTransactionReceipt', [keccak256(raw)]);
    expect(BigInt(receipt.blockNumber)).toBe(n + 5n);
    await rpc(url(), 'evm_setAutomine', [true]);
  });

  it('evm_setNextBlockTimestamp and evm_increaseTime move the clock the next block reads', async () => {
    const t0 = BigInt((await head()).timestamp);
    const target = t0 + 1000n;
    expect(await rpc(url(), 'evm_setNextBlockTimestamp', [Number(target)])).toBe(null);
    await rpc(url(), 'evm_mine', []);
    expect(BigInt((await head()).timestamp)).toBe(target);
    const shifted = await rpc<number>(url(), 'evm_increaseTime', [3600]);
    expect(shifted).toBeGreaterThanOrEqual(3600);
    await rpc(url(), 'evm_mine', []);
    expect(BigInt((await head()).timestamp)).toBeGreaterThanOrEqual(target + 3600n);
    // evm_mine with a timestamp, as Hardhat's helpers send it.
    const t2 = BigInt((await head()).timestamp) + 50n;
    await rpc(url(), 'evm_mine', [`0x${t2.toString(16)}`]);
    expect(BigInt((await head()).timestamp)).toBe(t2);
    // Time never goes back; bad parameters are -32602.
    expect((await rpcError('evm_setNextBlockTimestamp', [Number(t0)])).code).toBe(-32602);
    expect((await rpcError('evm_increaseTime', [-5])).code).toBe(-32602);
    expect((await rpcError('evm_setAutomine', ['yes'])).code).toBe(-32602);
    expect((await rpcError('evm_mine', [{ blocks: 0 }])).code).toBe(-32602);
  });

  it('evm_revert restores the whole canister state exactly, and the restored state survives a restart', async () => {
    const d = devnet!;
    const id = await rpc<string>(url(), 'evm_snapshot', []);
    expect(id).toMatch(/^0x[0-9a-f]+$/);
    const state = d.host.snapshotState();
    const block = await head();
    const balance = await num('eth_getBalance', [to, 'latest']);
    const key = d.accounts[5]!.privateKey;
    const nonce = await num('eth_getTransactionCount', [privateKeyToAccount(key).address, 'latest']);

    const undone = await signTransfer(key, 10n ** 18n);
    await rpc(url(), 'eth_sendRawTransaction', [undone]);
    expect((await rpc(url(), 'eth_getTransactionReceipt', [keccak256(undone)]))?.status).toBe('0x1'); // now in the gateway's cache
    await rpc(url(), 'evm_increaseTime', [86_400]);
    await rpc(url(), 'evm_mine', [{ blocks: 2 }]);
    expect(await num('eth_getBalance', [to, 'latest'])).toBe(balance + 10n ** 18n);
    const later = await rpc<string>(url(), 'evm_snapshot', []);

    expect(await rpc(url(), 'evm_revert', [id])).toBe(true);
    const restored = d.host.snapshotState();
    expect(restored.heap.equals(state.heap)).toBe(true);
    expect(restored.globals).toEqual(state.globals);
    expect(restored.stable.size).toBe(state.stable.size);
    expect([...restored.stable.pages.keys()].sort((a, b) => a - b)).toEqual([...state.stable.pages.keys()].sort((a, b) => a - b));
    for (const [i, p] of state.stable.pages) expect(restored.stable.pages.get(i)!.equals(p), `stable page ${i}`).toBe(true);
    expect(await head()).toEqual(block);
    expect(await rpc(url(), 'eth_getTransactionReceipt', [keccak256(undone)])).toBe(null);
    expect(await num('eth_getBalance', [to, 'latest'])).toBe(balance);
    expect(await num('eth_getTransactionCount', [privateKeyToAccount(key).address, 'latest'])).toBe(nonce);
    // Used up, with every later snapshot; unknown ids are false.
    expect(await rpc(url(), 'evm_revert', [id])).toBe(false);
    expect(await rpc(url(), 'evm_revert', [later])).toBe(false);
    expect((await rpcError('evm_revert', ['zz'])).code).toBe(-32602);

    // The chain goes on from the restored state, and a restart resumes it from the data folder.
    const raw = await signTransfer(key, 7n);
    await rpc(url(), 'eth_sendRawTransaction', [raw]);
    const receipt = await rpc(url(), 'eth_getTransactionReceipt', [keccak256(raw)]);
    expect(BigInt(receipt.blockNumber)).toBe(BigInt(block.number) + 1n);
    await d.stop();
    devnet = await startDevnet({ dataDir, blockTime: 0, gateway: { ...DEFAULT_CONFIG, port: 0 }, log: () => {} });
    expect(await rpc(url(), 'eth_getTransactionReceipt', [keccak256(raw)])).toEqual(receipt);
    expect(await num('eth_getBalance', [to, 'latest'])).toBe(balance + 7n);
  }, 900_000); // a restart runs post_upgrade (about 2 B instructions): minutes on a loaded machine

  it('repeated reads between blocks are answered from remembered replies, and a new block is seen at once', async () => {
    const d = devnet!;
    const n = await num('eth_blockNumber');
    const hits = d.host.queryCacheHits;
    expect(await num('eth_blockNumber')).toBe(n);
    expect(d.host.queryCacheHits).toBeGreaterThan(hits);
    await rpc(url(), 'evm_mine', []);
    expect(await num('eth_blockNumber')).toBe(n + 1n);
  });
});
