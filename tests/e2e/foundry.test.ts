// Foundry's cast and forge, the binaries from npm (@foundry-rs/cast-linux-amd64, @foundry-rs/forge-linux-amd64), unmodified and with
// their default fee logic, against `npm start`. forge compiles with solc-js from npm through a small command
// line (fixtures/solc-js-cli.cjs: `--version` and `--standard-json`, what forge calls a solc with), named in the
// project's foundry.toml (`solc = ...`, `offline = true`): no compiler is downloaded.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { devAccounts } from '../../src/devnet/accounts.js';
import { gatewayInternalErrors, removeDir, ROOT, rpc, run, runOk, tempDir } from '../support/e2e.js';

const url = inject('devnetUrl');
const [, , , deployer, receiver] = devAccounts();
const SOLC = join(ROOT, 'tests', 'e2e', 'fixtures', 'solc-js-cli.cjs');
const cast = (...args: string[]) => runOk('cast', [...args, '--rpc-url', url]);
let project: string;

beforeAll(() => {
  project = tempDir('forge-');
  mkdirSync(join(project, 'src'));
  cpSync(join(ROOT, 'tests', 'fixtures', 'solidity', 'Token.sol'), join(project, 'src', 'Token.sol'));
  writeFileSync(
    join(project, 'foundry.toml'),
    ['[profile.default]', 'src = "src"', 'out = "out"', 'libs = []', 'offline = true', 'auto_detect_solc = false', `solc = "${SOLC}"`, 'evm_version = "prague"', 'optimizer = true', 'optimizer_runs = 200', ''].join('\n'),
  );
});
afterAll(() => removeDir(project));

describe('cast', () => {
  let txHash: string;

  it('cast chain-id prints 4801360', async () => {
    expect(await cast('chain-id')).toBe('4801360');
  });

  it('cast send: a value transfer with a development key and cast’s own fees', async () => {
    const before = BigInt(await cast('balance', receiver!.address));
    const out = JSON.parse(await cast('send', '--private-key', deployer!.privateKey, receiver!.address, '--value', '1ether', '--json'));
    expect(out.status).toBe('0x1');
    txHash = out.transactionHash;
    expect(BigInt(await cast('balance', receiver!.address)) - before).toBe(10n ** 18n);
  });

  it('cast receipt and cast tx read it back', async () => {
    const r = JSON.parse(await cast('receipt', txHash, '--json'));
    expect(r).toMatchObject({ status: '0x1', transactionHash: txHash, gasUsed: '0x5208', type: '0x2' });
    expect(r.from.toLowerCase()).toBe(deployer!.address.toLowerCase());
    expect(BigInt(r.effectiveGasPrice)).toBeGreaterThanOrEqual(250n * 10n ** 9n);
    const tx = JSON.parse(await cast('tx', txHash, '--json'));
    expect(BigInt(tx.maxPriorityFeePerGas)).toBeGreaterThanOrEqual(250n * 10n ** 9n);
    expect(await cast('receipt', txHash, 'status')).toMatch(/^(1|true)\b/);
  });
});

describe('forge', () => {
  let token: string;

  it('forge build compiles with solc-js (no download)', async () => {
    const out = await runOk('forge', ['build'], { cwd: project });
    expect(out).toContain('Compiler run successful');
    expect(out).toMatch(/Solc 0\.8\.\d+ finished/);
  });

  it('forge create deploys the ERC-20 from a development key', async () => {
    const out = await runOk('forge', ['create', 'src/Token.sol:Token', '--broadcast', '--rpc-url', url, '--private-key', deployer!.privateKey, '--constructor-args', 'Forge', 'FRG', '1000000'], { cwd: project });
    const m = /Deployed to: (0x[0-9a-fA-F]{40})\s+Transaction hash: (0x[0-9a-f]{64})/.exec(out);
    expect(m, out).not.toBeNull();
    token = m![1]!;
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [m![2]]);
    expect(receipt.status).toBe('0x1');
    expect(receipt.contractAddress.toLowerCase()).toBe(token.toLowerCase());
    const artifact = JSON.parse(readFileSync(join(project, 'out', 'Token.sol', 'Token.json'), 'utf8')) as { deployedBytecode: { object: string } };
    expect(await cast('code', token)).toBe(artifact.deployedBytecode.object);
  });

  it('cast call and cast send drive the deployed contract', async () => {
    expect(await cast('call', token, 'balanceOf(address)(uint256)', deployer!.address)).toMatch(/^1000000\b/);
    expect(await cast('call', token, 'symbol()(string)')).toBe('"FRG"');
    const out = JSON.parse(await cast('send', '--private-key', deployer!.privateKey, token, 'transfer(address,uint256)', receiver!.address, '250', '--json'));
    expect(out.status).toBe('0x1');
    expect(out.logs).toHaveLength(1);
    expect(await cast('call', token, 'balanceOf(address)(uint256)', receiver!.address)).toBe('250');
  });

  it('a reverting send is refused at estimation with the revert data', async () => {
    const r = await run('cast', ['send', '--private-key', receiver!.privateKey, token, 'transfer(address,uint256)', deployer!.address, '1000', '--rpc-url', url]);
    expect(r.code).not.toBe(0);
    // InsufficientBalance(address,uint256,uint256) selector
    expect(r.stderr).toContain('execution reverted');
    expect(r.stderr.toLowerCase()).toContain('0xdb42144d');
  });
});

describe('the shared devnet', () => {
  it('logged no internal gateway errors', () => {
    expect(gatewayInternalErrors(inject('devnetLog'))).toEqual([]);
  });
});
