// `npm start -- --block-time 0` in its own process, driven as Foundry and ethers scripts drive a local node:
// cast send and ethers' tx.wait() find their receipt at once (automine, no block timer to wait for), and the
// development methods (evm_snapshot / evm_revert, evm_mine, evm_increaseTime) work through both clients.
import { JsonRpcProvider, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devAccounts } from '../../src/devnet/accounts.js';
import { removeDir, rpc, runOk, startDevnetProcess, tempDir, type DevnetProcess } from '../support/e2e.js';

const [a0, , , , , , , a7, a8] = devAccounts();
let devnet: DevnetProcess;
let dataDir: string;
const cast = (...args: string[]) => runOk('cast', [...args, '--rpc-url', devnet.url]);

beforeAll(async () => {
  dataDir = tempDir('devnet-dev-');
  devnet = await startDevnetProcess({ dataDir, args: ['--block-time', '0'] });
}, 240_000);
afterAll(async () => {
  await devnet?.stop();
  removeDir(dataDir);
});

describe('npm start -- --block-time 0', () => {
  it('cast send gets its receipt from the block mined at submit; evm_snapshot / evm_revert undo it', async () => {
    const id = JSON.parse(await cast('rpc', 'evm_snapshot'));
    const n = Number(await cast('block-number'));
    const out = JSON.parse(await cast('send', '--private-key', a7!.privateKey, a8!.address, '--value', '1ether', '--json'));
    expect(out.status).toBe('0x1');
    expect(Number(out.blockNumber)).toBe(n + 1);
    expect(BigInt(await cast('balance', a8!.address))).toBe(10_001n * 10n ** 18n);
    await cast('rpc', 'evm_mine');
    expect(Number(await cast('block-number'))).toBe(n + 2);
    expect(JSON.parse(await cast('rpc', 'evm_revert', id))).toBe(true);
    expect(Number(await cast('block-number'))).toBe(n);
    expect(BigInt(await cast('balance', a8!.address))).toBe(10_000n * 10n ** 18n);
    expect(await rpc(devnet.url, 'eth_getTransactionReceipt', [out.transactionHash])).toBe(null);
  });

  it("ethers: tx.wait() resolves from the automined block; evm_increaseTime moves the next block's timestamp", async () => {
    // cacheTimeout -1: ethers otherwise answers a repeated getBlock('latest') within 250 ms from its own cache.
    const provider = new JsonRpcProvider(devnet.url, undefined, { staticNetwork: true, cacheTimeout: -1 });
    const wallet = new Wallet(a0!.privateKey, provider);
    const tx = await wallet.sendTransaction({ to: a8!.address, value: 5n });
    const receipt = await tx.wait(1, 10_000);
    expect(receipt?.status).toBe(1);
    const t0 = (await provider.getBlock('latest'))!.timestamp;
    await provider.send('evm_increaseTime', [3600]);
    await provider.send('evm_mine', []);
    expect((await provider.getBlock('latest'))!.timestamp).toBeGreaterThanOrEqual(t0 + 3600);
    provider.destroy();
  });
});
