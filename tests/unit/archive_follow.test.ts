// The archive following a chain run by the canister's own core, on both database back ends: every block
// re-executed, verified and stored; then, at every block N, balances, nonces, code, storage slots and eth_call
// answered from the history tables equal what the canister answered when N was its head. Also: resume after a
// restart, rewind on a chain that went back (evm_revert), and the alarm that stops it at an altered block.
import { afterAll, describe, expect, it } from 'vitest';
import { ArchiveFollower } from '../../src/archive/follower.js';
import { ArchiveReader } from '../../src/archive/reader.js';
import { openDb, type Db } from '../../src/indexer/db.js';
import { asm } from '../support/asm.js';
import { A, ArchiveTestChain, B, GENESIS, GENESIS_CODE_AT } from '../support/archive_chain.js';
import { addr } from '../support/chain_testkit.js';
import { backendDbs, dbBackends } from '../support/postgres.js';

const backends = dbBackends('archive');

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const word = (n: bigint): Uint8Array => Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex'));
/** A creation call whose initcode returns BALANCE(A): eth_call answers the word. */
const BALANCE_OF_A = asm(Uint8Array.of(0x73, ...A.address), 'BALANCE', 0, 'MSTORE', 32, 0, 'RETURN');

interface Snapshot {
  accounts: Record<string, { balance: bigint; nonce: bigint; code: string; slots: string[] }>;
  call: string;
}

async function runChain(): Promise<{ chain: ArchiveTestChain; snaps: Map<bigint, Snapshot>; watched: () => Uint8Array[] }> {
  const chain = await ArchiveTestChain.create();
  const snaps = new Map<bigint, Snapshot>();
  const watched = (): Uint8Array[] => [A.address, B.address, GENESIS_CODE_AT, addr(0xcb), addr(0x13), ...(chain.store ? [chain.store] : []), ...(chain.killable ? [chain.killable] : [])];
  const snap = async (n: bigint): Promise<void> => {
    const accounts: Snapshot['accounts'] = {};
    for (const a of watched()) {
      const core = chain.core;
      const ok = <T>(r: { ok: boolean; value?: T }): T => r.value as T;
      accounts[hex(a)] = {
        balance: ok(core.getBalance(a)),
        nonce: chain.core['engine'].getNonce(a) as bigint,
        code: hex(ok(core.getCode(a))),
        slots: [0n, 1n, 3n, n].map((s) => hex(ok(core.getStorageAt(a, word(s))))),
      };
    }
    const call = await chain.core.callObject({ data: BALANCE_OF_A }, { kind: 'Latest' });
    snaps.set(n, { accounts, call: call.ok ? hex(call.value) : `err ${call.error.code}` });
  };
  await snap(0n);
  chain.onBlock = snap;
  await chain.runScenario(8);
  return { chain, snaps, watched };
}

