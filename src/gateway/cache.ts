// A bounded LRU for immutable answers. Blocks are final (one producer, no reorganisation), so a block below
// the head, an included transaction and a receipt never change once read; only pruning removes them, and a
// cached copy of pruned history is still the true value (documented in docs/gateway.md). Bounded by entries and
// by bytes (an estimate of each value's JSON size): entries alone would let 4,096 blocks of a megabyte each stay.

export class Lru<V> {
  private readonly map = new Map<string, { value: V; bytes: number }>();
  private held = 0;
  hits = 0;
  misses = 0;
  constructor(
    readonly capacity: number,
    readonly maxBytes: number = Number.POSITIVE_INFINITY,
    private readonly sizeOf: (v: V) => number = () => 0,
  ) {
    if (!(capacity >= 0)) throw new Error('capacity must be >= 0');
    if (!(maxBytes >= 0)) throw new Error('maxBytes must be >= 0');
  }

  get(key: string): V | undefined {
    const e = this.map.get(key);
    if (e === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.map.delete(key);
    this.map.set(key, e);
    return e.value;
  }

  set(key: string, value: V): void {
    if (this.capacity === 0) return;
    this.delete(key);
    const bytes = this.sizeOf(value);
    // A value larger than the whole budget is not kept (it would only evict everything else).
    if (bytes > this.maxBytes) return;
    this.map.set(key, { value, bytes });
    this.held += bytes;
    while (this.map.size > this.capacity || this.held > this.maxBytes) {
      this.delete(this.map.keys().next().value as string);
    }
  }

  private delete(key: string): void {
    const e = this.map.get(key);
    if (e === undefined) return;
    this.map.delete(key);
    this.held -= e.bytes;
  }

  /** Forget everything (the devnet's evm_revert makes final blocks and receipts go away). */
  clear(): void {
    this.map.clear();
    this.held = 0;
  }

  get size(): number {
    return this.map.size;
  }

  /** Estimated bytes held. */
  get bytes(): number {
    return this.held;
  }
}

/**
 * About the length of `v` as JSON, without building the string: strings by length (the gateway's answers are
 * hex and ASCII), a fixed 8 bytes for numbers, booleans, null and bigints, plus keys and punctuation.
 */
export function approxJsonBytes(v: unknown): number {
  if (typeof v === 'string') return v.length + 2;
  if (Array.isArray(v)) {
    let n = 2;
    for (const x of v) n += approxJsonBytes(x) + 1;
    return n;
  }
  if (typeof v === 'object' && v !== null) {
    let n = 2;
    for (const [k, x] of Object.entries(v)) n += k.length + 4 + approxJsonBytes(x);
    return n;
  }
  return 8;
}
