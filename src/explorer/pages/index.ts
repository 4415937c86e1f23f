// The explorer's pages: server-rendered HTML over the indexer's database (ExplorerQueries) and the JSON-RPC
// gateway (head state: balances, nonces, code, pending transactions, read-only calls). Served by the explorer's
// HTTP server next to the verification APIs; `createPagesHandler` answers the page routes and leaves every other
// path to the server. Escaping is by construction (./html.ts); every list pages with a keyset cursor.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Abi } from 'viem';
import type { Queryable } from '../../indexer/db.js';
import { decodeInput, decodeLog, decodeRead, decodeRevert, encodeRead, parseArg, readFunctions, showValue, type DecodedCall } from './abi.js';
import {
  addressLink,
  ago,
  blockLink,
  formatEth,
  formatGwei,
  formatTime,
  formatUnits,
  parseHexBytes,
  short,
  statusBadge,
  toHex,
  TX_TYPE_NAMES,
  txLink,
} from './format.js';
import { html, jsonScript, layout, raw, type Html } from './html.js';
import { ExplorerQueries, formatCursor, parseCursor, type BlockRow, type LogRow, type TransferRow, type TxRow } from './queries.js';
import { LIVE_SCRIPT, OPS_CHART_SCRIPT, VERIFY_SCRIPT } from './scripts.js';

export interface VerifiedContractInfo {
  readonly contractName: string;
  readonly compilerVersion: string;
  readonly match: 'full' | 'partial';
  readonly abi: Abi;
  /** Source files by path. */
  readonly sources: Readonly<Record<string, string>>;
  /** Compiler settings as submitted (optimizer, evmVersion, libraries, ...). */
  readonly settings: unknown;
  readonly verifiedAt?: string;
}

export interface PagesDeps {
  readonly db: Queryable;
  /** A JSON-RPC call to the gateway; throws an Error with `code` and `data` on an error answer. */
  readonly rpc: (method: string, params: readonly unknown[]) => Promise<unknown>;
  readonly chainId: bigint;
  readonly verified: (address: Uint8Array) => Promise<VerifiedContractInfo | undefined>;
}

export const PAGE_SIZE = 25;
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly body: Html,
  ) {
    super(title);
  }
}

type Route = (deps: PagesDeps, q: ExplorerQueries, path: string[], params: URLSearchParams) => Promise<{ title: string; body: Html; status?: number; script?: string }>;

const ROUTES: Record<string, Route> = {
  '': homePage,
  block: blockPage,
  tx: txPage,
  address: addressPage,
  token: tokenPage,
  verify: verifyPage,
  ops: opsPage,
  search: searchPage,
};

/** A page answer, independent of the HTTP server that sends it. */
export interface PageAnswer {
  readonly status: number;
  readonly body: string;
  readonly contentType: string;
  readonly headers: Readonly<Record<string, string>>;
}

const PAGE_HEADERS = {
  'content-security-policy': "default-src 'self'; script-src 'unsafe-inline' 'self'; style-src 'unsafe-inline'; img-src 'self' data:",
  'x-content-type-options': 'nosniff',
};

