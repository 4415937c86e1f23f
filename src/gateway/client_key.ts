// Who a request comes from, for the per-client quotas (filters, queued canister queries). Over HTTP a client is
// its remote address as the gateway's socket sees it (an IPv6 address by its /64, the block one host is usually
// given); over WebSocket it is the connection. Behind a reverse proxy every client has the proxy's address:
// X-Forwarded-For is not trusted (any client can send it), so such a deployment raises the per-client quotas.
import type { MethodContext } from './methods/types.js';
import { gatedClient } from './query_gate.js';

/** The /64 prefix of an IPv6 address (expanded, lower case); IPv4 and IPv4-mapped addresses as IPv4. */
export function addressKey(address: string | undefined): string {
  if (address === undefined || address === '') return 'http:unknown';
  let a = address.toLowerCase();
  const zone = a.indexOf('%');
  if (zone >= 0) a = a.slice(0, zone);
  if (a.startsWith('::ffff:') && a.includes('.')) a = a.slice(7);
  if (!a.includes(':')) return `http:${a}`;
  const [head = '', tail] = a.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? h : [...h, ...new Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t];
  return `http:${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** The context of one client's requests: its key, and its canister queries through the shared gate. */
export function forClient(ctx: MethodContext, clientKey: string): MethodContext {
  const gate = ctx.queries;
  return { ...ctx, clientKey, ...(gate === undefined ? {} : { client: gatedClient(ctx.client, gate, clientKey) }) };
}
