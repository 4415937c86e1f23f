// Search: a block number, transaction hash or address redirects to its page.
import { parseHexBytes } from './format.js';
import { html } from './html.js';
import type { ExplorerQueries } from './queries.js';
import { PageError, type PagesDeps, Redirect } from './common.js';

export async function searchPage(_deps: PagesDeps, q: ExplorerQueries, _path: string[], params: URLSearchParams): Promise<never> {
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
