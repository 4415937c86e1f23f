// The devnet's development accounts and its automine for every way in: eth_accounts, eth_sendTransaction (filled
// as anvil fills it, signed in the devnet, mined before it answers), the eth_sign* methods answering exactly what
// anvil 1.7.1 answers for the same request, anvil's error for an account without a key, the client version the
// Hardhat network helpers accept, and a submit_ic_tx through the devnet's IC HTTP interface mined at once.
import { rmSync } from 'node:fs';
import { Actor, HttpAgent } from '@icp-sdk/core/agent';
import { Ed25519KeyIdentity } from '@icp-sdk/core/identity';
import { keccak256, parseTransaction, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idlFactory } from '../../src/canister/idl.js';
import { DEVNET_CLIENT_VERSION } from '../../src/devnet/config.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';
import { DEFAULT_CONFIG } from '../../src/gateway/config.js';
import { projectTempDir } from '../../src/host/paths.js';
import { rpc, startAnvil, type Anvil } from '../support/e2e.js';

const dataDir = projectTempDir('devnet-accounts-');
const ic = Ed25519KeyIdentity.generate(new Uint8Array(32).fill(21));
let devnet: Devnet;
let anvil: Anvil;
const url = (): string => devnet.rpcUrl;
const to = '0x000000000000000000000000000000000000bEEF' as Hex;

beforeAll(async () => {
  devnet = await startDevnet({ dataDir, blockTime: 0, fundIc: [ic.getPrincipal()], log: () => {} });
  anvil = await startAnvil();
}, 120_000);

