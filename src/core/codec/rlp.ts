// A strict RLP reader that keeps positions in the input. Transaction decoding needs the byte range of
// the unsigned fields to rebuild the signing payload without re-encoding them (cheaper than decode +
// encode). Encoding uses @ethereumjs/rlp.

export type RlpItem = RlpBytes | RlpList;
export interface RlpBytes {
  readonly kind: 'bytes';
  readonly value: Uint8Array;
  /** [start, end) of the whole encoded item (header included) in the input. */
  readonly start: number;
  readonly end: number;
}
export interface RlpList {
  readonly kind: 'list';
  readonly items: RlpItem[];
  readonly start: number;
  readonly end: number;
  /** Start of the payload (after the list header). */
  readonly payloadStart: number;
}

export class RlpError extends Error {}

function readLength(b: Uint8Array, off: number, lenOfLen: number): number {
  if (off + lenOfLen > b.length) throw new RlpError('length out of range');
  if (b[off] === 0) throw new RlpError('leading zero in length');
  let n = 0;
  for (let i = 0; i < lenOfLen; i++) n = n * 256 + b[off + i]!;
  if (n < 56) throw new RlpError('non-canonical long length');
  return n;
}

function decodeAt(b: Uint8Array, off: number, depth: number): RlpItem {
  if (depth > 16) throw new RlpError('nesting too deep');
  if (off >= b.length) throw new RlpError('unexpected end');
  const p = b[off]!;
  if (p < 0x80) return { kind: 'bytes', value: b.subarray(off, off + 1), start: off, end: off + 1 };
  if (p <= 0xb7) {
    const n = p - 0x80;
    const s = off + 1;
    if (s + n > b.length) throw new RlpError('string out of range');
    if (n === 1 && b[s]! < 0x80) throw new RlpError('non-canonical single byte');
    return { kind: 'bytes', value: b.subarray(s, s + n), start: off, end: s + n };
  }
  if (p <= 0xbf) {
    const ll = p - 0xb7;
    const n = readLength(b, off + 1, ll);
    const s = off + 1 + ll;
    if (s + n > b.length) throw new RlpError('string out of range');
    return { kind: 'bytes', value: b.subarray(s, s + n), start: off, end: s + n };
  }
  let s: number;
  let n: number;
  if (p <= 0xf7) {
    n = p - 0xc0;
    s = off + 1;
  } else {
    const ll = p - 0xf7;
    n = readLength(b, off + 1, ll);
    s = off + 1 + ll;
  }
  const end = s + n;
  if (end > b.length) throw new RlpError('list out of range');
  const items: RlpItem[] = [];
  let o = s;
  while (o < end) {
    const it = decodeAt(b, o, depth + 1);
    if (it.end > end) throw new RlpError('item crosses list end');
    items.push(it);
    o = it.end;
  }
  return { kind: 'list', items, start: off, end, payloadStart: s };
}

/** Decodes exactly one item spanning the whole input (trailing bytes are an error). */
export function rlpDecodeStrict(b: Uint8Array, off = 0): RlpItem {
  const it = decodeAt(b, off, 0);
  if (it.end !== b.length) throw new RlpError('trailing bytes');
  return it;
}

/** RLP header for a list whose payload is `len` bytes. */
export function rlpListHeader(len: number): Uint8Array {
  if (len < 56) return Uint8Array.of(0xc0 + len);
  const lb: number[] = [];
  for (let n = len; n > 0; n = Math.floor(n / 256)) lb.unshift(n % 256);
  return Uint8Array.of(0xf7 + lb.length, ...lb);
}

/** Encoded length of a byte string of length n whose first byte is `first` (for size arithmetic). */
export function rlpStringLength(n: number, first?: number): number {
  if (n === 1 && first !== undefined && first < 0x80) return 1;
  if (n < 56) return 1 + n;
  let ll = 0;
  for (let x = n; x > 0; x = Math.floor(x / 256)) ll++;
  return 1 + ll + n;
}

/**
 * RLP of a list of byte strings (every block header field is one): one output array sized up front. In the
 * canister @ethereumjs/rlp's generic encoder cost far more for a header (part of block.fixed.instructions).
 */
export function rlpEncodeBytesList(items: readonly Uint8Array[]): Uint8Array {
  let payload = 0;
  for (const b of items) payload += rlpStringLength(b.length, b[0]);
  const head = rlpListHeader(payload);
  const out = new Uint8Array(head.length + payload);
  out.set(head, 0);
  let o = head.length;
  for (const b of items) {
    const n = b.length;
    if (n === 1 && b[0]! < 0x80) {
      out[o++] = b[0]!;
      continue;
    }
    if (n < 56) out[o++] = 0x80 + n;
    else {
      let ll = 0;
      for (let x = n; x > 0; x = Math.floor(x / 256)) ll++;
      out[o++] = 0xb7 + ll;
      for (let k = ll - 1; k >= 0; k--) out[o++] = Math.floor(n / 256 ** k) % 256;
    }
    out.set(b, o);
    o += n;
  }
  return out;
}

export function rlpListLength(payload: number): number {
  return rlpListHeader(payload).length + payload;
}
