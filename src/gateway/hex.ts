// Hex encodings of Ethereum's JSON-RPC: QUANTITY (0x-prefixed, no leading zeros, 0x0 for zero) and DATA
// (0x-prefixed, two digits a byte), and the strict decoders of request parameters.

export function bytesHex(b: Uint8Array): string {
  // Node's encoder: a string built a character pair at a time took seconds for a 16 MiB eth_getLogs answer.
  return `0x${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')}`;
}

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
