// Contract verification against `npm start`'s explorer (verification on, every shipped compiler allowed), with
// the contracts built and deployed by the developers' own tools:
// - forge builds and deploys a contract with constructor arguments and an immutable; it is verified through
//   the Etherscan-compatible /api with exactly the requests `forge verify-contract --verifier blockscout` sends
//   (forge itself cannot run the command offline: it looks the compiler's long version up online first): its
//   getabi check, the form with both constructor-argument spellings, its POSTed status polling; and through
//   Sourcify v2 as `--verifier sourcify` sends it (contract check, verify, job polling);
// - a Hardhat 2 project compiles (solc-js from npm), deploys and runs `hardhat verify` (hardhat-verify) against
//   the explorer configured as a custom chain, unmodified;
// - SPEC's API verifies a single-file contract; a wrong source is a mismatch; a disallowed compiler is refused;
// - `npm run explorer` (standalone, on PostgreSQL) keeps verified contracts across a restart and refuses to
//   start when an allowed compiler is missing.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeAbiParameters } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CHAIN_ID } from '../../src/core/constants.js';
import { devAccounts } from '../../src/devnet/accounts.js';
import { freePort, gatewayInternalErrors, Proc, removeDir, ROOT, runOk, sleep, tempDir } from '../support/e2e.js';
import { etherscanGet, etherscanPost, fixtureSource, getJson, pollUntil, postJson, type EtherscanAnswer } from '../support/explorer.js';
import { postgresTestDb } from '../support/postgres.js';

const url = inject('devnetUrl');
const explorerUrl = inject('explorerUrl');
const api = `${explorerUrl}/api`;
const account = devAccounts()[0]!;
const SOLC = join(ROOT, 'tests', 'e2e', 'fixtures', 'solc-js-cli.cjs');
const LONG = 'v0.8.37+commit.f401782d';
const vaultSrc = fixtureSource('Vault.sol');
const argsOf = (cap: bigint, label: string): string => encodeAbiParameters([{ type: 'uint256' }, { type: 'string' }], [cap, label]).slice(2);
let project: string;
let forgeInput: { sources: Record<string, unknown>; settings: Record<string, unknown> };
const vaults: Record<string, string> = {};

async function forgeCreate(cap: bigint, label: string): Promise<string> {
  const out = await runOk('forge', ['create', 'src/Vault.sol:Vault', '--broadcast', '--rpc-url', url, '--private-key', account.privateKey, '--constructor-args', String(cap), label], { cwd: project });
  const m = /Deployed to: (0x[0-9a-fA-F]{40})/.exec(out);
  expect(m, out).not.toBeNull();
  return m![1]!;
}

/** forge's status polling: POSTed checkverifystatus until the answer is no longer "Pending in queue". */
const forgeCheck = (guid: string): Promise<EtherscanAnswer> =>
  pollUntil(
    async () => (await etherscanPost(api, { apikey: 'any', module: 'contract', action: 'checkverifystatus', guid })).body,
    (b) => b.result !== 'Pending in queue',
  );

beforeAll(async () => {
  // The explorer answers a little after the gateway (its preflight loads every compiler).
  await pollUntil(
    async () => {
      try {
        return (await fetch(`${api}?module=contract&action=getabi&address=0x0000000000000000000000000000000000000000`)).status;
      } catch {
        return 0;
      }
    },
    (s) => s === 200,
    180_000,
  );
  project = tempDir('explorer-forge-');
  mkdirSync(join(project, 'src'));
  writeFileSync(join(project, 'src', 'Vault.sol'), vaultSrc);
  writeFileSync(
    join(project, 'foundry.toml'),
    ['[profile.default]', 'src = "src"', 'out = "out"', 'libs = []', 'offline = true', 'auto_detect_solc = false', `solc = "${SOLC}"`, 'evm_version = "prague"', 'optimizer = true', 'optimizer_runs = 200', ''].join('\n'),
  );
  await runOk('forge', ['build', '--build-info'], { cwd: project, timeoutMs: 180_000 });
  // The standard-JSON input forge compiled with (what `forge verify-contract` sends as sourceCode).
  const dir = join(project, 'out', 'build-info');
  const info = JSON.parse(readFileSync(join(dir, readdirSync(dir).find((f) => f.endsWith('.json'))!), 'utf8')) as { input: typeof forgeInput };
  forgeInput = info.input;
  vaults.etherscan = await forgeCreate(1000n, 'etherscan vault');
  vaults.sourcify = await forgeCreate(2000n, 'sourcify vault');
  vaults.spec = await forgeCreate(3000n, 'spec vault');
  vaults.other = await forgeCreate(4000n, 'other vault');
}, 600_000);

