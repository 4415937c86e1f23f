// Filters held by the gateway (src/gateway/filters.ts): eth_newFilter, eth_newBlockFilter,
// eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter. Log filters
// and log subscriptions share the decoding and the canister's checks of the criteria (eth_getLogs's filter rules).
import type { LogFilterView } from '../../client/schema.js';
import { MAX_LOG_BLOCK_RANGE } from '../../core/constants.js';
import { invalidParams, RpcCode, RpcError } from '../errors.js';
import type { FilterState, LogsFilterState } from '../filters.js';
import { formatLog } from '../format.js';
import { blockParam, object, positional } from '../params.js';
import { readBlock } from './blocks.js';
import { headNumber, tagNumber, unwrap } from './common.js';
import { addressParam, eth_getLogs, FILTER_KEYS, GATEWAY_MAX_LOG_BYTES, GATEWAY_MAX_LOGS, readLogPages, topicsParam } from './eth_getLogs.js';
import type { MethodContext, MethodSpec } from './types.js';

export type LogCriteria = Pick<LogFilterView, 'address' | 'topics'>;

/** Blocks one block-filter poll reports at most; a filter further behind catches up over the next polls. */
export const MAX_BLOCKS_PER_POLL = 256;

/**
 * address and topics of a filter object, checked by the canister itself (one query over the head block) so
 * that filters and subscriptions refuse exactly what eth_getLogs refuses, with the same errors.
 */
export async function logCriteria(ctx: MethodContext, o: Record<string, unknown>, head: bigint): Promise<LogCriteria> {
  const criteria: LogCriteria = { address: addressParam(o.address), topics: topicsParam(o.topics) };
  const probe: LogFilterView = { ...criteria, from_block: [{ Number: head }], to_block: [{ Number: head }], block_hash: [] };
  unwrap(ctx, await ctx.client.query('rpc_eth_get_logs_filtered', [probe, [], [1]]));
  return criteria;
}

function filterObject(v: unknown, keys: readonly string[], what: string): Record<string, unknown> {
  const o = object(v, 'filter');
  for (const k of Object.keys(o)) {
    if (!keys.includes(k)) throw invalidParams(`filter: unsupported key ${JSON.stringify(k)} for ${what} (supported: ${keys.join(', ')})`);
  }
  return o;
}

function explicitNumber(v: unknown, name: string): bigint | undefined {
  if (v === undefined || v === null) return undefined;
  const p = blockParam(v, name);
  if ('hash' in p) throw invalidParams(`${name}: expected a block number or tag`);
  return tagNumber(p, () => undefined);
}

function filterId(v: unknown): string {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(v)) throw invalidParams('filter id: expected a hex string (0x...)');
  return v.toLowerCase();
}

export const eth_newFilter: MethodSpec = {
  name: 'eth_newFilter',
  canister: ['rpc_eth_block_number', 'rpc_eth_get_logs_filtered'],
  blockTags: '`fromBlock`/`toBlock`: tags (= head), `earliest` (= 0), number',
  limits: 'live filters: RPC_GATEWAY_MAX_FILTERS_PER_CLIENT (64) per client (a remote address over HTTP, a connection over WebSocket) and RPC_GATEWAY_MAX_FILTERS (1024) in all, -32005 above; dropped after RPC_GATEWAY_FILTER_TIMEOUT_MS (5 min) without a poll; eth_getLogs\'s filter rules and errors',
  differences:
    'Held by the gateway (not the canister): a restarted gateway forgets its filters ("filter not found", clients install a new one). eth_getFilterChanges reports logs of blocks after the one at install (or from an explicit later fromBlock) up to an explicit toBlock, each exactly once; `blockHash` is refused (-32602: use eth_getLogs).',
  async handler(params, ctx) {
    const [f] = positional(params, 'eth_newFilter', 1, 1);
    const o = filterObject(f, FILTER_KEYS.filter((k) => k !== 'blockHash'), 'eth_newFilter (use eth_getLogs for a blockHash)');
    const from = explicitNumber(o.fromBlock, 'fromBlock');
    const to = explicitNumber(o.toBlock, 'toBlock');
    if (from !== undefined && to !== undefined && from > to) throw invalidParams(`fromBlock ${from} is after toBlock ${to}`);
    const head = await headNumber(ctx);
    const criteria = await logCriteria(ctx, o, head);
    const state: LogsFilterState = { kind: 'logs', raw: o, criteria, next: from !== undefined && from > head ? from : head + 1n, to, cursor: [] };
    return ctx.filters.add(state, ctx.clientKey);
  },
};

export const eth_newBlockFilter: MethodSpec = {
  name: 'eth_newBlockFilter',
  canister: ['rpc_eth_block_number'],
  blockTags: '-',
  limits: `shares eth_newFilter's bound and lifetime; a poll reports at most ${MAX_BLOCKS_PER_POLL} blocks (the rest on the next poll)`,
  differences: 'Held by the gateway. eth_getFilterChanges returns the hashes of blocks produced since the last poll, in order.',
  async handler(params, ctx) {
    positional(params, 'eth_newBlockFilter', 0, 0);
    return ctx.filters.add({ kind: 'blocks', next: (await headNumber(ctx)) + 1n }, ctx.clientKey);
  },
};

