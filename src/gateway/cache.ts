// A bounded LRU for immutable answers. Blocks are final (one producer, no reorganisation), so a block below
// the head, an included transaction and a receipt never change once read; only pruning removes them, and a
// cached copy of pruned history is still the true value (documented in docs/gateway.md).

export class Lru<V> {
  private readonly map = new Map<string, V>();
  hits = 0;
  misses = 0;
  constructor(readonly capacity: number) {
    if (!(capacity >= 0)) throw new Error('capacity must be >= 0');
  }

  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }

  set(key: string, value: V): void {
    if (this.capacity === 0) return;
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.capacity) {
      const oldest = this.map.keys().next().value as string;
      this.map.delete(oldest);
    }
  }

  /** Forget everything (the devnet's evm_revert makes final blocks and receipts go away). */
  clear(): void {
    this.map.clear();
  }

  get size(): number {
    return this.map.size;
  }
}
