// eth_subscribe / eth_unsubscribe: only over a WebSocket connection (src/gateway/ws.ts holds the subscriptions).
import { invalidParams, RpcCode, RpcError } from '../errors.js';
import { object, positional } from '../params.js';
import { headNumber } from './common.js';
import { logCriteria } from './filters.js';
import type { MethodContext, MethodSpec, SubscriptionSession } from './types.js';

const KINDS = ['newHeads', 'logs', 'newPendingTransactions'] as const;

function session(ctx: MethodContext): SubscriptionSession {
  // geth's answer over HTTP.
  if (ctx.session === undefined) throw new RpcError(RpcCode.MethodNotFound, 'notifications not supported: subscribe over a WebSocket connection (ws:// on the same host and port)');
  return ctx.session;
}

export const eth_subscribe: MethodSpec = {
  name: 'eth_subscribe',
  canister: ['rpc_eth_block_number', 'rpc_eth_get_logs_filtered', 'rpc_eth_get_block_by_number_with_status'],
  blockTags: '-',
  limits: 'WebSocket only; RPC_GATEWAY_MAX_SUBSCRIPTIONS (64) per connection (-32005 above); logs: eth_getLogs\'s filter rules and errors',
  differences:
    '`newHeads` (block headers, in order, none skipped), `logs` (`address`/`topics` only, each log once, in order) and `newPendingTransactions` (hashes accepted by this gateway\'s eth_sendRawTransaction; `true` for full transactions is refused). Notifications start with the block after the head at subscription; the gateway reads the head every RPC_GATEWAY_HEAD_POLL_MS (250 ms). A client that lets RPC_GATEWAY_WS_MAX_BUFFERED_BYTES (4 MiB) of output queue up is disconnected.',
  async handler(params, ctx) {
    const s = session(ctx);
    const [kind, arg] = positional(params, 'eth_subscribe', 1, 2);
    if (typeof kind !== 'string' || !(KINDS as readonly string[]).includes(kind)) {
      throw invalidParams(`unsupported subscription ${JSON.stringify(kind)} (supported: ${KINDS.join(', ')})`);
    }
    if (kind === 'logs') {
      const o = arg === undefined || arg === null ? {} : object(arg, 'filter');
      for (const k of Object.keys(o)) {
        if (k !== 'address' && k !== 'topics') throw invalidParams(`filter: unsupported key ${JSON.stringify(k)} for a logs subscription (supported: address, topics)`);
      }
      return s.subscribe('logs', await logCriteria(ctx, o, await headNumber(ctx)));
    }
    if (kind === 'newPendingTransactions') {
      if (arg !== undefined && arg !== null && arg !== false) throw invalidParams('full transactions are not supported: pass no argument or false');
    } else if (arg !== undefined && arg !== null) throw invalidParams(`${kind} takes no parameters`);
    return s.subscribe(kind as 'newHeads' | 'newPendingTransactions', undefined);
  },
};

export const eth_unsubscribe: MethodSpec = {
  name: 'eth_unsubscribe',
  canister: [],
  blockTags: '-',
  limits: 'WebSocket only',
  differences: '`true` when the subscription existed on this connection, else `false`.',
  async handler(params, ctx) {
    const s = session(ctx);
    const [id] = positional(params, 'eth_unsubscribe', 1, 1);
    if (typeof id !== 'string') throw invalidParams('subscription id: expected a string');
    return s.unsubscribe(id);
  },
};
