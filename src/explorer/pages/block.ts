// A block page: its header fields and transactions, or why it is missing (not indexed yet, pruned).
import { toPrefixedHex } from '../../gateway/hex.js';
import { addressLink, ago, blockLink, formatGwei, formatTime, parseHexBytes } from './format.js';
import { html } from './html.js';
import { type ExplorerQueries, type BlockRow } from './queries.js';
import { fee, notFound, PAGE_SIZE, PageError, type PagesDeps, txTable } from './common.js';

export async function blockPage(_deps: PagesDeps, q: ExplorerQueries, path: string[], params: URLSearchParams) {
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
<tr><th>Hash</th><td class="mono">${toPrefixedHex(block.hash)}</td></tr>
<tr><th>Parent hash</th><td class="mono">${block.number > 0n ? html`<a href="/block/${toPrefixedHex(block.parent_hash)}">${toPrefixedHex(block.parent_hash)}</a>` : toPrefixedHex(block.parent_hash)}</td></tr>
<tr><th>Timestamp</th><td>${formatTime(block.timestamp)} (${ago(block.timestamp)})</td></tr>
<tr><th>Transactions</th><td>${block.tx_count}</td></tr>
<tr><th>Gas used / limit</th><td>${block.gas_used.toLocaleString('en-US')} / ${block.gas_limit.toLocaleString('en-US')}</td></tr>
<tr><th>Base fee</th><td>${formatGwei(block.base_fee)}</td></tr>
<tr><th>Fee recipient</th><td>${addressLink(block.miner, true)}</td></tr>
<tr><th>State root</th><td class="mono">${toPrefixedHex(block.state_root)}</td></tr>
<tr><th>Transactions root</th><td class="mono">${toPrefixedHex(block.transactions_root)}</td></tr>
<tr><th>Receipts root</th><td class="mono">${toPrefixedHex(block.receipts_root)}</td></tr>
<tr><th>Size</th><td>${block.size} bytes</td></tr>
</table></div>
<div class="card"><h2>Transactions</h2>${txTable(txs)}
${last !== undefined && txs.length === PAGE_SIZE ? html`<div class="pager"><a href="/block/${block.number.toString()}?after=${last.tx_index}">next page →</a></div>` : ''}</div>`,
  };
}

/** A block number with no row: pruned by the canister before it was indexed, removed by retention, or not yet there. */
export async function missingBlock(q: ExplorerQueries, n: bigint): Promise<never> {
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
