// Display helpers for explorer pages: hex, links, amounts, times. Pure functions over typed values.
import { toPrefixedHex } from '../../gateway/hex.js';
import { html, type Html } from './html.js';

export function short(hex: string, keep = 10): string {
  return hex.length <= keep * 2 + 2 ? hex : `${hex.slice(0, keep + 2)}…${hex.slice(-keep + 2)}`;
}

export const blockLink = (n: bigint): Html => html`<a href="/block/${n.toString()}">${n.toString()}</a>`;
export const txLink = (hash: Uint8Array, full = false): Html => {
  const h = toPrefixedHex(hash);
  return html`<a class="mono" href="/tx/${h}">${full ? h : short(h)}</a>`;
};
export const addressLink = (a: Uint8Array | null | undefined, full = false): Html => {
  if (a === null || a === undefined) return html`<span class="muted">—</span>`;
  const h = toPrefixedHex(a);
  return html`<a class="mono" href="/address/${h}">${full ? h : short(h, 8)}</a>`;
};

const WEI_PER_ETH = 10n ** 18n;

/** A wei amount as ETH with up to 18 decimals, trailing zeros dropped. */
export function formatEth(wei: bigint | string): string {
  const v = typeof wei === 'string' ? BigInt(wei) : wei;
  const neg = v < 0n;
  const a = neg ? -v : v;
  const whole = a / WEI_PER_ETH;
  const frac = (a % WEI_PER_ETH).toString().padStart(18, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole.toLocaleString('en-US')}${frac === '' ? '' : `.${frac}`} ETH`;
}

export function formatGwei(wei: bigint | string): string {
  const v = typeof wei === 'string' ? BigInt(wei) : wei;
  const whole = v / 1_000_000_000n;
  const frac = (v % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${whole.toLocaleString('en-US')}${frac === '' ? '' : `.${frac}`} gwei`;
}

/** A token amount with its decimals when known (raw integer otherwise). */
export function formatUnits(amount: string, decimals: number | undefined): string {
  if (decimals === undefined || decimals === 0) return BigInt(amount).toLocaleString('en-US');
  const v = BigInt(amount);
  const base = 10n ** BigInt(decimals);
  const frac = (v % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${(v / base).toLocaleString('en-US')}${frac === '' ? '' : `.${frac}`}`;
}

export function formatTime(seconds: bigint): string {
  const ms = Number(seconds) * 1000;
  if (!Number.isFinite(ms)) return seconds.toString();
  return new Date(ms).toISOString().replace('T', ' ').replace('.000Z', ' UTC');
}

export function ago(seconds: bigint, now = Date.now()): string {
  const d = Math.max(0, Math.round(now / 1000 - Number(seconds)));
  if (d < 60) return `${d} s ago`;
  if (d < 3600) return `${Math.floor(d / 60)} min ago`;
  if (d < 86400) return `${Math.floor(d / 3600)} h ago`;
  return `${Math.floor(d / 86400)} d ago`;
}

export const statusBadge = (status: number): Html => (status === 1 ? html`<span class="ok">Success</span>` : html`<span class="bad">Failed</span>`);

export const TX_TYPE_NAMES: Record<number, string> = { 0: 'Legacy', 1: 'EIP-2930', 2: 'EIP-1559' };

/** Parses a 0x-prefixed hex string of an exact byte length; undefined when it is not one. */
export function parseHexBytes(s: string, length: number): Uint8Array | undefined {
  const re = new RegExp(`^0x[0-9a-fA-F]{${length * 2}}$`);
  if (!re.test(s)) return undefined;
  return new Uint8Array(Buffer.from(s.slice(2), 'hex'));
}
