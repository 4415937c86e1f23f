// A CanisterClient double for the gateway's unit tests: answers per canister method, records every call.
import type { CanisterClient, CanisterMethod } from '../../src/gateway/client.js';
import { DEFAULT_CONFIG, type GatewayConfig } from '../../src/gateway/config.js';
import type { MethodContext } from '../../src/gateway/methods/index.js';
import { Lru } from '../../src/gateway/cache.js';
import { FilterStore } from '../../src/gateway/filters.js';
import { PendingFeed } from '../../src/gateway/pending.js';

export type Handler = (args: unknown[]) => unknown;

export class FakeClient implements CanisterClient {
  readonly kind = 'host' as const;
  readonly calls: { mode: 'query' | 'update'; method: CanisterMethod; args: unknown[] }[] = [];
  constructor(public handlers: Partial<Record<CanisterMethod, Handler>> = {}) {}

  private async run<T>(mode: 'query' | 'update', method: CanisterMethod, args: unknown[]): Promise<T> {
    this.calls.push({ mode, method, args });
    const h = this.handlers[method];
    if (h === undefined) throw new Error(`fake: no handler for ${method}`);
    return h(args) as T;
  }
  query<T>(method: CanisterMethod, args: unknown[]): Promise<T> {
    return this.run<T>('query', method, args);
  }
  update<T>(method: CanisterMethod, args: unknown[]): Promise<T> {
    return this.run<T>('update', method, args);
  }
  count(method: CanisterMethod): number {
    return this.calls.filter((c) => c.method === method).length;
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
