// A bounded CBOR decoder for IC HTTP envelopes. The agent's decoder builds whatever the bytes describe (an
// array header may announce 2^32 items, a body may hold hundreds of thousands of small arrays, a map key
// `__proto__` sets an object's prototype), and everything after it walks what was built. Here the budget is
// checked while decoding, before anything is allocated: a count of data items, a nesting depth, every length
// against the bytes left. Only what an envelope can hold is accepted: unsigned integers, byte and text
// strings, arrays, maps with text keys (no duplicates, no `__proto__`), and the self-describe tag 55799.
// Everything else (negative integers, floats, simple values, other tags, chunked strings) is refused.
// `prefixRefusal` runs the same decoder over the part of a body received so far: the decoder reads in order
// and its checks depend only on the bytes before them and the body's length, so a refusal it reaches inside
// the prefix is the refusal of the whole body, given before the rest is read.

export interface CborLimits {
  /** Data items in all (map keys count). */
  readonly maxItems: number;
  /** Nesting of arrays and maps. */
  readonly maxDepth: number;
}

/** A map from the wire: text keys, no prototype. */
export type CborMap = { [key: string]: CborValue };
export type CborValue = number | bigint | Uint8Array | string | CborValue[] | CborMap;

export type CborResult = { ok: true; value: CborValue } | { ok: false; message: string };

const SELF_DESCRIBE_TAG = 55799;
const BREAK = Symbol('break');
const utf8 = new TextDecoder('utf-8', { fatal: true });

class Refusal {
  constructor(readonly message: string) {}
}
/** A prefix ended before the decoder could tell (prefixRefusal only). */
const INCOMPLETE = Symbol('incomplete');

/** Decodes one CBOR data item that fills `bytes` exactly, within `limits`; never throws. */
export function decodeCbor(bytes: Uint8Array, limits: CborLimits): CborResult {
  try {
    return { ok: true, value: decode(bytes, limits, bytes.length) };
  } catch (e) {
    if (e instanceof Refusal) return { ok: false, message: e.message };
    // Nothing here allocates beyond the body or recurses beyond maxDepth; a stray error is still a refusal.
    return { ok: false, message: e instanceof Error ? e.message : 'malformed' };
  }
}

/**
 * What `decodeCbor` is sure to answer for a body of `total` bytes (undefined: not announced) that begins
 * with `prefix`, if the prefix already decides it; undefined while it does not (or if the body may decode).
 * Costs at most what decoding the prefix costs.
 */
export function prefixRefusal(prefix: Uint8Array, total: number | undefined, limits: CborLimits): string | undefined {
  try {
    decode(prefix, limits, total);
    return undefined;
  } catch (e) {
    if (e instanceof Refusal) return e.message;
    return undefined;
  }
}

/**
 * The decoder over `bytes`, the first bytes of a body of `total` bytes (`bytes.length` for a whole body;
 * undefined: unknown). Throws a Refusal, or INCOMPLETE where the answer depends on bytes not yet there.
 */
