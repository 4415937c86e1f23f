// Raw-byte building blocks for every stored value (DESIGN rule 7: no JSON on hot paths).
// Integers are big-endian so that keys built from them sort numerically in the ordered maps.

export const EMPTY = new Uint8Array(0);

export function u64be(n: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, n);
  return out;
}

export function readU64be(b: Uint8Array, off = 0): bigint {
  return new DataView(b.buffer, b.byteOffset + off, 8).getBigUint64(0);
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Byte-wise order, shorter first on a common prefix (the order of stable-map keys). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  const n = a.length;
  if (n !== b.length) return false;
  // From 32 bytes (hashes, account records) two latin1 strings, one native call each, cost less in the
  // canister than the JavaScript loop; the argument count stays far below any engine's limit.
  if (n >= 32 && n <= 4096) return latin1Key(a) === latin1Key(b);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The bytes as a latin1 string in one native call: a map key or a comparison for short inputs (hashes,
 * addresses, memo keys), cheaper in the canister than a hex string. Callers keep inputs to a few KiB, far below
 * any engine's argument-count limit (asciiText slices longer ones).
 */
export const latin1Key = (b: Uint8Array): string => String.fromCharCode.apply(null, b as unknown as number[]);

const MIN_SCRATCH = new Uint8Array(32);
const MIN_VIEW = new DataView(MIN_SCRATCH.buffer);
const U64_LIMIT = 1n << 64n;
const U128_LIMIT = 1n << 128n;
const U192_LIMIT = 1n << 192n;
const WORD_LIMIT = 1n << 256n;

/** Minimal big-endian bytes of a non-negative bigint (0 -> empty), the RLP integer form. */
export function bigintToMinBytes(n: bigint): Uint8Array {
  if (n === 0n) return EMPTY;
  if (n > 0n && n < 0x1000000000000n) {
    // Below 2^48 the value is an exact Number: no hex string (fees, gas, block numbers, timestamps).
    const v = Number(n);
    const len = byteLength48(v);
    const out = new Uint8Array(len);
    put48(out, len, v, len);
    return out;
  }
  if (n < 0n) throw new RangeError('negative integer');
  if (n < WORD_LIMIT) {
    // Up to 256 bits (balances, words): 64-bit pieces through one DataView (setBigUint64 keeps the low 64
    // bits; one native call each), then the bytes from the first non-zero one.
    let start = 24;
    MIN_VIEW.setBigUint64(24, n);
    if (n >= U64_LIMIT) {
      MIN_VIEW.setBigUint64((start = 16), n >> 64n);
      if (n >= U128_LIMIT) {
        MIN_VIEW.setBigUint64((start = 8), n >> 128n);
        if (n >= U192_LIMIT) MIN_VIEW.setBigUint64((start = 0), n >> 192n);
      }
    }
    while (MIN_SCRATCH[start] === 0) start++;
    return MIN_SCRATCH.slice(start);
  }
  // Wider: 48 bits at a time as exact doubles, two bigint operations a chunk.
  const chunks: number[] = [];
  for (let x = n; x > 0n; x >>= 48n) chunks.push(Number(x & 0xffffffffffffn));
  const last = chunks.length - 1;
  const top = chunks[last]!;
  const topLen = byteLength48(top);
  const len = topLen + 6 * last;
  const out = new Uint8Array(len);
  let o = len;
  for (let c = 0; c < last; c++, o -= 6) put48(out, o, chunks[c]!, 6);
  put48(out, o, top, topLen);
  return out;
}

/** Bytes of a Number in [1, 2^48): comparisons, not a division loop (Math.floor is a call in QuickJS). */
export function byteLength48(v: number): number {
  return v < 0x10000 ? (v < 0x100 ? 1 : 2) : v < 0x100000000 ? (v < 0x1000000 ? 3 : 4) : v < 0x10000000000 ? 5 : 6;
}

/**
 * The low `len` (1..6) bytes of v (an integer below 2^48), big-endian, ending before out[end]: two 24-bit
 * ints, so every byte is an int32 shift (a Uint8Array store keeps the low 8 bits), no division loop.
 */
export function put48(out: Uint8Array, end: number, v: number, len: number): void {
  const lo = v % 0x1000000 | 0;
  out[end - 1] = lo;
  if (len === 1) return;
  out[end - 2] = lo >> 8;
  if (len === 2) return;
  out[end - 3] = lo >> 16;
  if (len === 3) return;
  const hi = (v - lo) / 0x1000000 | 0;
  out[end - 4] = hi;
  if (len === 4) return;
  out[end - 5] = hi >> 8;
  if (len === 5) return;
  out[end - 6] = hi >> 16;
}

// Direct writers into a record sized first: the bytes ByteWriter's u32 and big write, without its method calls
// and growth checks. (A u64 goes through one DataView of the record: setBigUint64 is one native call, cheaper in
// the canister than splitting the value into two Numbers and eight byte stores.)

/** ByteWriter.u32's bytes at out[o..o+3]; returns o + 4. */
export function putU32(out: Uint8Array, o: number, v: number): number {
  const x = v >>> 0;
  out[o] = x >>> 24;
  out[o + 1] = x >>> 16;
  out[o + 2] = x >>> 8;
  out[o + 3] = x;
  return o + 4;
}

/** ByteWriter.big of a value whose minimal bytes (bigintToMinBytes) the caller made to size the record; returns the end. */
export function putBig(out: Uint8Array, o: number, minBytes: Uint8Array): number {
  out[o] = minBytes.length & 0xff;
  out.set(minBytes, o + 1);
  return o + 1 + minBytes.length;
}

/** A string's UTF-8 bytes when it is ASCII (one byte a character, no TextEncoder); undefined otherwise. */
export function asciiBytes(s: string): Uint8Array<ArrayBuffer> | undefined {
  const n = s.length;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) return undefined;
    out[i] = c;
  }
  return out;
}

