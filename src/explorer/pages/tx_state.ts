// The transaction page's "State changes" tab: geth's prestateTracer in diffMode for the transaction (run on demand
// by the gateway over the archive). Per account what the transaction changed: balance before and after (and the
// difference), nonce, code created (or the account removed by a self-destruct), and each storage slot before
// and after. In diffMode `pre` holds every changed account as it was (left out when it was empty) and `post`
// only the fields that changed (an account missing from `post` was removed; a slot missing from either is zero).
import { addressLink, formatEth, parseHexBytes } from './format.js';
import { html, type Html } from './html.js';
import type { PagesDeps } from './common.js';
import { fetchTrace } from './traces.js';
import { hexBytes, quantityOf, str } from './tx_calls.js';

/** Accounts and slots drawn at most (the answer itself is bounded by TRACE_MAX_BYTES). */
export const MAX_STATE_ACCOUNTS = 500;
export const MAX_STATE_SLOTS = 2000;

interface AccountJson {
  balance?: string;
  nonce?: number;
  code?: string;
  codeHash?: string;
  storage?: Record<string, string>;
}

interface DiffJson {
  pre?: Record<string, AccountJson>;
  post?: Record<string, AccountJson>;
}

const ZERO_WORD = `0x${'0'.repeat(64)}`;

function obj<T>(v: unknown): Record<string, T> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, T>) : {};
}

const nonceOf = (v: unknown): bigint => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : 0n);

function signedEth(d: bigint): Html {
  if (d === 0n) return html`<span class="muted">±0</span>`;
  return d > 0n ? html`<span class="ok">+${formatEth(d)}</span>` : html`<span class="bad">−${formatEth(-d)}</span>`;
}

function accountView(address: string, pre: AccountJson | undefined, post: AccountJson | undefined, slotsLeft: { n: number }): Html {
  const removed = post === undefined;
  const p: AccountJson = pre ?? {};
  const q: AccountJson = post ?? {};
  const balBefore = quantityOf(p.balance);
  const balAfter = removed ? 0n : q.balance !== undefined ? quantityOf(q.balance) : balBefore;
  const nonceBefore = nonceOf(p.nonce);
  const nonceAfter = removed ? 0n : q.nonce !== undefined ? nonceOf(q.nonce) : nonceBefore;
  const codeBefore = hexBytes(p.code);
  const codeAfter = removed ? new Uint8Array(0) : q.code !== undefined ? hexBytes(q.code) : codeBefore;
  const slots = [...new Set([...Object.keys(obj(p.storage)), ...Object.keys(obj(q.storage))])].sort();
  const shown = slots.slice(0, Math.max(0, slotsLeft.n));
  slotsLeft.n -= shown.length;
  const slotBefore = (k: string): string => str(obj<string>(p.storage)[k]) || ZERO_WORD;
  // Every slot listed changed (diffMode drops the others), so one missing on a side was zero there.
  const slotAfter = (k: string): string => (removed ? ZERO_WORD : str(obj<string>(q.storage)[k]) || ZERO_WORD);
  let code: Html = html``;
  if (removed) code = html`<tr><th>Account</th><td class="bad">removed (self-destructed)</td></tr>`;
  else if (codeBefore.length === 0 && codeAfter.length > 0) code = html`<tr><th>Code</th><td class="ok code-created">created, ${codeAfter.length} bytes</td></tr>`;
  else if (codeBefore.length !== codeAfter.length || Buffer.compare(codeBefore, codeAfter) !== 0) code = html`<tr><th>Code</th><td>${codeBefore.length} bytes → ${codeAfter.length} bytes</td></tr>`;
  return html`<div class="card state-account" data-address="${address}"><h3>${addressLink(parseHexBytes(address, 20), true)}</h3><table class="kv">
<tr><th>Balance</th><td class="balance-diff">${formatEth(balBefore)} → ${formatEth(balAfter)} (${signedEth(balAfter - balBefore)})</td></tr>
${nonceBefore === nonceAfter ? '' : html`<tr><th>Nonce</th><td>${nonceBefore.toString()} → ${nonceAfter.toString()}</td></tr>`}
${code}
${shown.length === 0 ? '' : html`<tr><th>Storage</th><td><table><tr><th>Slot</th><th>Before</th><th>After</th></tr>${shown.map(
    (k) => html`<tr><td class="mono">${k}</td><td class="mono">${slotBefore(k)}</td><td class="mono">${slotAfter(k)}</td></tr>`,
  )}</table>${shown.length < slots.length ? html`<p class="muted">${slots.length - shown.length} more slots not shown.</p>` : ''}</td></tr>`}
</table></div>`;
}

export async function stateChangesSection(deps: PagesDeps, txHash: string): Promise<{ status: number; body: Html }> {
  const t = await fetchTrace<DiffJson>(deps, txHash, 'prestateTracer', { diffMode: true });
  if (!t.ok) return { status: t.status, body: html`<div class="notice" id="trace-notice">${t.message}</div>` };
  if (t.result === null || typeof t.result !== 'object') return { status: 200, body: html`<div class="notice" id="trace-notice">The gateway does not know this transaction.</div>` };
  const pre = obj<AccountJson>(t.result.pre);
  const post = obj<AccountJson>(t.result.post);
  const addresses = [...new Set([...Object.keys(pre), ...Object.keys(post)])].filter((a) => parseHexBytes(a, 20) !== undefined).sort();
  const shown = addresses.slice(0, MAX_STATE_ACCOUNTS);
  const slotsLeft = { n: MAX_STATE_SLOTS };
  return {
    status: 200,
    body: html`<p class="muted">Re-executed by the archive (stock EthereumJS, geth's prestateTracer in diff mode): every account the transaction changed, before and after. The sender's balance includes the fee; an account created and removed in the same transaction is not listed.</p>
${shown.length === 0 ? html`<p class="muted">No state changed.</p>` : html`<div id="state-changes">${shown.map((a) => accountView(a, pre[a], post[a], slotsLeft))}</div>`}
${shown.length < addresses.length ? html`<div class="notice">${addresses.length - shown.length} more accounts not shown.</div>` : ''}`,
  };
}