function decode(bytes: Uint8Array, limits: CborLimits, total: number | undefined): CborValue {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  let items = 0;

  const fail = (message: string): never => {
    throw new Refusal(message);
  };
  const need = (n: number): void => {
    if (n <= bytes.length - at) return;
    if (total !== undefined && n > total - at) fail(`truncated at byte ${at}`);
    throw INCOMPLETE;
  };
  /** The argument of a head: a count, a length or a value. `undefined` for the indefinite length (31). */
  const argument = (info: number): number | bigint | undefined => {
    if (info < 24) return info;
    switch (info) {
      case 24:
        need(1);
        return bytes[at++]!;
      case 25:
        need(2);
        at += 2;
        return view.getUint16(at - 2);
      case 26:
        need(4);
        at += 4;
        return view.getUint32(at - 4);
      case 27: {
        need(8);
        at += 8;
        const v = view.getBigUint64(at - 8);
        return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
      }
      case 31:
        return undefined;
      default:
        return fail(`reserved additional information ${info} at byte ${at - 1}`);
    }
  };
  /** A count or length that must fit in the bytes left (each item takes at least `per` bytes). */
  const count = (info: number, per: number, what: string): number | undefined => {
    const n = argument(info);
    if (n === undefined) return undefined;
    if (typeof n === 'bigint') return fail(`${what} of ${n} at byte ${at} is longer than the body`);
    if (total !== undefined && n * per > total - at) fail(`${what} of ${n} at byte ${at} is longer than the body`);
    // Of a body whose length is not known yet, only what has arrived tells: the answer may depend on the rest.
    if (total === undefined && n * per > bytes.length - at) throw INCOMPLETE;
    return n;
  };
  const take = (n: number): Uint8Array => {
    need(n);
    at += n;
    return bytes.subarray(at - n, at);
  };
  const text = (b: Uint8Array): string => {
    try {
      return utf8.decode(b);
    } catch {
      return fail(`text string at byte ${at - b.length} is not UTF-8`);
    }
  };

  const item = (depth: number, allowBreak: boolean): CborValue | typeof BREAK => {
    need(1);
    const head = bytes[at++]!;
    const major = head >> 5;
    const info = head & 31;
    if (head === 0xff) {
      if (!allowBreak) fail(`unexpected break at byte ${at - 1}`);
      return BREAK;
    }
    if (++items > limits.maxItems) fail(`more than ${limits.maxItems} data items`);
    switch (major) {
      case 0: {
        const v = argument(info);
        if (v === undefined) return fail(`indefinite integer at byte ${at - 1}`);
        return v;
      }
      case 2:
      case 3: {
        const n = count(info, 1, major === 2 ? 'byte string' : 'text string');
        if (n === undefined) return fail(`chunked string at byte ${at - 1} (not used by IC envelopes)`);
        const b = take(n);
        return major === 2 ? b : text(b);
      }
      case 4: {
        if (depth >= limits.maxDepth) fail(`nested deeper than ${limits.maxDepth}`);
        const n = count(info, 1, 'array');
        const out: CborValue[] = [];
        if (n === undefined) {
          for (;;) {
            const v = item(depth + 1, true);
            if (v === BREAK) return out;
            out.push(v);
          }
        }
        for (let i = 0; i < n; i++) out.push(item(depth + 1, false) as CborValue);
        return out;
      }
      case 5: {
        if (depth >= limits.maxDepth) fail(`nested deeper than ${limits.maxDepth}`);
        const n = count(info, 2, 'map');
        const out = Object.create(null) as CborMap;
        for (let i = 0; n === undefined || i < n; i++) {
          const k = item(depth + 1, n === undefined);
          if (k === BREAK) break;
          if (typeof k !== 'string') fail(`map key at byte ${at} is not a text string`);
          const key = k as string;
          if (key === '__proto__') fail('map key "__proto__" is not allowed');
          if (Object.prototype.hasOwnProperty.call(out, key)) fail(`duplicate map key ${JSON.stringify(key.slice(0, 64))}`);
          out[key] = item(depth + 1, false) as CborValue;
        }
        return out;
      }
      case 6: {
        const tag = argument(info);
        if (tag !== SELF_DESCRIBE_TAG) fail(`tag ${String(tag)} at byte ${at} is not allowed (only the self-describe tag ${SELF_DESCRIBE_TAG})`);
        // A tag wraps one item; counted as a level so that a run of tags cannot recurse without bound.
        if (depth >= limits.maxDepth) fail(`nested deeper than ${limits.maxDepth}`);
        return item(depth + 1, false);
      }
      default:
        return fail(`${major === 1 ? 'negative integer' : 'float or simple value'} at byte ${at - 1} is not allowed in an envelope`);
    }
  };

  const value = item(0, false) as CborValue;
  if (total === undefined) throw INCOMPLETE;
  if (at !== total) fail(`${total - at} bytes after the envelope`);
  return value;
}
