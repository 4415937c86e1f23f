// The anvil_* / hardhat_* development methods on the real devnet (the canister wasm in the Node IC host, through
// the JSON-RPC gateway): mining with intervals by anvil's and Hardhat's rules, automine and interval mining state,
// the block gas limit, the state cheats and impersonation (through the canister's dev_* methods), metadata and
// nodeInfo, and anvil_reset back to the genesis state.
import { rmSync } from 'node:fs';
import { keccak256, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { CHAIN_ID } from '../../src/core/constants.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';
import { DEFAULT_CONFIG } from '../../src/gateway/config.js';
import { projectTempDir } from '../../src/host/paths.js';
import { rpc } from '../support/e2e.js';

const dataDir = projectTempDir('devnet-cheats-');
let devnet: Devnet | undefined;
afterAll(async () => {
  await devnet?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const to = '0x000000000000000000000000000000000000bEEF' as Hex;
const url = (): string => devnet!.rpcUrl;
const call = <T = any>(method: string, params: unknown[] = []): Promise<T> => rpc<T>(url(), method, params);
const num = async (method: string, params: unknown[] = []): Promise<bigint> => BigInt(await call<string>(method, params));
const block = async (tag: string | bigint): Promise<{ number: string; timestamp: string; hash: string; gasLimit: string; baseFeePerGas: string; miner: string }> =>
  call('eth_getBlockByNumber', [typeof tag === 'bigint' ? `0x${tag.toString(16)}` : tag, false]);

async function signTransfer(key: Hex, value: bigint): Promise<Hex> {
  const account = privateKeyToAccount(key);
  const nonce = Number(await num('eth_getTransactionCount', [account.address, 'pending']));
  return account.signTransaction({ type: 'legacy', chainId: Number(CHAIN_ID), nonce, gasPrice: 1000n * 10n ** 9n, gas: 21_000n, to, value });
}

describe('devnet: anvil_* / hardhat_* mining and node methods', () => {
  it('anvil_mine and hardhat_mine space their blocks by each rule', async () => {
    devnet = await startDevnet({ dataDir, blockTime: 0, gateway: { ...DEFAULT_CONFIG, port: 0 }, log: () => {} });
    const n0 = await num('eth_blockNumber');
    const t0 = BigInt((await block('latest')).timestamp);
    expect(await call('anvil_mine', ['0x3', '0x64'])).toBe(null);
    expect(await num('eth_blockNumber')).toBe(n0 + 3n);
    let prev = t0;
    for (let i = 1n; i <= 3n; i++) {
      const t = BigInt((await block(n0 + i)).timestamp);
      expect(t - prev).toBeGreaterThanOrEqual(100n);
      prev = t;
    }
    expect(await call('hardhat_mine', ['0x3', '0x32'])).toBe(true);
    const ts = await Promise.all([4n, 5n, 6n].map(async (i) => BigInt((await block(n0 + i)).timestamp)));
    expect(ts[0]! - prev).toBeGreaterThanOrEqual(1n);
    // Each later block 50 s after the previous (one more second when a block took longer than the rest of one).
    for (const d of [ts[1]! - ts[0]!, ts[2]! - ts[1]!]) expect([50n, 51n]).toContain(d);
    expect(await call('hardhat_mine', [])).toBe(true);
    expect(await call('anvil_mine', ['0x0'])).toBe(null);
    expect(await num('eth_blockNumber')).toBe(n0 + 7n);
  });

  it('automine and interval mining: getAutomine, setIntervalMining(0) stops mining, evm_setAutomine restarts it', async () => {
    expect(await call('anvil_getAutomine')).toBe(true);
    expect(await call('hardhat_getAutomine')).toBe(true);
    expect(await call('anvil_getIntervalMining')).toBe(null);
    expect(await call('evm_setIntervalMining', [0])).toBe(null);
    expect(await call('anvil_getAutomine')).toBe(false);
    const raw = await signTransfer(devnet!.accounts[1]!.privateKey, 1n);
    const head = await num('eth_blockNumber');
    await call('eth_sendRawTransaction', [raw]);
    expect(await call('eth_getTransactionReceipt', [keccak256(raw)])).toBe(null);
    expect(await num('eth_blockNumber')).toBe(head);
    await call('evm_mine');
    expect((await call('eth_getTransactionReceipt', [keccak256(raw)]))?.status).toBe('0x1');
    expect(await call('anvil_setIntervalMining', [60])).toBe(null);
    expect(await call('anvil_getIntervalMining')).toBe(60);
    expect(await call('anvil_setAutomine', [true])).toBe(null);
    expect(await call('anvil_setIntervalMining', [0])).toBe(null);
    expect(await call('evm_setAutomine', [true])).toBe(null);
    expect(await call('anvil_getAutomine')).toBe(true);
  });

  it('evm_setBlockGasLimit sets the next blocks\' gas limit; out of bounds is -32602', async () => {
    const before = (await block('latest')).gasLimit;
    expect(await call('evm_setBlockGasLimit', ['0x2dc6c0'])).toBe(true);
    await call('evm_mine');
    expect(BigInt((await block('latest')).gasLimit)).toBe(3_000_000n);
    await expect(call('evm_setBlockGasLimit', ['0x1'])).rejects.toMatchObject({ code: -32602 });
    expect(await call('anvil_setBlockGasLimit', [before])).toBe(true);
    await call('evm_mine');
    expect((await block('latest')).gasLimit).toBe(before);
  });

  it('state cheats: balance, code, nonce and storage read back at latest; impersonated sends get ordinary receipts; drop, base fee, coinbase', async () => {
    const A = '0x00000000000000000000000000000000000000a1';
    expect(await call('anvil_setBalance', [A, '0xde0b6b3a7640000'])).toBe(null);
    expect(await num('eth_getBalance', [A, 'latest'])).toBe(10n ** 18n);
    expect(await call('hardhat_setNonce', [A, 7])).toBe(true);
    expect(await num('eth_getTransactionCount', [A, 'latest'])).toBe(7n);
    expect(await call('hardhat_setCode', [A, '0x602a60005260206000f3'])).toBe(true);
    expect(await call('eth_getCode', [A, 'latest'])).toBe('0x602a60005260206000f3');
    expect(BigInt(await call('eth_call', [{ to: A }, 'latest']))).toBe(42n);
    const value = `0x${'00'.repeat(31)}2a`;
    expect(await call('anvil_setStorageAt', [A, '0x3', value])).toBe(true);
    expect(await call('eth_getStorageAt', [A, '0x3', 'latest'])).toBe(value);
    expect(await call('hardhat_setCode', [A, '0x'])).toBe(true);

    // Impersonation: a transfer out of an address nobody has the key of.
    const W = '0x00000000000000000000000000000000000dead1';
    const b = devnet!.accounts[3]!.address;
    expect(await call('anvil_setBalance', [W, '0x56bc75e2d63100000'])).toBe(null);
    await expect(call('eth_sendTransaction', [{ from: W, to: b, value: '0x1' }])).rejects.toMatchObject({ code: -32602, message: 'No Signer available' });
    expect(await call('anvil_impersonateAccount', [W])).toBe(null);
    expect(await call('eth_accounts')).toContain(W);
    const before = await num('eth_getBalance', [b, 'latest']);
    const hash = await call<string>('eth_sendTransaction', [{ from: W, to: b, value: '0xde0b6b3a7640000' }]);
    const receipt = await call('eth_getTransactionReceipt', [hash]);
    expect(receipt).toMatchObject({ status: '0x1', from: W, to: b.toLowerCase() });
    expect(await num('eth_getBalance', [b, 'latest'])).toBe(before + 10n ** 18n);
    expect((await call('eth_getTransactionByHash', [hash])).from).toBe(W);
    expect(await call('hardhat_stopImpersonatingAccount', [W])).toBe(true);
    await expect(call('eth_sendTransaction', [{ from: W, to: b, value: '0x1' }])).rejects.toMatchObject({ code: -32602 });

    // Drop: a pending transaction leaves the pool.
    expect(await call('evm_setAutomine', [false])).toBe(null);
    const raw = await signTransfer(devnet!.accounts[4]!.privateKey, 3n);
    const pending = await call<string>('eth_sendRawTransaction', [raw]);
    expect(await call('anvil_dropTransaction', [pending])).toBe(pending);
    expect(await call('hardhat_dropTransaction', [pending])).toBe(false);
    await call('evm_mine');
    expect(await call('eth_getTransactionReceipt', [pending])).toBe(null);
    expect(await call('evm_setAutomine', [true])).toBe(null);

    // The next block's base fee, once; the coinbase of the following blocks.
    const C = '0x00000000000000000000000000000000000c0b0e';
    expect(await call('hardhat_setNextBlockBaseFeePerGas', ['0x3b9aca000'])).toBe(true);
    expect(await call('anvil_setCoinbase', [C])).toBe(null);
    await call('evm_mine');
    const mined = await block('latest');
    expect(BigInt(mined.baseFeePerGas)).toBe(16_000_000_000n);
    expect(mined.miner).toBe(C);
    await expect(call('anvil_setMinGasPrice', ['0x1'])).rejects.toMatchObject({ code: -32602, message: 'anvil_setMinGasPrice is not supported when EIP-1559 is active' });
  });

  it('metadata and nodeInfo describe the head; anvil_reset goes back to genesis with a new instanceId', async () => {
    const head = await block('latest');
    const id = await call('evm_snapshot');
    const meta = await call('anvil_metadata');
    expect(meta).toMatchObject({ chainId: Number(CHAIN_ID), latestBlockNumber: Number(head.number), latestBlockHash: head.hash, forkedNetwork: null, snapshots: { [id]: [Number(head.number), head.hash] } });
    expect(meta.clientVersion).toBe(await call('web3_clientVersion'));
    expect(await call('hardhat_metadata')).toEqual({ clientVersion: meta.clientVersion, chainId: meta.chainId, instanceId: meta.instanceId, latestBlockNumber: meta.latestBlockNumber, latestBlockHash: meta.latestBlockHash });
    expect(await call('anvil_nodeInfo')).toMatchObject({ currentBlockNumber: head.number, currentBlockHash: head.hash, currentBlockTimestamp: Number(head.timestamp), hardFork: 'Prague', environment: { chainId: Number(CHAIN_ID), baseFee: head.baseFeePerGas } });

    const genesis = await block('0x0');
    const a1 = devnet!.accounts[1]!.address;
    expect(await num('eth_getBalance', [a1, 'latest'])).toBeLessThan(10_000n * 10n ** 18n);
    expect(await call('anvil_reset', [])).toBe(null);
    expect(await num('eth_blockNumber')).toBe(0n);
    expect((await block('0x0')).hash).toBe(genesis.hash);
    expect(await call('eth_getBlockByNumber', ['0x1', false])).toBe(null);
    expect(await num('eth_getBalance', [a1, 'latest'])).toBe(10_000n * 10n ** 18n);
    const after = await call('anvil_metadata');
    expect(after.snapshots).toEqual({});
    expect(after.instanceId).not.toBe(meta.instanceId);
    expect(await call('evm_revert', [id])).toBe(false);
    // Automine still on: a transfer is in a block when the submit answers.
    const raw = await signTransfer(devnet!.accounts[2]!.privateKey, 5n);
    await call('eth_sendRawTransaction', [raw]);
    expect((await call('eth_getTransactionReceipt', [keccak256(raw)]))?.blockNumber).toBe('0x1');
    expect(await call('hardhat_reset', [{}])).toBe(true);
    expect(await num('eth_blockNumber')).toBe(0n);
  });
});
