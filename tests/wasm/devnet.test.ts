// `npm start`'s devnet end to end: the canister on the wall clock in a temp data folder, the gateway on an
// ephemeral port; a transfer is mined and logged with its instructions; after stop and restart the chain
// resumes from the folder with the receipt and balances intact.
import { rmSync } from 'node:fs';
import { createPublicClient, createWalletClient, defineChain, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { Actor, HttpAgent } from '@icp-sdk/core/agent';
import { afterAll, describe, expect, it } from 'vitest';
import { idlFactory } from '../../src/canister/idl.js';
import { CHAIN_ID } from '../../src/core/constants.js';
import { DEV_ACCOUNT_BALANCE } from '../../src/devnet/accounts.js';
import { devnetBanner, parseBlockLine, startDevnet, type Devnet } from '../../src/devnet/index.js';
import { DEFAULT_CONFIG } from '../../src/gateway/config.js';
import { projectTempDir } from '../../src/host/paths.js';

const dataDir = projectTempDir('devnet-');
const chain = defineChain({
  id: Number(CHAIN_ID),
  name: 'icp-evm devnet',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1:8545'] } },
});
let devnet: Devnet | undefined;
afterAll(async () => {
  await devnet?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('devnet', () => {
  const to = '0x000000000000000000000000000000000000dEaD' as Hex;
  let hash: Hex;
  let rootKey: Uint8Array;
  const lines: string[] = [];

  it('serves the gateway, mines a transfer and logs its instructions', async () => {
    devnet = await startDevnet({ dataDir, gateway: { ...DEFAULT_CONFIG, port: 0 }, log: (l) => lines.push(l) });
    expect(devnet.fresh).toBe(true);
    const banner = devnetBanner(devnet, dataDir);
    expect(banner).toContain(`JSON-RPC: ${devnet.rpcUrl}`);
    expect(banner).toContain(devnet.accounts[9]!.privateKey);
    expect(banner).toContain(`IC HTTP interface: ${devnet.ic.url}  canister rrkah-fqaaa-aaaaa-aaaaq-cai`);
    expect(banner).toContain(`IC root key: ${Buffer.from(devnet.ic.rootKey).toString('hex')}`);
    rootKey = devnet.ic.rootKey;
    const pub = createPublicClient({ chain, transport: http(devnet.rpcUrl), pollingInterval: 200 });
    const wallet = createWalletClient({ chain, transport: http(devnet.rpcUrl), account: privateKeyToAccount(devnet.accounts[0]!.privateKey) });
    expect(await pub.getChainId()).toBe(Number(CHAIN_ID));
    hash = await wallet.sendTransaction({ to, value: 42n, account: wallet.account!, chain });
    const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 200, timeout: 30_000 });
    expect(receipt.status).toBe('success');
    // The block's log line, then one line per transaction with its instructions.
    const i = lines.findIndex((l) => l.startsWith(`block ${receipt.blockNumber}: 1 tx`));
    expect(i).toBeGreaterThanOrEqual(0);
    expect(lines[i + 1]).toMatch(new RegExp(`^  tx ${hash}: \\d+\\.\\d M instructions$`));
  });

  it('keeps the chain across a restart', async () => {
    await devnet!.stop();
    devnet = await startDevnet({ dataDir, gateway: { ...DEFAULT_CONFIG, port: 0 }, log: () => {} });
    expect(devnet.fresh).toBe(false);
    const pub = createPublicClient({ chain, transport: http(devnet.rpcUrl) });
    const receipt = await pub.getTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    expect(await pub.getBalance({ address: to })).toBe(42n);
    expect(await pub.getBalance({ address: devnet.accounts[1]!.address })).toBe(DEV_ACCOUNT_BALANCE);
    // The root key is the data folder's: an agent holding the key from before the restart still verifies.
    expect(Buffer.from(devnet.ic.rootKey).equals(Buffer.from(rootKey))).toBe(true);
    const agent = await HttpAgent.create({ host: devnet.ic.url, rootKey });
    const actor = Actor.createActor(idlFactory as never, { agent, canisterId: 'rrkah-fqaaa-aaaaa-aaaaq-cai' }) as unknown as { rpc_eth_block_number(): Promise<bigint> };
    expect(await actor.rpc_eth_block_number()).toBeGreaterThanOrEqual(receipt.blockNumber);
  });

  it('parses the canister block line', () => {
    const h = `0x${'ab'.repeat(32)}`;
    expect(parseBlockLine(`[debug] block 7: 1 txs, 21000 gas, 99 instructions; tx ${h} 1234`)).toEqual({
      number: 7n,
      gasUsed: 21000n,
      txs: [{ hash: h, instructions: 1234n }],
    });
    expect(parseBlockLine(`[debug] block 8: 1 txs, 21000 gas, 99 instructions, finalisation 40 (reserved 30); tx ${h} 1234`)).toEqual({
      number: 8n,
      gasUsed: 21000n,
      txs: [{ hash: h, instructions: 1234n }],
      finalize: { instructions: 40n, reserved: 30n },
    });
    expect(parseBlockLine('[info] something else')).toBeUndefined();
  });
});
