// A bounded check of a message's raw Candid argument bytes, run before any decoding (docs/hardening.md, "Candid arguments").
//
// Why: @dfinity/candid's IDL.decode trusts declared lengths. A `vec null` of length 2^40 is about 20 bytes and
// makes the decoder loop until the message's instruction limit traps (40 B on an update, paid by the canister),
// extra trailing arguments are decoded too, and a long LEB128 `nat` is summed as a bigint in quadratic time.
// This walk reads the type table and every value once, with a step budget proportional to the byte count, so
// its own cost is linear in the bytes and bounded by the per-method byte limit; only bytes it accepts reach
// IDL.decode, whose cost is then bounded the same way. It imports nothing at run time (unit tests and the
// fuzzer run it in Node; the canister runs it in its decorators and in canister_inspect_message).
//
// What it checks: the `DIDL` magic; a type table of at most MAX_TYPES entries with at most MAX_FIELDS fields
// each, every reference in range, no func/service/future types; exactly the method's number of arguments; every
// value's bytes (lengths against the remaining bytes, bools, opt tags, variant indexes, principal lengths, nat/
// int at most MAX_LEB_BYTES long), nesting at most MAX_DEPTH, at most `steps` values in all, no bytes left over.
// Whether the wire types fit the method's types is left to IDL.decode (subtyping), whose cost these bounds cap.

import type { ArgBytes } from './idl.js';
import { MAX_LOG_FILTER_ADDRESSES, MAX_LOG_FILTER_TOPIC_ALTERNATIVES, MAX_LOG_TOPICS } from '../core/constants.js';

export const ArgCheckCode = {
  /** More bytes than the method accepts. */
  TooLarge: 'candid.args_too_large',
  /** Not Candid, truncated, left-over bytes, a bad tag or length. */
  Malformed: 'candid.args_malformed',
  /** A different number of arguments than the method takes. */
  ArgCount: 'candid.args_count',
  /** A type table or value outside the limits above (too many types, fields, values or nesting). */
  Limit: 'candid.args_limit',
  /** IDL.decode refused the bytes (wrong types for the method). */
  Decode: 'candid.args_decode',
  /** The method does not exist (canister_inspect_message). */
  UnknownMethod: 'candid.unknown_method',
} as const;
export type ArgCheckCode = (typeof ArgCheckCode)[keyof typeof ArgCheckCode];

export type ArgCheck = { ok: true } | { ok: false; code: ArgCheckCode; message: string };

export const MAX_TYPES = 64;
export const MAX_FIELDS = 64;
export const MAX_DEPTH = 32;
/** A 256-bit quantity is 37 LEB128 bytes; nothing the canister takes is larger. */
export const MAX_LEB_BYTES = 40;
/** Default argument size limit; methods that take a transaction or call data get more (argByteLimit). */
export const DEFAULT_ARG_BYTES = 16 * 1024;
/** A 128 KiB raw transaction (or call data) plus its Candid framing and the other fields of the record. */
export const LARGE_ARG_BYTES = 131072 + 8 * 1024;
/**
 * rpc_eth_get_logs_filtered's largest filter: MAX_LOG_FILTER_ADDRESSES addresses and MAX_LOG_TOPICS positions of
 * MAX_LOG_FILTER_TOPIC_ALTERNATIVES topics (each a length byte and its bytes), plus the rest of the arguments.
 */
export const LOG_FILTER_ARG_BYTES = MAX_LOG_FILTER_ADDRESSES * 21 + MAX_LOG_TOPICS * MAX_LOG_FILTER_TOPIC_ALTERNATIVES * 33 + 4 * 1024;
const ARG_BYTES: Readonly<Record<ArgBytes, number>> = { default: DEFAULT_ARG_BYTES, large: LARGE_ARG_BYTES, logFilter: LOG_FILTER_ARG_BYTES };

/** The byte limit of a method's argument, from its size class in the method table (idl.ts). */
export function argByteLimit(argBytes: ArgBytes): number {
  return ARG_BYTES[argBytes];
}

