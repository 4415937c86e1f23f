// A fast path for Candid decoding and encoding of the service's own types (no subtyping), with
// @dfinity/candid as the fallback and the referee.
//
// Why: inside the canister @dfinity/candid's IDL.decode of an eth_call argument (a record of twelve opt fields
// and a block tag) and IDL.encode of a Result<blob> rebuild type objects from the wire's type table, check
// subtyping, and concatenate many small arrays (query.eth_call.erc20_balance_of.instructions). Those were half of
// an eth_call. Here each method's types are compiled once (at start-up) into readers and writers:
// - decode: when the argument's type table and argument types are byte for byte those the method declares
//   (what @dfinity/candid and @icp-sdk/core encoders send for these types), the values are read directly;
//   anything else (another encoder's table order, subtypes, extra arguments, any malformed or unexpected
//   value) goes to IDL.decode, which gives the answer or the error it always gave;
// - encode: the values are written after the precomputed type header; a value of an unexpected JS type goes
//   to IDL.encode (which then reports it as before).
// A type this module does not know (float, int, principal, tuple, recursive, func, service) leaves the
// method on @dfinity/candid altogether. tests/unit/candid_fast.test.ts checks both directions against
// @dfinity/candid for every method of the service.

import { startsWith } from './arg_check.js';

/** The parts of @dfinity/candid's IDL namespace used here (azle re-exports it; tests pass the npm one). */
export interface CandidIdl {
  encode(types: unknown[], values: unknown[]): Uint8Array;
  decode(types: unknown[], bytes: Uint8Array): unknown[];
  RecordClass: abstract new (...a: never[]) => unknown;
  TupleClass: abstract new (...a: never[]) => unknown;
  VariantClass: abstract new (...a: never[]) => unknown;
  OptClass: abstract new (...a: never[]) => unknown;
  VecClass: abstract new (...a: never[]) => unknown;
  NatClass: abstract new (...a: never[]) => unknown;
  FixedNatClass: abstract new (...a: never[]) => unknown;
  TextClass: abstract new (...a: never[]) => unknown;
  BoolClass: abstract new (...a: never[]) => unknown;
  NullClass: abstract new (...a: never[]) => unknown;
}

interface Cursor {
  readonly b: Uint8Array;
  p: number;
}
type Reader = (c: Cursor) => unknown;
type Writer = (w: Out, v: unknown) => void;

/** Thrown inside the fast path: hand the bytes or values to @dfinity/candid instead. */
class Fallback extends Error {}
const FALLBACK = new Fallback('candid fast path: fall back');

class Out {
  buf = new Uint8Array(256);
  len = 0;
  reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }
  byte(x: number): void {
    this.reserve(1);
    this.buf[this.len++] = x;
  }
  bytes(x: Uint8Array): void {
    this.reserve(x.length);
    this.buf.set(x, this.len);
    this.len += x.length;
  }
}

function readByte(c: Cursor): number {
  if (c.p >= c.b.length) throw FALLBACK;
  return c.b[c.p++]!;
}

/** Unsigned LEB128 as a Number (lengths, indexes); more than 2^48 is not a length anything here accepts. */
function readLen(c: Cursor): number {
  let v = 0;
  let mul = 1;
  for (let i = 0; i < 7; i++) {
    const x = readByte(c);
    v += (x & 0x7f) * mul;
    if (x < 0x80) return v;
    mul *= 128;
  }
  throw FALLBACK;
}

/** Unsigned LEB128 as a bigint (nat). */
function readNat(c: Cursor): bigint {
  let small = 0;
  let mul = 1;
  let i = 0;
  // the first 7 bytes (49 bits) in a Number, exactly
  for (; i < 7; i++) {
    const x = readByte(c);
    small += (x & 0x7f) * mul;
    if (x < 0x80) return BigInt(small);
    mul *= 128;
  }
  let v = BigInt(small);
  let shift = 49n;
  for (;;) {
    const x = readByte(c);
    v |= BigInt(x & 0x7f) << shift;
    if (x < 0x80) return v;
    shift += 7n;
    if (shift > 7n * 64n) throw FALLBACK;
  }
}