afterAll(() => removeDir(project));

describe('forge verify-contract --verifier blockscout (its requests)', () => {
  it('verifies the forge-built contract with constructor arguments and an immutable', async () => {
    // forge first asks whether the contract is verified already (getabi).
    const pre = await etherscanGet(api, { apikey: 'x', module: 'contract', action: 'getabi', address: vaults.etherscan! });
    expect(pre.body).toEqual({ status: '0', message: 'NOTOK', result: 'Contract source code not verified' });
    const args = argsOf(1000n, 'etherscan vault');
    const form = {
      apikey: 'x',
      module: 'contract',
      action: 'verifysourcecode',
      contractaddress: vaults.etherscan!,
      sourceCode: JSON.stringify(forgeInput),
      codeformat: 'solidity-standard-json-input',
      contractname: 'src/Vault.sol:Vault',
      compilerversion: LONG,
      constructorArguements: args,
      constructorArguments: args,
    };
    const sub = await etherscanPost(api, form);
    expect(sub).toMatchObject({ http: 200, body: { status: '1', message: 'OK' } });
    expect(await forgeCheck(sub.body.result)).toEqual({ status: '1', message: 'OK', result: 'Pass - Verified' });
    // forge's check on a second run, and a resubmission: "already verified" as forge expects it.
    expect(JSON.parse((await etherscanGet(api, { module: 'contract', action: 'getabi', address: vaults.etherscan! })).body.result)).toContainEqual(expect.objectContaining({ name: 'cap' }));
    expect((await etherscanPost(api, form)).body).toEqual({ status: '0', message: 'NOTOK', result: 'Contract source code already verified' });
    const src = (await etherscanGet(api, { module: 'contract', action: 'getsourcecode', address: vaults.etherscan! })).body.result[0];
    expect(src).toMatchObject({ ContractName: 'Vault', CompilerVersion: LONG, OptimizationUsed: '1', Runs: '200', EVMVersion: 'prague' });
    expect(JSON.parse(src.SourceCode.slice(1, -1)).sources['src/Vault.sol'].content).toBe(vaultSrc);
    // cast source reads the same API.
    const castSrc = await runOk('cast', ['source', vaults.etherscan!, '--chain', String(CHAIN_ID), '-e', 'x', '--explorer-api-url', api, '--explorer-url', explorerUrl]);
    expect(castSrc).toContain('contract Vault {');
  });

  it('refuses a wrong source as a mismatch and a disallowed compiler', async () => {
    const wrong = { ...forgeInput, sources: { 'src/Vault.sol': { content: vaultSrc.replace('cap - used', 'cap + used') } } };
    const sub = await etherscanPost(api, {
      module: 'contract',
      action: 'verifysourcecode',
      contractaddress: vaults.other!,
      sourceCode: JSON.stringify(wrong),
      codeformat: 'solidity-standard-json-input',
      contractname: 'src/Vault.sol:Vault',
      compilerversion: LONG,
    });
    expect(sub.body.status).toBe('1');
    const st = await forgeCheck(sub.body.result);
    expect(st.status).toBe('0');
    expect(st.result).toMatch(/^Fail - Unable to verify\. the compiled runtime code of src\/Vault\.sol:Vault does not match/);
    const dis = await etherscanPost(api, {
      module: 'contract',
      action: 'verifysourcecode',
      contractaddress: vaults.other!,
      sourceCode: JSON.stringify(forgeInput),
      codeformat: 'solidity-standard-json-input',
      contractname: 'src/Vault.sol:Vault',
      compilerversion: 'v0.8.30+commit.73712a01',
    });
    expect(dis).toMatchObject({ http: 200, body: { status: '0', message: 'NOTOK' } });
    expect(dis.body.result).toMatch(/^compiler v0\.8\.30\+commit\.73712a01 is not allowed on this explorer/);
  });
});

