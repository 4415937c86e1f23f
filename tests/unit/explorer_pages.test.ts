// The explorer's pages over a database filled as the indexer fills it (PGlite, migration 1) and a fake gateway:
// what each page shows, escaping of hostile chain and user data, pruned and retained blocks, paging, search.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeErrorResult, encodeFunctionResult, erc20Abi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/indexer/db.js';
import { migrate } from '../../src/indexer/migrate.js';
import { INDEXER_COMPONENT, INDEXER_MIGRATIONS } from '../../src/indexer/schema.js';
import { recomputeTokenBalances } from '../../src/indexer/store.js';
import { createPagesHandler, PAGE_SIZE, type VerifiedContractInfo } from '../../src/explorer/pages/index.js';
import { escapeHtml, html, raw } from '../../src/explorer/pages/html.js';

const b = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex.replace(/^0x/, ''), 'hex'));
const h32 = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;
const addr = (n: number): string => `0x${n.toString(16).padStart(40, '0')}`;
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const EVIL = '<script>alert(1)</script>';
const TOKEN = addr(0xc0);
const ALICE = addr(0xa1);
const BOB = addr(0xb0);

// A verified contract whose name and source carry markup, and an ABI with a view function, an event and an error.
const VERIFIED: VerifiedContractInfo = {
  contractName: `Token${EVIL}`,
  compilerVersion: 'v0.8.37+commit.f401782d',
  match: 'full',
  abi: [
    { type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ name: 'who', type: 'address' }], outputs: [{ name: '', type: 'uint256' }] },
    { type: 'function', name: 'transfer', stateMutability: 'nonpayable', inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }], outputs: [{ name: '', type: 'bool' }] },
    { type: 'event', name: 'Transfer', inputs: [{ name: 'from', type: 'address', indexed: true }, { name: 'to', type: 'address', indexed: true }, { name: 'value', type: 'uint256', indexed: false }], anonymous: false },
    { type: 'error', name: 'Insufficient', inputs: [{ name: 'have', type: 'uint256' }] },
  ],
  sources: { 'Token.sol': `// ${EVIL}\ncontract Token {}` },
  settings: { optimizer: { enabled: true, runs: 200 } },
};

let db: Db;
let server: Server;
let base: string;
const rpcCalls: { method: string; params: readonly unknown[] }[] = [];

