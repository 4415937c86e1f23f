// Hex on the Node side (the gateway, explorer and devnet; core and the IC host use core/codec/bytes.ts):
// `toHex` is two digits a byte with no prefix, as in core; `toPrefixedHex` is Ethereum's JSON-RPC DATA
// (0x-prefixed); `qty` a QUANTITY (0x-prefixed, no leading zeros, 0x0 for zero); the strict decoders of
// request parameters, and `fromHex` for trusted input.

/** Lower-case hex, two digits a byte, no `0x`. */
export function toHex(b: Uint8Array): string {
  // Node's encoder: a string built a character pair at a time took seconds for a 16 MiB eth_getLogs answer.
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

/** `0x` and toHex: JSON-RPC DATA. */
export const toPrefixedHex = (b: Uint8Array): `0x${string}` => `0x${toHex(b)}`;

/** Bytes of trusted hex (our own constants and rows), with or without `0x`; request parameters use parseData. */
export const fromHex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));

export const qty = (n: bigint | number): string => `0x${n.toString(16)}`;

const QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;
const DATA = /^0x(?:[0-9a-fA-F]{2})*$/;

/** Parses a QUANTITY (up to 256 bits). Leading zeros are tolerated (some clients send 0x01). */
export function parseQuantity(v: unknown): bigint | undefined {
  if (typeof v !== 'string' || !QUANTITY.test(v)) return undefined;
  return BigInt(v);
}

export function parseData(v: unknown, length?: number): Uint8Array | undefined {
  if (typeof v !== 'string' || !DATA.test(v)) return undefined;
  const b = new Uint8Array(Buffer.from(v.slice(2), 'hex'));
  if (length !== undefined && b.length !== length) return undefined;
  return b;
}
