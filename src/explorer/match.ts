// Bytecode matching, as Sourcify and Blockscout define it: a full match when the compiled code equals the
// chain's byte for byte (after masking what the compiler cannot know: immutable values at the positions solc's
// immutableReferences name, a library's own address), a partial match when it is equal once solc's CBOR
// metadata trailers (which hash the sources' text and comments) are masked too. Only trailers the compiler
// itself placed are masked: they are located by compiling twice with different metadata (the bytes that change
// are the metadata hash, whose enclosing CBOR map solc's own key bytes delimit), never by searching the code for
// anything shaped like one, which a source can plant in a literal. All values are lowercase hex without 0x;
// positions are byte offsets.

export type MatchKind = 'full' | 'partial';

export interface ImmutableRef {
  readonly start: number;
  readonly length: number;
}

/** solc's evm.deployedBytecode.immutableReferences: AST id -> places where the value is written at deploy. */
export type ImmutableReferences = Readonly<Record<string, readonly ImmutableRef[]>>;

export interface Segment {
  readonly start: number;
  readonly length: number;
}

const byteAt = (code: string, i: number): number => parseInt(code.slice(i * 2, i * 2 + 2), 16);

// CBOR heads (RFC 8949 §3): the argument of a head starting at `i`, and where the item's content starts.
function head(code: string, i: number, end: number): { major: number; arg: number; next: number } | undefined {
  if (i >= end) return undefined;
  const b = byteAt(code, i);
  const major = b >> 5;
  const info = b & 31;
  if (info < 24) return { major, arg: info, next: i + 1 };
  const size = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : 0;
  // 8-byte arguments and indefinite lengths are never in solc's metadata: not well-formed here.
  if (size === 0 || i + 1 + size > end) return undefined;
  return { major, arg: parseInt(code.slice((i + 1) * 2, (i + 1 + size) * 2), 16), next: i + 1 + size };
}

// One well-formed CBOR item from `i` (definite lengths, bounded depth); where it ends, or undefined.
function item(code: string, i: number, end: number, depth: number): number | undefined {
  const h = head(code, i, end);
  if (h === undefined || depth > 4) return undefined;
  switch (h.major) {
    case 0:
    case 1:
      return h.next;
    case 2:
    case 3:
      return h.next + h.arg <= end ? h.next + h.arg : undefined;
    case 4:
    case 5: {
      let p: number | undefined = h.next;
      for (let k = 0; k < h.arg * (h.major === 5 ? 2 : 1); k++) {
        p = item(code, p, end, depth + 1);
        if (p === undefined) return undefined;
      }
      return p;
    }
    case 7:
      // false, true, null: the only simple values solc writes ("experimental": true).
      return h.arg >= 20 && h.arg <= 22 ? h.next : undefined;
    default:
      return undefined;
  }
}

/** Whether `code` holds at `seg` a CBOR map of exactly `seg.length - 2` bytes followed by that length (2 bytes). */
export function isCborTrailer(code: string, seg: Segment): boolean {
  const mapLen = seg.length - 2;
  const end = seg.start + mapLen;
  if (seg.start < 0 || mapLen < 1 || (end + 2) * 2 > code.length) return false;
  if (byteAt(code, seg.start) >> 5 !== 5) return false;
  if (item(code, seg.start, end, 0) !== end) return false;
  return parseInt(code.slice(end * 2, (end + 2) * 2), 16) === mapLen;
}

// The hash keys solc writes first in its metadata map ("ipfs", "bzzr0", "bzzr1" as CBOR text strings), each
// followed by a byte-string head of the hash's length.
const HASH_KEYS = ['6469706673', '65627a7a7230', '65627a7a7231'];

/**
 * The metadata trailer whose hash holds the differing bytes [from, to) of two compilations: solc's map head, a
 * hash key, the hash (a byte string covering [from, to)), the rest of the map, its 2-byte length.
 */
function trailerAround(a: string, b: string, from: number, to: number): Segment | undefined {
  // The hash starts 8 bytes after the map's head (head, key, byte-string head); its first differing byte may
  // lie anywhere in it (up to 34 bytes).
  for (let s = from - 8; s >= Math.max(0, from - 8 - 34); s--) {
    const h = byteAt(a, s);
    if (h < 0xa1 || h > 0xa5) continue;
    for (const key of HASH_KEYS) {
      if (a.slice((s + 1) * 2, (s + 1) * 2 + key.length) !== key) continue;
      const v = head(a, s + 1 + key.length / 2, a.length / 2);
      if (v === undefined || v.major !== 2 || v.next > from || v.next + v.arg < to) continue;
      const mapEnd = item(a, s, a.length / 2, 0);
      if (mapEnd === undefined) continue;
      const seg = { start: s, length: mapEnd - s + 2 };
      if (isCborTrailer(a, seg) && isCborTrailer(b, seg)) return seg;
    }
  }
  return undefined;
}

