// Archive figures: replay rate of ERC-20 transfers (re-executed with stock EthereumJS, verified against the
// canister's receipts and roots, and committed into PostgreSQL at 127.0.0.1:5432, a fresh database), the history
// it keeps per transaction, and the latency of a historical eth_call (balanceOf) far below the head. The chain is
// produced by the canister's own core and EVM engine in-process (no wasm), exported by its own export code.
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

const hexBytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
const addrHex = (b: Uint8Array): `0x${string}` => `0x${Buffer.from(b).toString('hex')}`;

async function erc20Chain(): Promise<{ chain: ArchiveTestChain; token: Uint8Array; abi: Abi; txs: number }> {
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
}