class Refused {
  constructor(
    readonly code: ArgCheckCode,
    readonly message: string,
  ) {}
}

// Primitive type codes (Candid spec, negative SLEB128).
const T_NULL = -1, T_BOOL = -2, T_NAT = -3, T_INT = -4, T_NAT8 = -5, T_NAT16 = -6, T_NAT32 = -7, T_NAT64 = -8;
const T_INT8 = -9, T_INT16 = -10, T_INT32 = -11, T_INT64 = -12, T_FLOAT32 = -13, T_FLOAT64 = -14, T_TEXT = -15;
const T_RESERVED = -16, T_EMPTY = -17, T_OPT = -18, T_VEC = -19, T_RECORD = -20, T_VARIANT = -21, T_PRINCIPAL = -24;
const FIXED_SIZE = new Map<number, number>([
  [T_NULL, 0], [T_RESERVED, 0], [T_NAT8, 1], [T_INT8, 1], [T_NAT16, 2], [T_INT16, 2], [T_NAT32, 4], [T_INT32, 4],
  [T_FLOAT32, 4], [T_NAT64, 8], [T_INT64, 8], [T_FLOAT64, 8],
]);

type Entry =
  | { kind: 'opt'; t: number }
  | { kind: 'vec'; t: number }
  | { kind: 'record'; fields: number[] }
  | { kind: 'variant'; fields: number[] };

class Reader {
  pos = 0;
  steps: number;
  constructor(
    readonly b: Uint8Array,
    steps: number,
  ) {
    this.steps = steps;
  }

  byte(): number {
    if (this.pos >= this.b.length) throw new Refused(ArgCheckCode.Malformed, 'unexpected end of the argument bytes');
    return this.b[this.pos++]!;
  }

  skip(n: number): void {
    if (n > this.b.length - this.pos) throw new Refused(ArgCheckCode.Malformed, `a length of ${n} runs past the end of the argument bytes`);
    this.pos += n;
  }

  /** An unsigned LEB128 that must fit `maxBytes` bytes; returned as a number when it is below 2^53. */
  uleb(maxBytes: number): number {
    let value = 0;
    let mul = 1;
    for (let i = 0; i < maxBytes; i++) {
      const x = this.byte();
      value += (x & 0x7f) * mul;
      if ((x & 0x80) === 0) return value;
      mul *= 128;
    }
    throw new Refused(ArgCheckCode.Limit, `a LEB128 number longer than ${maxBytes} bytes`);
  }

  sleb(maxBytes: number): number {
    let value = 0;
    let mul = 1;
    for (let i = 0; i < maxBytes; i++) {
      const x = this.byte();
      value += (x & 0x7f) * mul;
      mul *= 128;
      if ((x & 0x80) === 0) return (x & 0x40) !== 0 ? value - mul : value;
    }
    throw new Refused(ArgCheckCode.Limit, `a LEB128 number longer than ${maxBytes} bytes`);
  }

  /** A length or count: at most what the remaining bytes could hold (so never above 2^53). */
  len(): number {
    const n = this.uleb(10);
    if (n > this.b.length) throw new Refused(ArgCheckCode.Malformed, `a length of ${n} is larger than the argument bytes`);
    return n;
  }

  step(): void {
    if (--this.steps < 0) throw new Refused(ArgCheckCode.Limit, 'too many values for the argument size');
  }
}

/**
 * A method's own header (magic, type table, argument types: what the usual encoders send for its types), read
 * once at start-up. Reading a type table of eth_call's record of twelve opt fields (a LEB128 field hash
 * each) costs more than the rest of the check; an argument that starts with these exact
 * bytes gets this table without reading it again, with the same outcome as reading it.
 */
export interface KnownHeader {
  readonly bytes: Uint8Array;
  readonly table: readonly Entry[];
  readonly args: readonly number[];
}