export const eth_newPendingTransactionFilter: MethodSpec = {
  name: 'eth_newPendingTransactionFilter',
  canister: [],
  blockTags: '-',
  limits: "shares eth_newFilter's bound and lifetime; the gateway remembers the last 8192 accepted hashes",
  differences:
    'Reports the hashes of transactions accepted by this gateway\'s eth_sendRawTransaction since the last poll; the canister does not list its pool, so transactions submitted otherwise (submit_ic_tx, another gateway) are not reported. `true` (full transactions) is refused (-32602).',
  async handler(params, ctx) {
    const [full] = positional(params, 'eth_newPendingTransactionFilter', 0, 1);
    if (full !== undefined && full !== null && full !== false) throw invalidParams('full transactions are not supported: pass no argument or false');
    return ctx.filters.add({ kind: 'pending', next: ctx.pending.next }, ctx.clientKey);
  },
};

/**
 * One poll of a log filter: the logs of blocks [next, min(head, to)], resuming inside a block after a poll that
 * stopped at eth_getLogs's count or byte limit (the rest comes on the next poll, nothing is refused).
 */
async function logChanges(ctx: MethodContext, s: LogsFilterState): Promise<unknown[]> {
  const head = await headNumber(ctx);
  let to = head;
  if (s.to !== undefined && s.to < to) to = s.to;
  if (to - s.next + 1n > MAX_LOG_BLOCK_RANGE) to = s.next + MAX_LOG_BLOCK_RANGE - 1n;
  if (s.next > to) return [];
  const view: LogFilterView = { ...s.criteria, from_block: [{ Number: s.next }], to_block: [{ Number: to }], block_hash: [] };
  const { logs, next } = await readLogPages(ctx, view, s.cursor, GATEWAY_MAX_LOGS, GATEWAY_MAX_LOG_BYTES);
  if (next.length === 0) {
    s.next = to + 1n;
    s.cursor = [];
  } else {
    // Stopped at the poll's limit: resume at the same place. The cursor's block only moves forward.
    s.next = next[0].block_number;
    s.cursor = next;
  }
  return logs.map(formatLog);
}

async function blockChanges(ctx: MethodContext, s: Extract<FilterState, { kind: 'blocks' }>): Promise<string[]> {
  const head = await headNumber(ctx);
  const out: string[] = [];
  while (s.next <= head && out.length < MAX_BLOCKS_PER_POLL) {
    const b = await readBlock(ctx, { Number: s.next }, false);
    if (b === null) break;
    out.push(b.hash as string);
    s.next++;
  }
  return out;
}

export const eth_getFilterChanges: MethodSpec = {
  name: 'eth_getFilterChanges',
  canister: ['rpc_eth_block_number', 'rpc_eth_get_logs_filtered', 'rpc_eth_get_block_by_number_with_status'],
  blockTags: '-',
  limits: `at most ${GATEWAY_MAX_LOGS} logs (and about ${GATEWAY_MAX_LOG_BYTES / 1024 / 1024} MiB of log data and topics) or ${MAX_BLOCKS_PER_POLL} block hashes a poll (the rest on the next poll)`,
  differences:
    'Unknown or expired filter: -32000 `filter not found` (as geth). Polls of one filter run one after another, so concurrent polls never return the same entries. No `removed: true` logs (there are no reorganisations).',
  async handler(params, ctx) {
    const [v] = positional(params, 'eth_getFilterChanges', 1, 1);
    return ctx.filters.use(filterId(v), async (s): Promise<unknown[]> => {
      switch (s.kind) {
        case 'logs':
          return logChanges(ctx, s);
        case 'blocks':
          return blockChanges(ctx, s);
        case 'pending': {
          const r = ctx.pending.since(s.next);
          s.next = r.next;
          return r.hashes;
        }
      }
    });
  },
};

export const eth_getFilterLogs: MethodSpec = {
  name: 'eth_getFilterLogs',
  canister: ['rpc_eth_block_number', 'rpc_eth_get_logs_filtered'],
  blockTags: '-',
  limits: "eth_getLogs's limits",
  differences: 'eth_getLogs with the filter as installed (its tags resolved now); does not move what eth_getFilterChanges reports next. A block or pending filter: -32000 `filter not found`.',
  async handler(params, ctx) {
    const [v] = positional(params, 'eth_getFilterLogs', 1, 1);
    return ctx.filters.use(filterId(v), async (s) => {
      if (s.kind !== 'logs') throw new RpcError(RpcCode.Server, 'filter not found');
      return eth_getLogs.handler([s.raw], ctx);
    });
  },
};

export const eth_uninstallFilter: MethodSpec = {
  name: 'eth_uninstallFilter',
  canister: [],
  blockTags: '-',
  limits: '-',
  differences: '`true` when the filter existed, `false` when it was unknown or had expired.',
  async handler(params, ctx) {
    const [v] = positional(params, 'eth_uninstallFilter', 1, 1);
    return ctx.filters.remove(filterId(v));
  },
};
