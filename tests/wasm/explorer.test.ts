// The explorer's verification against a real chain: the devnet (real canister wasm, gateway on an ephemeral
// port) runs real deployments; the test writes the rows the indexer would write for them into the explorer's
// database (PGlite in a temp folder), then verifies through SPEC's API, the Etherscan-compatible /api and
// Sourcify v2: full matches with constructor arguments and immutables, a library linked through
// settings.libraries, a contract created by a contract (runtime only), the oldest shipped compiler, and every
// refusal (mismatch, wrong arguments, disallowed compiler, no code, wrong chain, malformed and oversized input).
// A restart on the same folder keeps verified contracts and runs a job a crash left running.
import { rmSync } from 'node:fs';
import { createPublicClient, createWalletClient, defineChain, encodeAbiParameters, http, parseEventLogs, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAIN_ID } from '../../src/core/constants.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';
import { CompilerPool } from '../../src/explorer/compilers.js';
import { DEFAULT_EXPLORER_CONFIG, preflight, PreflightError, type ExplorerConfig } from '../../src/explorer/config.js';
import { startExplorer, type Explorer } from '../../src/explorer/index.js';
import { DEFAULT_CONFIG } from '../../src/gateway/config.js';
import { projectTempDir } from '../../src/host/paths.js';
import { openDb, type Db } from '../../src/indexer/db.js';
import {
  compile,
  etherscanGet,
  etherscanPost,
  fixtureSource,
  getJson,
  indexTransaction,
  plantedTrailerSource,
  pollUntil,
  postJson,
  stdJson,
  type EtherscanAnswer,
} from '../support/explorer.js';