/** The parsed header of `header` for a method of `arity` arguments; undefined if the check would refuse it. */
export function knownHeader(header: Uint8Array, arity: number): KnownHeader | undefined {
  try {
    const r = new Reader(header, 0);
    const { table, args } = readHeader(r, header, arity);
    return r.pos === header.length ? { bytes: header.slice(), table, args } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks `bytes` as the argument of a method taking `arity` arguments, at most `maxBytes` long. Linear in the
 * bytes; never throws. `known`: the method's usual header (knownHeader), to skip reading it when it matches.
 */
export function checkArgBytes(bytes: Uint8Array, arity: number, maxBytes: number, known?: KnownHeader): ArgCheck {
  if (bytes.length > maxBytes) {
    return { ok: false, code: ArgCheckCode.TooLarge, message: `the argument is ${bytes.length} bytes; this method takes at most ${maxBytes}` };
  }
  try {
    walk(bytes, arity, known);
    return { ok: true };
  } catch (e) {
    if (e instanceof Refused) return { ok: false, code: e.code, message: e.message };
    // Only a bug here could get this far; still an answer, never a trap.
    return { ok: false, code: ArgCheckCode.Malformed, message: 'the argument bytes could not be checked' };
  }
}

/** Whether `bytes` begins with `prefix`; four bytes a step when both are 4-byte aligned (a loop step costs). */
export function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  const n = prefix.length;
  if (bytes.length < n) return false;
  let i = 0;
  if (n >= 16 && ((bytes.byteOffset | prefix.byteOffset) & 3) === 0) {
    const w = n >>> 2;
    const a = new Int32Array(bytes.buffer, bytes.byteOffset, w);
    const b = new Int32Array(prefix.buffer, prefix.byteOffset, w);
    for (; i < w; i++) if (a[i] !== b[i]) return false;
    i = w << 2;
  }
  for (; i < n; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

function walk(bytes: Uint8Array, arity: number, known: KnownHeader | undefined): void {
  // Every value takes a step; a value of zero bytes (null, reserved, an empty record) still takes one, so the
  // budget is what bounds a vec of them. Real arguments use about one step per byte.
  const r = new Reader(bytes, 2 * bytes.length + 64);
  let header: { readonly table: readonly Entry[]; readonly args: readonly number[] };
  if (known !== undefined && startsWith(bytes, known.bytes)) {
    header = known;
    r.pos = known.bytes.length;
  } else header = readHeader(r, bytes, arity);
  for (const t of header.args) value(r, header.table, t, 0);
  if (r.pos !== bytes.length) throw new Refused(ArgCheckCode.Malformed, `${bytes.length - r.pos} bytes left over after the arguments`);
}

/** The magic, the type table and the argument types. */
function readHeader(r: Reader, bytes: Uint8Array, arity: number): { table: Entry[]; args: number[] } {
  if (bytes.length < 4 || bytes[0] !== 0x44 || bytes[1] !== 0x49 || bytes[2] !== 0x44 || bytes[3] !== 0x4c) {
    throw new Refused(ArgCheckCode.Malformed, 'the argument does not start with the Candid magic DIDL');
  }
  r.pos = 4;
  const nTypes = r.len();
  if (nTypes > MAX_TYPES) throw new Refused(ArgCheckCode.Limit, `a type table of ${nTypes} entries (at most ${MAX_TYPES})`);
  const table: Entry[] = [];
  for (let i = 0; i < nTypes; i++) table.push(readEntry(r, nTypes));
  const nArgs = r.len();
  if (nArgs !== arity) throw new Refused(ArgCheckCode.ArgCount, `${nArgs} arguments; this method takes ${arity}`);
  const args: number[] = [];
  for (let i = 0; i < nArgs; i++) args.push(typeRef(r, nTypes));
  return { table, args };
}

function typeRef(r: Reader, nTypes: number): number {
  const t = r.sleb(5);
  if (t >= 0) {
    if (t >= nTypes) throw new Refused(ArgCheckCode.Malformed, `type index ${t} is outside the type table`);
    return t;
  }
  if (t === T_PRINCIPAL || (t <= T_NULL && t >= T_EMPTY)) return t;
  throw new Refused(ArgCheckCode.Malformed, `type code ${t} is not accepted here`);
}

function readEntry(r: Reader, nTypes: number): Entry {
  const op = r.sleb(5);
  switch (op) {
    case T_OPT:
      return { kind: 'opt', t: typeRef(r, nTypes) };
    case T_VEC:
      return { kind: 'vec', t: typeRef(r, nTypes) };
    case T_RECORD:
    case T_VARIANT: {
      const n = r.len();
      if (n > MAX_FIELDS) throw new Refused(ArgCheckCode.Limit, `a record or variant of ${n} fields (at most ${MAX_FIELDS})`);
      const fields: number[] = [];
      let last = -1;
      for (let i = 0; i < n; i++) {
        const id = r.uleb(5);
        if (id > 0xffffffff || id <= last) throw new Refused(ArgCheckCode.Malformed, 'record or variant field ids must be increasing 32-bit numbers');
        last = id;
        fields.push(typeRef(r, nTypes));
      }
      return op === T_RECORD ? { kind: 'record', fields } : { kind: 'variant', fields };
    }
    default:
      // func, service and future types: no method of this canister takes them.
      throw new Refused(ArgCheckCode.Malformed, `type table opcode ${op} is not accepted`);
  }
}

function value(r: Reader, table: readonly Entry[], t: number, depth: number): void {
  r.step();
  if (depth > MAX_DEPTH) throw new Refused(ArgCheckCode.Limit, `values nested deeper than ${MAX_DEPTH}`);
  if (t < 0) return primitive(r, t);
  const e = table[t]!;
  switch (e.kind) {
    case 'opt': {
      const tag = r.byte();
      if (tag === 1) value(r, table, e.t, depth + 1);
      else if (tag !== 0) throw new Refused(ArgCheckCode.Malformed, `opt tag ${tag}`);
      return;
    }
    case 'vec': {
      const n = r.len();
      const size = e.t < 0 ? FIXED_SIZE.get(e.t) : undefined;
      if (size !== undefined && size > 0) {
        // A blob or a vector of fixed-size numbers: one bulk length check.
        r.skip(n * size);
        return;
      }
      for (let i = 0; i < n; i++) value(r, table, e.t, depth + 1);
      return;
    }
    case 'record':
      for (const f of e.fields) value(r, table, f, depth + 1);
      return;
    case 'variant': {
      const i = r.uleb(5);
      if (i >= e.fields.length) throw new Refused(ArgCheckCode.Malformed, `variant index ${i} of ${e.fields.length}`);
      value(r, table, e.fields[i]!, depth + 1);
      return;
    }
  }
}

function primitive(r: Reader, t: number): void {
  const size = FIXED_SIZE.get(t);
  if (size !== undefined) return r.skip(size);
  switch (t) {
    case T_BOOL: {
      const b = r.byte();
      if (b > 1) throw new Refused(ArgCheckCode.Malformed, `bool byte ${b}`);
      return;
    }
    case T_NAT:
      r.uleb(MAX_LEB_BYTES);
      return;
    case T_INT:
      r.sleb(MAX_LEB_BYTES);
      return;
    case T_TEXT:
      r.skip(r.len());
      return;
    case T_PRINCIPAL: {
      if (r.byte() !== 1) throw new Refused(ArgCheckCode.Malformed, 'only principal ids (tag 1) are accepted');
      const n = r.len();
      if (n > 29) throw new Refused(ArgCheckCode.Malformed, `a principal of ${n} bytes`);
      return r.skip(n);
    }
    case T_EMPTY:
      throw new Refused(ArgCheckCode.Malformed, 'a value of type empty');
    default:
      throw new Refused(ArgCheckCode.Malformed, `type code ${t}`);
  }
}
