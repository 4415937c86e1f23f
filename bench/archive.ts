// Archive figures: replay rate of ERC-20 transfers and of Uniswap V2-style swaps (re-executed with stock
// EthereumJS, verified against the canister's receipts and roots, and committed into PostgreSQL at
// 127.0.0.1:5432, a fresh database each, with every transaction's internal transactions and contract creators),
// the history it keeps per transaction, and the latency of a historical eth_call (balanceOf) far below the head.
// The chains are produced by the canister's own core and EVM engine in-process (no wasm), exported by its own
// export code.
import { encodeDeployData, encodeFunctionData, type Abi } from 'viem';
import { ArchiveFollower } from '../src/archive/follower.js';
import { ArchiveReader } from '../src/archive/reader.js';
import type { Db } from '../src/indexer/db.js';
import { A, ArchiveTestChain } from '../tests/support/archive_chain.js';
import { compileFixture } from '../tests/fixtures/solidity/compile.js';
import { postgresTestDb } from '../tests/support/postgres.js';
import type { Report } from './evm.js';

const BLOCKS = 60;
const TRANSFERS_PER_BLOCK = 50;
const CALLS = 200;
const SWAP_BLOCKS = 40;
/** About 110,000 gas a swap: as many as the 3,000,000 block gas limit holds with room to spare. */
const SWAPS_PER_BLOCK = 20;

const hexBytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
const addrHex = (b: Uint8Array): `0x${string}` => `0x${Buffer.from(b).toString('hex')}`;

export async function erc20Chain(): Promise<{ chain: ArchiveTestChain; token: Uint8Array; abi: Abi; txs: number }> {
  const { abi, bytecode } = compileFixture('Token.sol', 'Token');
  const chain = await ArchiveTestChain.create();
  const deploy = encodeDeployData({ abi: abi as Abi, bytecode, args: ['Bench', 'BNC', 10n ** 30n] });
  const token = chain.send(A, { to: null, data: hexBytes(deploy), gasLimit: 2_000_000n });
  await chain.mine();
  let txs = 1;
  for (let b = 0; b < BLOCKS; b++) {
    for (let i = 0; i < TRANSFERS_PER_BLOCK; i++) {
      const to = new Uint8Array(20).fill(0x20 + ((b * TRANSFERS_PER_BLOCK + i) % 200));
      const data = encodeFunctionData({ abi: abi as Abi, functionName: 'transfer', args: [addrHex(to), BigInt(i + 1)] });
      chain.send(A, { to: token, data: hexBytes(data), gasLimit: 60_000n, maxFee: 10n * 250_000_000_000n });
      txs++;
    }
    await chain.mine();
  }
  return { chain, token, abi: abi as Abi, txs };
}

/** Two tokens, a pair with liquidity and a router; then blocks of swaps through the router (token 0 in). */
export async function swapChain(): Promise<{ chain: ArchiveTestChain; txs: number; swaps: number }> {
  const chain = await ArchiveTestChain.create();
  const tokenC = compileFixture('Token.sol', 'Token');
  const pairC = compileFixture('Pair.sol', 'Pair');
  const routerC = compileFixture('Pair.sol', 'Router');
  const deploy = (c: { abi: unknown[]; bytecode: `0x${string}` }, args: unknown[]) =>
    chain.send(A, { to: null, data: hexBytes(encodeDeployData({ abi: c.abi as Abi, bytecode: c.bytecode, args })), gasLimit: 1_400_000n });
  const call = (to: Uint8Array, abi: unknown[], functionName: string, args: unknown[]) =>
    chain.send(A, { to, data: hexBytes(encodeFunctionData({ abi: abi as Abi, functionName, args })), gasLimit: 250_000n, maxFee: 10n * 250_000_000_000n });
  const ta = deploy(tokenC, ['A', 'A', 10n ** 30n]);
  const tb = deploy(tokenC, ['B', 'B', 10n ** 30n]);
  await chain.mine();
  const [t0, t1] = Buffer.compare(Buffer.from(ta), Buffer.from(tb)) < 0 ? [ta, tb] : [tb, ta];
  const pair = deploy(pairC, [addrHex(t0), addrHex(t1)]);
  const router = deploy(routerC, []);
  await chain.mine();
  let txs = 4;
  for (const t of [t0, t1]) {
    call(t, tokenC.abi, 'transfer', [addrHex(pair), 10n ** 27n]);
    call(t, tokenC.abi, 'approve', [addrHex(router), 2n ** 256n - 1n]);
    txs += 2;
  }
  call(pair, pairC.abi, 'mint', [addrHex(A.address)]);
  txs++;
  await chain.mine();
  let swaps = 0;
  for (let b = 0; b < SWAP_BLOCKS; b++) {
    for (let i = 0; i < SWAPS_PER_BLOCK; i++) {
      call(router, routerC.abi, 'swapExactIn', [addrHex(pair), true, 10n ** 18n + BigInt(swaps), 1n, addrHex(A.address)]);
      swaps++;
    }
    await chain.mine();
  }
  return { chain, txs: txs + swaps, swaps };
}

