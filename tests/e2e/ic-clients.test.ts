// IC clients against `npm start`'s IC HTTP interface (its own devnet process, a free --ic-port): icp-cli
// (@icp-sdk/icp-cli-linux-x64, unmodified) with its own Ed25519 identity, funded through `--fund-ic`, runs a
// query (rpc_eth_chain_id) and an update (submit_ic_tx) and reads the result with get_pending / get_receipt;
// then the JSON-RPC gateway started as its own process over HttpAgent (EVM_CANISTER_ID, RPC_GATEWAY_IC_HOST,
// RPC_GATEWAY_FETCH_ROOT_KEY=true) serves the same chain to viem, and the indexer started as its own process over
// HttpAgent writes the same rows as the devnet's in-process indexer. icp-cli's home, config and data folders are
// inside the project's temp folder; telemetry is off.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Principal } from '@dfinity/principal';
import { createPublicClient, createWalletClient, defineChain, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAIN_ID } from '../../src/core/constants.js';
import { deriveSyntheticSender } from '../../src/core/tx/ic_synthetic.js';
import { devAccounts } from '../../src/devnet/accounts.js';
import { openDb } from '../../src/indexer/db.js';
import { IC_FUNDING } from '../../src/devnet/fund_ic.js';
import { freePort, Proc, removeDir, rpc, runOk, sleep, startDevnetProcess, tempDir, waitForRpc, type DevnetProcess } from '../support/e2e.js';

const ICP = join(import.meta.dirname, '..', '..', 'node_modules', '@icp-sdk', 'icp-cli-linux-x64', 'bin', 'icp');
const CANDID = join(import.meta.dirname, '..', '..', 'candid', 'evm.did');
const CANISTER = 'rrkah-fqaaa-aaaaa-aaaaq-cai';
/** The bytes of a Candid text blob literal's body, as icp-cli prints it (`\xx` escapes and printable characters). */
function parseBlob(body: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== '\\') out.push(body.charCodeAt(i));
    else if (/^[0-9a-fA-F]{2}$/.test(body.slice(i + 1, i + 3))) {
      out.push(parseInt(body.slice(i + 1, i + 3), 16));
      i += 2;
    } else out.push(body.charCodeAt(++i));
  }
  return Uint8Array.from(out);
}
/** The blob after `label = blob "` in icp-cli's Candid text output. */
const blobField = (output: string, label: string): Uint8Array => {
  const m = new RegExp(`${label} = blob "((?:[^"\\\\]|\\\\.)*)"`).exec(output);
  if (m === null) throw new Error(`no ${label} blob in ${output}`);
  return parseBlob(m[1]!);
};

const dataDir = tempDir('ic-clients-');
const home = tempDir('icp-home-');
let devnet: DevnetProcess | undefined;
let gateway: Proc | undefined;
let rootKey = '';

const icpEnv = {
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_DATA_HOME: join(home, '.local', 'share'),
  XDG_CACHE_HOME: join(home, '.cache'),
  DO_NOT_TRACK: '1',
};
const icp = (...args: string[]) => runOk(ICP, args, { cwd: home, env: icpEnv, timeoutMs: 60_000 });
const call = (method: string, arg: string, ...extra: string[]) =>
  icp('canister', 'call', CANISTER, method, arg, '-n', devnet!.icUrl, '-k', rootKey, '--identity', 'e2e', '--candid', CANDID, ...extra);
const blobText = (b: Uint8Array): string => `blob "${[...b].map((x) => `\\${x.toString(16).padStart(2, '0')}`).join('')}"`;

beforeAll(async () => {
  mkdirSync(home, { recursive: true });
  await icp('identity', 'new', 'e2e', '--storage', 'plaintext', '-q');
  const principal = await icp('identity', 'principal', '--identity', 'e2e');
  devnet = await startDevnetProcess({ dataDir, args: ['--fund-ic', principal] });
  // The banner (with the root key) follows the indexer's start, a moment after the gateway answers.
  for (let i = 0; i < 300 && !/IC root key: [0-9a-f]+\n/.test(devnet.proc.output); i++) await sleep(200);
  rootKey = /IC root key: ([0-9a-f]+)\n/.exec(devnet.proc.output)?.[1] ?? '';
  expect(rootKey).toMatch(/^308182/);
});

afterAll(async () => {
  await gateway?.stop('SIGTERM', 5_000);
  await devnet?.stop();
  removeDir(dataDir);
  removeDir(home);
});

