// `npm start -- --block-time 0` in its own process, driven as Foundry and ethers scripts drive a local node:
// cast send and ethers' tx.wait() find their receipt at once (automine, no block timer to wait for), and the
// development methods (evm_snapshot / evm_revert, evm_mine, evm_increaseTime) work through both clients, and
// console.log calls (of a transaction and of an eth_call) are printed in the devnet's log.
import { JsonRpcProvider, Wallet } from 'ethers';
import { concat, createPublicClient, encodeFunctionData, getContractAddress, http, keccak256, parseAbi, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devAccounts } from '../../src/devnet/accounts.js';
import { CONSOLE_ADDRESS } from '../../src/devnet/console_log.js';
import { CREATE2_DEPLOYER, MULTICALL3 } from '../../src/devnet/predeploys.js';
import { removeDir, rpc, runOk, startDevnetProcess, tempDir, type DevnetProcess } from '../support/e2e.js';

const [a0, , a2, , , , , a7, a8] = devAccounts();
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

  it('predeploys: viem multicall of three reads through Multicall3; a CREATE2 through the deployer, sent with cast send --unlocked, lands at the predicted address', async () => {
    expect(keccak256((await rpc<Hex>(devnet.url, 'eth_getCode', [MULTICALL3.address, 'latest'])) as Hex)).toBe(MULTICALL3.codeHash);
    expect(keccak256((await rpc<Hex>(devnet.url, 'eth_getCode', [CREATE2_DEPLOYER.address, 'latest'])) as Hex)).toBe(CREATE2_DEPLOYER.codeHash);
    const client = createPublicClient({ transport: http(devnet.url) });
    const abi = parseAbi(['function getChainId() view returns (uint256)', 'function getEthBalance(address) view returns (uint256)', 'function getBlockNumber() view returns (uint256)']);
    const mc = MULTICALL3.address;
    const [chainId, balance, block] = await client.multicall({
      multicallAddress: mc,
      allowFailure: false,
      contracts: [
        { address: mc, abi, functionName: 'getChainId' },
        { address: mc, abi, functionName: 'getEthBalance', args: [a8!.address] },
        { address: mc, abi, functionName: 'getBlockNumber' },
      ],
    });
    expect(chainId).toBe(4801360n);
    expect(balance).toBe(await client.getBalance({ address: a8!.address }));
    // Calls run in the next block's environment (docs/read-api.md): NUMBER is the head's plus one.
    expect(block).toBe((await rpc<Hex>(devnet.url, 'eth_blockNumber').then(BigInt)) + 1n);

    // Init code deploying a 10-byte runtime that returns the word 42.
    const runtime = '0x602a60005260206000f3' as Hex;
    const init = concat(['0x69', runtime, '0x600052600a6016f3']);
    const salt = `0x${'11'.repeat(32)}` as Hex;
    const predicted = getContractAddress({ opcode: 'CREATE2', from: CREATE2_DEPLOYER.address, salt, bytecode: init });
    const out = JSON.parse(await cast('send', '--unlocked', '--from', a2!.address, CREATE2_DEPLOYER.address, concat([salt, init]), '--json'));
    expect(out.status).toBe('0x1');
    expect(out.from.toLowerCase()).toBe(a2!.address.toLowerCase());
    expect(await client.getCode({ address: predicted })).toBe(runtime);
    expect(BigInt(await client.call({ to: predicted }).then((r) => r.data ?? '0x0'))).toBe(42n);
  });

  it('console.log("x", 1) in a transaction and in an eth_call is printed in the devnet log under each', async () => {
    const abi = parseAbi(['function log(string, uint256)']);
    const out = JSON.parse(await cast('send', '--unlocked', '--from', a2!.address, CONSOLE_ADDRESS, encodeFunctionData({ abi, functionName: 'log', args: ['x', 1n] }), '--json'));
    expect(out.status).toBe('0x1');
    expect(await rpc(devnet.url, 'eth_call', [{ to: CONSOLE_ADDRESS, data: encodeFunctionData({ abi, functionName: 'log', args: ['from eth_call', 2n] }) }, 'latest'])).toBe('0x');
    const printed = (): string => devnet.proc.output;
    for (let i = 0; i < 300 && !(printed().includes('    x 1') && printed().includes('    from eth_call 2')); i++) await new Promise((r) => setTimeout(r, 100));
    expect(printed()).toContain(`console.log (block ${BigInt(out.blockNumber)}, tx ${out.transactionHash}):\n    x 1\n`);
    expect(printed()).toMatch(new RegExp(`console\\.log \\(eth_call to ${CONSOLE_ADDRESS}, block \\d+\\):\\n    from eth_call 2\\n`));
  });
});
