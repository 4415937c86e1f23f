import type { CandidBlockTag, LogCursorView, LogFilterView, LogPageView, LogView, Opt } from '../../client/schema.js';
import { responseTooLarge } from '../budget.js';
import { MAX_LOG_FILTER_ADDRESSES, MAX_LOG_FILTER_TOPIC_ALTERNATIVES, MAX_LOG_TOPICS } from '../../core/constants.js';
import { invalidParams, RpcCode, RpcError } from '../errors.js';
import { formatLog } from '../format.js';
import { address, blockParam, hash32, object, positional } from '../params.js';
import { headNumber, tagNumber, unwrap } from './common.js';
import type { MethodContext, MethodSpec } from './types.js';

/** Most logs one eth_getLogs answers; the gateway reads the canister's pages (at most 1000 each) up to this. */
export const GATEWAY_MAX_LOGS = 10_000;
/**
 * Most bytes of log payload (data and topics) one answer holds: the count limit alone would let 10,000 logs of
 * large data make the gateway hold (and hex-encode, doubling it) hundreds of megabytes for one request.
 */
export const GATEWAY_MAX_LOG_BYTES = 16 * 1024 * 1024;
/** The canister's largest page. */
export const CANISTER_MAX_PAGE = 1000;
export const FILTER_KEYS = ['fromBlock', 'toBlock', 'blockHash', 'address', 'topics'];

async function rangeTag(ctx: MethodContext, v: unknown, name: string, head: () => Promise<bigint>): Promise<Opt<CandidBlockTag>> {
  if (v === undefined || v === null) return [];
  const p = blockParam(v, name);
  if ('hash' in p) throw invalidParams(`${name}: expected a block number or tag (use blockHash for a block by hash)`);
  // latest / pending / safe / finalized: the head, read once so every page sees the same range.
  return [{ Number: await tagNumber(p, head) }];
}

// The counts are checked before any entry is decoded (the canister checks them again, with the same words), so
// an oversized list costs the gateway nothing and never becomes an oversized canister argument.
export function addressParam(v: unknown): Opt<Uint8Array[]> {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) return [[address(v)]];
  if (v.length > MAX_LOG_FILTER_ADDRESSES) throw invalidParams(`address: at most ${MAX_LOG_FILTER_ADDRESSES} addresses, got ${v.length}`);
  return [v.map((x, i) => address(x, `address[${i}]`))];
}

export function topicsParam(v: unknown): Opt<Opt<Uint8Array[]>[]> {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalidParams('topics: expected an array');
  if (v.length > MAX_LOG_TOPICS) throw invalidParams(`topics: at most ${MAX_LOG_TOPICS} positions, got ${v.length}`);
  return [
    v.map((t, i): Opt<Uint8Array[]> => {
      if (t === null) return [];
      if (typeof t === 'string') return [[hash32(t, `topics[${i}]`)]];
      if (Array.isArray(t)) {
        if (t.length > MAX_LOG_FILTER_TOPIC_ALTERNATIVES) throw invalidParams(`topics[${i}]: at most ${MAX_LOG_FILTER_TOPIC_ALTERNATIVES} alternatives, got ${t.length}`);
        return [t.map((x, j) => hash32(x, `topics[${i}][${j}]`))];
      }
      throw invalidParams(`topics[${i}]: expected null, a 32-byte topic or an array of topics`);
    }),
  ];
}

export async function logFilter(ctx: MethodContext, v: unknown): Promise<LogFilterView> {
  const o = object(v, 'filter');
  for (const k of Object.keys(o)) {
    if (!FILTER_KEYS.includes(k)) throw invalidParams(`filter: unsupported key ${JSON.stringify(k)} (supported: ${FILTER_KEYS.join(', ')})`);
  }
  const has = (k: string) => o[k] !== undefined && o[k] !== null;
  if (has('blockHash') && (has('fromBlock') || has('toBlock'))) throw invalidParams('filter: blockHash cannot be combined with fromBlock/toBlock');
  let head: bigint | undefined;
  const readHead = async () => (head ??= await headNumber(ctx));
  return {
    from_block: await rangeTag(ctx, o.fromBlock, 'fromBlock', readHead),
    to_block: await rangeTag(ctx, o.toBlock, 'toBlock', readHead),
    block_hash: has('blockHash') ? [hash32(o.blockHash, 'blockHash')] : [],
    address: addressParam(o.address),
    topics: topicsParam(o.topics),
  };
}