/**
 * Where solc placed its metadata trailers in `a`, given `b`: the same contract compiled with different metadata
 * settings (so only the metadata hashes differ). Every differing byte must lie in the hash of a well-formed
 * trailer; otherwise (or when the lengths differ) undefined: the compiler's trailers cannot be told apart.
 * A contract that creates others carries their code, so there may be several; with metadata hashing off
 * there are none (the trailer is then the same for any source, and only a full match is possible).
 */
export function auxdataSegments(a: string, b: string): Segment[] | undefined {
  if (a.length !== b.length) return undefined;
  const out: Segment[] = [];
  const n = a.length / 2;
  for (let i = 0; i < n; i++) {
    if (a.slice(i * 2, i * 2 + 2) === b.slice(i * 2, i * 2 + 2)) continue;
    const last = out.at(-1);
    if (last !== undefined && i < last.start + last.length) continue;
    let j = i + 1;
    while (j < n && a.slice(j * 2, j * 2 + 2) !== b.slice(j * 2, j * 2 + 2)) j++;
    const seg = trailerAround(a, b, i, j);
    if (seg === undefined) return undefined;
    out.push(seg);
    i = j - 1;
  }
  return out;
}

function mask(code: string, segments: readonly Segment[]): string {
  let out = code;
  for (const seg of segments) {
    const a = seg.start * 2;
    const b = Math.min(out.length, (seg.start + seg.length) * 2);
    if (a >= out.length) continue;
    out = out.slice(0, a) + '0'.repeat(b - a) + out.slice(b);
  }
  return out;
}

/**
 * A deployed library starts with PUSH20 <its own address> ADDRESS EQ, which the compiler leaves as zeros and
 * the deployment fills with the library's address: masked only when the chain holds exactly that address.
 */
function librarySelfAddress(compiled: string, onchain: string, address: string | undefined): Segment[] {
  if (address === undefined || !compiled.startsWith(`73${'0'.repeat(40)}3014`)) return [];
  return onchain.slice(2, 42) === address.replace(/^0x/, '').toLowerCase() ? [{ start: 1, length: 20 }] : [];
}

export function immutableSegments(refs: ImmutableReferences | undefined): Segment[] {
  if (refs === undefined) return [];
  return Object.values(refs).flatMap((list) => list.map((r) => ({ start: r.start, length: r.length })));
}

/** Partial: equal once `aux` is masked, where the chain holds a well-formed trailer of the same length at each. */
function partial(compiled: string, onchain: string, aux: readonly Segment[] | undefined): boolean {
  if (aux === undefined || aux.length === 0) return false;
  if (!aux.every((seg) => isCborTrailer(onchain, seg))) return false;
  return mask(compiled, aux) === mask(onchain, aux);
}

/**
 * Compares compiled runtime code with the chain's at `address`; undefined when they do not match at all.
 * `aux` are the compiler's metadata trailers in `compiled` (auxdataSegments); without them only a full match.
 */
export function matchRuntime(
  compiled: string,
  onchain: string,
  refs: ImmutableReferences | undefined,
  aux?: readonly Segment[],
  address?: string,
): MatchKind | undefined {
  if (compiled.length !== onchain.length) return undefined;
  const fixed = [...immutableSegments(refs), ...librarySelfAddress(compiled, onchain, address)];
  const a = mask(compiled, fixed);
  const b = mask(onchain, fixed);
  if (a === b) return 'full';
  return partial(a, b, aux) ? 'partial' : undefined;
}

export interface CreationMatch {
  readonly match: MatchKind;
  /** What follows the compiled creation code in the transaction's input: the ABI-encoded constructor arguments. */
  readonly constructorArgs: string;
}

/** Compares compiled creation code with a creation transaction's input (creation code followed by arguments). */
export function matchCreation(compiled: string, input: string, aux?: readonly Segment[]): CreationMatch | undefined {
  if (input.length < compiled.length) return undefined;
  const prefix = input.slice(0, compiled.length);
  const constructorArgs = input.slice(compiled.length);
  if (prefix === compiled) return { match: 'full', constructorArgs };
  return partial(compiled, prefix, aux) ? { match: 'partial', constructorArgs } : undefined;
}

/** Library placeholders solc leaves when a library's address was not given (`__$<hash>$__` or `__Name___`). */
export function hasUnlinkedLibraries(code: string): boolean {
  return code.includes('__');
}
