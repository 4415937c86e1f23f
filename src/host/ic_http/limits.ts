// The IC HTTP interface's bounds on what one caller can take (docs/ic-http.md "Limits"): connections,
// timeouts and bodies of the server; request statuses per sender; certificate signatures per sender. On the
// IC the boundary nodes and the replica's ingress pool do this; the devnet is its own boundary.

/** Open connections to the server; beyond it Node refuses new sockets until one closes. */
export const MAX_CONNECTIONS = 256;
/** Whole request (headers and body) must arrive within this (Node's default is 300 s). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** Headers must arrive within this. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** Idle keep-alive connections are closed after this. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** Request bodies being read at once, over all connections; a body that would pass it is answered 503. */
export const MAX_INFLIGHT_BODY_BYTES = 64 * 1024 * 1024;

/** Request statuses one signed sender may hold (its calls of the last ingress window). */
export const MAX_STATUSES_PER_SENDER = 10_000;
/** Request statuses all anonymous calls together may hold: anonymous updates cost nothing to make. */
export const MAX_ANONYMOUS_STATUSES = 10_000;

/**
 * Certificates signed (a BLS signature, bench: ic_http.certificate_sign_ms) for read_state and repeated
 * calls, per signed sender: a steady rate and a burst. Anonymous senders share one bucket of the same
 * size, and all senders together one of GLOBAL_*.
 */
export const CERTS_PER_SECOND_PER_SENDER = 20;
export const CERT_BURST_PER_SENDER = 40;
export const GLOBAL_CERTS_PER_SECOND = 100;
export const GLOBAL_CERT_BURST = 200;
/** An identical certified answer (same tree but its time) is reused for this long of IC time. */
export const CERT_CACHE_NS = 1_000_000_000n;
export const CERT_CACHE_ENTRIES = 1_024;

export interface IcHttpLimits {
  readonly maxConnections: number;
  readonly requestTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly maxInflightBodyBytes: number;
  readonly maxStatusesPerSender: number;
  readonly maxAnonymousStatuses: number;
  readonly certsPerSecondPerSender: number;
  readonly certBurstPerSender: number;
  readonly globalCertsPerSecond: number;
  readonly globalCertBurst: number;
}

export const DEFAULT_LIMITS: IcHttpLimits = {
  maxConnections: MAX_CONNECTIONS,
  requestTimeoutMs: REQUEST_TIMEOUT_MS,
  headersTimeoutMs: HEADERS_TIMEOUT_MS,
  maxInflightBodyBytes: MAX_INFLIGHT_BODY_BYTES,
  maxStatusesPerSender: MAX_STATUSES_PER_SENDER,
  maxAnonymousStatuses: MAX_ANONYMOUS_STATUSES,
  certsPerSecondPerSender: CERTS_PER_SECOND_PER_SENDER,
  certBurstPerSender: CERT_BURST_PER_SENDER,
  globalCertsPerSecond: GLOBAL_CERTS_PER_SECOND,
  globalCertBurst: GLOBAL_CERT_BURST,
};

/** Token buckets keyed by sender, refilled by elapsed wall time; idle full buckets are dropped. */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    /** At most this many buckets are kept; the oldest is dropped (it restarts full). */
    private readonly maxKeys = 100_000,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** Whether `key` may spend one token now; spends it if so. */
  take(key: string): boolean {
    const now = this.clock();
    let b = this.buckets.get(key);
    if (b === undefined) {
      if (this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
      b = { tokens: this.burst, at: now };
      this.buckets.set(key, b);
    }
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.perSecond);
    b.at = now;
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /** Gives back a token taken for work that was not done. */
  refund(key: string): void {
    const b = this.buckets.get(key);
    if (b !== undefined) b.tokens = Math.min(this.burst, b.tokens + 1);
  }

  /** Drops buckets that have refilled (they would start full anyway). */
  sweep(): void {
    const now = this.clock();
    for (const [k, b] of this.buckets) if (b.tokens + ((now - b.at) / 1000) * this.perSecond >= this.burst) this.buckets.delete(k);
  }
}
