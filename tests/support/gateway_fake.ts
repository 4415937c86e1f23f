// A canister client double for the gateway's unit tests: the real CanisterClient over a transport that
// answers per canister method and records every call.
import { CanisterClient, type CanisterMethod, type Transport } from '../../src/client/index.js';
import { DEFAULT_CONFIG, type GatewayConfig } from '../../src/gateway/config.js';
import type { MethodContext } from '../../src/gateway/methods/index.js';
import { Lru } from '../../src/gateway/cache.js';
import { FilterStore } from '../../src/gateway/filters.js';
import { PendingFeed } from '../../src/gateway/pending.js';

export type Handler = (args: unknown[]) => unknown;
type Call = { mode: 'query' | 'update'; method: CanisterMethod; args: unknown[] };

class FakeTransport implements Transport {
  readonly kind = 'host' as const;
  readonly calls: Call[] = [];
  constructor(public handlers: Partial<Record<CanisterMethod, Handler>>) {}

  async call(mode: 'query' | 'update', method: CanisterMethod, args: readonly unknown[]): Promise<unknown> {
    this.calls.push({ mode, method, args: [...args] });
    const h = this.handlers[method];
    if (h === undefined) throw new Error(`fake: no handler for ${method}`);
    return h([...args]);
  }
}

export class FakeClient extends CanisterClient {
  private readonly fake: FakeTransport;
  constructor(handlers: Partial<Record<CanisterMethod, Handler>> = {}) {
    const t = new FakeTransport(handlers);
    super(t);
    this.fake = t;
  }
  get handlers(): Partial<Record<CanisterMethod, Handler>> {
    return this.fake.handlers;
  }
  set handlers(h: Partial<Record<CanisterMethod, Handler>>) {
    this.fake.handlers = h;
  }
  get calls(): readonly Call[] {
    return this.fake.calls;
  }
  count(method: CanisterMethod): number {
    return this.fake.calls.filter((c) => c.method === method).length;
  }
}

export function fakeContext(client: FakeClient, config: Partial<GatewayConfig> = {}): MethodContext & { logged: string[] } {
  const logged: string[] = [];
  const c = { ...DEFAULT_CONFIG, ...config };
  return {
    client,
    config: c,
    cache: new Lru<unknown>(100),
    log: (m) => logged.push(m),
    logged,
    filters: new FilterStore(c.filterTimeoutMs, c.maxFilters),
    pending: new PendingFeed(),
  };
}

export const bytes = (n: number, fill = 0xab): Uint8Array => new Uint8Array(n).fill(fill);
export const hx = (n: number, fill = 'ab'): string => `0x${fill.repeat(n)}`;