afterAll(async () => {
  await anvil?.stop();
  await devnet?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function rpcError(u: string, method: string, params: unknown[]): Promise<{ code: number; message: string }> {
  const e = await rpc(u, method, params).then(
    () => undefined,
    (x: { code: number; message: string }) => x,
  );
  expect(e, `${method} should fail`).toBeDefined();
  return e!;
}

describe('devnet development accounts', () => {
  it('lists the ten development accounts as anvil does, and names itself so that the network helpers accept it', async () => {
    const ours = await rpc<string[]>(url(), 'eth_accounts');
    expect(ours).toEqual(devnet.accounts.map((a) => a.address.toLowerCase()));
    expect(ours).toEqual(await rpc<string[]>(anvil.url, 'eth_accounts'));
    const version = await rpc<string>(url(), 'web3_clientVersion');
    expect(version).toBe(DEVNET_CLIENT_VERSION);
    // @nomicfoundation/hardhat-network-helpers' test (1.x and 3.x): the lower-cased version starts with one of these.
    expect(['hardhatnetwork', 'anvil', 'zksync'].some((p) => version.toLowerCase().startsWith(p))).toBe(true);
  });

  it('eth_sendTransaction fills nonce, gas, fees and chain id, signs and is mined before it answers', async () => {
    const from = devnet.accounts[1]!.address.toLowerCase();
    const nonce = BigInt(await rpc<string>(url(), 'eth_getTransactionCount', [from, 'pending']));
    const gasPrice = BigInt(await rpc<string>(url(), 'eth_gasPrice'));
    const tip = BigInt(await rpc<string>(url(), 'eth_maxPriorityFeePerGas'));
    const head = BigInt(await rpc<string>(url(), 'eth_blockNumber'));
    const hash = await rpc<string>(url(), 'eth_sendTransaction', [{ from, to, value: '0x7' }]);
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    // --block-time 0: the receipt is there when the call answers.
    const receipt = await rpc(url(), 'eth_getTransactionReceipt', [hash]);
    expect(receipt?.status).toBe('0x1');
    expect(BigInt(receipt.blockNumber)).toBe(head + 1n);
    const tx = await rpc(url(), 'eth_getTransactionByHash', [hash]);
    expect(tx.from).toBe(from);
    expect(tx.type).toBe('0x2');
    expect(BigInt(tx.nonce)).toBe(nonce);
    expect(BigInt(tx.gas)).toBe(21_000n);
    expect(BigInt(tx.maxFeePerGas)).toBe(gasPrice > tip ? gasPrice : tip);
    expect(BigInt(tx.maxPriorityFeePerGas)).toBe(tip);
    expect(BigInt(tx.chainId)).toBe(BigInt(await rpc<string>(url(), 'eth_chainId')));
    expect(BigInt(tx.value)).toBe(7n);
    // A gas price makes a legacy transaction; without `from` the first account sends (as anvil).
    const legacy = await rpc<string>(url(), 'eth_sendTransaction', [{ to, value: '0x1', gasPrice: `0x${gasPrice.toString(16)}` }]);
    const lt = await rpc(url(), 'eth_getTransactionByHash', [legacy]);
    expect(lt.type).toBe('0x0');
    expect(lt.from).toBe(devnet.accounts[0]!.address.toLowerCase());
    expect((await rpc(url(), 'eth_getTransactionReceipt', [legacy]))?.status).toBe('0x1');
  });

  it('eth_sendTransaction deploys a contract (gas by estimation), and concurrent sends from one account get consecutive nonces', async () => {
    const from = devnet.accounts[2]!.address;
    // Init code that returns its own first byte as the runtime: CODECOPY 1 byte to memory, RETURN it.
    const init = '0x6001600060003960016000f3';
    const hash = await rpc<string>(url(), 'eth_sendTransaction', [{ from, data: init }]);
    const receipt = await rpc(url(), 'eth_getTransactionReceipt', [hash]);
    expect(receipt.status).toBe('0x1');
    expect(receipt.contractAddress).toMatch(/^0x[0-9a-f]{40}$/);
    expect(BigInt(receipt.gasUsed)).toBeGreaterThan(21_000n);
    const hashes = await Promise.all([1, 2, 3].map((v) => rpc<string>(url(), 'eth_sendTransaction', [{ from, to, value: `0x${v}` }])));
    const nonces = await Promise.all(hashes.map(async (h) => BigInt((await rpc(url(), 'eth_getTransactionByHash', [h])).nonce)));
    expect(new Set(nonces).size).toBe(3);
    for (const h of hashes) expect((await rpc(url(), 'eth_getTransactionReceipt', [h]))?.status).toBe('0x1');
  });

  it('a from without a key gets anvil\'s error on every method', async () => {
    const stranger = '0x1111111111111111111111111111111111111111';
    const cases: [string, unknown[]][] = [
      ['eth_sendTransaction', [{ from: stranger, to, value: '0x1' }]],
      ['eth_signTransaction', [{ from: stranger, to, value: '0x1' }]],
      ['eth_sign', [stranger, '0xdeadbeef']],
      ['personal_sign', ['0xdeadbeef', stranger]],
    ];
    for (const [m, p] of cases) {
      const ours = await rpcError(url(), m, p);
      const theirs = await rpcError(anvil.url, m, p);
      expect({ code: ours.code, message: ours.message }, m).toEqual({ code: theirs.code, message: theirs.message });
      expect({ code: ours.code, message: ours.message }).toEqual({ code: -32602, message: 'No Signer available' });
    }
  });

  it('eth_sign, personal_sign, eth_signTypedData_v4 and eth_signTransaction answer exactly what anvil answers', async () => {
    const a = devnet.accounts[3]!.address.toLowerCase();
    const same = async (method: string, params: unknown[]): Promise<unknown> => {
      const ours = await rpc(url(), method, params);
      expect(ours, method).toEqual(await rpc(anvil.url, method, params));
      return ours;
    };
    const sig = await same('eth_sign', [a, '0xdeadbeef']);
    expect(sig).toMatch(/^0x[0-9a-f]{130}$/);
    expect(await same('personal_sign', ['0xdeadbeef', a])).toBe(sig);
    expect(await same('personal_sign', [`0x${Buffer.from('hello devnet').toString('hex')}`, a])).not.toBe(sig);
    const typed = {
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
        Person: [
          { name: 'name', type: 'string' },
          { name: 'wallet', type: 'address' },
        ],
        Mail: [
          { name: 'from', type: 'Person' },
          { name: 'to', type: 'Person' },
          { name: 'contents', type: 'string' },
        ],
      },
      primaryType: 'Mail',
      domain: { name: 'Ether Mail', version: '1', chainId: 4801360, verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC' },
      message: {
        from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
        to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
        contents: 'Hello, Bob!',
      },
    };
    await same('eth_signTypedData_v4', [a, typed]);
    await same('eth_signTypedData_v4', [a, JSON.stringify(typed)]); // MetaMask sends it as JSON text
    // Every field given (else nonce and fees would differ between the two chains): the same signed bytes.
    const req = { from: a, to, value: '0x5', nonce: '0x3', gas: '0x5208', maxFeePerGas: '0x746a528800', maxPriorityFeePerGas: '0x3b9aca00', chainId: '0x494350' };
    const raw = (await same('eth_signTransaction', [req])) as Hex;
    const parsed = parseTransaction(raw);
    expect(parsed.nonce).toBe(3);
    expect(parsed.type).toBe('eip1559');
    const legacy = (await same('eth_signTransaction', [{ from: a, to, value: '0x5', nonce: '0x0', gas: '0x5208', gasPrice: '0x746a528800' }])) as Hex;
    expect(parseTransaction(legacy).type).toBe('legacy');
    // Nothing was submitted.
    expect(await rpc(url(), 'eth_getTransactionByHash', [keccak256(raw)])).toBe(null);
    expect((await rpcError(url(), 'eth_signTypedData_v4', [a, { types: {} }])).code).toBe(-32602);
  });

  it('a submit_ic_tx through the IC HTTP interface is mined before the call answers (automine sees every way in)', async () => {
    const agent = await HttpAgent.create({ host: devnet.ic.url, shouldFetchRootKey: true, identity: ic });
    const actor = Actor.createActor(idlFactory as never, { agent, canisterId: devnet.ic.canisterId }) as unknown as Record<string, (...a: unknown[]) => Promise<any>>;
    const head = BigInt(await rpc<string>(url(), 'eth_blockNumber'));
    const input = { to: [new Uint8Array(20).fill(0xde)], value: 1000n, gas_limit: 21000n, max_fee_per_gas: 10n ** 12n, max_priority_fee_per_gas: 250n * 10n ** 9n, nonce: 0n, data: new Uint8Array() };
    const r = (await actor.submit_ic_tx!(input)) as { Ok: Uint8Array } | { Err: { message: string } };
    if ('Err' in r) throw new Error(r.Err.message);
    const status = await actor.get_pending!(r.Ok);
    expect(Object.keys(status)[0]).toBe('Included');
    expect(BigInt(await rpc<string>(url(), 'eth_blockNumber'))).toBe(head + 1n);
  });
});
