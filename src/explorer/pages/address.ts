// An address page: balance, nonce and code from the gateway, its transactions, internal transactions, token
// transfers and balance history, who created it (./internal.ts), and for a verified contract its source, ABI and
// read calls.
import type { Abi } from 'viem';
import { decodeRead, decodeRevert, encodeRead, parseArg, readFunctions } from './abi.js';
import { toPrefixedHex } from '../../gateway/hex.js';
import { formatEth, parseHexBytes, short } from './format.js';
import { html, type Html } from './html.js';
import { type ExplorerQueries, formatCursor, parseCursor, parseInternalCursor } from './queries.js';
import { balanceHistorySection, creatorRow, internalTxSection } from './internal.js';
import { PAGE_SIZE, PageError, type PagesDeps, transferTable, txTable, type VerifiedContractInfo } from './common.js';
import { callView } from './tx.js';

export async function addressPage(deps: PagesDeps, q: ExplorerQueries, path: string[], params: URLSearchParams) {
  const id = path[0] ?? '';
  const address = parseHexBytes(id, 20);
  if (address === undefined) throw new PageError(400, 'Bad request', html`<h1>Not an address</h1><p class="mono">${id}</p>`);
  const hex = toPrefixedHex(address);
  const before = parseCursor(params.get('before'));
  const tbefore = parseCursor(params.get('tbefore'));
  const ibefore = parseInternalCursor(params.get('ibefore'));
  const hbefore = parseCursor(params.get('hbefore'));
  const [balance, nonce, code, txs, transfers, verified, creation, creator, internalSection, historySection] = await Promise.all([
    deps.rpc('eth_getBalance', [hex, 'latest']).catch(() => undefined),
    deps.rpc('eth_getTransactionCount', [hex, 'latest']).catch(() => undefined),
    deps.rpc('eth_getCode', [hex, 'latest']).catch(() => undefined),
    q.addressTxs(address, before, PAGE_SIZE),
    q.addressTransfers(address, tbefore, PAGE_SIZE),
    deps.verified(address),
    q.creation(address),
    q.creator(address),
    internalTxSection(q, address, ibefore),
    balanceHistorySection(deps, q, address, hbefore),
  ]);
  const creatorName = creator === undefined ? undefined : (await deps.verified(creator.creator).catch(() => undefined))?.contractName;
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
${creatorRow(creator, creation, creatorName)}
${isContract ? html`<tr><th>Verified</th><td id="verified">${verified === undefined ? html`No. <a href="/verify?address=${hex}">Verify and publish its source</a>` : html`<span class="ok">Yes</span> (${verified.match} match), ${verified.contractName}, ${verified.compilerVersion}`}</td></tr>` : ''}
</table></div>
${readSection ?? ''}
${verified === undefined ? '' : verifiedSection(hex, verified)}
<div class="card"><h2>Transactions</h2>${txTable(txs, { block: true })}
${lastTx !== undefined && txs.length === PAGE_SIZE ? html`<div class="pager"><a href="/address/${hex}?before=${formatCursor({ block: lastTx.block_number, index: lastTx.tx_index })}">older →</a></div>` : ''}</div>
${internalSection}
<div class="card"><h2>Token transfers</h2>${transferTable(transfers)}
${lastTransfer !== undefined && transfers.length === PAGE_SIZE ? html`<div class="pager"><a href="/address/${hex}?tbefore=${formatCursor({ block: lastTransfer.block_number, index: lastTransfer.log_index })}">older →</a></div>` : ''}</div>
${historySection}
${isContract ? html`<div class="card"><h2>Code</h2><pre>${code as string}</pre></div>` : ''}`,
  };
}

export function verifiedSection(hex: string, v: VerifiedContractInfo): Html {
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

export async function readCall(deps: PagesDeps, hex: string, abi: Abi, params: URLSearchParams): Promise<Html> {
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