function writeLen(w: Out, n: number): void {
  do {
    let x = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) x |= 0x80;
    w.byte(x);
  } while (n > 0);
}

function writeNat(w: Out, v: bigint): void {
  if (v < 0x20000000000000n) return writeLen(w, Number(v));
  do {
    let x = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) x |= 0x80;
    w.byte(x);
  } while (v > 0n);
}

const utf8 = new TextDecoder('utf8', { fatal: true });
const utf8Enc = new TextEncoder();

interface Compiled {
  read: Reader;
  write: Writer;
  sample: unknown;
}

/** Readers and writers for one IDL type; undefined for a type this module leaves to @dfinity/candid. */
function compile(IDL: CandidIdl, t: unknown, depth = 0): Compiled | undefined {
  if (depth > 32) return undefined;
  const ty = t as { _fields?: [string, unknown][]; _type?: unknown; _bits?: number };
  if (t instanceof IDL.NullClass) return { read: () => null, write: () => {}, sample: null };
  if (t instanceof IDL.BoolClass) {
    return {
      read: (c) => {
        const x = readByte(c);
        if (x > 1) throw FALLBACK;
        return x === 1;
      },
      write: (w, v) => {
        if (typeof v !== 'boolean') throw FALLBACK;
        w.byte(v ? 1 : 0);
      },
      sample: false,
    };
  }
  if (t instanceof IDL.NatClass) {
    return {
      read: readNat,
      write: (w, v) => {
        if (typeof v === 'bigint' && v >= 0n) writeNat(w, v);
        else throw FALLBACK;
      },
      sample: 0n,
    };
  }
  if (t instanceof IDL.FixedNatClass) {
    const bits = ty._bits!;
    if (bits === 64) {
      return {
        read: (c) => {
          if (c.p + 8 > c.b.length) throw FALLBACK;
          const b = c.b;
          const p = c.p;
          const lo = b[p]! + b[p + 1]! * 0x100 + b[p + 2]! * 0x10000 + b[p + 3]! * 0x1000000;
          const hi = b[p + 4]! + b[p + 5]! * 0x100 + b[p + 6]! * 0x10000 + b[p + 7]! * 0x1000000;
          c.p = p + 8;
          return hi === 0 ? BigInt(lo) : (BigInt(hi) << 32n) | BigInt(lo);
        },
        write: (w, v) => {
          if (typeof v !== 'bigint' || v < 0n || v >= 1n << 64n) throw FALLBACK;
          let lo = Number(v & 0xffffffffn);
          let hi = Number(v >> 32n);
          w.reserve(8);
          for (let i = 0; i < 4; i++, lo = Math.floor(lo / 256)) w.buf[w.len++] = lo % 256;
          for (let i = 0; i < 4; i++, hi = Math.floor(hi / 256)) w.buf[w.len++] = hi % 256;
        },
        sample: 0n,
      };
    }
    if (bits !== 8 && bits !== 16 && bits !== 32) return undefined;
    const n = bits / 8;
    const limit = 2 ** bits;
    return {
      read: (c) => {
        if (c.p + n > c.b.length) throw FALLBACK;
        let v = 0;
        for (let i = n - 1; i >= 0; i--) v = v * 256 + c.b[c.p + i]!;
        c.p += n;
        return v;
      },
      write: (w, v) => {
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v >= limit) throw FALLBACK;
        for (let i = 0; i < n; i++, v = Math.floor((v as number) / 256)) w.byte((v as number) % 256);
      },
      sample: 0,
    };
  }
  if (t instanceof IDL.TextClass) {
    return {
      read: (c) => {
        const len = readLen(c);
        if (c.p + len > c.b.length) throw FALLBACK;
        let s: string;
        try {
          s = utf8.decode(c.b.subarray(c.p, c.p + len));
        } catch {
          throw FALLBACK;
        }
        c.p += len;
        return s;
      },
      write: (w, v) => {
        if (typeof v !== 'string') throw FALLBACK;
        const b = utf8Enc.encode(v);
        writeLen(w, b.length);
        w.bytes(b);
      },
      sample: '',
    };
  }
  if (t instanceof IDL.OptClass) {
    const inner = compile(IDL, ty._type, depth + 1);
    if (inner === undefined) return undefined;
    const readInner = inner.read;
    const writeInner = inner.write;
    return {
      read: (c) => {
        const tag = readByte(c);
        if (tag === 0) return [];
        if (tag !== 1) throw FALLBACK;
        return [readInner(c)];
      },
      write: (w, v) => {
        if (!Array.isArray(v) || v.length > 1) throw FALLBACK;
        if (v.length === 0) w.byte(0);
        else {
          w.byte(1);
          writeInner(w, v[0]);
        }
      },
      sample: [],
    };
  }
  if (t instanceof IDL.VecClass) {
    const elem = ty._type;
    if (elem instanceof IDL.FixedNatClass && (elem as { _bits: number })._bits === 8) {
      return {
        read: (c) => {
          const len = readLen(c);
          if (c.p + len > c.b.length) throw FALLBACK;
          const out = c.b.slice(c.p, c.p + len);
          c.p += len;
          return out;
        },
        write: (w, v) => {
          if (!(v instanceof Uint8Array)) throw FALLBACK;
          writeLen(w, v.length);
          w.bytes(v);
        },
        sample: new Uint8Array(0),
      };
    }
    const inner = compile(IDL, elem, depth + 1);
    if (inner === undefined) return undefined;
    const readInner = inner.read;
    const writeInner = inner.write;
    return {
      read: (c) => {
        const len = readLen(c);
        // every element takes at least one byte, except null's: leave those to IDL.decode
        if (len > c.b.length - c.p) throw FALLBACK;
        const out: unknown[] = [];
        for (let i = 0; i < len; i++) out.push(readInner(c));
        return out;
      },
      write: (w, v) => {
        if (!Array.isArray(v)) throw FALLBACK;
        writeLen(w, v.length);
        for (const x of v) writeInner(w, x);
      },
      sample: [],
    };
  }
  if (t instanceof IDL.TupleClass) return undefined;
  if (t instanceof IDL.RecordClass) {
    const fields = ty._fields!;
    const names: string[] = [];
    const readers: Reader[] = [];
    const writers: Writer[] = [];
    const sample: Record<string, unknown> = {};
    for (const [name, ft] of fields) {
      const f = compile(IDL, ft, depth + 1);
      if (f === undefined) return undefined;
      names.push(name);
      readers.push(f.read);
      writers.push(f.write);
      sample[name] = f.sample;
    }
    const n = names.length;
    return {
      read: (c) => {
        const x: Record<string, unknown> = {};
        for (let i = 0; i < n; i++) x[names[i]!] = readers[i]!(c);
        return x;
      },
      write: (w, v) => {
        if (typeof v !== 'object' || v === null) throw FALLBACK;
        const o = v as Record<string, unknown>;
        for (let i = 0; i < n; i++) {
          if (!Object.prototype.hasOwnProperty.call(o, names[i]!)) throw FALLBACK;
          writers[i]!(w, o[names[i]!]);
        }
      },
      sample,
    };
  }
  if (t instanceof IDL.VariantClass) {
    const fields = ty._fields!;
    const names: string[] = [];
    const readers: Reader[] = [];
    const writers: Writer[] = [];
    for (const [name, ft] of fields) {
      const f = compile(IDL, ft, depth + 1);
      if (f === undefined) return undefined;
      names.push(name);
      readers.push(f.read);
      writers.push(f.write);
    }
    if (names.length === 0) return undefined;
    const n = names.length;
    const first = compile(IDL, fields[0]![1], depth + 1)!;
    return {
      read: (c) => {
        const i = readLen(c);
        if (i >= n) throw FALLBACK;
        return { [names[i]!]: readers[i]!(c) };
      },
      write: (w, v) => {
        if (typeof v !== 'object' || v === null) throw FALLBACK;
        const o = v as Record<string, unknown>;
        // as @dfinity/candid: the first field, in the type's order, that the value has
        for (let i = 0; i < n; i++) {
          if (Object.prototype.hasOwnProperty.call(o, names[i]!)) {
            writeLen(w, i);
            writers[i]!(w, o[names[i]!]);
            return;
          }
        }
        throw FALLBACK;
      },
      sample: { [names[0]!]: first.sample },
    };
  }
  return undefined;
}

