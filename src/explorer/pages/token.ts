// A token page: name, symbol and decimals by eth_call, its transfers, and its holders (the indexer's
// maintained balances).
import { decodeFunctionResult, encodeFunctionData, erc20Abi, type Hex } from 'viem';
import { toPrefixedHex } from '../../gateway/hex.js';
import { addressLink, formatUnits, parseHexBytes, short } from './format.js';
import { html } from './html.js';
import { type ExplorerQueries, formatCursor, parseCursor } from './queries.js';
import { PAGE_SIZE, PageError, type PagesDeps, transferTable } from './common.js';

export async function tokenPage(deps: PagesDeps, q: ExplorerQueries, path: string[], params: URLSearchParams) {
  const id = path[0] ?? '';
  const token = parseHexBytes(id, 20);
  if (token === undefined) throw new PageError(400, 'Bad request', html`<h1>Not a token address</h1><p class="mono">${id}</p>`);
  const hex = toPrefixedHex(token);
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
export async function tokenMeta(deps: PagesDeps, hex: string): Promise<{ name?: string; symbol?: string; decimals?: number }> {
  // viem's ERC-20 ABI encodes each call and decodes its answer; an answer that does not decode counts as missing.
  const call = async (functionName: 'name' | 'symbol' | 'decimals'): Promise<unknown> => {
    try {
      const data = await deps.rpc('eth_call', [{ to: hex, data: encodeFunctionData({ abi: erc20Abi, functionName }) }, 'latest']);
      if (typeof data !== 'string' || data.length <= 2) return undefined;
      return decodeFunctionResult({ abi: erc20Abi, functionName, data: data as Hex });
    } catch {
      return undefined;
    }
  };
  const [name, symbol, decimals] = await Promise.all([call('name'), call('symbol'), call('decimals')]);
  const fits = (v: unknown): v is string => typeof v === 'string' && Buffer.byteLength(v) <= 64;
  return {
    ...(fits(name) ? { name } : {}),
    ...(fits(symbol) ? { symbol } : {}),
    ...(typeof decimals !== 'number' || decimals > 77 ? {} : { decimals }),
  };
}