async function tableBytes(db: Db): Promise<number> {
  const r = await db.query<{ n: string }>("SELECT sum(pg_total_relation_size(c.oid))::text AS n FROM pg_class c WHERE c.relname IN ('archive_accounts', 'archive_storage', 'archive_code', 'archive_blocks') AND c.relkind = 'r'");
  return Number(r.rows[0]!.n);
}

export async function benchArchive(report: Report): Promise<void> {
  const pg = await postgresTestDb('archive_bench');
  if (typeof pg === 'string') {
    console.error(`bench: archive.* skipped: ${pg}`);
    return;
  }
  try {
    const { chain, token, abi, txs } = await erc20Chain();
    const f = new ArchiveFollower({ client: chain.client(), db: pg.db, chainId: 4801360n, log: () => {} });
    await f.prepare();
    const t0 = performance.now();
    await f.run({ untilCaughtUp: true });
    const seconds = (performance.now() - t0) / 1000;
    if (f.status().alarm !== undefined || f.stats.txs !== txs) throw new Error(`archive bench: replay stopped (${JSON.stringify(f.status().alarm)})`);
    report('archive.replay.erc20.tx_per_s', Math.round(txs / seconds), `tx/s (ERC-20 transfers re-executed, verified and stored in PostgreSQL; ${txs} txs in ${BLOCKS + 1} blocks)`);
    const rows = await pg.db.query<{ a: bigint; s: bigint }>('SELECT (SELECT count(*) FROM archive_accounts)::bigint AS a, (SELECT count(*) FROM archive_storage)::bigint AS s');
    report('archive.history.rows_per_tx', Number(((Number(rows.rows[0]!.a) + Number(rows.rows[0]!.s)) / txs).toFixed(2)), 'history rows per ERC-20 transfer (account and storage rows)');
    report('archive.history.bytes_per_tx', Math.round((await tableBytes(pg.db)) / txs), 'bytes of history tables and indexes per ERC-20 transfer (PostgreSQL)');
    const reader = new ArchiveReader(pg.db);
    const back = chain.head - 1n;
    const data = hexBytes(encodeFunctionData({ abi, functionName: 'balanceOf', args: [addrHex(A.address)] }));
    const times: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const c0 = performance.now();
      const r = await reader.call({ to: token, data }, 1n);
      times.push(performance.now() - c0);
      if (!r.ok) throw new Error(`archive bench: historical call failed: ${r.error.message}`);
    }
    times.sort((x, y) => x - y);
    report('archive.call.balance_of.median_ms', Number(times[Math.floor(CALLS / 2)]!.toFixed(2)), `ms (eth_call balanceOf at block 1, ${back} blocks below the head, PostgreSQL)`);
    report('archive.call.balance_of.p99_ms', Number(times[Math.floor(CALLS * 0.99)]!.toFixed(2)), 'ms (same, 99th percentile)');
  } finally {
    await pg.db.close();
    await pg.drop();
  }
  await benchSwaps(report);
}

/** Swaps: the replay rate with several internal transactions per transaction (what the indexer ingests with them). */
async function benchSwaps(report: Report): Promise<void> {
  const pg = await postgresTestDb('archive_bench_swaps');
  if (typeof pg === 'string') return;
  try {
    const { chain, txs, swaps } = await swapChain();
    const f = new ArchiveFollower({ client: chain.client(), db: pg.db, chainId: 4801360n, log: () => {} });
    await f.prepare();
    const t0 = performance.now();
    await f.run({ untilCaughtUp: true });
    const seconds = (performance.now() - t0) / 1000;
    if (f.status().alarm !== undefined || f.stats.txs !== txs) throw new Error(`archive bench: swap replay stopped (${JSON.stringify(f.status().alarm)})`);
    const failed = await pg.db.query<{ n: string }>("SELECT count(*)::text AS n FROM archive_internal_txs WHERE error IS NOT NULL");
    if (failed.rows[0]!.n !== '0') throw new Error('archive bench: a swap failed');
    const rows = Number((await pg.db.query<{ n: string }>('SELECT count(*)::text AS n FROM archive_internal_txs')).rows[0]!.n);
    report('archive.replay.uniswap_swap.tx_per_s', Math.round(txs / seconds), `tx/s (indexer ingest with internal transactions: Uniswap V2-style swaps through a router re-executed, verified and stored in PostgreSQL with their internal transactions; ${swaps} swaps and ${txs - swaps} setup txs in ${SWAP_BLOCKS + 3} blocks)`);
    report('archive.internal_txs.rows_per_swap', Number((rows / swaps).toFixed(2)), 'internal transaction rows per swap (archive_internal_txs)');
  } finally {
    await pg.db.close();
    await pg.drop();
  }
}
