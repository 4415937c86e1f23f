// A transaction page: the indexed transaction with its receipt, decoded input and logs, a replayed revert
// reason when it failed, or a pending one from the gateway; its "Call tree" and "State changes" tabs
// (./tx_calls.ts, ./tx_state.ts) are traced on demand.
import type { Abi } from 'viem';
import { decodeInput, decodeLog, decodeRevert, type DecodedCall } from './abi.js';
import { toPrefixedHex } from '../../gateway/hex.js';
import { addressLink, blockLink, formatEth, formatGwei, parseHexBytes, short, statusBadge, TX_TYPE_NAMES } from './format.js';
import { html, type Html } from './html.js';
import { type ExplorerQueries, type LogRow, type TxRow } from './queries.js';
import { fee, notFound, PageError, type PagesDeps, transferTable, type VerifiedContractInfo } from './common.js';
import { callTreeSection } from './tx_calls.js';
import { stateChangesSection } from './tx_state.js';

const TABS = { '': 'Overview', calls: 'Call tree', state: 'State changes' } as const;
type Tab = keyof typeof TABS;

/** The transaction page's tabs: the overview from the indexer's tables, the two traces on demand. */
export function txTabs(hash: string, active: Tab): Html {
  return html`<nav class="tabs" id="tx-tabs">${(Object.keys(TABS) as Tab[]).map(
    (t) => html`<a href="/tx/${hash}${t === '' ? '' : `/${t}`}"${t === active ? html` class="active" aria-current="page"` : ''}>${TABS[t]}</a>`,
  )}</nav>`;
}

export async function txPage(deps: PagesDeps, q: ExplorerQueries, path: string[]) {
  const id = path[0] ?? '';
  const hash = parseHexBytes(id, 32);
  const txId = parseHexBytes(id, 8);
  let tx: TxRow | undefined;
  if (hash !== undefined) tx = await q.txByHash(hash);
  else if (txId !== undefined) tx = await q.txById(txId);
  else throw new PageError(400, 'Bad request', html`<h1>Not a transaction hash or tx_id</h1><p class="mono">${id}</p>`);
  if (tx === undefined) return pendingTx(deps, id, hash);
  const tab = path[1] ?? '';
  if (path.length > 2 || !Object.hasOwn(TABS, tab)) throw notFound('Page', html`<p>No tab ${tab} of a transaction; its tabs are ${Object.values(TABS).join(', ')}.</p>`);
  const txHash = toPrefixedHex(tx.eth_tx_hash);
  if (tab === 'calls' || tab === 'state') {
    const section = tab === 'calls' ? await callTreeSection(deps, txHash) : await stateChangesSection(deps, txHash);
    return {
      title: `${TABS[tab]} ${short(txHash)}`,
      status: section.status,
      body: html`<h1>Transaction <span class="mono">${txHash}</span></h1>
<div class="card"><table class="kv"><tr><th>Status</th><td id="tx-status">${statusBadge(tx.receipt_status)}</td></tr>
<tr><th>Block</th><td>${blockLink(tx.block_number)} (index ${tx.tx_index})</td></tr>
<tr><th>From</th><td>${addressLink(tx.from_address, true)}</td></tr>
<tr><th>${tx.to_address === null ? 'Created contract' : 'To'}</th><td>${tx.to_address === null ? addressLink(tx.contract_address, true) : addressLink(tx.to_address, true)}</td></tr>
<tr><th>Value</th><td>${formatEth(tx.value)}</td></tr></table></div>
${txTabs(txHash, tab)}<div class="card" id="tab-${tab}">${section.body}</div>`,
    };
  }

  const [logs, transfers, verifiedTo] = await Promise.all([
    q.txLogs(tx.eth_tx_hash),
    q.txTransfers(tx.eth_tx_hash),
    tx.to_address === null ? Promise.resolve(undefined) : deps.verified(tx.to_address),
  ]);
  const abiCache = new Map<string, Promise<VerifiedContractInfo | undefined>>();
  const verifiedOf = (a: Uint8Array): Promise<VerifiedContractInfo | undefined> => {
    const k = toPrefixedHex(a);
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
    title: `Transaction ${short(toPrefixedHex(tx.eth_tx_hash))}`,
    body: html`<h1>Transaction</h1>${txTabs(txHash, '')}<div class="card"><table class="kv">
<tr><th>Transaction hash</th><td class="mono">${toPrefixedHex(tx.eth_tx_hash)}</td></tr>
<tr><th>tx_id (canister)</th><td class="mono">${toPrefixedHex(tx.tx_id)}</td></tr>
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
<tr><th>Input</th><td>${decodedInput === undefined ? '' : html`<div id="decoded-input">${callView(decodedInput)}</div>`}<pre>${toPrefixedHex(tx.input)}</pre></td></tr>
</table></div>
${transfers.length === 0 ? '' : html`<div class="card"><h2>Token transfers</h2>${transferTable(transfers)}</div>`}
<div class="card"><h2>Logs (${logs.length})</h2>${logRows.length === 0 ? html`<p class="muted">No logs.</p>` : logRows.map(({ l, decoded }) => logView(l, decoded))}</div>`,
  };
}

