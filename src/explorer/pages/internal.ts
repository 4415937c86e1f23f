// The address page's sections read from the archive's tables (archive_internal_txs, archive_contract_creators,
// filled as the archive re-executes each block): internal transactions, the balance history with internal value
// transfers, and who created a contract. An explorer whose database has no archive says so and lists none.
import { toPrefixedHex } from '../../gateway/hex.js';
import { addressLink, blockLink, formatEth, txLink } from './format.js';
import { html, type Html } from './html.js';
import { fee, PAGE_SIZE, type PagesDeps } from './common.js';
import { type Cursor, type CreatorRow, type ExplorerQueries, formatCursor, formatInternalCursor, type InternalCursor, type InternalTxRow, type TxRow, VALUE_MOVING_TYPES } from './queries.js';

const same = (a: Uint8Array | null, b: Uint8Array): boolean => a !== null && Buffer.compare(a, b) === 0;

export function internalTxTable(rows: readonly InternalTxRow[], address: Uint8Array): Html {
  if (rows.length === 0) return html`<p class="muted">No internal transactions.</p>`;
  return html`<table id="internal-txs"><tr><th>Transaction</th><th>Block</th><th>Type</th><th>Trace</th><th>From</th><th>To</th><th>Value</th><th>Status</th></tr>${rows.map(
    (r) => html`<tr class="internal-tx${r.reverted ? ' reverted' : ''}" data-type="${r.type}"><td>${txLink(r.tx_hash)}</td><td>${blockLink(r.block)}</td><td>${r.type}</td>
<td class="mono">${r.trace_address.join('.')}</td><td>${same(r.from_address, address) ? html`<b>${addressLink(r.from_address)}</b>` : addressLink(r.from_address)}</td>
<td>${same(r.to_address, address) ? html`<b>${addressLink(r.to_address)}</b>` : addressLink(r.to_address)}</td><td>${formatEth(r.value)}</td>
<td>${r.reverted ? html`<span class="bad" title="${r.error ?? 'a frame above it reverted'}">Reverted</span>${r.error === null ? html` <span class="muted">(with its caller)</span>` : html` <span class="muted">${r.error.slice(0, 120)}</span>`}` : html`<span class="ok">Success</span>`}</td></tr>`,
  )}</table>`;
}

export async function internalTxSection(q: ExplorerQueries, address: Uint8Array, before: InternalCursor | undefined): Promise<Html> {
  const hex = toPrefixedHex(address);
  if (!(await q.hasArchiveTables())) return html`<div class="card"><h2>Internal transactions</h2><p class="muted">Internal transactions come from the archive, and this explorer's database has none.</p></div>`;
  const rows = await q.addressInternalTxs(address, before, PAGE_SIZE);
  const last = rows.at(-1);
  return html`<div class="card"><h2>Internal transactions</h2><p class="muted">Calls, creations and self-destructs made by contracts, from the archive's re-execution; a reverted one moved nothing.</p>${internalTxTable(rows, address)}
${last !== undefined && rows.length === PAGE_SIZE ? html`<div class="pager"><a href="/address/${hex}?ibefore=${formatInternalCursor({ block: last.block, index: last.tx_index, traceAddress: last.trace_address })}">older →</a></div>` : ''}</div>`;
}

/** One transaction's effect on an address's balance: top-level value and fee, and internal value transfers. */
export interface BalanceChange {
  readonly tx: TxRow;
  readonly value: bigint;
  readonly fee: bigint;
  readonly internal: bigint;
}

export function balanceChange(tx: TxRow, address: Uint8Array, internal: readonly InternalTxRow[]): BalanceChange {
  let value = 0n;
  let paid = 0n;
  if (same(tx.from_address, address)) {
    paid = -(fee(tx) ?? 0n);
    if (tx.receipt_status === 1) value -= BigInt(tx.value);
  }
  if (tx.receipt_status === 1 && (same(tx.to_address, address) || (tx.to_address === null && same(tx.contract_address, address)))) value += BigInt(tx.value);
  let moved = 0n;
  for (const r of internal) {
    if (Buffer.compare(r.tx_hash, tx.eth_tx_hash) !== 0 || r.reverted || !(VALUE_MOVING_TYPES as readonly string[]).includes(r.type)) continue;
    if (same(r.from_address, address)) moved -= BigInt(r.value);
    if (same(r.to_address, address)) moved += BigInt(r.value);
  }
  return { tx, value, fee: paid, internal: moved };
}

