// The explorer's pages over a database filled as the indexer fills it (PGlite, migration 1) and a fake gateway:
// what each page shows, escaping of hostile chain and user data, pruned and retained blocks, paging, search.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeErrorResult, encodeFunctionData, encodeFunctionResult, erc20Abi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/indexer/db.js';
import { migrate } from '../../src/indexer/migrate.js';
import { INDEXER_COMPONENT, INDEXER_MIGRATIONS } from '../../src/indexer/schema.js';
import { recomputeTokenBalances } from '../../src/indexer/store.js';
import { createPagesHandler, PAGE_SIZE, type VerifiedContractInfo } from '../../src/explorer/pages/index.js';
import { escapeHtml, html, raw } from '../../src/explorer/pages/html.js';
import { gatewayRpc } from '../../src/explorer/pages/routes.js';
import { MAX_TREE_FRAMES } from '../../src/explorer/pages/tx_calls.js';
import { ensureArchiveSchema } from '../../src/archive/schema.js';
import { writeInternalRows } from '../../src/archive/internal_rows.js';
import { rowsFromCallTrace, type CallJson } from '../support/explorer_traces.js';

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

// The issue's example: ALICE calls FACTORY.run(SINK) with 6 wei; it calls REV (reverts with a hostile string; a
// call under it, with value, is undone), creates C1 (CREATE, 1 wei) and C2 (CREATE2, 2 wei), has C2 self-destruct
// to SINK, sends SINK 3 wei, and ends with a STATICCALL that reverts with REV's custom error (caught).
const FACTORY = addr(0xfa);
const C1 = addr(0xc1);
const C2 = addr(0xc2);
const SINK = addr(0x5e);
const REV = addr(0xee);
const PAGER = addr(0x9a);
const TRACED_TX = h32(0x7100);
const NO_ARCHIVE_TX = h32(0x7101);
const BIG_TX = h32(0x7102);
const SLOW_TX = h32(0x7103);
const DEEP_TX = h32(0x7104);
const FACTORY_ABI = [
  { type: 'function', name: 'run', stateMutability: 'payable', inputs: [{ name: 'sink', type: 'address' }], outputs: [] },
] as const;
const CHILD_ABI = [{ type: 'function', name: 'bye', stateMutability: 'nonpayable', inputs: [{ name: 'to', type: 'address' }], outputs: [] }] as const;
const REV_ABI = [
  { type: 'function', name: 'fail', stateMutability: 'pure', inputs: [{ name: 'why', type: 'string' }], outputs: [] },
  { type: 'function', name: 'custom', stateMutability: 'pure', inputs: [], outputs: [] },
  { type: 'error', name: 'Custom', inputs: [{ name: 'code', type: 'uint256' }] },
] as const;
const verifiedAs = (name: string, abi: readonly unknown[]): VerifiedContractInfo => ({ ...VERIFIED, contractName: name, abi: abi as VerifiedContractInfo['abi'] });
const frame = (o: Partial<CallJson> & { type: string; from: string }): CallJson => ({ gas: '0x10000', gasUsed: '0x5208', input: '0x', ...o });
const TRACE: CallJson = frame({
  type: 'CALL', from: ALICE, to: FACTORY, value: '0x6', input: encodeFunctionData({ abi: FACTORY_ABI, functionName: 'run', args: [SINK as `0x${string}`] }),
  calls: [
    frame({ type: 'CALL', from: FACTORY, to: REV, value: '0x0', input: encodeFunctionData({ abi: REV_ABI, functionName: 'fail', args: ['nope'] }),
      error: 'execution reverted', revertReason: `nope${EVIL}`, output: '0x08c379a0',
      calls: [frame({ type: 'CALL', from: REV, to: SINK, value: '0x1' })] }),
    frame({ type: 'CREATE', from: FACTORY, to: C1, value: '0x1', input: '0x6080604052' }),
    frame({ type: 'CREATE2', from: FACTORY, to: C2, value: '0x2', input: '0x6080604052' }),
    frame({ type: 'CALL', from: FACTORY, to: C2, value: '0x0', input: encodeFunctionData({ abi: CHILD_ABI, functionName: 'bye', args: [SINK as `0x${string}`] }),
      calls: [frame({ type: 'SELFDESTRUCT', from: C2, to: SINK, value: '0x2', gas: '0x0', gasUsed: '0x0' })] }),
    frame({ type: 'CALL', from: FACTORY, to: SINK, value: '0x3' }),
    frame({ type: 'STATICCALL', from: FACTORY, to: REV, input: encodeFunctionData({ abi: REV_ABI, functionName: 'custom' }),
      error: 'execution reverted', output: encodeErrorResult({ abi: REV_ABI, errorName: 'Custom', args: [7n] }) }),
  ],
});
const word = (n: number): string => h32(n);
const STATE_DIFF = {
  pre: {
    [ALICE]: { balance: '0x8ac7230489e80000', nonce: 5 },
    [FACTORY]: { balance: '0x0', nonce: 1, code: '0x6080', storage: { [word(0)]: word(1) } },
    [REV]: { balance: '0x0', code: '0x6080', nonce: 1, storage: { [word(3)]: word(9) } },
  },
  post: {
    [ALICE]: { balance: '0x8ac7230489e7fffa', nonce: 6 },
    [FACTORY]: { nonce: 3, storage: { [word(0)]: word(2), [word(1)]: `0x${EVIL.length.toString(16).padStart(64, '0')}` } },
    [C1]: { balance: '0x1', nonce: 1, code: '0x60806040' },
    [SINK]: { balance: '0x5' },
    [REV]: { storage: {} },
  },
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
  // Block 11: the traced transaction (ALICE -> FACTORY, 6 wei), its rows as the archive's replay writes them,
  // and FACTORY's own creation (top-level, by ALICE) in block 5.
  await db.query(
    `INSERT INTO txs (eth_tx_hash, tx_id, block_number, tx_index, type, origin, from_address, to_address, value, nonce, gas_limit, max_fee_per_gas, max_priority_fee_per_gas, input, receipt_status)
     VALUES ($1, $2, 11, 0, 2, 'EthSigned', $3, $4, '6', 40, 300000, '500000000000', '0', $5, 1)`,
    [b(TRACED_TX), b('0x0000000000007100'), b(ALICE), b(FACTORY), b(TRACE.input)],
  );
  await db.query(`INSERT INTO receipts (tx_hash, block_number, status, gas_used, cumulative_gas_used, effective_gas_price, contract_address) VALUES ($1, 11, 1, 100000, 100000, '1', NULL)`, [b(TRACED_TX)]);
  for (const [i, h] of [NO_ARCHIVE_TX, BIG_TX, SLOW_TX, DEEP_TX].entries()) {
    await db.query(
      `INSERT INTO txs (eth_tx_hash, tx_id, block_number, tx_index, type, origin, from_address, to_address, value, nonce, gas_limit, input, receipt_status)
       VALUES ($1, $2, 12, $3, 2, 'EthSigned', $4, $5, '0', $6, 300000, '\\x', 1)`,
      [b(h), b(`0x${(0x7200 + i).toString(16).padStart(16, '0')}`), i, b(BOB), b(FACTORY), BigInt(i)],
    );
  }
  await ensureArchiveSchema(db, 4801360n);
  const rows = rowsFromCallTrace(TRACE, { block: 11n, txIndex: 0, txHash: b(TRACED_TX) });
  // 30 frames in one transaction touching PAGER: a page and a half, paged inside the transaction's frames.
  const many = rowsFromCallTrace(frame({ type: 'CALL', from: BOB, to: FACTORY, calls: Array.from({ length: 30 }, (_, i) => frame({ type: 'CALL', from: FACTORY, to: PAGER, value: `0x${(i + 1).toString(16)}` })) }), { block: 12n, txIndex: 3, txHash: b(DEEP_TX) });
  await writeInternalRows(db, [...rows.internal, ...many.internal], [
    ...rows.creators,
    { address: b(FACTORY), block: 5n, txIndex: 0, txHash: b(h32(0x7500)), traceAddress: [], creator: b(ALICE) },
  ]);
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
    verified: async (a) => {
      const k = `0x${Buffer.from(a).toString('hex')}`;
      if (k === TOKEN) return VERIFIED;
      if (k === FACTORY) return verifiedAs(`Factory${EVIL}`, FACTORY_ABI);
      if (k === C2) return verifiedAs('Child', CHILD_ABI);
      if (k === REV) return verifiedAs('Reverter', REV_ABI);
      return undefined;
    },
    rpc: async (method, params) => {
      rpcCalls.push({ method, params });
      if (method === 'eth_getBalance') return '0xde0b6b3a7640000';
      if (method === 'eth_getTransactionCount') return '0x3';
      if (method === 'eth_getCode') return params[0] === TOKEN || params[0] === C1 ? '0x6080' : '0x';
      if (method === 'debug_traceTransaction') {
        const [hash, config] = params as [string, { tracer: string; tracerConfig?: { diffMode?: boolean }; timeout?: string }];
        expect(config.timeout).toBe('5s');
        if (hash === TRACED_TX) return config.tracer === 'callTracer' ? TRACE : config.tracerConfig?.diffMode === true ? STATE_DIFF : null;
        if (hash === NO_ARCHIVE_TX) throw Object.assign(new Error('the method debug_traceTransaction does not exist/is not available'), { code: -32601 });
        if (hash === BIG_TX) throw Object.assign(new Error("the gateway's answer is larger than 4194304 bytes"), { code: 'response_too_large' });
        if (hash === SLOW_TX) throw Object.assign(new Error('execution timeout'), { code: -32000 });
        if (hash === DEEP_TX) {
          // A chain of frames deeper than the page draws.
          let f = frame({ type: 'CALL', from: FACTORY, to: FACTORY });
          for (let i = 0; i < MAX_TREE_FRAMES + 10; i++) f = frame({ type: 'CALL', from: FACTORY, to: FACTORY, calls: [f] });
          return f;
        }
        return null;
      }
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
    // 31 transactions of ALICE: 30 in block 10 and the traced one in block 11.
    expect(txSection.match(/href="\/tx\//g)?.length).toBe(31 - PAGE_SIZE);
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

describe('explorer trace views', () => {
  const wei = (n: number): string => `${(n / 1e18).toFixed(18)} ETH`;

  it('call tree: CREATE, CREATE2 and SELFDESTRUCT with the values moved, calls decoded with verified ABIs, reverts marked where they happened', async () => {
    const p = await get(`/tx/${TRACED_TX}/calls`);
    expect(p.status).toBe(200);
    expect(p.text).toContain('id="call-tree"');
    expect(p.text).not.toContain(EVIL);
    for (const t of ['CALL', 'CREATE', 'CREATE2', 'SELFDESTRUCT', 'STATICCALL']) expect(p.text).toContain(`data-type="${t}"`);
    const li = (trace: string): string => {
      const at = p.text.indexOf(`data-trace="${trace}"`);
      expect(at, trace).toBeGreaterThan(0);
      return p.text.slice(at, p.text.indexOf('</li>', at));
    };
    // The top call decoded with the factory's verified ABI, its hostile name escaped; 6 wei shown.
    expect(li('')).toContain('run(<span title="address">sink</span>=');
    expect(li('')).toContain(escapeHtml(`Factory${EVIL}`));
    expect(li('')).toContain(wei(6));
    expect(li('1')).toMatch(/CREATE<\/span>[\s\S]*new contract[\s\S]*href="\/address\/0x0{38}c1"/);
    expect(li('1')).toContain(wei(1));
    expect(li('2')).toContain(wei(2));
    expect(li('3')).toContain('bye(');
    expect(li('3.0')).toContain('beneficiary');
    expect(li('3.0')).toContain(wei(2));
    expect(li('4')).toContain(wei(3));
    // The revert is marked on its frame with the (escaped) reason; the frame under it is undone, not failed.
    expect(p.text).toMatch(/class="frame failed" data-type="CALL" data-trace="0"/);
    expect(li('0')).toContain(escapeHtml(`nope${EVIL}`));
    expect(p.text).toMatch(/class="frame undone" data-type="CALL" data-trace="0\.0"/);
    // A custom error decoded with the reverting contract's ABI.
    expect(li('5')).toContain('Custom(<span title="uint256">code</span>=7)');
    expect(p.text).toContain('class="active" aria-current="page">Call tree');
  });

  it('state changes: balances, nonces, storage before and after, code created', async () => {
    const p = await get(`/tx/${TRACED_TX}/state`);
    expect(p.status).toBe(200);
    expect(p.text).not.toContain(EVIL);
    const acct = (a: string): string => {
      const at = p.text.indexOf(`data-address="${a}"`);
      expect(at, a).toBeGreaterThan(0);
      return p.text.slice(at, p.text.indexOf('</table></div>', at));
    };
    expect(acct(ALICE)).toContain('10 ETH → 9.999999999999999994 ETH');
    expect(acct(ALICE)).toContain('−0.000000000000000006 ETH');
    expect(acct(ALICE)).toContain('5 → 6');
    expect(acct(FACTORY)).toContain('1 → 3');
    expect(acct(FACTORY)).toMatch(new RegExp(`${word(0)}</td><td class="mono">${word(1)}</td><td class="mono">${word(2)}`));
    expect(acct(FACTORY)).toMatch(new RegExp(`${word(1)}</td><td class="mono">${word(0)}</td>`));
    expect(acct(C1)).toContain('created, 4 bytes');
    expect(acct(C1)).toContain(`+${wei(1)}`);
    expect(acct(SINK)).toContain(`0 ETH → ${wei(5)}`);
    // A slot cleared (in pre, zero after).
    expect(acct(REV)).toMatch(new RegExp(`${word(3)}</td><td class="mono">${word(9)}</td><td class="mono">${word(0)}`));
  });

  it('without an archive, too large, too slow: a message on the page, never an error page', async () => {
    const none = await get(`/tx/${NO_ARCHIVE_TX}/calls`);
    expect(none.status).toBe(200);
    expect(none.text).toContain('Traces need the archive');
    expect((await get(`/tx/${NO_ARCHIVE_TX}/state`)).text).toContain('Traces need the archive');
    expect((await get(`/tx/${BIG_TX}/calls`)).text).toContain('too large to show here');
    expect((await get(`/tx/${SLOW_TX}/state`)).text).toContain('took longer than 5s');
    const deep = await get(`/tx/${DEEP_TX}/calls`);
    expect(deep.text).toContain('id="trace-cut"');
    expect(deep.text.match(/<li class="frame/g)?.length).toBe(MAX_TREE_FRAMES);
    expect((await get(`/tx/${TRACED_TX}/nonsense`)).status).toBe(404);
    expect((await get(`/tx/${TRACED_TX}/toString`)).status).toBe(404);
    // The overview links to both tabs.
    const overview = await get(`/tx/${TRACED_TX}`);
    expect(overview.text).toContain(`href="/tx/${TRACED_TX}/calls"`);
    expect(overview.text).toContain(`href="/tx/${TRACED_TX}/state"`);
  });

  it('the gateway client stops reading an answer past its size bound', async () => {
    const big = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: 'x'.repeat(100_000) }));
    });
    await new Promise<void>((r) => big.listen(0, '127.0.0.1', r));
    try {
      const rpc = gatewayRpc(`http://127.0.0.1:${(big.address() as AddressInfo).port}`);
      await expect(rpc('debug_traceTransaction', [], { maxBytes: 10_000 })).rejects.toMatchObject({ code: 'response_too_large' });
      expect(((await rpc('debug_traceTransaction', [])) as string).length).toBe(100_000);
    } finally {
      big.closeAllConnections();
      await new Promise((r) => big.close(r));
    }
  });

  it('address page of a created contract: the internal transfer, the balance history with it, the creating contract and transaction', async () => {
    const p = await get(`/address/${C1}`);
    expect(p.text).not.toContain(EVIL);
    const internal = p.text.slice(p.text.indexOf('<h2>Internal transactions'), p.text.indexOf('<h2>Token transfers'));
    expect(internal).toContain('data-type="CREATE"');
    expect(internal).toContain(`/tx/${TRACED_TX}`);
    expect(internal).toContain(wei(1));
    const creator = p.text.slice(p.text.indexOf('id="creator"'), p.text.indexOf('</tr>', p.text.indexOf('id="creator"')));
    expect(creator).toContain(`contract <a class="mono" href="/address/${FACTORY}">${FACTORY}</a>`);
    expect(creator).toContain(escapeHtml(`Factory${EVIL}`));
    expect(creator).toContain(`href="/tx/${TRACED_TX}"`);
    expect(creator).toContain('trace <span class="mono">1</span>');
    const history = p.text.slice(p.text.indexOf('id="balance-history"'));
    expect(history).toMatch(/class="internal-change"><span class="ok">\+0\.000000000000000001 ETH/);
    // A top-level creation names its sender, no trace.
    const f = await get(`/address/${FACTORY}`);
    expect(f.text).toMatch(new RegExp(`id="creator"><a class="mono" href="/address/${ALICE}">`));
  });

  it('the beneficiary: calls with value and a self-destruct listed, the undone call marked, only what lasted in its balance', async () => {
    const p = await get(`/address/${SINK}`);
    const rows = p.text.slice(p.text.indexOf('id="internal-txs"'), p.text.indexOf('<h2>Token transfers'));
    expect(rows.match(/<tr class="internal-tx/g)?.length).toBe(3);
    expect(rows).toMatch(/class="internal-tx" data-type="SELFDESTRUCT"/);
    expect(rows).toMatch(/class="internal-tx reverted" data-type="CALL"[\s\S]*Reverted/);
    // 3 wei (call) + 2 wei (self-destruct); the 1 wei of the reverted call did not move.
    expect(p.text).toMatch(/class="internal-change"><span class="ok">\+0\.000000000000000005 ETH/);
    // Newest first inside one transaction: the last frame (4, the call with 3 wei) before the self-destruct (3.0).
    expect(rows.indexOf('>4<')).toBeLessThan(rows.indexOf('>3.0<'));
  });

  it('internal transactions page inside one transaction\'s frames', async () => {
    const p = await get(`/address/${PAGER}`);
    const first = p.text.slice(p.text.indexOf('id="internal-txs"'), p.text.indexOf('<h2>Token transfers'));
    expect(first.match(/<tr class="internal-tx/g)?.length).toBe(PAGE_SIZE);
    expect(first).toContain('>29<');
    const older = /href="(\/address\/[^"]+\?ibefore=[^"]+)"/.exec(p.text)![1]!;
    expect(older).toContain('?ibefore=12-3-');
    const o = await get(older);
    const second = o.text.slice(o.text.indexOf('id="internal-txs"'), o.text.indexOf('<h2>Token transfers'));
    expect(second.match(/<tr class="internal-tx/g)?.length).toBe(30 - PAGE_SIZE);
    expect(second).toContain('>0<');
    expect(second).not.toContain('>29<');
    // The balance history sums all 30 transfers of the transaction in one row.
    expect(p.text).toMatch(/class="internal-change"><span class="ok">\+0\.000000000000000465 ETH/);
    // A malformed cursor is the first page, not an error.
    expect((await get(`/address/${PAGER}?ibefore=12-3-x`)).status).toBe(200);
  });

  it('a database without the archive\'s tables: the address page says so, the creator comes from the receipts', async () => {
    const bare = await openDb({ memory: true });
    try {
      await migrate(bare, INDEXER_COMPONENT, INDEXER_MIGRATIONS);
      await bare.query(
        `INSERT INTO blocks (number, hash, parent_hash, timestamp, gas_used, gas_limit, base_fee, tx_count, miner, state_root, transactions_root, receipts_root, logs_bloom, size)
         VALUES (1, $1, $1, 1700000000, 0, 3000000, '0', 1, $2, $1, $1, $1, $3, 0)`,
        [b(h32(1)), b(addr(0)), new Uint8Array(256)],
      );
      await bare.query(
        `INSERT INTO txs (eth_tx_hash, tx_id, block_number, tx_index, type, origin, from_address, to_address, value, nonce, gas_limit, input, receipt_status)
         VALUES ($1, $2, 1, 0, 2, 'EthSigned', $3, NULL, '7', 0, 300000, '\\x', 1)`,
        [b(h32(0x7600)), b('0x0000000000007600'), b(ALICE)],
      );
      await bare.query(`INSERT INTO receipts (tx_hash, block_number, status, gas_used, cumulative_gas_used, effective_gas_price, contract_address) VALUES ($1, 1, 1, 50000, 50000, '1', $2)`, [b(h32(0x7600)), b(C1)]);
      const handler = createPagesHandler({ db: bare, chainId: 4801360n, verified: async () => undefined, rpc: async (m) => (m === 'eth_getCode' ? '0x6080' : '0x7') });
      const srv = createServer((req, res) => void handler(req, res));
      await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
      try {
        const r = await fetch(`http://127.0.0.1:${(srv.address() as AddressInfo).port}/address/${C1}`);
        const text = await r.text();
        expect(r.status).toBe(200);
        expect(text).toContain("this explorer's database has none");
        expect(text).toMatch(new RegExp(`id="creator"><a class="mono" href="/address/${ALICE}">`));
        // Its creation paid it 7 wei: the balance history still has the top-level part.
        expect(text).toMatch(/id="balance-history"[\s\S]*\+0\.000000000000000007 ETH/);
      } finally {
        srv.closeAllConnections();
        await new Promise((r) => srv.close(r));
      }
    } finally {
      await bare.close();
    }
  });
});