describe('forge verify-contract --verifier sourcify (its requests)', () => {
  it('verifies through Sourcify v2', async () => {
    const contractUrl = `${explorerUrl}/v2/contract/${CHAIN_ID}/${vaults.sourcify}`;
    expect((await getJson(contractUrl)).http).toBe(404);
    const sub = await postJson(`${explorerUrl}/v2/verify/${CHAIN_ID}/${vaults.sourcify}`, {
      stdJsonInput: forgeInput,
      compilerVersion: LONG.slice(1),
      contractIdentifier: 'src/Vault.sol:Vault',
    });
    expect(sub.http).toBe(202);
    const job = await pollUntil(async () => (await getJson(`${explorerUrl}/v2/verify/${sub.body.verificationId}`)).body, (b) => b.isJobCompleted === true);
    expect(job.error).toBeUndefined();
    expect(job.contract).toMatchObject({ match: 'exact_match', runtimeMatch: 'exact_match', chainId: String(CHAIN_ID) });
    expect((await getJson(contractUrl)).body).toMatchObject({ runtimeMatch: 'exact_match', address: vaults.sourcify!.toLowerCase() });
    const again = await postJson(`${explorerUrl}/v2/verify/${CHAIN_ID}/${vaults.sourcify}`, { stdJsonInput: forgeInput, compilerVersion: LONG.slice(1), contractIdentifier: 'src/Vault.sol:Vault' });
    expect(again).toMatchObject({ http: 409, body: { customCode: 'already_verified' } });
  });
});

describe("SPEC's API", () => {
  it('verifies a single-file contract: submit, then status', async () => {
    const sub = await postJson(`${explorerUrl}/api/verify/submit`, {
      address: vaults.spec,
      compilerVersion: '0.8.37',
      contractName: 'Vault',
      sourceCode: vaultSrc,
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'prague',
      constructorArguments: `0x${argsOf(3000n, 'spec vault')}`,
    });
    expect(sub).toMatchObject({ http: 202, body: { status: 'queued' } });
    const st = await pollUntil(async () => (await getJson(`${explorerUrl}/api/verify/status?id=${sub.body.id}`)).body, (b) => b.status === 'verified' || b.status === 'failed');
    // Compiled as Vault.sol rather than forge's src/Vault.sol: same code, different metadata hash.
    expect(st).toMatchObject({ status: 'verified', match: 'partial', address: vaults.spec!.toLowerCase() });
  });
});

describe('hardhat verify (hardhat-verify, custom chain)', () => {
  let work: string;
  beforeAll(() => {
    work = tempDir('explorer-hardhat-');
    mkdirSync(join(work, 'contracts'));
    writeFileSync(join(work, 'contracts', 'Vault.sol'), vaultSrc);
    writeFileSync(
      join(work, 'hardhat.config.cjs'),
      `// Hardhat 2 with hardhat-verify; solc-js from npm instead of a download.
require('@nomicfoundation/hardhat-verify');
const { subtask } = require('hardhat/config');
const { TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD } = require('hardhat/builtin-tasks/task-names');
subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD, async (args, _hre, runSuper) => {
  if (args.solcVersion !== '0.8.37') return runSuper();
  return { compilerPath: require.resolve('solc/soljson.js'), isSolcJs: true, version: '0.8.37', longVersion: '${LONG.slice(1)}' };
});
module.exports = {
  solidity: { version: '0.8.37', settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'prague' } },
  defaultNetwork: 'icp',
  networks: { icp: { url: process.env.E2E_RPC_URL, chainId: ${CHAIN_ID}, accounts: [process.env.E2E_PRIVATE_KEY], timeout: 60000 } },
  etherscan: {
    apiKey: { icp: 'any' },
    customChains: [{ network: 'icp', chainId: ${CHAIN_ID}, urls: { apiURL: process.env.E2E_EXPLORER_API, browserURL: process.env.E2E_EXPLORER_URL } }],
  },
  sourcify: { enabled: false },
};
`,
    );
    writeFileSync(
      join(work, 'deploy.cjs'),
      `const hre = require('hardhat');
async function main() {
  const a = await hre.artifacts.readArtifact('Vault');
  const p = hre.network.provider;
  const [from] = await p.request({ method: 'eth_accounts' });
  const hash = await p.request({ method: 'eth_sendTransaction', params: [{ from, data: a.bytecode + process.env.E2E_ARGS }] });
  for (let i = 0; i < 600; i++) {
    const r = await p.request({ method: 'eth_getTransactionReceipt', params: [hash] });
    if (r !== null) { console.log(JSON.stringify(r)); return; }
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error('no receipt');
}
main().catch((e) => { console.error(e); process.exit(1); });
`,
    );
  });
  afterAll(() => removeDir(work));

  it('compiles, deploys and verifies unmodified', async () => {
    const env = {
      E2E_RPC_URL: url,
      E2E_PRIVATE_KEY: account.privateKey,
      E2E_EXPLORER_API: api,
      E2E_EXPLORER_URL: explorerUrl,
      E2E_ARGS: argsOf(5n, 'hh vault'),
      HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true',
    };
    const hh = (args: string[]) => runOk('hardhat', ['--config', 'hardhat.config.cjs', ...args], { cwd: work, env, timeoutMs: 240_000 });
    await hh(['compile', '--quiet']);
    const out = await hh(['run', '--no-compile', 'deploy.cjs']);
    const receipt = JSON.parse(out.split('\n').at(-1)!) as { status: string; contractAddress: string };
    expect(receipt.status).toBe('0x1');
    const v = await hh(['verify', '--network', 'icp', receipt.contractAddress, '5', 'hh vault']);
    expect(v).toContain('Successfully verified contract Vault');
    const src = (await etherscanGet(api, { module: 'contract', action: 'getsourcecode', address: receipt.contractAddress })).body.result[0];
    expect(src).toMatchObject({ ContractName: 'Vault', CompilerVersion: LONG, ConstructorArguments: argsOf(5n, 'hh vault') });
    // A second run finds it verified.
    expect(await hh(['verify', '--network', 'icp', receipt.contractAddress, '5', 'hh vault'])).toMatch(/already (been )?verified/i);
  });
});