/** Bytes read as UTF-8 when they are all ASCII (no TextDecoder); undefined otherwise. */
export function asciiText(b: Uint8Array): string | undefined {
  const n = b.length;
  for (let i = 0; i < n; i++) if (b[i]! > 0x7f) return undefined;
  // String.fromCharCode takes the bytes as arguments: in slices, under any engine's argument-count limit.
  let s = '';
  for (let i = 0; i < n; i += 8192) s += String.fromCharCode.apply(null, b.subarray(i, i + 8192) as unknown as number[]);
  return s;
}

/** Two hex digits per byte value: a table lookup is cheaper than toString(16) in QuickJS. The one such table. */
export const HEX_DIGITS: readonly string[] = Array.from({ length: 256 }, (_, i) => (i < 16 ? '0' : '') + i.toString(16));
const HEX = HEX_DIGITS;

/**
 * Big-endian bytes to bigint. Bytes are taken 6 at a time as exact doubles (48 bits) and joined with one
 * shift and one OR per chunk: in the canister about a third of the hex-string route's instructions, for
 * 32 bytes as for 5 (measured once when it was written).
 */
export function bytesToBigint(b: Uint8Array): bigint {
  const n = b.length;
  let i = n % 6;
  let v = 0;
  for (let j = 0; j < i; j++) v = v * 256 + b[j]!;
  if (n < 6) return BigInt(v);
  let r = BigInt(v);
  for (; i < n; i += 6) {
    r = (r << 48n) | BigInt(((b[i]! * 256 + b[i + 1]!) * 256 + b[i + 2]!) * 16777216 + ((b[i + 3]! << 16) | (b[i + 4]! << 8) | b[i + 5]!));
  }
  return r;
}

/** Fixed-width big-endian; the caller guarantees n < 2^(8*width). */
export function bigintToFixed(n: bigint, width: number): Uint8Array {
  const min = bigintToMinBytes(n);
  if (min.length > width) throw new RangeError('integer too wide');
  const out = new Uint8Array(width);
  out.set(min, width - min.length);
  return out;
}

/** Lower-case hex of the bytes, two digits a byte, no `0x` (Node code prints `0x`-prefixed hex itself). */
export function toHex(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i++) s += HEX[b[i]!]!;
  return s;
}

export function fromHex(hex: string): Uint8Array {
  const p = hex.startsWith('0x') ? 2 : 0;
  if ((hex.length - p) % 2) throw new Error('odd hex length');
  const out = new Uint8Array((hex.length - p) / 2);
  // Digit values by character code (no substring and parseInt per byte); a non-hex digit reads as 0, as
  // parseInt's NaN did when stored into the array.
  for (let i = 0; i < out.length; i++) out[i] = (HEX_VALUE[hex.charCodeAt(p + 2 * i)]! << 4) | HEX_VALUE[hex.charCodeAt(p + 2 * i + 1)]!;
  return out;
}

