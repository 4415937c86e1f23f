// The archive's retention and its start after the canister pruned history (docs/archive.md "Retention"):
// - keeping N blocks prunes every history row a read at or above the floor (head - N) can no longer see, keeps
//   the 256 block hashes below the floor, answers every read from the floor to the head exactly as an archive
//   kept from genesis does (before and after more blocks are replayed on the pruned tables), and refuses reads
//   below the floor naming the first block it serves; a rewind below the floor is refused with the reason;
// - an archive whose next block the canister has pruned says which blocks it cannot get and why (log, status,
//   the reader's error), stays idle, and serves nothing it has not verified (only what it verified before).
// On PGlite and PostgreSQL.
import { afterAll, describe, expect, it } from 'vitest';
import { ArchiveFollower } from '../../src/archive/follower.js';
import { ArchiveReader } from '../../src/archive/reader.js';
import { Retention } from '../../src/archive/retention.js';
import { ErrorCode } from '../../src/core/errors.js';
import { openDb, type Db, type Queryable } from '../../src/indexer/db.js';
import { A, ArchiveTestChain, B, GENESIS_CODE_AT } from '../support/archive_chain.js';
import { addr, okValue } from '../support/chain_testkit.js';
import { backendDbs, dbBackends } from '../support/postgres.js';

const backends = dbBackends('archive_ops_retention');

const KEEP = 20;
const word = (n: bigint): Uint8Array => Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex'));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** The scenario, then blocks that rewrite the same keys (a Store slot, the context contract's slots, balances). */
async function longChain(blocks: number): Promise<ArchiveTestChain> {
  const chain = await ArchiveTestChain.create();
  await chain.runScenario(6);
  await mineMore(chain, blocks);
  return chain;
}

async function mineMore(chain: ArchiveTestChain, blocks: number): Promise<void> {
  for (let i = 0; i < blocks; i++) {
    chain.send(A, { to: chain.store!, data: word(BigInt(1000 + i)) });
    if (i % 3 === 0) chain.send(B, { to: GENESIS_CODE_AT });
    chain.send(A, { to: addr(0x60 + (i % 5)), value: 1n, gasLimit: 21_000n });
    await chain.mine();
  }
}

async function readsAt(r: ArchiveReader, chain: ArchiveTestChain, n: bigint): Promise<string> {
  const out: string[] = [];
  for (const a of [A.address, B.address, GENESIS_CODE_AT, chain.store!, addr(0x61), addr(0xcb)]) {
    const acc = okValue(await r.account(a, n));
    out.push(`${hex(a)} ${acc.balance} ${acc.nonce} ${hex(acc.code)}`);
    for (const s of [0n, 1n, n, n - 1n]) out.push(hex(okValue(await r.storageAt(a, word(s), n))));
  }
  // BLOCKHASH, NUMBER, TIMESTAMP, COINBASE, PREVRANDAO ... of block n (the context contract) and an SSTORE's price.
  out.push(String(okValue(await r.estimateGas({ from: B.address, to: GENESIS_CODE_AT }, n))));
  out.push(hex(okValue(await r.call({ from: A.address, to: chain.store!, data: word(7n) }, n))));
  const ctx = (await r.blockContext(n))!;
  for (let k = n - 256n; k < n; k++) out.push(k < 0n ? '-' : hex(ctx.blockHash(k) ?? new Uint8Array(0)));
  return out.join('\n');
}

async function dump(db: Db): Promise<string[]> {
  const out: string[] = [];
  for (const sql of ['SELECT address AS k, block, record AS v FROM archive_accounts ORDER BY 1, 2', 'SELECT skey AS k, block, value AS v FROM archive_storage ORDER BY 1, 2', 'SELECT hash AS k, number AS block, state_root AS v FROM archive_blocks ORDER BY 2']) {
    for (const r of (await db.query<{ k: Uint8Array; block: bigint; v: Uint8Array | null }>(sql)).rows) out.push(`${hex(r.k)} ${r.block} ${r.v === null ? 'null' : hex(r.v)}`);
  }
  return out;
}

async function historyRows(db: Db): Promise<number> {
  const r = await db.query<{ n: string }>('SELECT ((SELECT count(*) FROM archive_accounts) + (SELECT count(*) FROM archive_storage))::text AS n');
  return Number(r.rows[0]!.n);
}

