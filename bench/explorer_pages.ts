// Explorer pages on a database of a million transactions: each page kind served from the local PostgreSQL
// server (a fresh database, filled with generate_series so the fill takes seconds), timed over several requests;
// `explorer.page.slowest_ms` is the median of the slowest page kind. Skipped, with a line on stderr, where no
// server answers at 127.0.0.1:5432.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPagesHandler } from '../src/explorer/pages/index.js';
import { migrate } from '../src/indexer/migrate.js';
import { INDEXER_COMPONENT, INDEXER_MIGRATIONS } from '../src/indexer/schema.js';
import { recomputeTokenBalances } from '../src/indexer/store.js';
import { postgresTestDb } from '../tests/support/postgres.js';

type Report = (name: string, value: number | bigint, unit: string) => void;

const BLOCKS = 10_000;
const TXS_PER_BLOCK = 100; // 1,000,000 transactions, receipts, logs and token transfers
const SENDERS = 1_000;
const TOKENS = 20;

const addr = (n: string): string => `decode(lpad(to_hex(${n}), 40, '0'), 'hex')`;
const hash = (n: string): string => `decode(lpad(to_hex(${n}), 64, '0'), 'hex')`;

export async function benchExplorerPages(report: Report): Promise<void> {
  const ctx = await postgresTestDb('pages_bench');
  if (typeof ctx === 'string') {
    console.error(`bench: explorer pages skipped: ${ctx}`);
    return;
  }
  const { db } = ctx;
  try {
    await migrate(db, INDEXER_COMPONENT, INDEXER_MIGRATIONS);
    const fillStart = Date.now();
    // Foreign-key triggers off for the bulk fill (the rows are consistent by construction), on again after.
    await db.exec(`
SET session_replication_role = replica;
INSERT INTO blocks SELECT n, ${hash('n + 1000000000')}, ${hash('n + 999999999')}, 1700000000 + n * 2, 2100000, 3000000, 250000000000, ${TXS_PER_BLOCK},
  ${addr('0')}, ${hash('1')}, ${hash('2')}, ${hash('3')}, decode(repeat('00', 256), 'hex'), 40000 FROM generate_series(0, ${BLOCKS - 1}) n;
INSERT INTO txs SELECT ${hash('i')}, decode(lpad(to_hex(i), 16, '0'), 'hex'), i / ${TXS_PER_BLOCK}, i % ${TXS_PER_BLOCK}, 2, 'EthSigned', NULL,
  ${addr(`i % ${SENDERS} + 4096`)}, ${addr(`(i * 7) % ${SENDERS} + 4096`)}, 1000000000000000000, i / ${SENDERS}, 100000, NULL, 500000000000, 250000000000,
  decode('a9059cbb', 'hex'), CASE WHEN i % 50 = 0 THEN 0 ELSE 1 END FROM generate_series(0, ${BLOCKS * TXS_PER_BLOCK - 1}) i;
INSERT INTO receipts SELECT ${hash('i')}, i / ${TXS_PER_BLOCK}, CASE WHEN i % 50 = 0 THEN 0 ELSE 1 END, 50000, 50000 * (i % ${TXS_PER_BLOCK} + 1), 500000000000,
  NULL, CASE WHEN i % 50 = 0 THEN 'exec.reverted' END FROM generate_series(0, ${BLOCKS * TXS_PER_BLOCK - 1}) i;
INSERT INTO logs SELECT i / ${TXS_PER_BLOCK}, i % ${TXS_PER_BLOCK}, ${hash('i')}, i % ${TXS_PER_BLOCK}, ${addr(`i % ${TOKENS} + 65536`)},
  decode('ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', 'hex'), ${hash(`i % ${SENDERS} + 4096`)}, ${hash(`(i * 7) % ${SENDERS} + 4096`)}, NULL,
  ${hash('1000')} FROM generate_series(0, ${BLOCKS * TXS_PER_BLOCK - 1}) i;
INSERT INTO token_transfers SELECT ${hash('i')}, i / ${TXS_PER_BLOCK}, i % ${TXS_PER_BLOCK}, ${addr(`i % ${TOKENS} + 65536`)}, ${addr(`i % ${SENDERS} + 4096`)},
  ${addr(`(i * 7) % ${SENDERS} + 4096`)}, 1000, NULL FROM generate_series(0, ${BLOCKS * TXS_PER_BLOCK - 1}) i;
INSERT INTO indexer_state VALUES (1, 4801360, ${BLOCKS}, 0, 0, ${BLOCKS - 1}, 0, now());
INSERT INTO ops_metrics_samples (sampled_at, head_block, metrics) SELECT now() - (s || ' minutes')::interval, ${BLOCKS} - s, '{"mode":{"Normal":null},"pending_txs":"3"}'::jsonb FROM generate_series(1, 500) s;
SET session_replication_role = DEFAULT;
ANALYZE;`);
    report('explorer.bench.fill_ms', Date.now() - fillStart, 'ms');
    // The balances the indexer maintains with its commits, filled once for the bulk rows (as the migration does).
    const balancesStart = Date.now();
    await recomputeTokenBalances(db);
    report('explorer.bench.token_balances_fill_ms', Date.now() - balancesStart, 'ms');
    report('explorer.bench.txs', BLOCKS * TXS_PER_BLOCK, 'transactions');

    const pages = createPagesHandler({
      db,
      chainId: 4801360n,
      verified: async () => undefined,
      // The gateway's part is not what is measured here: constant answers.
      rpc: async (method) => (method === 'eth_getCode' ? '0x' : method === 'eth_getTransactionByHash' ? null : method === 'eth_call' ? '0x' : '0x1'),
    });
    const server = createServer((req, res) => void pages(req, res).then((ok) => ok || res.writeHead(404).end()));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const sender = (4096 + 17).toString(16).padStart(40, '0');
    const token = (65536 + 3).toString(16).padStart(40, '0');
    const kinds: Record<string, string> = {
      home: '/',
      block: `/block/${BLOCKS / 2}`,
      tx: `/tx/0x${(123_456).toString(16).padStart(64, '0')}`,
      address: `/address/0x${sender}`,
      address_older: `/address/0x${sender}?before=${BLOCKS / 2}-0&tbefore=${BLOCKS / 2}-0`,
      token: `/token/0x${token}`,
      ops: '/ops',
    };
    let slowest = 0;
    try {
      for (const [kind, path] of Object.entries(kinds)) {
        const times: number[] = [];
        for (let i = 0; i < 7; i++) {
          const t = performance.now();
          const r = await fetch(base + path);
          await r.text();
          if (r.status !== 200) throw new Error(`explorer bench: ${path} answered ${r.status}`);
          times.push(performance.now() - t);
        }
        times.sort((a, b) => a - b);
        const median = Math.round(times[3]! * 10) / 10;
        report(`explorer.page.${kind}.ms`, median, 'ms');
        slowest = Math.max(slowest, median);
      }
    } finally {
      await new Promise((r) => server.close(r));
    }
    report('explorer.page.slowest_ms', slowest, 'ms');
  } finally {
    await db.close();
    await ctx.drop();
  }
}

// `npx tsx bench/explorer_pages.ts` runs this bench alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  await benchExplorerPages((name, value, unit) => console.log(JSON.stringify({ name, value: Number(value), unit })));
}