const dataDir = projectTempDir('explorer-chain-');
const dbDir = projectTempDir('explorer-db-');
const chain = defineChain({ id: Number(CHAIN_ID), name: 'devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: ['http://127.0.0.1:8545'] } } });
let devnet: Devnet;
let db: Db;
let explorer: Explorer;
let api: string;

const vaultSrc = fixtureSource('Vault.sol');
const vaultInput = stdJson({ 'src/Vault.sol': vaultSrc });
const vault = compile(vaultInput, 'src/Vault.sol', 'Vault');
const factory = compile(vaultInput, 'src/Vault.sol', 'VaultFactory');
const CAP = 123456789n;
const vaultArgs = encodeAbiParameters([{ type: 'uint256' }, { type: 'string' }], [CAP, 'first vault']).slice(2);

const config = (): ExplorerConfig => ({
  ...DEFAULT_EXPLORER_CONFIG,
  port: 0,
  verifyEnabled: true,
  // 0.7.6 and 0.6.12 are installed but not allowed here.
  allowedCompilers: ['0.8.37', 'v0.5.17+commit.d19bba13'],
  rpcUrl: devnet.rpcUrl,
  limits: { ...DEFAULT_EXPLORER_CONFIG.limits, maxFiles: 3, maxFileBytes: 64 * 1024, maxRequestBytes: 1024 * 1024 },
});

const addrs: Record<string, Hex> = {};
const txs: Record<string, Hex> = {};

async function deploy(key: string, abi: unknown[], bytecode: Hex, args: unknown[] = [], account = 0): Promise<void> {
  const pub = createPublicClient({ chain, transport: http(devnet.rpcUrl) });
  const wallet = createWalletClient({ chain, transport: http(devnet.rpcUrl), account: privateKeyToAccount(devnet.accounts[account]!.privateKey) });
  const hash = await wallet.deployContract({ abi: abi as Abi, bytecode, args, account: wallet.account!, chain });
  const r = await pub.waitForTransactionReceipt({ hash, pollingInterval: 200, timeout: 60_000 });
  expect(r.status).toBe('success');
  addrs[key] = r.contractAddress!;
  txs[key] = hash;
}

const etherscanStatus = (guid: string): Promise<EtherscanAnswer> =>
  pollUntil(
    async () => (await etherscanPost(api, { apikey: 'any', module: 'contract', action: 'checkverifystatus', guid })).body,
    (b) => b.result !== 'Pending in queue',
  );

const specStatus = (id: string): Promise<any> =>
  pollUntil(
    async () => (await getJson(`${explorer.url}/api/verify/status?id=${id}`)).body,
    (b) => b.status === 'verified' || b.status === 'failed',
  );

beforeAll(async () => {
  devnet = await startDevnet({ dataDir, gateway: { ...DEFAULT_CONFIG, port: 0 }, log: () => {} });
  await deploy('vault', vault.abi, vault.bytecode, [CAP, 'first vault']);
  await deploy('vault2', vault.abi, vault.bytecode, [7n, 'second vault']);
  await deploy('vault3', vault.abi, vault.bytecode, [8n, 'third vault']);
  await deploy('factory', factory.abi, factory.bytecode);
  db = await openDb({ dataDir: dbDir });
  explorer = await startExplorer({ config: config(), db, log: (l) => console.error(l) });
  api = `${explorer.url}/api`;
  // The indexer's rows for the top-level creations (the factory's child is created inside a call).
  for (const k of ['vault', 'vault2', 'vault3', 'factory']) await indexTransaction(db, devnet.rpcUrl, txs[k]!);
}, 300_000);

afterAll(async () => {
  await explorer?.close();
  await db?.close();
  await devnet?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(dbDir, { recursive: true, force: true });
});

describe('preflight', () => {
  it('loads each allowed compiler and names a missing one', async () => {
    const pool = new CompilerPool({ compileTimeoutMs: 60_000 });
    try {
      const ok = await preflight(['0.8.37', 'v0.6.12+commit.27d51765'], pool);
      expect(ok.map((c) => c.longVersion)).toEqual(['v0.8.37+commit.f401782d', 'v0.6.12+commit.27d51765']);
      await expect(preflight(['0.8.37', '0.8.1'], pool)).rejects.toThrow(/compiler 0\.8\.1 is not installed/);
      await expect(preflight(['v0.8.37+commit.deadbeef'], pool)).rejects.toBeInstanceOf(PreflightError);
    } finally {
      await pool.close();
    }
  });
});

describe('Etherscan-compatible /api (the requests forge --verifier blockscout sends)', () => {
  it('answers the exact "not verified" texts before verification', async () => {
    const abi = await etherscanGet(api, { module: 'contract', action: 'getabi', address: addrs.vault!, apikey: 'x' });
    expect(abi).toEqual({ http: 200, body: { status: '0', message: 'NOTOK', result: 'Contract source code not verified' } });
    const src = await etherscanGet(api, { module: 'contract', action: 'getsourcecode', address: addrs.vault! });
    expect(src.body.status).toBe('1');
    expect(src.body.result[0].SourceCode).toBe('');
    expect(src.body.result[0].ABI).toBe('Contract source code not verified');
  });

  it('verifies standard JSON with constructor arguments (both spellings) and an immutable: full match', async () => {
    const fields = {
      apikey: 'anything',
      module: 'contract',
      action: 'verifysourcecode',
      contractaddress: addrs.vault!,
      sourceCode: JSON.stringify(vaultInput),
      codeformat: 'solidity-standard-json-input',
      contractname: 'src/Vault.sol:Vault',
      compilerversion: 'v0.8.37+commit.f401782d',
      constructorArguements: vaultArgs,
      constructorArguments: vaultArgs,
    };
    const sub = await etherscanPost(api, fields);
    expect(sub.http).toBe(200);
    expect(sub.body).toMatchObject({ status: '1', message: 'OK' });
    const st = await etherscanStatus(sub.body.result);
    expect(st).toEqual({ status: '1', message: 'OK', result: 'Pass - Verified' });
    const again = await etherscanPost(api, fields);
    expect(again.body).toEqual({ status: '0', message: 'NOTOK', result: 'Contract source code already verified' });
  });

  it('answers getabi, getsourcecode (cast source shape) and getcontractcreation for the verified contract', async () => {
    const abi = await etherscanGet(api, { module: 'contract', action: 'getabi', address: addrs.vault! });
    expect(abi.body.status).toBe('1');
    expect(JSON.parse(abi.body.result)).toEqual(vault.abi);
    const src = await etherscanGet(api, { module: 'contract', action: 'getsourcecode', address: addrs.vault! });
    const rec = src.body.result[0];
    expect(rec).toMatchObject({ ContractName: 'Vault', CompilerVersion: 'v0.8.37+commit.f401782d', OptimizationUsed: '1', Runs: '200', ConstructorArguments: vaultArgs, EVMVersion: 'prague' });
    expect(rec.SourceCode.startsWith('{{') && rec.SourceCode.endsWith('}}')).toBe(true);
    expect(JSON.parse(rec.SourceCode.slice(1, -1)).sources['src/Vault.sol'].content).toBe(vaultSrc);
    const cc = await etherscanGet(api, { module: 'contract', action: 'getcontractcreation', contractaddresses: addrs.vault! });
    expect(cc.body.result).toEqual([{ contractAddress: addrs.vault!.toLowerCase(), contractCreator: devnet.accounts[0]!.address.toLowerCase(), txHash: txs.vault, blockNumber: expect.any(String) }]);
  });

  it('takes constructor arguments from the creation transaction when none are sent (as Blockscout does)', async () => {
    const sub = await etherscanPost(api, {
      module: 'contract',
      action: 'verifysourcecode',
      contractaddress: addrs.vault3!,
      sourceCode: JSON.stringify(vaultInput),
      codeformat: 'solidity-standard-json-input',
      contractname: 'src/Vault.sol:Vault',
      compilerversion: 'v0.8.37+commit.f401782d',
      constructorArguements: '',
    });
    expect((await etherscanStatus(sub.body.result)).result).toBe('Pass - Verified');
    const src = await etherscanGet(api, { module: 'contract', action: 'getsourcecode', address: addrs.vault3! });
    expect(src.body.result[0].ConstructorArguments).toBe(encodeAbiParameters([{ type: 'uint256' }, { type: 'string' }], [8n, 'third vault']).slice(2));
  });

  it('refuses wrong constructor arguments, a wrong source and a disallowed compiler', async () => {
    const base = {
      module: 'contract',
      action: 'verifysourcecode',
      contractaddress: addrs.vault2!,
      sourceCode: JSON.stringify(vaultInput),
      codeformat: 'solidity-standard-json-input',
      contractname: 'src/Vault.sol:Vault',
      compilerversion: 'v0.8.37+commit.f401782d',
    };
    const wrongArgs = await etherscanPost(api, { ...base, constructorArguements: vaultArgs });
    const st = await etherscanStatus(wrongArgs.body.result);
    expect(st.status).toBe('0');
    expect(st.result).toMatch(/^Fail - Unable to verify\. the constructor arguments given differ/);

    const wrongSource = stdJson({ 'src/Vault.sol': vaultSrc.replace('return cap - used;', 'return cap + used;') });
    const ws = await etherscanPost(api, { ...base, sourceCode: JSON.stringify(wrongSource) });
    const st2 = await etherscanStatus(ws.body.result);
    expect(st2.status).toBe('0');
    expect(st2.result).toContain('does not match the code at');

    const dis = await etherscanPost(api, { ...base, compilerversion: 'v0.7.6+commit.7338295f' });
    expect(dis.http).toBe(200);
    expect(dis.body.status).toBe('0');
    expect(dis.body.result).toMatch(/compiler v0\.7\.6\+commit\.7338295f is not allowed/);
  });

  it('refuses a source with a literal shaped like a metadata trailer around the differing bytes (the attack)', async () => {
    // M's admin() returns 0xdead..; the submitted source is M with 0xbeef.. inside a planted CBOR-shaped block.
    const mInput = stdJson({ 'M.sol': plantedTrailerSource('dead'.repeat(10)) });
    const m = compile(mInput, 'M.sol', 'M');
    await deploy('planted', m.abi, m.bytecode);
    await indexTransaction(db, devnet.rpcUrl, txs.planted!);
    const fields = {
      module: 'contract',
      action: 'verifysourcecode',
      contractaddress: addrs.planted!,
      sourceCode: JSON.stringify(stdJson({ 'M.sol': plantedTrailerSource('beef'.repeat(10)) })),
      codeformat: 'solidity-standard-json-input',
      contractname: 'M.sol:M',
      compilerversion: 'v0.8.37+commit.f401782d',
    };
    const sub = await etherscanPost(api, fields);
    expect(sub.body.status).toBe('1');
    const st = await etherscanStatus(sub.body.result);
    expect(st.status).toBe('0');
    expect(st.result).toContain('does not match the code at');
    const src = await etherscanGet(api, { module: 'contract', action: 'getsourcecode', address: addrs.planted! });
    expect(src.body.result[0].SourceCode).toBe('');
    // The true source, with a comment (so its metadata hash differs): a partial match.
    const honest = await etherscanPost(api, { ...fields, sourceCode: JSON.stringify(stdJson({ 'M.sol': `${plantedTrailerSource('dead'.repeat(10))}\n// mine` })) });
    expect(await etherscanStatus(honest.body.result)).toEqual({ status: '1', message: 'OK', result: 'Pass - Verified' });
    const job = await getJson(`${explorer.url}/v2/contract/${CHAIN_ID}/${addrs.planted}`);
    expect(job.body).toMatchObject({ match: 'match', runtimeMatch: 'match', creationMatch: 'match' });
  });

  it('answers precise errors for bad input, always HTTP 200', async () => {
    const base = { module: 'contract', action: 'verifysourcecode', contractaddress: addrs.vault2!, codeformat: 'solidity-standard-json-input', contractname: 'Vault', compilerversion: '0.8.37' };
    const cases: [Record<string, string>, RegExp][] = [
      [{ ...base, sourceCode: '{not json' }, /sourceCode: not valid JSON/],
      [{ ...base, sourceCode: JSON.stringify(stdJson({ a: '', b: '', c: '', d: '' })) }, /4 files, at most 3/],
      [{ ...base, sourceCode: JSON.stringify(stdJson({ a: 'x'.repeat(70_000) })) }, /larger than 65536 bytes/],
      [{ ...base, sourceCode: JSON.stringify(vaultInput), contractaddress: '0x1234' }, /contractaddress: expected a 20-byte hex address/],
      [{ ...base, sourceCode: JSON.stringify(vaultInput), chainid: '1' }, /this chain is 4801360, not 1/],
      [{ ...base, sourceCode: JSON.stringify(vaultInput), contractaddress: '0x00000000000000000000000000000000000c0de1' }, /^Unable to locate ContractCode at 0x00000000000000000000000000000000000c0de1/],
      [{ ...base, sourceCode: JSON.stringify(vaultInput), compilerversion: 'latest' }, /not a solc version/],
    ];
    for (const [fields, re] of cases) {
      const r = await etherscanPost(api, fields);
      expect(r.http).toBe(200);
      expect(r.body.status).toBe('0');
      expect(r.body.result).toMatch(re);
    }
    const big = await etherscanPost(api, { ...base, sourceCode: 'x'.repeat(1100 * 1024) });
    expect(big.body).toMatchObject({ status: '0' });
    expect(big.body.result).toMatch(/larger than 1048576 bytes/);
    expect((await etherscanGet(api, { module: 'contract', action: 'nope' })).body).toEqual({ status: '0', message: 'Unknown action nope', result: null });
  });
});

describe("SPEC's API", () => {
  it('verifies a single-file contract with optimizer settings and constructor arguments', async () => {
    const sub = await postJson(`${explorer.url}/api/verify/submit`, {
      address: addrs.vault2,
      compilerVersion: '0.8.37',
      contractName: 'Vault',
      sourceCode: vaultSrc,
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'prague',
      constructorArguments: `0x${encodeAbiParameters([{ type: 'uint256' }, { type: 'string' }], [7n, 'second vault']).slice(2)}`,
    });
    expect(sub.http).toBe(202);
    expect(sub.body.status).toBe('queued');
    const st = await specStatus(sub.body.id);
    // The single file is named Vault.sol, not src/Vault.sol: the metadata hash differs, the code does not.
    expect(st).toMatchObject({ status: 'verified', match: 'partial', creationMatch: 'partial', address: addrs.vault2!.toLowerCase() });
  });

  it('answers failed with a reason, and errors with codes', async () => {
    const sub = await postJson(`${explorer.url}/api/verify/submit`, {
      address: addrs.factory,
      compilerVersion: '0.8.37',
      contractName: 'Vault',
      sourceCode: vaultSrc,
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'prague',
    });
    const st = await specStatus(sub.body.id);
    expect(st).toMatchObject({ status: 'failed', error: { code: 'bytecode_mismatch' } });
    expect((await postJson(`${explorer.url}/api/verify/submit`, '{"address":')).body.error.code).toBe('invalid_json');
    const dis = await postJson(`${explorer.url}/api/verify/submit`, { address: addrs.factory, compilerVersion: '0.6.12', contractName: 'X', sourceCode: 'x' });
    expect(dis).toMatchObject({ http: 400, body: { error: { code: 'compiler_not_allowed' } } });
    const none = await getJson(`${explorer.url}/api/verify/status?id=nope`);
    expect(none).toMatchObject({ http: 404, body: { error: { code: 'job_not_found' } } });
  });

  it('verifies with the oldest shipped compiler (0.5.17)', async () => {
    const oldSrc = fixtureSource('Old.sol');
    const input = { language: 'Solidity' as const, sources: { 'Old.sol': { content: oldSrc } }, settings: { optimizer: { enabled: false, runs: 200 } } };
    const old = compile(input, 'Old.sol', 'Old', 'solc-0.5.17');
    await deploy('old', old.abi, old.bytecode, [42n]);
    await indexTransaction(db, devnet.rpcUrl, txs.old!);
    const sub = await postJson(`${explorer.url}/api/verify/submit`, { address: addrs.old, compilerVersion: 'v0.5.17+commit.d19bba13', contractName: 'Old', sourceCode: oldSrc, optimizer: { enabled: false } });
    expect(await specStatus(sub.body.id)).toMatchObject({ status: 'verified', match: 'full', creationMatch: 'full' });
  });
});

describe('Sourcify v2', () => {
  it('verifies a library-linked contract (settings.libraries) and a contract created by a contract', async () => {
    const libSrc = fixtureSource('MathLib.sol');
    const libInput = stdJson({ 'src/MathLib.sol': libSrc });
    const lib = compile(libInput, 'src/MathLib.sol', 'MathLib');
    await deploy('lib', lib.abi, lib.bytecode);
    const linked = stdJson({ 'src/MathLib.sol': libSrc }, { libraries: { 'src/MathLib.sol': { MathLib: addrs.lib } } });
    const uses = compile(linked, 'src/MathLib.sol', 'UsesLib');
    expect(uses.bytecode).not.toContain('__');
    await deploy('uses', uses.abi, uses.bytecode);
    await indexTransaction(db, devnet.rpcUrl, txs.uses!);
    const body = { stdJsonInput: linked, compilerVersion: '0.8.37+commit.f401782d', contractIdentifier: 'src/MathLib.sol:UsesLib' };
    const sub = await postJson(`${explorer.url}/v2/verify/${CHAIN_ID}/${addrs.uses}`, body);
    expect(sub.http).toBe(202);
    const job = await pollUntil(async () => (await getJson(`${explorer.url}/v2/verify/${sub.body.verificationId}`)).body, (b) => b.isJobCompleted === true);
    expect(job.contract).toMatchObject({ match: 'exact_match', creationMatch: 'exact_match', runtimeMatch: 'exact_match', chainId: String(CHAIN_ID) });
    expect(job.error).toBeUndefined();
    const c = await getJson(`${explorer.url}/v2/contract/${CHAIN_ID}/${addrs.uses}`);
    expect(c.body).toMatchObject({ match: 'exact_match', runtimeMatch: 'exact_match', address: addrs.uses!.toLowerCase() });
    expect((await postJson(`${explorer.url}/v2/verify/${CHAIN_ID}/${addrs.uses}`, body)).http).toBe(409);
    // The library itself: its runtime code carries its own address where the compiler left zeros.
    const libSub = await postJson(`${explorer.url}/v2/verify/${CHAIN_ID}/${addrs.lib}`, { stdJsonInput: libInput, compilerVersion: '0.8.37', contractIdentifier: 'src/MathLib.sol:MathLib' });
    const libJob = await pollUntil(async () => (await getJson(`${explorer.url}/v2/verify/${libSub.body.verificationId}`)).body, (b) => b.isJobCompleted === true);
    expect(libJob.contract.runtimeMatch).toBe('exact_match');

    // A Vault made by the factory: no top-level creation transaction, so it verifies on runtime code.
    const pub = createPublicClient({ chain, transport: http(devnet.rpcUrl) });
    const wallet = createWalletClient({ chain, transport: http(devnet.rpcUrl), account: privateKeyToAccount(devnet.accounts[0]!.privateKey) });
    const hash = await wallet.writeContract({ address: addrs.factory!, abi: factory.abi as Abi, functionName: 'make', args: [99n], account: wallet.account!, chain });
    const r = await pub.waitForTransactionReceipt({ hash, pollingInterval: 200, timeout: 60_000 });
    const made = parseEventLogs({ abi: factory.abi as Abi, logs: r.logs })[0]!.args as { vault: Hex };
    await indexTransaction(db, devnet.rpcUrl, hash);
    const child = await postJson(`${explorer.url}/v2/verify/${CHAIN_ID}/${made.vault}`, { stdJsonInput: vaultInput, compilerVersion: '0.8.37', contractIdentifier: 'src/Vault.sol:Vault' });
    const childJob = await pollUntil(async () => (await getJson(`${explorer.url}/v2/verify/${child.body.verificationId}`)).body, (b) => b.isJobCompleted === true);
    expect(childJob.contract).toMatchObject({ match: 'exact_match', runtimeMatch: 'exact_match', creationMatch: null });
  });

  it('answers Sourcify errors: unverified 404, wrong chain, unknown job', async () => {
    const c = await getJson(`${explorer.url}/v2/contract/${CHAIN_ID}/${addrs.factory}`);
    expect(c).toMatchObject({ http: 404, body: { customCode: 'not_found' } });
    const wrong = await postJson(`${explorer.url}/v2/verify/1/${addrs.factory}`, { stdJsonInput: vaultInput, compilerVersion: '0.8.37', contractIdentifier: 'src/Vault.sol:VaultFactory' });
    expect(wrong).toMatchObject({ http: 400, body: { customCode: 'unsupported_chain' } });
    expect((await getJson(`${explorer.url}/v2/verify/0000`)).http).toBe(404);
  });
});

describe('restart', () => {
  it('keeps verified contracts, and runs again a job a crash left running', async () => {
    const sub = await postJson(`${explorer.url}/v2/verify/${CHAIN_ID}/${addrs.factory}`, { stdJsonInput: vaultInput, compilerVersion: '0.8.37', contractIdentifier: 'src/Vault.sol:VaultFactory' });
    const id = sub.body.verificationId as string;
    await pollUntil(async () => (await getJson(`${explorer.url}/v2/verify/${id}`)).body, (b) => b.isJobCompleted === true);
    await explorer.close();
    await db.close();
    // As if the process had died mid-job: the job is running, the contract not yet recorded.
    db = await openDb({ dataDir: dbDir });
    await db.query("UPDATE explorer_verify_jobs SET status = 'running', runtime_match = NULL, finished_at = NULL WHERE id = $1", [id]);
    await db.query('DELETE FROM explorer_verified_contracts WHERE job_id = $1', [id]);
    explorer = await startExplorer({ config: config(), db, log: () => {} });
    api = `${explorer.url}/api`;
    const src = await etherscanGet(api, { module: 'contract', action: 'getsourcecode', address: addrs.vault! });
    expect(src.body.result[0].ContractName).toBe('Vault');
    const job = await pollUntil(async () => (await getJson(`${explorer.url}/v2/verify/${id}`)).body, (b) => b.isJobCompleted === true);
    expect(job.contract.runtimeMatch).toBe('exact_match');
    expect((await getJson(`${explorer.url}/v2/contract/${CHAIN_ID}/${addrs.factory}`)).http).toBe(200);
  });
});
