// Bytecode matching, as Sourcify and Blockscout define it: a full match when the compiled code equals the
// chain's byte for byte (after masking what the compiler cannot know: immutable values, a library's own
// address), a partial match when it is equal once the CBOR metadata (which hashes the sources' text and
// comments) is masked too. All values are lowercase hex without 0x; positions are byte offsets.

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

// The first bytes of the CBOR map solc appends (0.4.7+): a map of 1-3 entries whose first key is "ipfs",
// "bzzr0" or "bzzr1", or, with metadata hashing off, "solc" / "experimental".
const CBOR_KEYS = ['6469706673', '65627a7a7230', '65627a7a7231', '64736f6c63', '6c6578706572696d656e74616c'];

/**
 * Where solc's metadata blocks sit in `code`: each is a CBOR map followed by its length as 2 bytes. A contract
 * that creates others carries their creation code, so there may be several.
 */
export function metadataSegments(code: string): Segment[] {
  const out: Segment[] = [];
  const bytes = code.length / 2;
  for (let s = 0; s < bytes - 3; s++) {
    const first = parseInt(code.slice(s * 2, s * 2 + 2), 16);
    if (first < 0xa1 || first > 0xa5) continue;
    const after = code.slice(s * 2 + 2, s * 2 + 2 + 26);
    if (!CBOR_KEYS.some((k) => after.startsWith(k))) continue;
    // The length suffix says how long the map is; search the nearest end that agrees (maps are < 256 bytes).
    for (let len = 8; len < 256 && s + len + 2 <= bytes; len++) {
      const suffix = parseInt(code.slice((s + len) * 2, (s + len) * 2 + 4), 16);
      if (suffix === len) {
        out.push({ start: s, length: len + 2 });
        s += len + 1;
        break;
      }
    }
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

/** A deployed library starts with PUSH20 <its own address>, which the compiler leaves as zeros. */
function librarySelfAddress(compiled: string): Segment[] {
  return compiled.startsWith(`73${'0'.repeat(40)}`) ? [{ start: 1, length: 20 }] : [];
}

export function immutableSegments(refs: ImmutableReferences | undefined): Segment[] {
  if (refs === undefined) return [];
  return Object.values(refs).flatMap((list) => list.map((r) => ({ start: r.start, length: r.length })));
}

/** Compares compiled runtime code with the chain's; undefined when they do not match at all. */
export function matchRuntime(compiled: string, onchain: string, refs: ImmutableReferences | undefined): MatchKind | undefined {
  if (compiled.length !== onchain.length) return undefined;
  const fixed = [...immutableSegments(refs), ...librarySelfAddress(compiled)];
  const a = mask(compiled, fixed);
  const b = mask(onchain, fixed);
  if (a === b) return 'full';
  const meta = metadataSegments(compiled);
  if (meta.length > 0 && mask(a, meta) === mask(b, meta)) return 'partial';
  return undefined;
}

export interface CreationMatch {
  readonly match: MatchKind;
  /** What follows the compiled creation code in the transaction's input: the ABI-encoded constructor arguments. */
  readonly constructorArgs: string;
}

/** Compares compiled creation code with a creation transaction's input (creation code followed by arguments). */
export function matchCreation(compiled: string, input: string): CreationMatch | undefined {
  if (input.length < compiled.length) return undefined;
  const prefix = input.slice(0, compiled.length);
  const constructorArgs = input.slice(compiled.length);
  if (prefix === compiled) return { match: 'full', constructorArgs };
  const meta = metadataSegments(compiled);
  if (meta.length > 0 && mask(prefix, meta) === mask(compiled, meta)) return { match: 'partial', constructorArgs };
  return undefined;
}

/** Library placeholders solc leaves when a library's address was not given (`__$<hash>$__` or `__Name___`). */
export function hasUnlinkedLibraries(code: string): boolean {
  return code.includes('__');
}
