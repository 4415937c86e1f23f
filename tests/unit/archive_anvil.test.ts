// Differential run against anvil: the same signed transactions (value transfers, a contract creation with a
// constructor log, storage writes and a slot cleared, a revert, an out-of-gas failure, self-destructs in and
// after creation, BLOCKHASH/NUMBER readers) mined in the same blocks by the canister's own core and by anvil;
// then for every block N below the head, balances, nonces, code and chosen storage slots of the accounts involved,
// and an eth_call at N, asked over JSON-RPC of the gateway (answered by the archive) and of anvil, are identical.
// Transactions are legacy (type 0) so that fees do not depend on the two chains' base fees.
import { afterAll, describe, expect, it } from 'vitest';
import { ArchiveFollower } from '../../src/archive/follower.js';
import { ArchiveReader } from '../../src/archive/reader.js';
import { DEFAULT_CONFIG } from '../../src/gateway/config.js';
import { handleRequest } from '../../src/gateway/rpc.js';
import { createContext } from '../../src/gateway/server.js';
import { openDb } from '../../src/indexer/db.js';
import { asm } from '../support/asm.js';
import { A, ArchiveTestChain, B, CONTEXT_RUNTIME, GENESIS_CODE_AT } from '../support/archive_chain.js';
import { ETH, addr } from '../support/chain_testkit.js';
import { rpc, startAnvil, type Anvil } from '../support/e2e.js';

const h = (b: Uint8Array): string => `0x${Buffer.from(b).toString('hex')}`;
const q = (n: bigint): string => `0x${n.toString(16)}`;
let anvil: Anvil | undefined;
afterAll(async () => {
  await anvil?.stop();
});

describe('archive vs anvil', () => {
  it('answers every read at every block as anvil does', async () => {
    const chain = await ArchiveTestChain.create();
    chain.legacyOnly = true;
    await chain.runScenario(8);
    const db = await openDb({ memory: true });
    const f = new ArchiveFollower({ client: chain.client(), db, chainId: 4801360n, log: () => {} });
    await f.run({ untilCaughtUp: true });
    expect(f.status().alarm).toBeUndefined();
    const ctx = createContext({ config: DEFAULT_CONFIG, client: chain.client(), archive: new ArchiveReader(db), log: () => {} });
    const ours = async (method: string, params: unknown[]): Promise<unknown> => {
      const r = (await handleRequest({ jsonrpc: '2.0', id: 1, method, params }, ctx)) as { result?: unknown; error?: unknown };
      return r.error !== undefined ? { error: r.error } : r.result;
    };

    anvil = await startAnvil(['--no-mining', '--gas-limit', '3000000']);
    const url = anvil.url;
    await rpc(url, 'anvil_setBalance', [h(A.address), q(100n * ETH)]);
    await rpc(url, 'anvil_setBalance', [h(B.address), q(5n * ETH)]);
    await rpc(url, 'anvil_setCode', [h(GENESIS_CODE_AT), h(CONTEXT_RUNTIME)]);
    await rpc(url, 'anvil_setNonce', [h(GENESIS_CODE_AT), '0x1']);
    for (const raws of chain.blockRaws) {
      for (const raw of raws) await rpc(url, 'eth_sendRawTransaction', [h(raw)]);
      await rpc(url, 'evm_mine', []);
    }
    const head = chain.head;
    expect(BigInt(await rpc<string>(url, 'eth_blockNumber'))).toBe(head);
    const theirs = async (method: string, params: unknown[]): Promise<unknown> => {
      try {
        return await rpc(url, method, params);
      } catch (e) {
        return { error: { code: (e as { code: number }).code } };
      }
    };

    const accounts = [A.address, B.address, GENESIS_CODE_AT, addr(0x13), addr(0x14), chain.store!, chain.killable!];
    const BALANCE_OF_A = asm(Uint8Array.of(0x73, ...A.address), 'BALANCE', 0, 'MSTORE', 32, 0, 'RETURN');
    let compared = 0;
    for (let n = 1n; n < head; n++) {
      const tag = q(n);
      for (const a of accounts) {
        for (const [method, extra] of [['eth_getBalance', []], ['eth_getTransactionCount', []], ['eth_getCode', []]] as const) {
          const params = [h(a), ...extra, tag];
          expect({ n, method, a: h(a), v: await ours(method, params) }).toEqual({ n, method, a: h(a), v: await theirs(method, params) });
          compared++;
        }
        // GENESIS_CODE_AT stores TIMESTAMP and COINBASE-derived words, which differ between the two chains.
        if (a === GENESIS_CODE_AT) continue;
        for (const slot of ['0x0', '0x1', '0x3']) {
          const params = [h(a), slot, tag];
          expect({ n, a: h(a), slot, v: await ours('eth_getStorageAt', params) }).toEqual({ n, a: h(a), slot, v: await theirs('eth_getStorageAt', params) });
          compared++;
        }
      }
      const call = [{ data: h(BALANCE_OF_A) }, tag];
      expect({ n, v: await ours('eth_call', call) }).toEqual({ n, v: await theirs('eth_call', call) });
      const est = [{ from: h(A.address), to: h(chain.store!), data: `0x${'00'.repeat(31)}07` }, tag];
      expect({ n, v: await ours('eth_estimateGas', est) }).toEqual({ n, v: await theirs('eth_estimateGas', est) });
      compared += 2;
    }
    expect(compared).toBeGreaterThan(250);
    await db.close();
  }, 120_000);
});
