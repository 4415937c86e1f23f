// Hardhat 2 (from npm; v3 needs Node >= 22.10, this project runs on 20) deploying to the devnet configured as a
// remote network: URL, chainId 4801360 (Hardhat checks it against eth_chainId), accounts = a development key.
// `hardhat run --no-compile` runs fixtures/hardhat/scripts/deploy.cjs, which sends precompiled solc-js bytecode
// through Hardhat's own provider: Hardhat signs locally and picks gas (eth_estimateGas) and EIP-1559 fees
// (eth_feeHistory's newest reward as the tip), so no compiler is downloaded and Hardhat's defaults are tested.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeDeployData, encodeFunctionData, decodeFunctionResult, type Abi, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CHAIN_ID, DEFAULT_MIN_PRIORITY_FEE } from '../../src/core/constants.js';
import { devAccounts } from '../../src/devnet/accounts.js';
import { compileFixture } from '../fixtures/solidity/compile.js';
import { gatewayInternalErrors, removeDir, ROOT, rpc, runOk, tempDir } from '../support/e2e.js';

const url = inject('devnetUrl');
const account = devAccounts()[5]!;
const to = '0x00000000000000000000000000000000000c0ffe' as Hex;
const token = compileFixture('Token.sol', 'Token');
const abi = token.abi as Abi;
const SUPPLY = 10n ** 24n;
let work: string;

beforeAll(() => {
  work = tempDir('hardhat-');
  mkdirSync(join(work, 'cache'));
});
afterAll(() => removeDir(work));

describe('hardhat', () => {
  it('deploys precompiled bytecode and sends transactions through its network provider with its default fees', async () => {
    const plan = join(work, 'plan.json');
    writeFileSync(
      plan,
      JSON.stringify({
        deployData: encodeDeployData({ abi, bytecode: token.bytecode, args: ['Hardhat', 'HH', SUPPLY] }),
        // Two transactions after the deployment: each prices its tip from the newest block's reward.
        calls: [encodeFunctionData({ abi, functionName: 'transfer', args: [to, 5n] }), encodeFunctionData({ abi, functionName: 'approve', args: [to, 7n] })],
        queries: [encodeFunctionData({ abi, functionName: 'balanceOf', args: [to] }), encodeFunctionData({ abi, functionName: 'allowance', args: [account.address, to] })],
      }),
    );
    const out = await runOk('hardhat', ['run', '--no-compile', '--network', 'icp', 'scripts/deploy.cjs'], {
      cwd: join(ROOT, 'tests', 'e2e', 'fixtures', 'hardhat'),
      env: {
        E2E_RPC_URL: url,
        E2E_PRIVATE_KEYS: account.privateKey,
        E2E_HARDHAT_PLAN: plan,
        E2E_HARDHAT_CACHE: join(work, 'cache'),
        E2E_HARDHAT_ARTIFACTS: join(work, 'artifacts'),
        HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true',
      },
      timeoutMs: 180_000,
    });
    const r = JSON.parse(out.split('\n').at(-1)!) as {
      network: string;
      from: string;
      chainId: string;
      deployTx: { type: string; maxPriorityFeePerGas: string; maxFeePerGas: string };
      deploy: { status: string; contractAddress: string; gasUsed: string };
      calls: { status: string; logs: unknown[] }[];
      queries: Hex[];
    };
    expect(r.network).toBe('icp');
    expect(r.from.toLowerCase()).toBe(account.address.toLowerCase());
    expect(BigInt(r.chainId)).toBe(CHAIN_ID);
    // Hardhat chose an EIP-1559 transaction with a tip the chain accepts.
    expect(r.deployTx.type).toBe('0x2');
    expect(BigInt(r.deployTx.maxPriorityFeePerGas)).toBeGreaterThanOrEqual(DEFAULT_MIN_PRIORITY_FEE);
    expect(r.deploy.status).toBe('0x1');
    expect(await rpc(url, 'eth_getCode', [r.deploy.contractAddress, 'latest'])).toBe(token.deployedBytecode);
    expect(r.calls.map((c) => [c.status, c.logs.length])).toEqual([
      ['0x1', 1],
      ['0x1', 1],
    ]);
    expect(r.queries.map((q, i) => decodeFunctionResult({ abi, functionName: i === 0 ? 'balanceOf' : 'allowance', data: q }))).toEqual([5n, 7n]);
    expect(await rpc(url, 'eth_getTransactionCount', [account.address, 'latest'])).toBe('0x3');
  });
});

describe('the shared devnet', () => {
  it('logged no internal gateway errors', () => {
    expect(gatewayInternalErrors(inject('devnetLog'))).toEqual([]);
  });
});