/** Value of a hex digit by character code (0-9, a-f, A-F); 0 for anything else. */
const HEX_VALUE: Uint8Array = (() => {
  const t = new Uint8Array(128);
  for (let i = 0; i < 10; i++) t[48 + i] = i;
  for (let i = 0; i < 6; i++) t[97 + i] = t[65 + i] = 10 + i;
  return t;
})();

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Append-only writer for the stored records. */
export class ByteWriter {
  private buf: Uint8Array;
  /** View over buf, replaced when buf grows (a DataView per write costs more than the write in QuickJS). */
  private view: DataView;
  private len = 0;
  constructor(initial = 128) {
    this.buf = new Uint8Array(initial);
    this.view = new DataView(this.buf.buffer);
  }
  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.len + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  u8(v: number): this {
    this.ensure(1);
    this.buf[this.len++] = v & 0xff;
    return this;
  }
  u32(v: number): this {
    this.ensure(4);
    this.view.setUint32(this.len, v >>> 0);
    this.len += 4;
    return this;
  }
  u64(v: bigint): this {
    this.ensure(8);
    this.view.setBigUint64(this.len, v);
    this.len += 8;
    return this;
  }
  /** Exactly n bytes, no length prefix (fixed-width fields: addresses, hashes, bloom). */
  fixed(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }
  /** u32 length prefix + bytes. */
  bytes(b: Uint8Array): this {
    return this.u32(b.length).fixed(b);
  }
  /** Unsigned big integer up to 256 bits: u8 length + minimal big-endian bytes. */
  big(v: bigint): this {
    const b = bigintToMinBytes(v);
    return this.u8(b.length).fixed(b);
  }
  /** Short byte string (< 256 bytes): u8 length + bytes. */
  short(b: Uint8Array): this {
    if (b.length > 255) throw new RangeError('short bytes too long');
    return this.u8(b.length).fixed(b);
  }
  /**
   * u8 length + UTF-8. ASCII (every code and reason the core stores) is written directly: this module's
   * TextEncoder is the one the canister had when it loaded, azle's JavaScript polyfill, before the
   * canister's ASCII fast path (src/canister/text_codec.ts) is installed.
   */
  str(s: string): this {
    if (s === '') return this.u8(0);
    return this.short(asciiBytes(s) ?? enc.encode(s));
  }
  optFixed(b: Uint8Array | undefined): this {
    if (b === undefined) return this.u8(0);
    return this.u8(1).fixed(b);
  }
  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

export class ByteReader {
  protected off = 0;
  private readonly view: DataView;
  constructor(protected readonly b: Uint8Array) {
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  /** The error for a read past the end; readers of other formats name their own. */
  protected truncated(n: number): Error {
    return new RangeError(`stored record truncated: need ${n} bytes at offset ${this.off} of ${this.b.length}`);
  }
  private need(n: number): void {
    if (this.off + n > this.b.length) throw this.truncated(n);
  }
  get remaining(): number {
    return this.b.length - this.off;
  }
  u8(): number {
    this.need(1);
    return this.b[this.off++]!;
  }
  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.off);
    this.off += 4;
    return v;
  }
  u64(): bigint {
    this.need(8);
    const v = this.view.getBigUint64(this.off);
    this.off += 8;
    return v;
  }
  fixed(n: number): Uint8Array {
    this.need(n);
    const v = this.b.subarray(this.off, this.off + n);
    this.off += n;
    return v;
  }
  bytes(): Uint8Array {
    return this.fixed(this.u32());
  }
  big(): bigint {
    return bytesToBigint(this.fixed(this.u8()));
  }
  short(): Uint8Array {
    return this.fixed(this.u8());
  }
  /** ByteWriter.str's text; ASCII without the TextDecoder (azle's polyfill, as for the encoder). */
  str(): string {
    const b = this.short();
    return asciiText(b) ?? dec.decode(b);
  }
  optFixed(n: number): Uint8Array | undefined {
    return this.u8() === 0 ? undefined : this.fixed(n);
  }
  get done(): boolean {
    return this.off === this.b.length;
  }
}