describe('npm run explorer (standalone, PostgreSQL)', () => {
  it('keeps verified contracts across a restart, and refuses to start without an allowed compiler', async (t) => {
    const pg = await postgresTestDb('explorer');
    if (typeof pg === 'string') {
      t.skip(pg);
      return;
    }
    await pg.db.close();
    const port = await freePort();
    const env = {
      INDEXER_DATABASE_URL: pg.url,
      EXPLORER_PORT: String(port),
      EXPLORER_RPC_URL: url,
      EXPLORER_VERIFY_ENABLED: '1',
      EXPLORER_VERIFY_ALLOWED_COMPILERS: '0.8.37',
    };
    const base = `http://127.0.0.1:${port}`;
    const start = async (): Promise<Proc> => {
      const p = new Proc('npm', ['run', '--silent', 'explorer'], { env });
      await pollUntil(
        async () => {
          if (!p.running) throw new Error(`npm run explorer exited:\n${p.output}`);
          return p.output.includes('explorer: http://');
        },
        (ready) => ready,
        120_000,
      );
      return p;
    };
    let proc: Proc | undefined;
    try {
      proc = await start();
      const sub = await postJson(`${base}/v2/verify/${CHAIN_ID}/${vaults.other}`, { stdJsonInput: forgeInput, compilerVersion: '0.8.37', contractIdentifier: 'src/Vault.sol:Vault' });
      expect(sub.http).toBe(202);
      const job = await pollUntil(async () => (await getJson(`${base}/v2/verify/${sub.body.verificationId}`)).body, (b) => b.isJobCompleted === true);
      expect(job.contract.runtimeMatch).toBe('exact_match');
      await proc.stop('SIGINT');
      expect(proc.output).toContain('explorer: stopped');
      proc = await start();
      const src = (await etherscanGet(`${base}/api`, { module: 'contract', action: 'getsourcecode', address: vaults.other! })).body.result[0];
      expect(src).toMatchObject({ ContractName: 'Vault', CompilerVersion: LONG });
      expect((await getJson(`${base}/v2/verify/${sub.body.verificationId}`)).body.contract.runtimeMatch).toBe('exact_match');
      await proc.stop('SIGINT');
      proc = undefined;

      const bad = new Proc('npm', ['run', '--silent', 'explorer'], { env: { ...env, EXPLORER_VERIFY_ALLOWED_COMPILERS: '0.8.37,0.8.1' } });
      expect(await bad.wait()).toBe(1);
      expect(bad.output).toContain('compiler 0.8.1 is not installed');
    } finally {
      await proc?.stop('SIGKILL');
      await pg.drop();
    }
  });
});

describe('the shared devnet', () => {
  it('logged no internal gateway or explorer errors', async () => {
    await sleep(0);
    expect(gatewayInternalErrors(inject('devnetLog'))).toEqual([]);
    expect(existsSync(inject('devnetLog')) ? readFileSync(inject('devnetLog'), 'utf8').split('\n').filter((l) => l.includes('[explorer]')) : []).toEqual([]);
  });
});
