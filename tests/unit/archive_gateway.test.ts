// The gateway's state reads below the head answered by the archive: numbers, `earliest`, EIP-1898
// {blockNumber}/{blockHash}; head tags still go to the canister; a revert keeps the head's error shape; without
// an archive every read goes to the canister as before.
import { describe, expect, it } from 'vitest';
import { ArchiveFollower } from '../../src/archive/follower.js';
import { ArchiveReader } from '../../src/archive/reader.js';
import { CanisterClient } from '../../src/client/index.js';
import { DEFAULT_CONFIG } from '../../src/gateway/config.js';
import { handleRequest } from '../../src/gateway/rpc.js';
import { createContext } from '../../src/gateway/server.js';
import { openDb } from '../../src/indexer/db.js';
import { asm } from '../support/asm.js';
import { A, ArchiveTestChain, GENESIS } from '../support/archive_chain.js';
import { ETH } from '../support/chain_testkit.js';

const h = (b: Uint8Array): string => `0x${Buffer.from(b).toString('hex')}`;

describe('gateway reads from the archive', () => {
  it('answers below the head from the archive and the head from the canister', async () => {
    const chain = await ArchiveTestChain.create();
    await chain.runScenario(5);
    const db = await openDb({ memory: true });
    await new ArchiveFollower({ client: chain.client(), db, chainId: 4801360n, genesis: GENESIS, log: () => {} }).run({ untilCaughtUp: true });
    const reader = new ArchiveReader(db);
    const inner = chain.transport();
    const headCalls: unknown[] = [];
    const client = new CanisterClient({
      kind: 'host',
      call: async (mode, method, args) => {
        if (method === 'rpc_eth_get_balance') {
          headCalls.push(args[1]);
          return { Ok: 777n };
        }
        return inner.call(mode, method, args);
      },
    });
    const ctx = createContext({ config: DEFAULT_CONFIG, client, archive: reader, log: () => {} });
    const rpc = async (method: string, params: unknown[]) => handleRequest({ jsonrpc: '2.0', id: 1, method, params }, ctx);
    const store = chain.store!;
    const b2 = chain.exportedBlocks(2n)[0]!.block;

    const bal1 = (await reader.account(A.address, 1n)) as { ok: true; value: { balance: bigint } };
    expect(await rpc('eth_getBalance', [h(A.address), '0x1'])).toMatchObject({ result: `0x${bal1.value.balance.toString(16)}` });
    expect(await rpc('eth_getBalance', [h(A.address), 'earliest'])).toMatchObject({ result: `0x${(100n * ETH).toString(16)}` });
    expect(await rpc('eth_getBalance', [h(A.address), 'latest'])).toMatchObject({ result: '0x309' });
    expect(headCalls).toEqual([{ Latest: null }]);
    expect(await rpc('eth_getTransactionCount', [h(A.address), { blockNumber: '0x1' }])).toMatchObject({ result: '0x2' });
    expect(await rpc('eth_getStorageAt', [h(store), '0x0', { blockHash: h(b2.hash) }])).toMatchObject({ result: `0x${'0'.repeat(62)}0b` });
    expect(await rpc('eth_getStorageAt', [h(store), '0x1', '0x1'])).toMatchObject({ result: `0x${'0'.repeat(62)}2a` });
    expect(await rpc('eth_getCode', [h(store), '0x0'])).toMatchObject({ result: '0x' });
    expect(((await rpc('eth_getCode', [h(store), '0x1'])) as { result: string }).result.length).toBeGreaterThan(10);
    // A revert below the head: the head's shape (-32000, exactly "execution reverted", the revert bytes).
    const reverted = await rpc('eth_call', [{ data: h(asm(0xab, 0, 'MSTORE8', 1, 0, 'REVERT')) }, '0x1']);
    expect(reverted).toMatchObject({ error: { code: -32000, message: 'execution reverted', data: '0xab' } });
    expect(await rpc('eth_estimateGas', [{ from: h(A.address), to: h(store), data: h(new Uint8Array(32)) }, '0x2'])).toHaveProperty('result');

    // Without an archive, the same read goes to the canister with the block number (which refuses it today).
    const plain = createContext({ config: DEFAULT_CONFIG, client, log: () => {} });
    await handleRequest({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [h(A.address), '0x1'] }, plain);
    expect(headCalls.at(-1)).toEqual({ Number: 1n });
    await db.close();
  }, 60_000);
});