/** The paths the pages answer (everything else belongs to the verification APIs). */
export const PAGE_PATH = /^\/(?:|live|search|verify|ops|(?:block|tx|address|token)\/[^?#]*)$/;

/** Answers one page request, or undefined when the path is not a page. Never throws. */
export async function answerPage(deps: PagesDeps, q: ExplorerQueries, url: URL): Promise<PageAnswer | undefined> {
  if (!PAGE_PATH.test(url.pathname)) return undefined;
  let segments: string[];
  try {
    segments = url.pathname.split('/').filter((s) => s !== '').map(decodeURIComponent);
  } catch {
    segments = ['search'];
  }
  if (url.pathname === '/live') {
    return { status: 200, body: (await liveFragment(q)).text, contentType: 'text/html; charset=utf-8', headers: { 'cache-control': 'no-store' } };
  }
  const route = ROUTES[segments[0] ?? ''];
  if (route === undefined) return undefined;
  let status = 200;
  let page: { title: string; body: Html; script?: string };
  try {
    const r = await route(deps, q, segments.slice(1), url.searchParams);
    page = r;
    status = r.status ?? 200;
  } catch (e) {
    if (e instanceof Redirect) return { status: 302, body: '', contentType: 'text/plain; charset=utf-8', headers: { location: e.location } };
    if (e instanceof PageError) {
      status = e.status;
      page = { title: e.title, body: e.body };
    } else {
      // Never a stack trace to the browser; the server log has the cause.
      console.error('explorer page error:', e);
      status = 500;
      page = { title: 'Error', body: html`<h1>Something went wrong</h1><p>The page could not be built; the server log has the details.</p>` };
    }
  }
  const body = layout({ title: page.title, chainId: deps.chainId, ...(page.script === undefined ? {} : { script: page.script }) }, page.body);
  return { status, body, contentType: 'text/html; charset=utf-8', headers: PAGE_HEADERS };
}

/** A node:http handler for the pages; resolves false for any other path. */
export function createPagesHandler(deps: PagesDeps): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  const q = new ExplorerQueries(deps.db);
  return async (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const a = await answerPage(deps, q, new URL(req.url ?? '/', 'http://explorer.invalid'));
    if (a === undefined) return false;
    res.writeHead(a.status, { 'content-type': a.contentType, ...a.headers });
    res.end(req.method === 'HEAD' ? undefined : a.body);
    return true;
  };
}

class Redirect extends Error {
  constructor(readonly location: string) {
    super(location);
  }
}

const notFound = (what: string, detail?: Html): PageError => new PageError(404, 'Not found', html`<h1>${what} not found</h1>${detail ?? ''}`);

// ---------------------------------------------------------------- home

async function homePage(deps: PagesDeps, q: ExplorerQueries): Promise<{ title: string; body: Html; script: string }> {
  return {
    title: 'Home',
    body: html`<h1>Chain ${deps.chainId.toString()}</h1><div id="live">${await liveFragment(q)}</div>`,
    script: LIVE_SCRIPT,
  };
}

async function liveFragment(q: ExplorerQueries): Promise<Html> {
  const [range, state, blocks, txs] = await Promise.all([q.range(), q.indexerState(), q.latestBlocks(10), q.latestTxs(10)]);
  const head = state?.head_block ?? range.head;
  return html`<div class="card"><table class="kv">
<tr><th>Head block</th><td id="head-block">${head === undefined || head === null ? '—' : blockLink(head)}</td></tr>
<tr><th>Indexed</th><td>${range.first === undefined ? 'nothing yet' : html`blocks ${range.first.toString()} to ${range.head!.toString()}`}</td></tr>
</table></div>
<div class="grid"><div class="card"><h2>Latest blocks</h2>${blockTable(blocks)}</div>
<div class="card"><h2>Latest transactions</h2>${txTable(txs, { block: true })}</div></div>`;
}

function blockTable(blocks: readonly BlockRow[]): Html {
  if (blocks.length === 0) return html`<p class="muted">No blocks indexed yet.</p>`;
  return html`<table><tr><th>Block</th><th>Age</th><th>Txs</th><th>Gas used</th></tr>${blocks.map(
    (b) => html`<tr><td>${blockLink(b.number)}</td><td title="${formatTime(b.timestamp)}">${ago(b.timestamp)}</td><td>${b.tx_count}</td><td>${b.gas_used.toLocaleString('en-US')}</td></tr>`,
  )}</table>`;
}

function fee(t: TxRow): bigint | undefined {
  return t.gas_used === null || t.effective_gas_price === null ? undefined : t.gas_used * BigInt(t.effective_gas_price);
}

function txTable(txs: readonly TxRow[], opts: { block?: boolean } = {}): Html {
  if (txs.length === 0) return html`<p class="muted">No transactions.</p>`;
  return html`<table><tr><th>Transaction</th>${opts.block === true ? html`<th>Block</th>` : ''}<th>Status</th><th>From</th><th>To</th><th>Value</th><th>Fee</th></tr>${txs.map((t) => {
    const f = fee(t);
    return html`<tr><td>${txLink(t.eth_tx_hash)}</td>${opts.block === true ? html`<td>${blockLink(t.block_number)}</td>` : ''}<td>${statusBadge(t.receipt_status)}</td>
<td>${addressLink(t.from_address)}</td><td>${t.to_address === null ? html`${raw('<span class="muted">create</span>')} ${addressLink(t.contract_address)}` : addressLink(t.to_address)}</td>
<td>${formatEth(t.value)}</td><td>${f === undefined ? '—' : formatEth(f)}</td></tr>`;
  })}</table>`;
}

// ---------------------------------------------------------------- block

async function blockPage(_deps: PagesDeps, q: ExplorerQueries, path: string[], params: URLSearchParams) {
  const id = path[0] ?? '';
  let block: BlockRow | undefined;
  if (/^\d{1,19}$/.test(id)) block = await q.blockByNumber(BigInt(id));
  else {
    const hash = parseHexBytes(id, 32);
    if (hash === undefined) throw new PageError(400, 'Bad request', html`<h1>Not a block number or block hash</h1><p class="mono">${id}</p>`);
    block = await q.blockByHash(hash);
    if (block === undefined) throw notFound('Block', html`<p class="mono">${id}</p>`);
  }
  if (block === undefined) return missingBlock(q, BigInt(id));
  const after = Number(params.get('after') ?? '-1');
  const txs = await q.blockTxs(block.number, Number.isSafeInteger(after) ? after : -1, PAGE_SIZE);
  const last = txs.at(-1);
  const next = await q.blockByNumber(block.number + 1n);
  return {
    title: `Block ${block.number}`,
    body: html`<h1>Block ${block.number.toString()}</h1>
<div class="pager">${block.number > 0n ? html`<a href="/block/${(block.number - 1n).toString()}">← ${(block.number - 1n).toString()}</a>` : ''}
${next === undefined ? '' : html`<a href="/block/${next.number.toString()}">${next.number.toString()} →</a>`}</div>
<div class="card"><table class="kv">
<tr><th>Hash</th><td class="mono">${toHex(block.hash)}</td></tr>
<tr><th>Parent hash</th><td class="mono">${block.number > 0n ? html`<a href="/block/${toHex(block.parent_hash)}">${toHex(block.parent_hash)}</a>` : toHex(block.parent_hash)}</td></tr>
<tr><th>Timestamp</th><td>${formatTime(block.timestamp)} (${ago(block.timestamp)})</td></tr>
<tr><th>Transactions</th><td>${block.tx_count}</td></tr>
<tr><th>Gas used / limit</th><td>${block.gas_used.toLocaleString('en-US')} / ${block.gas_limit.toLocaleString('en-US')}</td></tr>
<tr><th>Base fee</th><td>${formatGwei(block.base_fee)}</td></tr>
<tr><th>Fee recipient</th><td>${addressLink(block.miner, true)}</td></tr>
<tr><th>State root</th><td class="mono">${toHex(block.state_root)}</td></tr>
<tr><th>Transactions root</th><td class="mono">${toHex(block.transactions_root)}</td></tr>
<tr><th>Receipts root</th><td class="mono">${toHex(block.receipts_root)}</td></tr>
<tr><th>Size</th><td>${block.size} bytes</td></tr>
</table></div>
<div class="card"><h2>Transactions</h2>${txTable(txs)}
${last !== undefined && txs.length === PAGE_SIZE ? html`<div class="pager"><a href="/block/${block.number.toString()}?after=${last.tx_index}">next page →</a></div>` : ''}</div>`,
  };
}

/** A block number with no row: pruned by the canister before it was indexed, removed by retention, or not yet there. */
async function missingBlock(q: ExplorerQueries, n: bigint): Promise<never> {
  const gap = await q.prunedGapContaining(n);
  if (gap !== undefined) {
    throw new PageError(
      410,
      `Block ${n} pruned`,
      html`<h1>Block ${n.toString()}</h1><div class="notice">This block was pruned by the canister before the indexer copied it
(pruned range ${gap.from_block.toString()}–${gap.to_block.toString()}). Pruned history is no longer queryable.</div>`,
    );
  }
  const [range, state] = await Promise.all([q.range(), q.indexerState()]);
  if (range.first !== undefined && n < range.first) {
    throw new PageError(
      410,
      `Block ${n} removed`,
      html`<h1>Block ${n.toString()}</h1><div class="notice">This block is older than the indexer's retention window: its rows were removed
(the first block kept is ${blockLink(range.first)}); the indexer's archive still holds it.</div>`,
    );
  }
  const head = state?.head_block ?? undefined;
  if (head !== undefined && head !== null && n <= head) {
    throw new PageError(404, `Block ${n} not indexed yet`, html`<h1>Block ${n.toString()}</h1><div class="notice">The chain has this block; the indexer has not copied it yet. Reload in a moment.</div>`);
  }
  throw notFound(`Block ${n}`, html`<p>The chain's head is ${head === undefined || head === null ? 'unknown' : blockLink(head)}.</p>`);
}

// ---------------------------------------------------------------- transaction

async function txPage(deps: PagesDeps, q: ExplorerQueries, path: string[]) {
  const id = path[0] ?? '';
  const hash = parseHexBytes(id, 32);
  const txId = parseHexBytes(id, 8);
  let tx: TxRow | undefined;
  if (hash !== undefined) tx = await q.txByHash(hash);
  else if (txId !== undefined) tx = await q.txById(txId);
  else throw new PageError(400, 'Bad request', html`<h1>Not a transaction hash or tx_id</h1><p class="mono">${id}</p>`);
  if (tx === undefined) return pendingTx(deps, id, hash);

  const [logs, transfers, verifiedTo] = await Promise.all([
    q.txLogs(tx.eth_tx_hash),
    q.txTransfers(tx.eth_tx_hash),
    tx.to_address === null ? Promise.resolve(undefined) : deps.verified(tx.to_address),
  ]);
  const abiCache = new Map<string, Promise<VerifiedContractInfo | undefined>>();
  const verifiedOf = (a: Uint8Array): Promise<VerifiedContractInfo | undefined> => {
    const k = toHex(a);
    let p = abiCache.get(k);
    if (p === undefined) abiCache.set(k, (p = deps.verified(a)));
    return p;
  };
  const decodedInput = verifiedTo === undefined ? undefined : decodeInput(verifiedTo.abi, tx.input);
  const revert = tx.receipt_status === 0 ? await replayRevert(deps, tx, verifiedTo?.abi) : undefined;
  const f = fee(tx);
  const logRows = await Promise.all(
    logs.map(async (l) => {
      const v = await verifiedOf(l.address);
      return { l, decoded: v === undefined ? undefined : decodeLog(v.abi, topicsOf(l), l.data) };
    }),
  );
  return {
    title: `Transaction ${short(toHex(tx.eth_tx_hash))}`,
    body: html`<h1>Transaction</h1><div class="card"><table class="kv">
<tr><th>Transaction hash</th><td class="mono">${toHex(tx.eth_tx_hash)}</td></tr>
<tr><th>tx_id (canister)</th><td class="mono">${toHex(tx.tx_id)}</td></tr>
<tr><th>Status</th><td id="tx-status">${statusBadge(tx.receipt_status)}${
      tx.receipt_status === 0
        ? html` <span class="mono">${tx.failure_code ?? ''}</span>${revert === undefined ? '' : html`<div id="revert-reason">${revert}</div>`}`
        : ''
    }</td></tr>
<tr><th>Block</th><td>${blockLink(tx.block_number)} (index ${tx.tx_index})</td></tr>
<tr><th>Origin</th><td>${tx.origin}${tx.origin === 'IcSynthetic' ? html` from principal <span class="mono">${tx.caller_principal ?? '?'}</span>` : ''}</td></tr>
<tr><th>From</th><td>${addressLink(tx.from_address, true)}</td></tr>
<tr><th>${tx.to_address === null ? 'Created contract' : 'To'}</th><td>${tx.to_address === null ? addressLink(tx.contract_address, true) : addressLink(tx.to_address, true)}</td></tr>
<tr><th>Value</th><td>${formatEth(tx.value)}</td></tr>
<tr><th>Type</th><td>${TX_TYPE_NAMES[tx.type] ?? String(tx.type)}</td></tr>
<tr><th>Nonce</th><td>${tx.nonce.toString()}</td></tr>
<tr><th>Gas limit / used</th><td>${tx.gas_limit.toLocaleString('en-US')} / ${tx.gas_used === null ? '—' : tx.gas_used.toLocaleString('en-US')}</td></tr>
<tr><th>Effective gas price</th><td>${tx.effective_gas_price === null ? '—' : formatGwei(tx.effective_gas_price)}</td></tr>
${tx.gas_price === null ? '' : html`<tr><th>Gas price</th><td>${formatGwei(tx.gas_price)}</td></tr>`}
${tx.max_fee_per_gas === null ? '' : html`<tr><th>Max fee / priority fee</th><td>${formatGwei(tx.max_fee_per_gas)} / ${formatGwei(tx.max_priority_fee_per_gas ?? '0')}</td></tr>`}
<tr><th>Fee</th><td>${f === undefined ? '—' : formatEth(f)}</td></tr>
<tr><th>Input</th><td>${decodedInput === undefined ? '' : html`<div id="decoded-input">${callView(decodedInput)}</div>`}<pre>${toHex(tx.input)}</pre></td></tr>
</table></div>
${transfers.length === 0 ? '' : html`<div class="card"><h2>Token transfers</h2>${transferTable(transfers)}</div>`}
<div class="card"><h2>Logs (${logs.length})</h2>${logRows.length === 0 ? html`<p class="muted">No logs.</p>` : logRows.map(({ l, decoded }) => logView(l, decoded))}</div>`,
  };
}

const topicsOf = (l: LogRow): Uint8Array[] => [l.topic0, l.topic1, l.topic2, l.topic3].filter((t): t is Uint8Array => t !== null);

function callView(c: DecodedCall): Html {
  return html`<div><b class="mono">${c.name}</b>(<table>${c.args.map((a) => html`<tr><th class="mono">${a.type} ${a.name}</th><td class="mono">${a.value}</td></tr>`)}</table>)</div>`;
}

function logView(l: LogRow, decoded: DecodedCall | undefined): Html {
  return html`<div class="card"><table class="kv"><tr><th>Log index</th><td>${l.log_index}</td></tr>
<tr><th>Address</th><td>${addressLink(l.address, true)}</td></tr>
${decoded === undefined ? '' : html`<tr><th>Event</th><td class="decoded-log">${callView(decoded)}</td></tr>`}
${topicsOf(l).map((t, i) => html`<tr><th>topic${i}</th><td class="mono">${toHex(t)}</td></tr>`)}
<tr><th>Data</th><td><pre>${toHex(l.data)}</pre></td></tr></table></div>`;
}

/**
 * A failed transaction's reason. The export carries the failure class (failure_code) but not the revert bytes, so
 * the call is replayed with eth_call at the head block: the reason shown is what the same call reverts with now,
 * and the page says so. Error(string), Panic(uint256) and, for verified contracts, custom errors are decoded.
 */
async function replayRevert(deps: PagesDeps, tx: TxRow, abi: Abi | undefined): Promise<Html | undefined> {
  if (tx.to_address === null) return undefined;
  try {
    await deps.rpc('eth_call', [{ from: toHex(tx.from_address), to: toHex(tx.to_address), value: `0x${BigInt(tx.value).toString(16)}`, data: toHex(tx.input), gas: `0x${tx.gas_limit.toString(16)}` }, 'latest']);
    return html`<span class="muted">(the same call succeeds at the head block now)</span>`;
  } catch (e) {
    const data = (e as { data?: unknown }).data;
    const decoded = typeof data === 'string' ? decodeRevert(abi, data) : undefined;
    if (decoded === undefined) return typeof data === 'string' && data !== '0x' ? html`revert data <span class="mono">${data}</span> <span class="muted">(replayed at the head)</span>` : undefined;
    return html`${callView(decoded)}<span class="muted">(reason from replaying the call at the head block)</span>`;
  }
}

/** Not in the database: a pending transaction (the gateway knows it, no block yet), or one not indexed yet. */
async function pendingTx(deps: PagesDeps, id: string, hash: Uint8Array | undefined): Promise<{ title: string; body: Html }> {
  if (hash !== undefined) {
    let t: Record<string, unknown> | null = null;
    try {
      t = (await deps.rpc('eth_getTransactionByHash', [toHex(hash)])) as Record<string, unknown> | null;
    } catch {
      t = null;
    }
    if (t !== null) {
      const pending = t.blockNumber === null || t.blockNumber === undefined;
      return {
        title: 'Transaction',
        body: html`<h1>Transaction</h1><div class="notice" id="tx-status">${
          pending ? html`<b>Pending</b>: queued in the canister's pool, not yet in a block.` : html`Included in block ${String(t.blockNumber)}; the indexer has not copied it yet. Reload in a moment.`
        }</div><div class="card"><table class="kv"><tr><th>Transaction hash</th><td class="mono">${toHex(hash)}</td></tr>
<tr><th>From</th><td class="mono">${String(t.from ?? '')}</td></tr><tr><th>To</th><td class="mono">${String(t.to ?? 'create')}</td></tr>
<tr><th>Nonce</th><td>${String(t.nonce ?? '')}</td></tr><tr><th>Value</th><td>${typeof t.value === 'string' ? formatEth(BigInt(t.value)) : ''}</td></tr></table></div>`,
      };
    }
  }
  throw notFound('Transaction', html`<p class="mono">${id}</p><p>Neither indexed nor pending. A dropped or unknown transaction, or one in pruned history.</p>`);
}

function transferTable(rows: readonly TransferRow[], decimals?: number): Html {
  if (rows.length === 0) return html`<p class="muted">No token transfers.</p>`;
  return html`<table><tr><th>Transaction</th><th>Block</th><th>Token</th><th>From</th><th>To</th><th>Amount / id</th></tr>${rows.map(
    (r) => html`<tr><td>${txLink(r.tx_hash)}</td><td>${blockLink(r.block_number)}</td><td><a class="mono" href="/token/${toHex(r.token_address)}">${short(toHex(r.token_address), 8)}</a></td>
<td>${addressLink(r.from_address)}</td><td>${addressLink(r.to_address)}</td><td>${r.token_id === null ? formatUnits(r.amount, decimals) : html`NFT #${r.token_id}`}</td></tr>`,
  )}</table>`;
}

// ---------------------------------------------------------------- address

async function addressPage(deps: PagesDeps, q: ExplorerQueries, path: string[], params: URLSearchParams) {
  const id = path[0] ?? '';
  const address = parseHexBytes(id, 20);
  if (address === undefined) throw new PageError(400, 'Bad request', html`<h1>Not an address</h1><p class="mono">${id}</p>`);
  const hex = toHex(address);
  const before = parseCursor(params.get('before'));
  const tbefore = parseCursor(params.get('tbefore'));
  const [balance, nonce, code, txs, transfers, verified, creation] = await Promise.all([
    deps.rpc('eth_getBalance', [hex, 'latest']).catch(() => undefined),
    deps.rpc('eth_getTransactionCount', [hex, 'latest']).catch(() => undefined),
    deps.rpc('eth_getCode', [hex, 'latest']).catch(() => undefined),
    q.addressTxs(address, before, PAGE_SIZE),
    q.addressTransfers(address, tbefore, PAGE_SIZE),
    deps.verified(address),
    q.creation(address),
  ]);
  const isContract = typeof code === 'string' && code !== '0x';
  const lastTx = txs.at(-1);
  const lastTransfer = transfers.at(-1);
  const readSection = path[1] === 'read' && verified !== undefined ? await readCall(deps, hex, verified.abi, params) : undefined;
  return {
    title: `Address ${short(hex, 8)}`,
    body: html`<h1>${isContract ? 'Contract' : 'Address'} <span class="mono">${hex}</span></h1>
<div class="card"><table class="kv">
<tr><th>Balance</th><td id="balance">${typeof balance === 'string' ? formatEth(BigInt(balance)) : 'unavailable'}</td></tr>
<tr><th>Nonce</th><td>${typeof nonce === 'string' ? BigInt(nonce).toString() : 'unavailable'}</td></tr>
${creation === undefined ? '' : html`<tr><th>Created by</th><td>${addressLink(creation.from_address)} in ${txLink(creation.tx_hash)}</td></tr>`}
${isContract ? html`<tr><th>Verified</th><td id="verified">${verified === undefined ? html`No. <a href="/verify?address=${hex}">Verify and publish its source</a>` : html`<span class="ok">Yes</span> (${verified.match} match), ${verified.contractName}, ${verified.compilerVersion}`}</td></tr>` : ''}
</table></div>
${readSection ?? ''}
${verified === undefined ? '' : verifiedSection(hex, verified)}
<div class="card"><h2>Transactions</h2>${txTable(txs, { block: true })}
${lastTx !== undefined && txs.length === PAGE_SIZE ? html`<div class="pager"><a href="/address/${hex}?before=${formatCursor({ block: lastTx.block_number, index: lastTx.tx_index })}">older →</a></div>` : ''}</div>
<div class="card"><h2>Token transfers</h2>${transferTable(transfers)}
${lastTransfer !== undefined && transfers.length === PAGE_SIZE ? html`<div class="pager"><a href="/address/${hex}?tbefore=${formatCursor({ block: lastTransfer.block_number, index: lastTransfer.log_index })}">older →</a></div>` : ''}</div>
${isContract ? html`<div class="card"><h2>Code</h2><pre>${code as string}</pre></div>` : ''}`,
  };
}

function verifiedSection(hex: string, v: VerifiedContractInfo): Html {
  const reads = readFunctions(v.abi);
  return html`<div class="card"><h2>Read contract</h2>${
    reads.length === 0
      ? html`<p class="muted">No view functions.</p>`
      : reads.map(
          (fn) => html`<form class="stack read-fn" method="get" action="/address/${hex}/read"><input type="hidden" name="fn" value="${fn.name}(${fn.inputs.map((i) => i.type).join(',')})">
<b class="mono">${fn.name}</b>${fn.inputs.map((inp, i) => html`<label>${inp.name || `arg${i}`} (${inp.type})</label><input type="text" name="a${i}">`)}
<button type="submit">Query</button></form>`,
        )
  }</div>
<div class="card"><h2>Source (${v.contractName}, ${v.compilerVersion}, ${v.match} match)</h2>
<h3>Compiler settings</h3><pre>${JSON.stringify(v.settings, null, 2)}</pre>
${Object.entries(v.sources).map(([path, text]) => html`<h3 class="mono">${path}</h3><pre>${text}</pre>`)}
<h3>ABI</h3><pre>${JSON.stringify(v.abi, null, 2)}</pre></div>`;
}

async function readCall(deps: PagesDeps, hex: string, abi: Abi, params: URLSearchParams): Promise<Html> {
  const sig = params.get('fn') ?? '';
  const fn = readFunctions(abi).find((f) => `${f.name}(${f.inputs.map((i) => i.type).join(',')})` === sig);
  if (fn === undefined) return html`<div class="card notice">No view function ${sig} in this contract's ABI.</div>`;
  let args: unknown[];
  try {
    args = fn.inputs.map((inp, i) => parseArg(inp.type, params.get(`a${i}`) ?? ''));
  } catch (e) {
    return html`<div class="card notice">Bad argument for ${fn.name}: ${(e as Error).message}</div>`;
  }
  try {
    const data = encodeRead(fn, args);
    const out = (await deps.rpc('eth_call', [{ to: hex, data }, 'latest'])) as `0x${string}`;
    return html`<div class="card" id="read-result"><h2>${fn.name} →</h2><table>${decodeRead(fn, out).map((o) => html`<tr><th class="mono">${o.type} ${o.name}</th><td class="mono">${o.value}</td></tr>`)}</table></div>`;
  } catch (e) {
    const data = (e as { data?: unknown }).data;
    const reason = typeof data === 'string' ? decodeRevert(abi, data) : undefined;
    return html`<div class="card notice" id="read-result">${fn.name} failed: ${reason === undefined ? (e as Error).message : callView(reason)}</div>`;
  }
}

// ---------------------------------------------------------------- token

async function tokenPage(deps: PagesDeps, q: ExplorerQueries, path: string[], params: URLSearchParams) {
  const id = path[0] ?? '';
  const token = parseHexBytes(id, 20);
  if (token === undefined) throw new PageError(400, 'Bad request', html`<h1>Not a token address</h1><p class="mono">${id}</p>`);
  const hex = toHex(token);
  const before = parseCursor(params.get('before'));
  const holderPage = Math.max(0, Math.min(10_000, Number(params.get('hp') ?? '0') | 0));
  const [meta, transfers, holders] = await Promise.all([tokenMeta(deps, hex), q.tokenTransfers(token, before, PAGE_SIZE), q.tokenHolders(token, holderPage * PAGE_SIZE, PAGE_SIZE)]);
  const last = transfers.at(-1);
  return {
    title: `Token ${meta.symbol ?? short(hex, 8)}`,
    body: html`<h1>Token ${meta.name ?? ''} ${meta.symbol === undefined ? '' : html`(${meta.symbol})`}</h1>
<div class="card"><table class="kv"><tr><th>Contract</th><td>${addressLink(token, true)}</td></tr><tr><th>Decimals</th><td>${meta.decimals ?? 'unknown'}</td></tr></table></div>
<div class="grid"><div class="card"><h2>Transfers</h2>${transferTable(transfers, meta.decimals)}
${last !== undefined && transfers.length === PAGE_SIZE ? html`<div class="pager"><a href="/token/${hex}?before=${formatCursor({ block: last.block_number, index: last.log_index })}">older →</a></div>` : ''}</div>
<div class="card"><h2>Holders</h2><p class="muted">Balances from the indexed transfers.</p>${
      holders.length === 0
        ? html`<p class="muted">No holders.</p>`
        : html`<table><tr><th>Holder</th><th>Balance</th></tr>${holders.map((h) => html`<tr><td>${addressLink(h.holder)}</td><td>${formatUnits(h.balance, meta.decimals)}</td></tr>`)}</table>`
    }
<div class="pager">${holderPage > 0 ? html`<a href="/token/${hex}?hp=${holderPage - 1}">← previous</a>` : ''}${holders.length === PAGE_SIZE ? html`<a href="/token/${hex}?hp=${holderPage + 1}">next →</a>` : ''}</div></div></div>`,
  };
}

/** name(), symbol(), decimals() by eth_call; each may be missing on a token that does not implement it. */
async function tokenMeta(deps: PagesDeps, hex: string): Promise<{ name?: string; symbol?: string; decimals?: number }> {
  const call = async (selector: string): Promise<string | undefined> => {
    try {
      const r = await deps.rpc('eth_call', [{ to: hex, data: selector }, 'latest']);
      return typeof r === 'string' && r.length > 2 ? r : undefined;
    } catch {
      return undefined;
    }
  };
  const [n, s, d] = await Promise.all([call('0x06fdde03'), call('0x95d89b41'), call('0x313ce567')]);
  const str = (r: string | undefined): string | undefined => {
    if (r === undefined || r.length < 2 + 128) return undefined;
    try {
      const len = Number(BigInt(`0x${r.slice(66, 130)}`));
      if (len > 64) return undefined;
      return Buffer.from(r.slice(130, 130 + len * 2), 'hex').toString('utf8');
    } catch {
      return undefined;
    }
  };
  const decimals = d === undefined ? undefined : Number(BigInt(d.slice(0, 66)));
  return {
    ...(str(n) === undefined ? {} : { name: str(n)! }),
    ...(str(s) === undefined ? {} : { symbol: str(s)! }),
    ...(decimals === undefined || decimals > 77 ? {} : { decimals }),
  };
}

// ---------------------------------------------------------------- verify

async function verifyPage(_deps: PagesDeps, _q: ExplorerQueries, _path: string[], params: URLSearchParams) {
  const address = params.get('address') ?? '';
  return {
    title: 'Verify a contract',
    body: html`<h1>Verify and publish a contract's source</h1>
<div class="card"><form class="stack" id="verify-form">
<label for="v-address">Contract address</label><input type="text" id="v-address" name="address" value="${address}" required>
<label for="v-compiler">Compiler version</label><input type="text" id="v-compiler" name="compilerVersion" placeholder="0.8.37 or v0.8.37+commit.f401782d" required>
<label for="v-name">Contract name (e.g. Token or contracts/Token.sol:Token)</label><input type="text" id="v-name" name="contractName" required>
<label for="v-kind">Input</label><select id="v-kind" name="kind"><option value="single">Single Solidity file</option><option value="standard-json">Standard JSON input</option></select>
<label for="v-source">Source / standard JSON</label><textarea id="v-source" name="source" required></textarea>
<label><input type="checkbox" id="v-optimizer" name="optimizer"> Optimizer enabled (single file)</label>
<label for="v-runs">Optimizer runs</label><input type="text" id="v-runs" name="runs" value="200">
<label for="v-args">Constructor arguments (ABI-encoded hex, optional)</label><input type="text" id="v-args" name="constructorArguments">
<button type="submit">Submit</button></form></div>
<div class="card"><h2>Job</h2><div id="verify-status" class="muted">Not submitted.</div></div>`,
    script: VERIFY_SCRIPT,
  };
}

// ---------------------------------------------------------------- ops

async function opsPage(_deps: PagesDeps, q: ExplorerQueries) {
  const [samples, gaps, state] = await Promise.all([q.metricsSamples(200), q.prunedGaps(50), q.indexerState()]);
  const latest = samples.at(-1);
  const metrics = (latest?.metrics ?? {}) as Record<string, unknown>;
  const mode = modeName(metrics.mode);
  const series = chartSeries(samples);
  return {
    title: 'Ops',
    body: html`<h1>Operations</h1>
<div class="card"><table class="kv">
<tr><th>Ops state</th><td id="ops-mode">${mode ?? 'no sample yet'}</td></tr>
<tr><th>Last sample</th><td>${latest === undefined ? '—' : String(latest.sampled_at instanceof Date ? latest.sampled_at.toISOString() : latest.sampled_at)}</td></tr>
<tr><th>Indexer cursor</th><td>${state === undefined ? '—' : html`block ${state.cursor_block.toString()} (head ${state.head_block?.toString() ?? '?'}, first available ${state.first_available_block?.toString() ?? '?'})`}</td></tr>
</table></div>
<div class="card"><h2>Metrics over time</h2>${series.length === 0 ? html`<p class="muted">No samples yet.</p>` : html`<div id="ops-charts"></div>${jsonScript('ops-series', series)}`}</div>
<div class="card"><h2>Pruned gaps</h2>${
      gaps.length === 0
        ? html`<p class="muted">None.</p>`
        : html`<table><tr><th>From</th><th>To</th><th>Seen</th></tr>${gaps.map((g) => html`<tr><td>${g.from_block.toString()}</td><td>${g.to_block.toString()}</td><td>${String(g.seen_at instanceof Date ? g.seen_at.toISOString() : g.seen_at)}</td></tr>`)}</table>`
    }</div>`,
    script: OPS_CHART_SCRIPT,
  };
}

function modeName(mode: unknown): string | undefined {
  if (typeof mode === 'string') return mode;
  if (mode !== null && typeof mode === 'object') return Object.keys(mode)[0];
  return undefined;
}

/** Numeric top-level metrics (numbers or decimal strings) as series of [time ms, value]. */
function chartSeries(samples: readonly { sampled_at: Date | string; head_block: bigint; metrics: unknown }[]): { name: string; points: [number, number][] }[] {
  const byName = new Map<string, [number, number][]>();
  const push = (name: string, t: number, v: number): void => {
    let s = byName.get(name);
    if (s === undefined) byName.set(name, (s = []));
    s.push([t, v]);
  };
  for (const s of samples) {
    const t = new Date(s.sampled_at).getTime();
    push('head_block', t, Number(s.head_block));
    const m = (s.metrics ?? {}) as Record<string, unknown>;
    for (const [k, v] of Object.entries(m)) {
      if (k === 'time_ns' || k === 'head_block') continue;
      if (typeof v === 'number') push(k, t, v);
      else if (typeof v === 'string' && /^\d{1,30}$/.test(v)) push(k, t, Number(v));
    }
  }
  return [...byName].map(([name, points]) => ({ name, points }));
}

// ---------------------------------------------------------------- search

async function searchPage(_deps: PagesDeps, q: ExplorerQueries, _path: string[], params: URLSearchParams): Promise<never> {
  const text = (params.get('q') ?? '').trim();
  if (/^\d{1,19}$/.test(text)) throw new Redirect(`/block/${text}`);
  if (/^0x[0-9a-fA-F]{40}$/.test(text)) throw new Redirect(`/address/${text.toLowerCase()}`);
  if (/^0x[0-9a-fA-F]{16}$/.test(text)) throw new Redirect(`/tx/${text.toLowerCase()}`);
  if (/^0x[0-9a-fA-F]{64}$/.test(text)) {
    const h = parseHexBytes(text, 32)!;
    if ((await q.blockByHash(h)) !== undefined) throw new Redirect(`/block/${text.toLowerCase()}`);
    throw new Redirect(`/tx/${text.toLowerCase()}`);
  }
  throw new PageError(
    400,
    'Search',
    html`<h1>Nothing matches</h1><p>Search takes a block number, a block hash or transaction hash (0x + 64 hex digits), a tx_id (0x + 16 hex digits) or an address (0x + 40 hex digits).</p><p class="mono">${text}</p>`,
  );
}

export { showValue, TRANSFER_TOPIC };
