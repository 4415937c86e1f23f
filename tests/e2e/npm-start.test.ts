// The check, literally: `npm start` on a fresh data folder serves JSON-RPC; `cast chain-id` prints
// 4801360; a value transfer and a contract deployment from the first development account succeed with status 1;
// after Ctrl-C and a second `npm start` on the same folder, both are still there and the chain goes on.
// (Its own devnet process: the shared one must not be stopped. A free port through RPC_GATEWAY_PORT instead of
// 8545, which another devnet on this machine may hold; 8545 as the default is checked in
// tests/unit/gateway_config.test.ts.)
import { afterAll, describe, expect, it } from 'vitest';
import { devAccounts } from '../../src/devnet/accounts.js';
import { compileFixture } from '../fixtures/solidity/compile.js';
import { encodeDeployData, type Abi } from 'viem';
import { removeDir, runOk, startDevnetProcess, tempDir, type DevnetProcess } from '../support/e2e.js';

const dataDir = tempDir('npm-start-');
const [first] = devAccounts();
const to = '0x000000000000000000000000000000000000dead';
const token = compileFixture('Token.sol', 'Token');
let devnet: DevnetProcess | undefined;
const cast = (cmd: string, ...args: string[]) => runOk('cast', [cmd, '--rpc-url', devnet!.url, ...args]);

afterAll(async () => {
  await devnet?.stop();
  removeDir(dataDir);
});

describe('npm start', () => {
  let transfer: string;
  let deployment: string;
  let contract: string;

  it('serves JSON-RPC on a fresh data folder; cast chain-id prints 4801360', async () => {
    devnet = await startDevnetProcess({ dataDir });
    expect(devnet.proc.output).toContain(`JSON-RPC: ${devnet.url}`);
    expect(devnet.proc.output).toContain('new chain');
    expect(await cast('chain-id')).toBe('4801360');
  });

  it('a value transfer from the first development account: status 1', async () => {
    const r = JSON.parse(await cast('send', '--private-key', first!.privateKey, to, '--value', '3ether', '--json'));
    expect(r.status).toBe('0x1');
    transfer = r.transactionHash;
    expect(await cast('balance', to)).toBe('3000000000000000000');
  });

  it('a contract deployment from the first development account: status 1', async () => {
    const data = encodeDeployData({ abi: token.abi as Abi, bytecode: token.bytecode, args: ['Start', 'STA', 1000n] });
    const r = JSON.parse(await cast('send', '--private-key', first!.privateKey, '--json', '--create', data));
    expect(r.status).toBe('0x1');
    deployment = r.transactionHash;
    contract = r.contractAddress;
    expect(await cast('code', contract)).toBe(token.deployedBytecode);
  });

  it('Ctrl-C stops it with the state kept; a second npm start resumes with both receipts', async () => {
    await devnet!.stop();
    expect(devnet!.proc.output).toContain(`stopped; state kept in ${dataDir}`);
    devnet = await startDevnetProcess({ dataDir });
    expect(devnet.proc.output).toContain('resumed');
    for (const hash of [transfer, deployment]) {
      const r = JSON.parse(await cast('receipt', hash, '--json'));
      expect(r.status).toBe('0x1');
    }
    expect(JSON.parse(await cast('receipt', deployment, '--json')).contractAddress).toBe(contract);
    expect(await cast('balance', to)).toBe('3000000000000000000');
    expect(await cast('code', contract)).toBe(token.deployedBytecode);
    expect(await cast('call', contract, 'totalSupply()(uint256)')).toBe('1000');
    expect(await cast('nonce', first!.address)).toBe('2');
  });

  it('and the chain goes on after the restart', async () => {
    const r = JSON.parse(await cast('send', '--private-key', first!.privateKey, contract, 'transfer(address,uint256)', to, '1', '--json'));
    expect(r.status).toBe('0x1');
    expect(await cast('call', contract, 'balanceOf(address)(uint256)', to)).toBe('1');
    expect(await cast('nonce', first!.address)).toBe('3');
    expect(devnet!.proc.output).not.toContain('[gateway]');
  });
});