describe.each(backends)('archive retention on %s', (name, open) => {
  // Without a PostgreSQL server outside CI the postgres row fails here rather than skipping: no t.skip at hand.
  const opener = backendDbs(name, open, afterAll);
  const openOrSkip = async (): Promise<Db> => (await opener({ skip: () => { throw new Error(`${name}: no PostgreSQL server`); } }))!;

  it(`keeps ${KEEP} blocks: rows below the floor pruned, reads from the floor up exact, below it refused`, async () => {
    const chain = await longChain(290);
    const [full, kept] = [await openOrSkip(), await openOrSkip()];
    const lines: string[] = [];
    const fFull = new ArchiveFollower({ client: chain.client(), db: full, chainId: 4801360n, log: () => {} });
    const fKept = new ArchiveFollower({ client: chain.client(), db: kept, chainId: 4801360n, keepBlocks: KEEP, maxBytes: 64 * 1024, log: (l) => lines.push(l) });
    await fFull.run({ untilCaughtUp: true });
    await fKept.run({ untilCaughtUp: true });
    const head = chain.head;
    const floor = head - BigInt(KEEP);
    expect(fKept.status()).toMatchObject({ verifiedHead: head, floor, alarm: undefined, unservable: undefined });
    const rFull = new ArchiveReader(full);
    const rKept = new ArchiveReader(kept);

    // Every key keeps at most one row at or below the floor (its latest), and none that reads as absent.
    for (const [table, key, value] of [['archive_accounts', 'address', 'record'], ['archive_storage', 'skey', 'value']] as const) {
      const below = await kept.query<{ n: string }>(`SELECT count(*)::text AS n FROM (SELECT ${key} FROM ${table} WHERE block <= $1 GROUP BY ${key} HAVING count(*) > 1) x`, [floor]);
      expect(below.rows[0]!.n, table).toBe('0');
      const nulls = await kept.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table} WHERE block <= $1 AND ${value} IS NULL`, [floor]);
      expect(nulls.rows[0]!.n, table).toBe('0');
    }
    expect(await historyRows(kept)).toBeLessThan((await historyRows(full)) / 4);
    // Block contexts: 256 below the floor kept for BLOCKHASH, nothing older.
    const blocks = await kept.query<{ lo: bigint }>('SELECT min(number) AS lo FROM archive_blocks');
    expect(BigInt(blocks.rows[0]!.lo)).toBe(floor - 256n);
    expect(lines.some((l) => l.includes(`history below block ${floor} pruned`))).toBe(true);

    for (let n = floor; n <= head; n++) expect(await readsAt(rKept, chain, n), `block ${n}`).toBe(await readsAt(rFull, chain, n));

    expect(await rKept.firstBlock()).toBe(floor);
    expect(await rKept.holds(floor - 1n)).toBe(false);
    for (const n of [floor - 1n, 3n, 0n]) {
      const r = await rKept.account(A.address, n);
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.error.code).toBe(ErrorCode.ExecStateUnavailable);
      expect(r.error.message).toBe(`the archive does not hold block ${n} (it holds ${floor}..${head}); history below block ${floor} is not kept (retention)`);
    }
    // The full archive still answers there.
    expect((await rFull.account(A.address, 3n)).ok).toBe(true);

    // Pruned afterwards in many small chunks, an archive kept from genesis ends with exactly the same tables.
    const third = await openOrSkip();
    await new ArchiveFollower({ client: chain.client(), db: third, chainId: 4801360n, log: () => {} }).run({ untilCaughtUp: true });
    const byChunks = new Retention(third, KEEP, 40);
    await byChunks.follow(head);
    let chunks = 0;
    for (let c = await byChunks.pruneChunk(); ; c = await byChunks.pruneChunk()) {
      chunks++;
      if (c.done) break;
    }
    expect(chunks).toBeGreaterThan(10);
    expect(await dump(third)).toEqual(await dump(kept));

    // A read racing the pruning (the floor passes its block between the check and the lookup) is refused, not wrong.
    const raceAt = head - 10n;
    let raced = false;
    const racing: Queryable = {
      async query<R>(sql: string, params?: readonly unknown[]) {
        if (!raced && sql.includes('FROM archive_accounts WHERE address')) {
          raced = true;
          const r = new Retention(third, 5);
          await r.follow(head);
          while (!(await r.pruneChunk()).done);
        }
        return third.query<R>(sql, params);
      },
    };
    const race = await new ArchiveReader(racing).account(A.address, raceAt);
    expect(raced).toBe(true);
    expect(race.ok ? race.value.balance : race.error.message).toBe(`the archive does not hold block ${raceAt} (it holds ${head - 5n}..${head}); history below block ${head - 5n} is not kept (retention)`);

    // Restarted on the pruned tables, it replays on (the head state rebuilt from them verifies) and prunes again.
    await mineMore(chain, 12);
    const again = new ArchiveFollower({ client: chain.client(), db: kept, chainId: 4801360n, keepBlocks: KEEP, log: () => {} });
    await again.run({ untilCaughtUp: true });
    await fFull.run({ untilCaughtUp: true });
    expect(again.status()).toMatchObject({ verifiedHead: chain.head, floor: chain.head - BigInt(KEEP), alarm: undefined });
    for (let n = chain.head - BigInt(KEEP); n <= chain.head; n += 4n) expect(await readsAt(rKept, chain, n), `block ${n}`).toBe(await readsAt(rFull, chain, n));

    // The chain going back below the floor cannot be followed: the state there is gone.
    const to = chain.head - BigInt(KEEP) - 1n;
    const rewound = again.requestRewind(to);
    await again.run({ untilCaughtUp: true });
    await rewound;
    expect(again.status().unservable).toBe(`the chain went back to block ${to}, below this archive's retention floor ${to + 1n}: the history needed to replay from there was pruned; start a new archive database`);
    expect(await rKept.headBlock()).toBe(chain.head);
  });

  it('started after the canister pruned blocks it needs: says which and why, serves nothing it cannot prove', async () => {
    const chain = await ArchiveTestChain.create();
    await chain.runScenario(6);
    // An archive that verified blocks 0..5 before the canister pruned, and one started afterwards.
    const early = await openOrSkip();
    await new ArchiveFollower({ client: chain.client(), db: early, chainId: 4801360n, log: () => {} }).run({ untilCaughtUp: true });
    const held = chain.head;
    for (let i = 0; i < 270; i++) expect((await chain.core.produceBlock({ allowEmpty: true })).kind).toBe('Produced');
    const first = okValue(chain.core.pruneBlocks(12n, 50_000)).prunedBefore;
    expect(first).toBe(12n);

    const late = await openOrSkip();
    const lines: string[] = [];
    const f = new ArchiveFollower({ client: chain.client(), db: late, chainId: 4801360n, log: (l) => lines.push(l) });
    await f.run({ untilCaughtUp: true });
    const why =
      'the canister pruned blocks 0..11 before this archive replayed them (export_blocks: Pruned, first available block 12); the archive re-executes every block from genesis, ' +
      'so it can verify and serve no block from 0 on (it holds no block). Run the archive before the canister prunes, or start it on a copy of an archive database that reached block 11';
    expect(f.status()).toMatchObject({ verifiedHead: -1n, unservable: why });
    expect(lines).toContain(`archive: ${why}`);
    const r = new ArchiveReader(late);
    for (const n of [0n, 5n, 12n, chain.head]) {
      expect(await r.holds(n)).toBe(false);
      const a = await r.account(A.address, n);
      expect(a.ok ? 'served' : a.error.message).toBe(`the archive does not hold block ${n} (it holds no block); ${why}`);
    }
    expect((await late.query<{ n: string }>('SELECT count(*)::text AS n FROM archive_blocks')).rows[0]!.n).toBe('0');

    // The early archive keeps serving what it verified, and refuses the rest with the same reason.
    const g = new ArchiveFollower({ client: chain.client(), db: early, chainId: 4801360n, log: () => {} });
    await g.run({ untilCaughtUp: true });
    expect(g.status().verifiedHead).toBe(held);
    expect(g.status().unservable).toContain(`the canister pruned blocks ${held + 1n}..11 before this archive replayed them`);
    expect(g.status().unservable).toContain(`it keeps serving blocks 0..${held}, verified before`);
    const re = new ArchiveReader(early);
    expect(okValue(await re.account(B.address, held)).nonce).toBeGreaterThan(0n);
    const after = await re.account(A.address, held + 1n);
    expect(after.ok ? 'served' : after.error.message).toBe(`the archive does not hold block ${held + 1n} (it holds 0..${held}); ${g.status().unservable}`);
  });
});
