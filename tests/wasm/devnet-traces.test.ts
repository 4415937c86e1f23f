// Tracing through the real stack: the canister wasm in the devnet, the archive following it as `npm start` runs
// it (same database kind, every block re-executed and verified), the gateway over HTTP. A contract passes a
// call's value on to another address, once kept and once reverted; debug_traceTransaction (callTracer) and
// ots_getInternalOperations show the internal transfer and where the revert happened.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnetArchive, devnetArchiveReader, type DevnetArchive } from '../../src/devnet/archive.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';
import { DEFAULT_CONFIG } from '../../src/gateway/config.js';
import { projectTempDir } from '../../src/host/paths.js';
import { openDb, type Db } from '../../src/indexer/db.js';
import type { ArchiveReader } from '../../src/archive/reader.js';
import { asm, deployCode, label, ref } from '../support/asm.js';
import { rpc, sleep } from '../support/e2e.js';

/** Sends its call value on to the address in word 0; then reverts with 0xab when word 1 is not zero. */
const PAYER = asm(0, 0, 0, 0, 'CALLVALUE', 0, 'CALLDATALOAD', 'GAS', 'CALL', 'POP', 32, 'CALLDATALOAD', 'ISZERO', ref('ok'), 'JUMPI', 0xab, 0, 'MSTORE8', 1, 0, 'REVERT', label('ok'), 'STOP');
const hex = (b: Uint8Array): string => `0x${Buffer.from(b).toString('hex')}`;
const word = (h: string): string => h.slice(2).padStart(64, '0');

const dataDir = projectTempDir('devnet-traces-');
let devnet: Devnet;
let db: Db;
let reader: ArchiveReader;
let archive: DevnetArchive;

beforeAll(async () => {
  db = await openDb({ memory: true });
  reader = devnetArchiveReader(db);
  devnet = await startDevnet({ dataDir, blockTime: 0, gateway: { ...DEFAULT_CONFIG, port: 0 }, archive: reader, log: () => {} });
  archive = startDevnetArchive({ evm: devnet.evm, db, reader, log: () => {}, dev: devnet.dev });
}, 120_000);

afterAll(async () => {
  await archive?.stop();
  await devnet?.stop();
  await db?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function archived(n: bigint): Promise<void> {
  for (let i = 0; i < 600 && !(await reader.holds(n)); i++) await sleep(100);
  expect(await reader.holds(n)).toBe(true);
}

describe('tracing on the devnet', () => {
  it('traces a contract call with an internal value transfer and a revert', async () => {
    const url = devnet.rpcUrl;
    const from = devnet.accounts[0]!.address.toLowerCase();
    const to = '0x00000000000000000000000000000000000beef1';
    const deploy = await rpc<string>(url, 'eth_sendTransaction', [{ from, data: hex(deployCode(PAYER)), gas: '0x30000' }]);
    const payer = (await rpc<{ contractAddress: string }>(url, 'eth_getTransactionReceipt', [deploy])).contractAddress.toLowerCase();
    const paid = await rpc<string>(url, 'eth_sendTransaction', [{ from, to: payer, value: '0x3e8', data: `0x${word(to)}${word('0x0')}`, gas: '0x30000' }]);
    const reverted = await rpc<string>(url, 'eth_sendTransaction', [{ from, to: payer, value: '0x7', data: `0x${word(to)}${word('0x1')}`, gas: '0x30000' }]);
    const receipt = await rpc<{ blockNumber: string; status: string }>(url, 'eth_getTransactionReceipt', [reverted]);
    expect(receipt.status).toBe('0x0');
    await archived(BigInt(receipt.blockNumber));

    const call = await rpc<Record<string, unknown>>(url, 'debug_traceTransaction', [paid, { tracer: 'callTracer' }]);
    expect(call).toMatchObject({ type: 'CALL', from, to: payer, value: '0x3e8', input: `0x${word(to)}${word('0x0')}` });
    expect(call.calls).toEqual([{ type: 'CALL', from: payer, to, value: '0x3e8', gas: expect.stringMatching(/^0x/), gasUsed: expect.stringMatching(/^0x/), input: '0x' }]);
    expect(call).not.toHaveProperty('error');
    expect(call).not.toHaveProperty('output'); // empty, left out as geth leaves it out
    const failed = await rpc<Record<string, unknown>>(url, 'debug_traceTransaction', [reverted, { tracer: 'callTracer' }]);
    expect(failed).toMatchObject({ type: 'CALL', from, to: payer, value: '0x7', output: '0xab', error: 'execution reverted', calls: [{ type: 'CALL', from: payer, to, value: '0x7' }] });
    // The top call's gas used is the receipt's, as geth reports it.
    const paidReceipt = await rpc<{ gasUsed: string }>(url, 'eth_getTransactionReceipt', [paid]);
    expect(call.gasUsed).toBe(paidReceipt.gasUsed);

    expect(await rpc(url, 'ots_getInternalOperations', [paid])).toEqual([
      { type: 0, from, to: payer, value: '0x3e8' },
      { type: 0, from: payer, to, value: '0x3e8' },
    ]);
    expect(await rpc(url, 'ots_getInternalOperations', [reverted])).toEqual([
      { type: 0, from, to: payer, value: '0x7' },
      { type: 0, from: payer, to, value: '0x7' },
    ]);
    expect(await rpc(url, 'ots_getTransactionError', [reverted])).toBe('0xab');
    // The kept transfer is in the chain's state; the reverted one is not.
    expect(await rpc(url, 'eth_getBalance', [to, 'latest'])).toBe('0x3e8');
  });
});