describe('icp-cli against the devnet', () => {
  let txId: Uint8Array;
  let sender: Uint8Array;

  it('runs a query: rpc_eth_chain_id', async () => {
    expect(await call('rpc_eth_chain_id', '()', '--query')).toBe(`(${CHAIN_ID.toLocaleString('en-US').replaceAll(',', '_')} : nat64)`);
  });

  it('runs an update from its own identity, whose sender --fund-ic funded: submit_ic_tx', async () => {
    const principal = Principal.fromText(await icp('identity', 'principal', '--identity', 'e2e'));
    const d = deriveSyntheticSender(principal.toUint8Array(), Principal.fromText(CANISTER).toUint8Array());
    if (!d.ok) throw new Error(d.error.message);
    sender = d.value;
    expect(devnet!.proc.output).toContain(`IC identity ${principal.toText()}: submit_ic_tx sender 0x${Buffer.from(sender).toString('hex')}, funded with 100 ETH`);
    const senderHex = `0x${Buffer.from(sender).toString('hex')}`;
    // The funding transfer is mined within a block interval.
    for (let i = 0; i < 100 && BigInt(await rpc(devnet!.url, 'eth_getBalance', [senderHex, 'latest'])) !== IC_FUNDING; i++) await sleep(200);
    expect(BigInt(await rpc(devnet!.url, 'eth_getBalance', [senderHex, 'latest']))).toBe(IC_FUNDING);
    const to = new Uint8Array(20).fill(0xab);
    const arg = `(record { to = opt ${blobText(to)}; value = 1000 : nat; max_priority_fee_per_gas = 250_000_000_000 : nat; data = blob ""; max_fee_per_gas = 1_000_000_000_000 : nat; nonce = 0 : nat64; gas_limit = 21000 : nat64 })`;
    const out = await call('submit_ic_tx', arg);
    expect(out).toMatch(/^\(variant \{ Ok = blob "/);
    txId = blobField(out, 'Ok');
    expect(txId.length).toBeGreaterThan(0);
  });

  it('reads the result with get_pending and get_receipt', async () => {
    let pending = '';
    for (let i = 0; i < 100; i++) {
      pending = await call('get_pending', `(${blobText(txId)})`, '--query');
      if (pending.includes('Included')) break;
      await sleep(200);
    }
    expect(pending).toMatch(/Included/);
    const receipt = await call('get_receipt', `(${blobText(txId)})`, '--query');
    expect(receipt).toMatch(/^\(\s*opt record \{/);
    expect(Buffer.from(blobField(receipt, 'from')).equals(Buffer.from(sender))).toBe(true);
    expect(receipt).toMatch(/status = 1 : nat8/);
  });
});

describe('the gateway as its own process over HttpAgent', () => {
  it('serves the devnet chain to viem: chain id, a transfer and its receipt', async () => {
    const port = await freePort();
    gateway = new Proc('node', ['scripts/run.mjs', 'tsx', 'src/gateway/main.ts'], {
      env: { EVM_CANISTER_ID: CANISTER, RPC_GATEWAY_IC_HOST: devnet!.icUrl, RPC_GATEWAY_FETCH_ROOT_KEY: 'true', RPC_GATEWAY_PORT: String(port), RPC_GATEWAY_HOST: '127.0.0.1' },
    });
    const url = `http://127.0.0.1:${port}`;
    await waitForRpc(url, gateway, 60_000);
    const chain = defineChain({ id: Number(CHAIN_ID), name: 'devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } });
    const pub = createPublicClient({ chain, transport: http(url), pollingInterval: 200 });
    expect(await pub.getChainId()).toBe(Number(CHAIN_ID));
    const wallet = createWalletClient({ chain, transport: http(url), account: privateKeyToAccount(devAccounts()[2]!.privateKey) });
    const to = '0x00000000000000000000000000000000000c0ffe' as Hex;
    const hash = await wallet.sendTransaction({ to, value: 7n, account: wallet.account!, chain });
    const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 200, timeout: 60_000 });
    expect(receipt.status).toBe('success');
    // Both gateways see the same chain: the in-process one reads the agent one's transfer.
    expect(BigInt(await rpc(devnet!.url, 'eth_getBalance', [to, 'latest']))).toBe(7n);
  });
});

describe('the indexer as its own process over HttpAgent', () => {
  it('indexes the devnet chain to the same rows as the in-process indexer', async () => {
    const head = BigInt(await rpc(devnet!.url, 'eth_blockNumber'));
    const dir = tempDir('idx-agent-');
    const indexer = new Proc('node', ['scripts/run.mjs', 'tsx', 'src/indexer/main.ts'], {
      env: {
        EVM_CANISTER_ID: CANISTER,
        INDEXER_IC_HOST: devnet!.icUrl,
        INDEXER_FETCH_ROOT_KEY: 'true',
        INDEXER_PGLITE_DIR: join(dir, 'db'),
        INDEXER_ARCHIVE_DIR: join(dir, 'archive'),
      },
    });
    try {
      for (let i = 0; i < 600 && !indexer.output.includes(`caught up at block ${head}`); i++) {
        if (!indexer.running) throw new Error(`indexer exited:\n${indexer.output}`);
        await sleep(200);
      }
      expect(indexer.output).toContain(`caught up at block ${head}`);
    } finally {
      await indexer.stop('SIGTERM', 10_000);
    }
    // The devnet's own indexer has caught up too (same head, nothing pending); stop it to read its database.
    for (let i = 0; i < 100 && !devnet!.proc.output.includes(`caught up at block ${head}`); i++) await sleep(200);
    await devnet!.stop();
    const rows = async (dataDir: string): Promise<string> => {
      const db = await openDb({ dataDir });
      const out: unknown[] = [];
      for (const q of [
        "select number, encode(hash, 'hex') as h from blocks order by number",
        "select encode(eth_tx_hash, 'hex') as h, block_number from txs order by block_number, 1",
        'select count(*) as n from receipts',
        'select count(*) as n from logs',
      ]) {
        out.push((await db.query(q)).rows);
      }
      await db.close();
      return JSON.stringify(out, (_, v) => (typeof v === 'bigint' ? v.toString() : v));
    };
    const viaAgent = await rows(join(dir, 'db'));
    expect(viaAgent).toContain(`"number":"${head}"`);
    expect(viaAgent).toBe(await rows(join(dataDir, 'indexer-db')));
    removeDir(dir);
  });
});