export const topicsOf = (l: LogRow): Uint8Array[] => [l.topic0, l.topic1, l.topic2, l.topic3].filter((t): t is Uint8Array => t !== null);

export function callView(c: DecodedCall): Html {
  return html`<div><b class="mono">${c.name}</b>(<table>${c.args.map((a) => html`<tr><th class="mono">${a.type} ${a.name}</th><td class="mono">${a.value}</td></tr>`)}</table>)</div>`;
}

export function logView(l: LogRow, decoded: DecodedCall | undefined): Html {
  return html`<div class="card"><table class="kv"><tr><th>Log index</th><td>${l.log_index}</td></tr>
<tr><th>Address</th><td>${addressLink(l.address, true)}</td></tr>
${decoded === undefined ? '' : html`<tr><th>Event</th><td class="decoded-log">${callView(decoded)}</td></tr>`}
${topicsOf(l).map((t, i) => html`<tr><th>topic${i}</th><td class="mono">${toPrefixedHex(t)}</td></tr>`)}
<tr><th>Data</th><td><pre>${toPrefixedHex(l.data)}</pre></td></tr></table></div>`;
}

/**
 * A failed transaction's reason. The export carries the failure class (failure_code) but not the revert bytes, so
 * the call is replayed with eth_call at the head block: the reason shown is what the same call reverts with now,
 * and the page says so. Error(string), Panic(uint256) and, for verified contracts, custom errors are decoded.
 */
export async function replayRevert(deps: PagesDeps, tx: TxRow, abi: Abi | undefined): Promise<Html | undefined> {
  if (tx.to_address === null) return undefined;
  try {
    await deps.rpc('eth_call', [{ from: toPrefixedHex(tx.from_address), to: toPrefixedHex(tx.to_address), value: `0x${BigInt(tx.value).toString(16)}`, data: toPrefixedHex(tx.input), gas: `0x${tx.gas_limit.toString(16)}` }, 'latest']);
    return html`<span class="muted">(the same call succeeds at the head block now)</span>`;
  } catch (e) {
    const data = (e as { data?: unknown }).data;
    const decoded = typeof data === 'string' ? decodeRevert(abi, data) : undefined;
    if (decoded === undefined) return typeof data === 'string' && data !== '0x' ? html`revert data <span class="mono">${data}</span> <span class="muted">(replayed at the head)</span>` : undefined;
    return html`${callView(decoded)}<span class="muted">(reason from replaying the call at the head block)</span>`;
  }
}

/** Not in the database: a pending transaction (the gateway knows it, no block yet), or one not indexed yet. */
export async function pendingTx(deps: PagesDeps, id: string, hash: Uint8Array | undefined): Promise<{ title: string; body: Html }> {
  if (hash !== undefined) {
    let t: Record<string, unknown> | null = null;
    try {
      t = (await deps.rpc('eth_getTransactionByHash', [toPrefixedHex(hash)])) as Record<string, unknown> | null;
    } catch {
      t = null;
    }
    if (t !== null) {
      const pending = t.blockNumber === null || t.blockNumber === undefined;
      return {
        title: 'Transaction',
        body: html`<h1>Transaction</h1><div class="notice" id="tx-status">${
          pending ? html`<b>Pending</b>: queued in the canister's pool, not yet in a block.` : html`Included in block ${String(t.blockNumber)}; the indexer has not copied it yet. Reload in a moment.`
        }</div><div class="card"><table class="kv"><tr><th>Transaction hash</th><td class="mono">${toPrefixedHex(hash)}</td></tr>
<tr><th>From</th><td class="mono">${String(t.from ?? '')}</td></tr><tr><th>To</th><td class="mono">${String(t.to ?? 'create')}</td></tr>
<tr><th>Nonce</th><td>${String(t.nonce ?? '')}</td></tr><tr><th>Value</th><td>${typeof t.value === 'string' ? formatEth(BigInt(t.value)) : ''}</td></tr></table></div>`,
      };
    }
  }
  throw notFound('Transaction', html`<p class="mono">${id}</p><p>Neither indexed nor pending. A dropped or unknown transaction, or one in pruned history.</p>`);
}
