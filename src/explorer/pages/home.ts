// The home page: the head, the indexed range, the latest blocks and transactions (refreshed through /live).
import { blockLink } from './format.js';
import { html, type Html } from './html.js';
import type { ExplorerQueries } from './queries.js';
import { LIVE_SCRIPT } from './scripts.js';
import { blockTable, type PagesDeps, txTable } from './common.js';

export async function homePage(deps: PagesDeps, q: ExplorerQueries): Promise<{ title: string; body: Html; script: string }> {
  return {
    title: 'Home',
    body: html`<h1>Chain ${deps.chainId.toString()}</h1><div id="live">${await liveFragment(q)}</div>`,
    script: LIVE_SCRIPT,
  };
}

export async function liveFragment(q: ExplorerQueries): Promise<Html> {
  const [range, state, blocks, txs] = await Promise.all([q.range(), q.indexerState(), q.latestBlocks(10), q.latestTxs(10)]);
  const head = state?.head_block ?? range.head;
  return html`<div class="card"><table class="kv">
<tr><th>Head block</th><td id="head-block">${head === undefined || head === null ? '—' : blockLink(head)}</td></tr>
<tr><th>Indexed</th><td>${range.first === undefined ? 'nothing yet' : html`blocks ${range.first.toString()} to ${range.head!.toString()}`}</td></tr>
</table></div>
<div class="grid"><div class="card"><h2>Latest blocks</h2>${blockTable(blocks)}</div>
<div class="card"><h2>Latest transactions</h2>${txTable(txs, { block: true })}</div></div>`;
}
