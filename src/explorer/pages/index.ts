// The explorer's pages: server-rendered HTML over the indexer's database (ExplorerQueries) and the JSON-RPC
// gateway (head state: balances, nonces, code, pending transactions, read-only calls). Served by the explorer's
// HTTP server next to the verification APIs; `createPagesHandler` answers the page routes and leaves every other
// path to the server. Escaping is by construction (./html.ts); every list pages with a keyset cursor.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { html, layout, type Html } from './html.js';
import { ExplorerQueries } from './queries.js';
import { addressPage } from './address.js';
import { blockPage } from './block.js';
import { PageError, type PagesDeps, Redirect, type Route } from './common.js';
import { homePage, liveFragment } from './home.js';
import { opsPage } from './ops.js';
import { searchPage } from './search.js';
import { tokenPage } from './token.js';
import { txPage } from './tx.js';
import { verifyPage } from './verify.js';

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

export { PAGE_SIZE, type PagesDeps, type VerifiedContractInfo } from './common.js';
export { showValue } from './abi.js';