export const eth_getLogs: MethodSpec = {
  name: 'eth_getLogs',
  canister: ['rpc_eth_block_number', 'rpc_eth_get_logs_filtered'],
  blockTags: '`fromBlock`/`toBlock`: `latest`, `pending`, `safe`, `finalized` (= head, read once), `earliest` (= 0), number; or `blockHash`',
  limits: `range at most 10,000 blocks (-32005); at most ${GATEWAY_MAX_LOGS} logs and ${GATEWAY_MAX_LOG_BYTES / 1024 / 1024} MiB of log data and topics per answer (-32005), less when the batch's other answers leave less of RPC_GATEWAY_MAX_RESPONSE_BYTES; \`address\` at most ${MAX_LOG_FILTER_ADDRESSES} entries, \`topics\` at most ${MAX_LOG_TOPICS} positions of at most ${MAX_LOG_FILTER_TOPIC_ALTERNATIVES} alternatives each (-32602 above, naming the limit)`,
  differences:
    'Filters as geth: `address` one or an OR list; each topic position null, one value or an OR list; a log matches when it has at least as many topics as the filter has positions (trailing nulls included: anvil ignores trailing nulls, geth and this gateway do not). The canister matches (rpc_eth_get_logs_filtered) and skips blocks whose logsBloom rules a match out. `blockHash` is resolved through the canister\'s hash index (any stored block). The gateway reads the canister\'s pages (1000 logs each) until done.',
  async handler(params, ctx) {
    const [f] = positional(params, 'eth_getLogs', 1, 1);
    const filter = await logFilter(ctx, f);
    const cap = logByteCap(ctx);
    const { logs, bytes } = await readLogPages(ctx, filter, [], GATEWAY_MAX_LOGS + 1, cap);
    if (bytes > GATEWAY_MAX_LOG_BYTES) {
      throw new RpcError(RpcCode.LimitExceeded, `query returned more than ${GATEWAY_MAX_LOG_BYTES} bytes of logs; narrow the block range or the filter`);
    }
    if (bytes > cap) throw responseTooLarge(ctx.budget!.limit);
    if (logs.length > GATEWAY_MAX_LOGS) {
      throw new RpcError(RpcCode.LimitExceeded, `query returned more than ${GATEWAY_MAX_LOGS} results; narrow the block range or the filter`);
    }
    return logs.map(formatLog);
  },
};

/**
 * The most log bytes this answer may read: GATEWAY_MAX_LOG_BYTES, or less when the response's byte budget
 * (shared by a batch's items) has less room left; hex doubles the bytes in the answer.
 */
function logByteCap(ctx: MethodContext): number {
  return ctx.budget === undefined ? GATEWAY_MAX_LOG_BYTES : Math.min(GATEWAY_MAX_LOG_BYTES, Math.floor(ctx.budget.remaining / 2));
}

/**
 * Reads the canister's pages of `filter` from `cursor` until the range is done, `max` logs are collected
 * (never more) or more than `maxBytes` of log data and topics are held. `next` is where to resume (empty when the
 * range is done); eth_getLogs refuses an answer past either limit, log filters and subscriptions resume there on
 * the next poll.
 */
export async function readLogPages(
  ctx: MethodContext,
  filter: LogFilterView,
  cursor: Opt<LogCursorView>,
  max: number,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<{ logs: LogView[]; next: Opt<LogCursorView>; bytes: number }> {
  const logs: LogView[] = [];
  let next = cursor;
  let bytes = 0;
  while (logs.length < max && bytes <= maxBytes) {
    const limit = Math.min(CANISTER_MAX_PAGE, max - logs.length);
    const page: LogPageView = unwrap(ctx, await ctx.client.query('rpc_eth_get_logs_filtered', [filter, next, [limit]]));
    logs.push(...page.logs);
    for (const l of page.logs) bytes += l.data.length + 32 * l.topics.length;
    next = page.next_cursor;
    if (next.length === 0) break;
  }
  return { logs, next, bytes };
}