/** Length of the header (magic, type table, argument types) at the start of `b`; -1 when it is not one. */
function headerLength(b: Uint8Array): number {
  const c: Cursor = { b, p: 4 };
  try {
    const n = readLen(c);
    for (let i = 0; i < n; i++) {
      const op = readLen(c); // sleb of a negative opcode: one byte in 0x40..0x7f
      if (op === 0x6e || op === 0x6d) readLen(c); // opt, vec: one type reference
      else if (op === 0x6c || op === 0x6b) {
        // record, variant: (hash, type) pairs
        const m = readLen(c);
        for (let j = 0; j < m; j++) {
          readLen(c);
          readLen(c);
        }
      } else return -1;
    }
    const args = readLen(c);
    for (let i = 0; i < args; i++) readLen(c);
    return c.p;
  } catch {
    return -1;
  }
}

export interface FastCodec {
  /** false: these types are left to @dfinity/candid. */
  readonly fast: boolean;
  /** The header (magic, type table, argument types) the fast path reads; absent when fast is false. */
  readonly header?: Uint8Array;
  decode(bytes: Uint8Array): unknown[];
  encode(values: unknown[]): Uint8Array;
}

/**
 * Decoder and encoder for a list of types (a method's arguments, or its one result); each falls back to
 * @dfinity/candid per call as described at the top. Types this module does not know use @dfinity/candid only.
 */
