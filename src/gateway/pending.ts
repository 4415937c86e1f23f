// The pending-transaction feed behind eth_newPendingTransactionFilter and eth_subscribe("newPendingTransactions"):
// the hashes of transactions this gateway accepted (eth_sendRawTransaction), in order. The canister has no
// query that lists its pool, so a transaction submitted another way (submit_ic_tx, another gateway) is not
// announced (docs/gateway.md). A ring of the last PENDING_FEED_CAPACITY hashes, each with a sequence number:
// a filter keeps the number it has read up to, so memory does not grow with the number of filters.

/** As many hashes as the canister's pool can hold (MAX_PENDING_GLOBAL): a filter polled within its lifetime loses none. */
export const PENDING_FEED_CAPACITY = 8192;

export type PendingListener = (hash: string) => void;

export class PendingFeed {
  private readonly ring: string[] = [];
  /** The ring's hashes: a resubmission of a transaction (the canister answers the same tx_id) is announced once. */
  private readonly inRing = new Set<string>();
  /** Sequence number of ring[0]; the next hash gets `first + ring.length`. */
  private first = 0;
  private readonly listeners = new Set<PendingListener>();

  constructor(readonly capacity = PENDING_FEED_CAPACITY) {}

  /** The sequence number the next published hash will get (a new reader starts here). */
  get next(): number {
    return this.first + this.ring.length;
  }

  publish(hash: string): void {
    if (this.inRing.has(hash)) return;
    this.ring.push(hash);
    this.inRing.add(hash);
    if (this.ring.length > this.capacity) {
      this.inRing.delete(this.ring.shift()!);
      this.first++;
    }
    for (const l of this.listeners) l(hash);
  }

  /** Hashes from sequence number `from` on (those already dropped from the ring are skipped), and the next number. */
  since(from: number): { hashes: string[]; next: number } {
    const start = Math.max(from, this.first) - this.first;
    return { hashes: this.ring.slice(start), next: this.next };
  }

  listen(l: PendingListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}