describe.each(backends)('archive on %s', (name, open) => {
  const openOrSkip = backendDbs(name, open, afterAll);

  it('follows, verifies and stores every block; reads at every block equal the canister head reads then', async (t) => {
    const db = await openOrSkip(t);
    if (db === undefined) return;
    const { chain, snaps, watched } = await runChain();
    const logs: string[] = [];
    const f = new ArchiveFollower({ client: chain.client(), db, chainId: 4801360n, genesis: GENESIS, maxBytes: 2048, log: (l) => logs.push(l) });
    await f.run({ untilCaughtUp: true });
    expect(f.status()).toMatchObject({ verifiedHead: chain.head, alarm: undefined });
    expect(logs.some((l) => l.includes('caught up'))).toBe(true);
    const reader = new ArchiveReader(db);
    expect(await reader.headBlock()).toBe(chain.head);
    for (const [n, s] of snaps) {
      for (const a of watched()) {
        const exp = s.accounts[hex(a)];
        if (exp === undefined) continue;
        const acc = await reader.account(a, n);
        expect(acc.ok).toBe(true);
        if (!acc.ok) continue;
        expect({ n, a: hex(a), balance: acc.value.balance, nonce: acc.value.nonce, code: hex(acc.value.code) }).toEqual({ n, a: hex(a), balance: exp.balance, nonce: exp.nonce, code: exp.code });
        const slots = [];
        for (const sl of [0n, 1n, 3n, n]) {
          const v = await reader.storageAt(a, word(sl), n);
          slots.push(v.ok ? hex(v.value) : 'err');
        }
        expect({ n, a: hex(a), slots }).toEqual({ n, a: hex(a), slots: exp.slots });
      }
      const call = await reader.call({ data: BALANCE_OF_A }, n);
      expect({ n, call: call.ok ? hex(call.value) : `err ${call.error.code}` }).toEqual({ n, call: s.call });
    }
    // Above the archive's head: unavailable, as the canister answers for old blocks.
    const above = await reader.account(A.address, chain.head + 1n);
    expect(above.ok ? 'ok' : above.error.code).toBe('exec.state.unavailable');
    // eth_estimateGas at block 1 for a plain transfer
    const est = await reader.estimateGas({ from: A.address, to: B.address, value: 1n }, 1n);
    expect(est).toMatchObject({ ok: true, value: 21000n });
    // A revert keeps the head's shape: exec.reverted with the revert data.
    const reverted = await reader.call({ data: asm(0, 0, 'REVERT') }, 1n);
    expect(reverted.ok ? 'ok' : reverted.error.code).toBe('exec.reverted');

    // Resume: a new follower on the same tables picks up where it stopped and follows new blocks.
    chain.send(A, { to: B.address, value: 1n, gasLimit: 21_000n });
    await chain.mine();
    const g = new ArchiveFollower({ client: chain.client(), db, chainId: 4801360n, log: () => {} });
    await g.run({ untilCaughtUp: true });
    expect(g.status().verifiedHead).toBe(chain.head);
    expect((await reader.account(B.address, chain.head)).ok).toBe(true);
  }, 120_000);

  it('rewinds on request (evm_revert) and stops with an alarm at an altered block', async (t) => {
    const db = await openOrSkip(t);
    if (db === undefined) return;
    const { chain } = await runChain();
    const logs: string[] = [];
    const f = new ArchiveFollower({ client: chain.client(), db, chainId: 4801360n, genesis: GENESIS, log: (l) => logs.push(l) });
    await f.run({ untilCaughtUp: true });
    const reader = new ArchiveReader(db);
    const before = (await reader.account(A.address, 3n));
    // Rewind to block 3 and follow again: the same blocks come back and verify.
    const done = f.requestRewind(3n);
    const run = f.run({ untilCaughtUp: true });
    await done;
    await run;
    expect(logs.some((l) => l.includes('the chain went back to block 3;'))).toBe(true);
    expect(f.stats.blocks).toBe(Number(chain.head) + 1 + Number(chain.head) - 3);
    expect(f.status().verifiedHead).toBe(chain.head);
    expect(await reader.account(A.address, 3n)).toEqual(before);

    // An altered receipt in a new block: the archive stops before it and serves nothing past the last good block.
    const good = chain.head;
    chain.send(A, { to: B.address, value: 1n, gasLimit: 21_000n });
    await chain.mine();
    const client = chain.client();
    const inner = chain.transport();
    const altered = new (client.constructor as typeof import('../../src/client/index.js').CanisterClient)({
      kind: 'host',
      call: async (mode, method, args) => {
        const r = (await inner.call(mode, method, args)) as { Ok?: { chunks: { block_number: bigint; segment: number; data: Uint8Array }[] } };
        if (method === 'export_blocks' && r.Ok !== undefined) {
          for (const c of r.Ok.chunks) {
            // receipt segment of the new block: flip the last byte of gas_used of the first receipt
            if (c.block_number === good + 1n && c.segment === 2) {
              const d = c.data.slice();
              d[14 + 4 + 8 + 1 + 7]! ^= 1; // header(10) + n(4) + len(4) + tx_id(8) + status(1) + gas_used[7]
              c.data = d;
            }
          }
        }
        return r;
      },
    });
    const g = new ArchiveFollower({ client: altered, db, chainId: 4801360n, log: (l) => logs.push(l) });
    await g.run({ untilCaughtUp: true });
    const alarm = g.status().alarm;
    expect(alarm).toMatchObject({ block: good + 1n, txIndex: 0, field: 'receipt.gasUsed' });
    expect(logs.some((l) => l.includes(`MISMATCH at block ${good + 1n}, tx 0`))).toBe(true);
    expect(await reader.headBlock()).toBe(good);
    expect(JSON.parse((await reader.alarm())!)).toMatchObject({ field: 'receipt.gasUsed' });
    const past = await reader.account(A.address, good + 1n);
    expect(past.ok ? 'ok' : past.error.code).toBe('exec.state.unavailable');
    expect(past.ok ? '' : past.error.message).toMatch(new RegExp(`stopped at a mismatch: block ${good + 1n}, tx 0: receipt.gasUsed exported`));
  }, 120_000);
});
