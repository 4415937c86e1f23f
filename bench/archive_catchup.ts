// Archive catch-up and deep historical reads (`npm run bench -- --only archive_catchup`): a 100,000-block backlog
// of light blocks (an ERC-20 transfer in every twentieth block, the rest empty) produced by the canister's own core
// in-process and exported by its own export code, re-executed, verified and committed into PostgreSQL at
// 127.0.0.1:5432 (a fresh database) by the follower from genesis, with its progress line; then eth_call
// (balanceOf) 10,000 blocks below the head through ArchiveReader.call, over the history that backlog left.
import { encodeDeployData, encodeFunctionData, type Abi } from 'viem';
import { ArchiveFollower } from '../src/archive/follower.js';
import { ArchiveReader } from '../src/archive/reader.js';
import { A, ArchiveTestChain } from '../tests/support/archive_chain.js';
import { compileFixture } from '../tests/fixtures/solidity/compile.js';
import { postgresTestDb } from '../tests/support/postgres.js';
import type { Report } from './evm.js';

const BLOCKS = 100_000;
const TRANSFER_EVERY = 20;
const BACK = 10_000n;
const CALLS = 300;

const hexBytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
const addrHex = (b: Uint8Array): `0x${string}` => `0x${Buffer.from(b).toString('hex')}`;

export async function benchArchiveCatchUp(report: Report): Promise<void> {
  const pg = await postgresTestDb('archive_bench_catchup');
  if (typeof pg === 'string') {
    console.error(`bench: archive.catchup.* skipped: ${pg}`);
    return;
  }
  try {
    const { abi, bytecode } = compileFixture('Token.sol', 'Token');
    const chain = await ArchiveTestChain.create();
    const token = chain.send(A, { to: null, data: hexBytes(encodeDeployData({ abi: abi as Abi, bytecode, args: ['Bench', 'BNC', 10n ** 30n] })), gasLimit: 2_000_000n });
    await chain.mine();
    let txs = 1;
    while (chain.head < BigInt(BLOCKS)) {
      if (chain.head % BigInt(TRANSFER_EVERY) === 0n) {
        const to = new Uint8Array(20).fill(0x20 + (txs % 200));
        chain.send(A, { to: token, data: hexBytes(encodeFunctionData({ abi: abi as Abi, functionName: 'transfer', args: [addrHex(to), BigInt(txs)] })), gasLimit: 60_000n, maxFee: 2n * 250_000_000_000n });
        txs++;
        await chain.mine();
      } else {
        const r = await chain.core.produceBlock({ allowEmpty: true });
        if (r.kind !== 'Produced') throw new Error(`archive catch-up bench: no block (${r.kind})`);
      }
    }
    const progress: string[] = [];
    const f = new ArchiveFollower({ client: chain.client(), db: pg.db, chainId: 4801360n, log: (l) => void (/ blocks\/s, ETA /.test(l) && progress.push(l)) });
    await f.prepare();
    const t0 = performance.now();
    await f.run({ untilCaughtUp: true });
    const seconds = (performance.now() - t0) / 1000;
    if (f.status().alarm !== undefined || f.status().verifiedHead !== chain.head || f.stats.txs !== txs) throw new Error(`archive catch-up bench: replay stopped (${JSON.stringify(f.status().alarm)})`);
    console.error(`bench: archive catch-up progress lines: ${progress.length}, last: ${progress.at(-1) ?? 'none'}`);
    report('archive.catchup.blocks_per_s', Math.round(Number(chain.head + 1n) / seconds), `blocks/s (a ${chain.head + 1n}-block backlog from genesis, an ERC-20 transfer in every ${TRANSFER_EVERY}th block, re-executed, verified and stored in PostgreSQL; ${seconds.toFixed(1)} s)`);

    const reader = new ArchiveReader(pg.db);
    const at = chain.head - BACK;
    const data = hexBytes(encodeFunctionData({ abi: abi as Abi, functionName: 'balanceOf', args: [addrHex(A.address)] }));
    const times: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const c0 = performance.now();
      const r = await reader.call({ to: token, data }, at);
      times.push(performance.now() - c0);
      if (!r.ok) throw new Error(`archive catch-up bench: historical call failed: ${r.error.message}`);
    }
    times.sort((x, y) => x - y);
    report('archive.call.back_10000.median_ms', Number(times[Math.floor(CALLS / 2)]!.toFixed(2)), `ms (eth_call balanceOf at block ${at}, ${BACK} blocks below the head of a ${chain.head + 1n}-block history, PostgreSQL)`);
    report('archive.call.back_10000.p99_ms', Number(times[Math.floor(CALLS * 0.99)]!.toFixed(2)), 'ms (same, 99th percentile)');

    // The same backlog with ARCHIVE_KEEP_BLOCKS=10000: the floor follows the head and history below it is pruned
    // in chunks between pulls, then until none is left once caught up.
    const kept = await postgresTestDb('archive_bench_catchup_keep');
    if (typeof kept === 'string') throw new Error(kept);
    try {
      const k = new ArchiveFollower({ client: chain.client(), db: kept.db, chainId: 4801360n, keepBlocks: Number(BACK), log: () => {} });
      await k.prepare();
      const k0 = performance.now();
      await k.run({ untilCaughtUp: true });
      const kSeconds = (performance.now() - k0) / 1000;
      if (k.status().verifiedHead !== chain.head || k.status().floor !== at) throw new Error(`archive catch-up bench: kept archive at ${k.status().verifiedHead}, floor ${k.status().floor}`);
      const rows = async (db: typeof pg.db): Promise<number> => Number((await db.query<{ n: string }>('SELECT ((SELECT count(*) FROM archive_accounts) + (SELECT count(*) FROM archive_storage))::text AS n')).rows[0]!.n);
      report('archive.catchup.keep_10000.blocks_per_s', Math.round(Number(chain.head + 1n) / kSeconds), `blocks/s (the same backlog keeping 10,000 blocks, pruned to the floor before it reports caught up; ${kSeconds.toFixed(1)} s; history rows ${await rows(kept.db)} against ${await rows(pg.db)} kept from genesis)`);
    } finally {
      await kept.db.close();
      await kept.drop();
    }
  } finally {
    await pg.db.close();
    await pg.drop();
  }
}
