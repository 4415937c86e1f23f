// What the explorer's pages share: their dependencies, the page result and its errors, and the tables of
// blocks, transactions and token transfers that several pages show.
import type { Abi } from 'viem';
import type { Queryable } from '../../indexer/db.js';
import { toPrefixedHex } from '../../gateway/hex.js';
import { addressLink, ago, blockLink, formatEth, formatTime, formatUnits, short, statusBadge, txLink } from './format.js';
import { html, raw, type Html } from './html.js';
import { type ExplorerQueries, type BlockRow, type TransferRow, type TxRow } from './queries.js';

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

export interface RpcOptions {
  /** The answer's size at most, in bytes (the gateway client's default otherwise). */
  readonly maxBytes?: number;
  readonly timeoutMs?: number;
}

export interface PagesDeps {
  readonly db: Queryable;
  /**
   * A JSON-RPC call to the gateway; throws an Error with `code` and `data` on an error answer, and one with code
   * `response_too_large` when the answer passes `maxBytes`.
   */
  readonly rpc: (method: string, params: readonly unknown[], opts?: RpcOptions) => Promise<unknown>;
  readonly chainId: bigint;
  readonly verified: (address: Uint8Array) => Promise<VerifiedContractInfo | undefined>;
}

export const PAGE_SIZE = 25;

export class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly body: Html,
  ) {
    super(title);
  }
}

export type Route = (deps: PagesDeps, q: ExplorerQueries, path: string[], params: URLSearchParams) => Promise<{ title: string; body: Html; status?: number; script?: string }>;

export class Redirect extends Error {
  constructor(readonly location: string) {
    super(location);
  }
}

export const notFound = (what: string, detail?: Html): PageError => new PageError(404, 'Not found', html`<h1>${what} not found</h1>${detail ?? ''}`);

export function blockTable(blocks: readonly BlockRow[]): Html {
  if (blocks.length === 0) return html`<p class="muted">No blocks indexed yet.</p>`;
  return html`<table><tr><th>Block</th><th>Age</th><th>Txs</th><th>Gas used</th></tr>${blocks.map(
    (b) => html`<tr><td>${blockLink(b.number)}</td><td title="${formatTime(b.timestamp)}">${ago(b.timestamp)}</td><td>${b.tx_count}</td><td>${b.gas_used.toLocaleString('en-US')}</td></tr>`,
  )}</table>`;
}

export function fee(t: TxRow): bigint | undefined {
  return t.gas_used === null || t.effective_gas_price === null ? undefined : t.gas_used * BigInt(t.effective_gas_price);
}

export function txTable(txs: readonly TxRow[], opts: { block?: boolean } = {}): Html {
  if (txs.length === 0) return html`<p class="muted">No transactions.</p>`;
  return html`<table><tr><th>Transaction</th>${opts.block === true ? html`<th>Block</th>` : ''}<th>Status</th><th>From</th><th>To</th><th>Value</th><th>Fee</th></tr>${txs.map((t) => {
    const f = fee(t);
    return html`<tr><td>${txLink(t.eth_tx_hash)}</td>${opts.block === true ? html`<td>${blockLink(t.block_number)}</td>` : ''}<td>${statusBadge(t.receipt_status)}</td>
<td>${addressLink(t.from_address)}</td><td>${t.to_address === null ? html`${raw('<span class="muted">create</span>')} ${addressLink(t.contract_address)}` : addressLink(t.to_address)}</td>
<td>${formatEth(t.value)}</td><td>${f === undefined ? '—' : formatEth(f)}</td></tr>`;
  })}</table>`;
}

export function transferTable(rows: readonly TransferRow[], decimals?: number): Html {
  if (rows.length === 0) return html`<p class="muted">No token transfers.</p>`;
  return html`<table><tr><th>Transaction</th><th>Block</th><th>Token</th><th>From</th><th>To</th><th>Amount / id</th></tr>${rows.map(
    (r) => html`<tr><td>${txLink(r.tx_hash)}</td><td>${blockLink(r.block_number)}</td><td><a class="mono" href="/token/${toPrefixedHex(r.token_address)}">${short(toPrefixedHex(r.token_address), 8)}</a></td>
<td>${addressLink(r.from_address)}</td><td>${addressLink(r.to_address)}</td><td>${r.token_id === null ? formatUnits(r.amount, decimals) : html`NFT #${r.token_id}`}</td></tr>`,
  )}</table>`;
}