function signed(d: bigint): Html {
  if (d === 0n) return html`<span class="muted">0</span>`;
  return d > 0n ? html`<span class="ok">+${formatEth(d)}</span>` : html`<span class="bad">−${formatEth(-d)}</span>`;
}

export async function balanceHistorySection(deps: PagesDeps, q: ExplorerQueries, address: Uint8Array, before: Cursor | undefined): Promise<Html> {
  const hex = toPrefixedHex(address);
  const txs = await q.balanceChangingTxs(address, before, PAGE_SIZE);
  const internal = await q.internalTransfersOf(address, txs.map((t) => t.eth_tx_hash));
  const changes = txs.map((t) => balanceChange(t, address, internal)).filter((c) => c.value + c.fee + c.internal !== 0n);
  // The balance at the end of each block shown, from the gateway (the archive answers older blocks).
  const blocks = [...new Set(changes.map((c) => c.tx.block_number))];
  const balances = new Map(
    await Promise.all(
      blocks.map(async (n) => [n, await deps.rpc('eth_getBalance', [hex, `0x${n.toString(16)}`]).then((v) => (typeof v === 'string' ? BigInt(v) : undefined), () => undefined)] as const),
    ),
  );
  const last = txs.at(-1);
  const archive = await q.hasArchiveTables();
  return html`<div class="card"><h2>Balance history</h2><p class="muted">Transactions that changed this balance: value sent and received, fees paid${archive ? ', and value moved by internal transactions (calls with value, creations, self-destructs; reverted ones moved nothing)' : ' (internal value transfers need the archive, which this database lacks)'}. Fees received as a block's coinbase, genesis allocations and devnet cheats are not listed; the last column is the balance at the end of the block.</p>
${changes.length === 0 ? html`<p class="muted">No balance changes${txs.length > 0 ? ' on this page' : ''}.</p>` : html`<table id="balance-history"><tr><th>Transaction</th><th>Block</th><th>Change</th><th>Value</th><th>Fee</th><th>Internal</th><th>Balance after block</th></tr>${changes.map((c) => {
    const b = balances.get(c.tx.block_number);
    return html`<tr class="balance-change"><td>${txLink(c.tx.eth_tx_hash)}</td><td>${blockLink(c.tx.block_number)}</td><td>${signed(c.value + c.fee + c.internal)}</td><td>${signed(c.value)}</td><td>${signed(c.fee)}</td>
<td class="internal-change">${signed(c.internal)}</td><td>${b === undefined ? html`<span class="muted">unavailable</span>` : formatEth(b)}</td></tr>`;
  })}</table>`}
${last !== undefined && txs.length === PAGE_SIZE ? html`<div class="pager"><a href="/address/${hex}?hbefore=${formatCursor({ block: last.block_number, index: last.tx_index })}">older →</a></div>` : ''}</div>`;
}

/** "Created by" for a contract: the archive's creator row (a contract's CREATE included), else the creating transaction's sender. */
export function creatorRow(creator: CreatorRow | undefined, creation: { tx_hash: Uint8Array; from_address: Uint8Array; block_number: bigint } | undefined, creatorName: string | undefined): Html {
  if (creator !== undefined) {
    const byContract = creator.trace_address.length > 0;
    return html`<tr><th>Created by</th><td id="creator">${byContract ? 'contract ' : ''}${addressLink(creator.creator, true)}${creatorName === undefined ? '' : html` <span class="badge">${creatorName}</span>`}
in ${txLink(creator.tx_hash, true)} (block ${blockLink(creator.block)}${byContract ? html`, internal creation at trace <span class="mono">${creator.trace_address.join('.')}</span>` : ''})</td></tr>`;
  }
  if (creation !== undefined) return html`<tr><th>Created by</th><td id="creator">${addressLink(creation.from_address, true)} in ${txLink(creation.tx_hash, true)} (block ${blockLink(creation.block_number)})</td></tr>`;
  return html``;
}