async function fill(): Promise<void> {
  // Blocks 5..40 indexed; 1..4 in a pruned gap; 0 removed (below the first row, not in a gap).
  for (let n = 5; n <= 40; n++) {
    await db.query(
      `INSERT INTO blocks (number, hash, parent_hash, timestamp, gas_used, gas_limit, base_fee, tx_count, miner, state_root, transactions_root, receipts_root, logs_bloom, size)
       VALUES ($1, $2, $3, $4, 21000, 3000000, '250000000000', $5, $6, $7, $7, $7, $8, 600)`,
      [BigInt(n), b(h32(0xb10c00 + n)), b(h32(0xb10c00 + n - 1)), BigInt(1_700_000_000 + n * 2), n === 10 ? 30 : 0, b(addr(0)), b(h32(1)), new Uint8Array(256)],
    );
  }
  // Block 10: 30 transfers from ALICE to BOB (paging), one failed call to the token, one IcSynthetic creation.
  const tx = async (i: number, o: { to: string | null; status: number; origin?: string; principal?: string; input?: string; contract?: string }) => {
    await db.query(
      `INSERT INTO txs (eth_tx_hash, tx_id, block_number, tx_index, type, origin, caller_principal, from_address, to_address, value, nonce, gas_limit,
         gas_price, max_fee_per_gas, max_priority_fee_per_gas, input, receipt_status)
       VALUES ($1, $2, 10, $3, 2, $4, $5, $6, $7, '1000000000000000000', $10, 100000, NULL, '500000000000', '250000000000', $8, $9)`,
      [b(h32(0x7000 + i)), b(`0x${(0x1d00 + i).toString(16).padStart(16, '0')}`), i, o.origin ?? 'EthSigned', o.principal ?? null, b(ALICE), o.to === null ? null : b(o.to), b(o.input ?? '0x'), o.status, BigInt(i)],
    );
    await db.query(
      `INSERT INTO receipts (tx_hash, block_number, status, gas_used, cumulative_gas_used, effective_gas_price, contract_address, failure_code)
       VALUES ($1, 10, $2, 21000, $3, '500000000000', $4, $5)`,
      [b(h32(0x7000 + i)), o.status, BigInt(21000 * (i + 1)), o.contract === undefined ? null : b(o.contract), o.status === 0 ? 'exec.reverted' : null],
    );
  };
  for (let i = 0; i < 28; i++) await tx(i, { to: BOB, status: 1 });
  // transfer(BOB, 5) to the token, failed
  const transferInput = `0xa9059cbb${BOB.slice(2).padStart(64, '0')}${(5).toString(16).padStart(64, '0')}`;
  await tx(28, { to: TOKEN, status: 0, input: transferInput });
  await tx(29, { to: null, status: 1, origin: 'IcSynthetic', principal: `aaaaa-aa${EVIL}`, contract: TOKEN });
  // One ERC-20 transfer log of the token in tx 29 (a mint), with its transfer row.
  await db.query(
    `INSERT INTO logs (block_number, log_index, tx_hash, tx_index, address, topic0, topic1, topic2, data) VALUES (10, 0, $1, 29, $2, $3, $4, $5, $6)`,
    [b(h32(0x7000 + 29)), b(TOKEN), b(TRANSFER), b(h32(0)), b(`0x${ALICE.slice(2).padStart(64, '0')}`), b(h32(1000))],
  );
  await db.query(
    `INSERT INTO token_transfers (tx_hash, block_number, log_index, token_address, from_address, to_address, amount, token_id) VALUES ($1, 10, 0, $2, $3, $4, '1000', NULL)`,
    [b(h32(0x7000 + 29)), b(TOKEN), b(addr(0)), b(ALICE)],
  );
  // The balances the indexer maintains with its commits.
  await recomputeTokenBalances(db);
  await db.query('INSERT INTO pruned_gaps (from_block, to_block) VALUES (1, 4)');
  await db.query(
    `INSERT INTO indexer_state (id, chain_id, cursor_block, cursor_segment, cursor_offset, head_block, first_available_block) VALUES (1, 4801360, 41, 0, 0, 42, 1)`,
  );
  for (let i = 0; i < 3; i++) {
    await db.query(`INSERT INTO ops_metrics_samples (sampled_at, head_block, metrics) VALUES (now() - ($1 || ' minutes')::interval, $2, $3)`, [
      String(3 - i),
      BigInt(38 + i),
      JSON.stringify({ mode: { Normal: null }, pending_txs: String(i), block_number: String(38 + i) }),
    ]);
  }
}