export function fastCodec(IDL: CandidIdl, types: unknown[]): FastCodec {
  const slow: FastCodec = { fast: false, decode: (b) => IDL.decode(types, b), encode: (v) => IDL.encode(types, v) };
  const compiled: Compiled[] = [];
  for (const t of types) {
    const c = compile(IDL, t);
    if (c === undefined) return slow;
    compiled.push(c);
  }
  const sampleBytes = IDL.encode(types, compiled.map((c) => c.sample));
  const headerLen = headerLength(sampleBytes);
  if (headerLen < 0) return slow;
  const header = sampleBytes.slice(0, headerLen);
  const readers = compiled.map((c) => c.read);
  const writers = compiled.map((c) => c.write);
  const n = types.length;
  return {
    fast: true,
    header,
    decode(bytes) {
      if (!startsWith(bytes, header)) return slow.decode(bytes);
      const c: Cursor = { b: bytes, p: headerLen };
      const out: unknown[] = [];
      try {
        for (let i = 0; i < n; i++) out.push(readers[i]!(c));
      } catch (e) {
        if (e === FALLBACK) return slow.decode(bytes);
        throw e;
      }
      return c.p === bytes.length ? out : slow.decode(bytes);
    },
    encode(values) {
      if (values.length < n) return slow.encode(values);
      const w = new Out();
      w.bytes(header);
      try {
        for (let i = 0; i < n; i++) writers[i]!(w, values[i]);
      } catch (e) {
        if (e === FALLBACK) return slow.encode(values);
        throw e;
      }
      return w.buf.slice(0, w.len);
    },
  };
}