beforeAll(async () => {
  db = await openDb({ memory: true });
  await migrate(db, INDEXER_COMPONENT, INDEXER_MIGRATIONS);
  await fill();
  const pages = createPagesHandler({
    db,
    chainId: 4801360n,
    verified: async (a) => (Buffer.from(a).toString('hex') === TOKEN.slice(2) ? VERIFIED : undefined),
    rpc: async (method, params) => {
      rpcCalls.push({ method, params });
      if (method === 'eth_getBalance') return '0xde0b6b3a7640000';
      if (method === 'eth_getTransactionCount') return '0x3';
      if (method === 'eth_getCode') return params[0] === TOKEN ? '0x6080' : '0x';
      if (method === 'eth_getTransactionByHash') {
        return params[0] === h32(0xeeee) ? { hash: h32(0xeeee), blockNumber: null, from: ALICE, to: BOB, nonce: '0x9', value: '0x1' } : null;
      }
      if (method === 'eth_call') {
        const call = params[0] as { data: string; from?: string };
        // The replay of the failed transfer reverts with the token's custom error Insufficient(7).
        if (call.from !== undefined) throw Object.assign(new Error('execution reverted'), { code: -32000, data: encodeErrorResult({ abi: VERIFIED.abi, errorName: 'Insufficient', args: [7n] }) });
        if (call.data.startsWith('0x70a08231')) return h32(1234);
        // The token's ERC-20 metadata, its name carrying markup.
        if (call.data === '0x06fdde03') return encodeFunctionResult({ abi: erc20Abi, functionName: 'name', result: `Coin${EVIL}` });
        if (call.data === '0x95d89b41') return encodeFunctionResult({ abi: erc20Abi, functionName: 'symbol', result: 'CN' });
        if (call.data === '0x313ce567') return encodeFunctionResult({ abi: erc20Abi, functionName: 'decimals', result: 0 });
        throw Object.assign(new Error('execution reverted'), { code: -32000, data: '0x' });
      }
      throw new Error(`unexpected ${method}`);
    },
  });
  server = createServer((req, res) => {
    void pages(req, res).then((handled) => {
      if (!handled) {
        res.writeHead(404);
        res.end('not a page');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  if (server !== undefined) await new Promise((r) => server.close(r));
  await db?.close();
});

async function get(path: string): Promise<{ status: number; text: string; location: string | null }> {
  const r = await fetch(base + path, { redirect: 'manual' });
  return { status: r.status, text: await r.text(), location: r.headers.get('location') };
}

describe('html escaping', () => {
  it('escapes every interpolated value and keeps fragments built by html', () => {
    expect(html`<p>${EVIL}</p>`.text).toBe(`<p>${escapeHtml(EVIL)}</p>`);
    expect(html`<p>${html`<b>${'"x"'}</b>`}</p>`.text).toBe('<p><b>&quot;x&quot;</b></p>');
    expect(html`${[1n, raw('<i>'), "'"]}`.text).toBe('1<i>&#39;');
  });
});

describe('explorer pages', () => {
  it('home shows the head, the latest blocks and transactions, and the live fragment', async () => {
    const home = await get('/');
    expect(home.status).toBe(200);
    expect(home.text).toContain('Latest blocks');
    expect(home.text).toContain('href="/block/40"');
    expect(home.text).toContain(`href="/tx/${h32(0x7000 + 29)}"`);
    expect(home.text).toContain('href="/block/42"'); // the head as the indexer last saw it
    const live = await get('/live');
    expect(live.text).toContain('Latest transactions');
    expect(live.text).not.toContain('<html');
  });

  it('block page: header fields, transactions with paging, links back and forth', async () => {
    const p = await get('/block/10');
    expect(p.status).toBe(200);
    expect(p.text).toContain(h32(0xb10c00 + 10));
    expect(p.text).toContain('href="/block/9"');
    expect(p.text).toContain('href="/block/11"');
    expect(p.text).toContain('250 gwei');
    expect(p.text.match(/href="\/tx\//g)?.length).toBe(PAGE_SIZE);
    const next = await get(`/block/10?after=${PAGE_SIZE - 1}`);
    expect(next.text.match(/href="\/tx\//g)?.length).toBe(30 - PAGE_SIZE);
    const byHash = await get(`/block/${h32(0xb10c00 + 10)}`);
    expect(byHash.text).toContain('Block 10');
  });

  it('a pruned block says so, a block removed by retention says so, neither is a 404', async () => {
    const pruned = await get('/block/3');
    expect(pruned.status).toBe(410);
    expect(pruned.text).toContain('pruned by the canister');
    expect(pruned.text).toContain('1–4');
    const removed = await get('/block/0');
    expect(removed.status).toBe(410);
    expect(removed.text).toContain('retention');
    const notYet = await get('/block/41');
    expect(notYet.text).toContain('not copied it yet');
    expect((await get('/block/999')).status).toBe(404);
  });

  it('failed transaction: status, failure code, the decoded custom error from the verified ABI, decoded input', async () => {
    const p = await get(`/tx/${h32(0x7000 + 28)}`);
    expect(p.status).toBe(200);
    expect(p.text).toContain('Failed');
    expect(p.text).toContain('exec.reverted');
    expect(p.text).toContain('Insufficient');
    expect(p.text).toMatch(/uint256 have<\/th><td class="mono">7</);
    expect(p.text).toContain('id="decoded-input"');
    expect(p.text).toMatch(/<b class="mono">transfer<\/b>/);
    expect(p.text).toContain('1 ETH');
  });

  it('IcSynthetic creation: origin with the escaped principal, the created contract, decoded logs and token transfers', async () => {
    const p = await get(`/tx/0x${(0x1d00 + 29).toString(16).padStart(16, '0')}`); // by tx_id
    expect(p.status).toBe(200);
    expect(p.text).toContain('IcSynthetic');
    expect(p.text).not.toContain(EVIL);
    expect(p.text).toContain(escapeHtml(`aaaaa-aa${EVIL}`));
    expect(p.text).toContain('Created contract');
    expect(p.text).toContain(TOKEN);
    expect(p.text).toContain('class="decoded-log"');
    expect(p.text).toContain('Token transfers');
  });

  it('pending transaction shows its pool status; unknown is a 404', async () => {
    const p = await get(`/tx/${h32(0xeeee)}`);
    expect(p.status).toBe(200);
    expect(p.text).toContain('Pending');
    expect((await get(`/tx/${h32(0xdddd)}`)).status).toBe(404);
    expect((await get('/tx/nonsense')).status).toBe(400);
  });

  it('address page: balance, nonce, transactions newest first with an older-page link', async () => {
    const p = await get(`/address/${ALICE}`);
    expect(p.text).toContain('1 ETH');
    const first = p.text.indexOf(`/tx/${h32(0x7000 + 29)}`);
    const later = p.text.indexOf(`/tx/${h32(0x7000 + 10)}`);
    expect(first).toBeGreaterThan(0);
    expect(later).toBeGreaterThan(first);
    expect(p.text).toContain('?before=10-');
    const older = /href="(\/address\/[^"]+\?before=[^"]+)"/.exec(p.text)![1]!;
    const o = await get(older);
    expect(o.text).toContain(`/tx/${h32(0x7000)}`);
    const txSection = o.text.slice(0, o.text.indexOf('<h2>Token transfers'));
    expect(txSection.match(/href="\/tx\//g)?.length).toBe(5);
    expect(txSection).not.toContain(`/tx/${h32(0x7000 + 29)}`);
  });

  it('verified contract page: escaped source and name, ABI, a read-only call form that calls through the gateway', async () => {
    const p = await get(`/address/${TOKEN}`);
    expect(p.text).toContain('Contract');
    expect(p.text).not.toContain(EVIL);
    expect(p.text).toContain(escapeHtml(EVIL));
    expect(p.text).toContain('balanceOf');
    expect(p.text).toContain('&quot;runs&quot;: 200');
    const r = await get(`/address/${TOKEN}/read?fn=${encodeURIComponent('balanceOf(address)')}&a0=${ALICE}`);
    expect(r.text).toContain('id="read-result"');
    expect(r.text).toMatch(/uint256 arg0<\/th><td class="mono">1234</);
    const bad = await get(`/address/${TOKEN}/read?fn=${encodeURIComponent('balanceOf(address)')}&a0=notanaddress`);
    expect(bad.status).toBe(200);
    expect(bad.text).toContain('failed');
  });

  it('unverified contract links to the verify form', async () => {
    const p = await get(`/address/${BOB}`);
    expect(p.text).not.toContain('Verify and publish');
    const v = await get(`/verify?address=${encodeURIComponent(`${TOKEN}"><script>`)}`);
    expect(v.text).not.toContain('"><script>');
  });

  it('token page: transfers and holders (the indexer\'s maintained balances)', async () => {
    const p = await get(`/token/${TOKEN}`);
    expect(p.status).toBe(200);
    // name(), symbol() and decimals() from the token, the name escaped.
    expect(p.text).toContain(`Token Coin${escapeHtml(EVIL)} (CN)`);
    expect(p.text).toContain('<th>Decimals</th><td>0</td>');
    expect(p.text).toContain('Holders');
    expect(p.text).toContain(`/address/${ALICE}`);
    expect(p.text).toContain('1,000');
  });

  it('ops page: mode, chart data, pruned gaps', async () => {
    const p = await get('/ops');
    expect(p.text).toContain('id="ops-mode">Normal<');
    expect(p.text).toContain('id="ops-series"');
    expect(p.text).toContain('pending_txs');
    expect(p.text).toMatch(/<td>1<\/td><td>4<\/td>/);
  });

  it('search resolves numbers, hashes, tx_ids and addresses; junk is answered, not crashed', async () => {
    expect((await get('/search?q=12')).location).toBe('/block/12');
    expect((await get(`/search?q=${h32(0xb10c00 + 10)}`)).location).toBe(`/block/${h32(0xb10c00 + 10)}`);
    expect((await get(`/search?q=${h32(0x7001)}`)).location).toBe(`/tx/${h32(0x7001)}`);
    expect((await get('/search?q=0x0000000000001d05')).location).toBe('/tx/0x0000000000001d05');
    expect((await get(`/search?q=${ALICE.toUpperCase().replace('0X', '0x')}`)).location).toBe(`/address/${ALICE}`);
    const junk = await get(`/search?q=${encodeURIComponent(EVIL)}`);
    expect(junk.status).toBe(400);
    expect(junk.text).not.toContain(EVIL);
  });

  it('leaves other paths to the server', async () => {
    expect((await get('/api/verify/status?id=1')).text).toBe('not a page');
  });
});
