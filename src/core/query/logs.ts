// eth_getLogs as pages: a filter, a cursor, a page size. Two rule sets over the same reader:
// - 'spec' (rpc_eth_get_logs_paged, SPEC "Log filter"): one address at most; topics[0] one value or an OR list
//   of at most 16; any condition on topics[1..] is UnsupportedFilter.
// - 'full' (rpc_eth_get_logs_filtered, Ethereum's filter as geth has it): `addresses` an OR list of at most
//   MAX_LOG_FILTER_ADDRESSES; up to MAX_LOG_TOPICS positions, each a wildcard (undefined or empty) or an OR list
//   of at most MAX_LOG_FILTER_TOPIC_ALTERNATIVES; more is ArgInvalidFilter naming the limit.
// Both: fromBlock, toBlock (tags: latest/pending/safe/finalized = head, earliest = 0; default latest), or
// blockHash (not combinable with either; resolved through the block-hash index, so any stored block can be
// named). As in geth, a filter with N topic positions only matches logs with at least N topics (a wildcard
// position, trailing or not, still needs a topic there).
//
// Limits (src/core/constants.ts, docs/read-api.md): the requested range (tags resolved against the head)
// may span at most MAX_LOG_BLOCK_RANGE blocks (logs.range_too_large); toBlock is then clamped to the head
// (blocks above it have no logs yet); a page holds at most `limit` logs
// (default and maximum MAX_LOGS_PER_PAGE; more is logs.too_many_results), at most MAX_LOG_PAGE_BYTES of log
// payload, and stops (before the next block or the next matching log) once the instructions spent so far
// plus the cost of encoding the collected logs into the reply (LOG_REPLY_INSTRUCTIONS_PER_LOG/_PER_BYTE,
// measured) would pass LOG_PAGE_INSTRUCTION_SOFT_LIMIT. A page that stops early returns `nextCursor` = the position (block, log index within the
// block) of the next log to examine; pass it back with the same filter to continue. A page may hold fewer
// logs than `limit`, even none, and still have a cursor: read until nextCursor is undefined.
//
// Reads are point gets, block by block: one BlockLogs get per block (a block without logs has no entry, so
// an empty block costs one missing-key get), and one block-record get per block with a match (for its hash
// and the transactions' hashes). Logs are matched on the stored bytes; only matches are decoded. Under 'full',
// a filter with a condition reads each block's record first and skips the block without reading its logs
// when its logsBloom rules a match out (every condition of at most MAX_LOG_BLOOM_ALTERNATIVES alternatives
// must have one alternative whose three bits are all set).

import { type BlockTag } from '../block_tag.js';
import {
  LOG_PAGE_INSTRUCTION_SOFT_LIMIT,
  LOG_REPLY_INSTRUCTIONS_PER_BYTE,
  LOG_REPLY_INSTRUCTIONS_PER_LOG,
  MAX_LOG_BLOCK_RANGE,
  MAX_LOG_BLOOM_ALTERNATIVES,
  MAX_LOG_FILTER_ADDRESSES,
  MAX_LOG_FILTER_TOPIC_ALTERNATIVES,
  MAX_LOG_PAGE_BYTES,
  MAX_LOG_TOPIC0_ALTERNATIVES,
  MAX_LOG_TOPICS,
  MAX_LOGS_PER_PAGE,
} from '../constants.js';
import type { Bytes32 } from '../engine.js';
import { ErrorCode, err, ok, type Result } from '../errors.js';
import { u64be } from '../codec/bytes.js';
import { bloomMayContain, bloomProbe } from '../chain/bloom.js';
import { blockBloomOffset, decodeBlock, type ChainStore, type StoredBlock } from '../chain/store.js';
import type { EthLogView } from '../views.js';

export interface LogFilter {
  readonly fromBlock?: BlockTag | undefined;
  readonly toBlock?: BlockTag | undefined;
  readonly blockHash?: Uint8Array | undefined;
  /** An OR list; undefined or empty = any address. */
  readonly addresses?: readonly Uint8Array[] | undefined;
  /** Per position: an OR list; undefined or empty = any value. */
  readonly topics?: readonly (readonly Uint8Array[] | undefined)[] | undefined;
}

/** 'spec': rpc_eth_get_logs_paged's filter (SPEC); 'full': rpc_eth_get_logs_filtered's (geth's). */
export type LogFilterRules = 'spec' | 'full';

export interface LogCursor {
  readonly blockNumber: bigint;
  /** Index of the log within its block (the logIndex of EthLogView). */
  readonly logIndex: number;
}

export interface LogPage {
  readonly logs: readonly EthLogView[];
  readonly nextCursor: LogCursor | undefined;
}

export interface LogsDeps {
  readonly store: ChainStore;
  readonly head: bigint;
  /** Lowest block whose logs are still stored; a range below it is refused rather than read as empty. */
  readonly firstAvailableBlock: bigint;
  /** Instructions spent so far by this message. */
  counter(): bigint;
}

/** First 4 bytes as an unsigned 32-bit number (a cheap pre-filter before a full compare). */
const head32 = (b: Uint8Array, off: number): number => ((b[off]! << 24) | (b[off + 1]! << 16) | (b[off + 2]! << 8) | b[off + 3]!) >>> 0;

function equalAt(b: Uint8Array, off: number, x: Uint8Array): boolean {
  for (let i = 0; i < x.length; i++) if (b[off + i] !== x[i]) return false;
  return true;
}

/** One condition: the stored bytes at an offset equal one of the alternatives. */
class OneOf {
  /** Short lists: compared in order, first word first. Long lists: looked up by their first word. */
  private readonly heads: number[] | undefined;
  private readonly byHead: Map<number, Uint8Array[]> | undefined;

  constructor(readonly values: readonly Uint8Array[]) {
    if (values.length <= 8) {
      this.heads = values.map((v) => head32(v, 0));
    } else {
      this.byHead = new Map();
      for (const v of values) {
        const h = head32(v, 0);
        const list = this.byHead.get(h);
        if (list === undefined) this.byHead.set(h, [v]);
        else list.push(v);
      }
    }
  }

  matches(raw: Uint8Array, off: number): boolean {
    const h = head32(raw, off);
    if (this.heads !== undefined) {
      for (let j = 0; j < this.heads.length; j++) if (this.heads[j] === h && equalAt(raw, off, this.values[j]!)) return true;
      return false;
    }
    const list = this.byHead!.get(h);
    if (list === undefined) return false;
    for (const v of list) if (equalAt(raw, off, v)) return true;
    return false;
  }
}

interface Plan {
  readonly from: bigint;
  readonly to: bigint;
  /** Inclusive upper bound a cursor may name (the requested toBlock, before clamping to the head). */
  readonly cursorTo: bigint;
  readonly address: OneOf | undefined;
  /** Per position: the condition, or undefined for a wildcard. */
  readonly topics: readonly (OneOf | undefined)[];
  readonly minTopics: number;
  /** Per condition tested against the block's bloom: one probe per alternative. Undefined: read every block's logs. */
  readonly bloom: readonly (readonly Uint8Array[])[] | undefined;
}

const invalid = (message: string): Result<never> => err(ErrorCode.ArgInvalidFilter, message);

function resolveTag(t: BlockTag, head: bigint): bigint {
  switch (t.kind) {
    case 'Earliest':
      return 0n;
    case 'Number':
      return t.number;
    default:
      return head;
  }
}

/** Checks address and topics against the rule set; the conditions to match (undefined = any). */
function planCriteria(f: LogFilter, rules: LogFilterRules): Result<{ address: OneOf | undefined; topics: (OneOf | undefined)[]; minTopics: number }> {
  const addresses = f.addresses ?? [];
  if (rules === 'spec' && addresses.length > 1) return err(ErrorCode.UnsupportedFilter, 'address: a single address only (a list of addresses is not supported)');
  if (addresses.length > MAX_LOG_FILTER_ADDRESSES) return invalid(`address: at most ${MAX_LOG_FILTER_ADDRESSES} addresses, got ${addresses.length}`);
  for (const a of addresses) if (a.length !== 20) return err(ErrorCode.ArgAddressLength, `address must be 20 bytes, got ${a.length}`);
  const topics = f.topics ?? [];
  if (topics.length > MAX_LOG_TOPICS) return invalid(`topics: at most ${MAX_LOG_TOPICS} positions, got ${topics.length}`);
  const conditions: (OneOf | undefined)[] = [];
  for (const [i, alts] of topics.entries()) {
    for (const t of alts ?? []) if (t.length !== 32) return invalid(`topics[${i}]: topics must be 32 bytes`);
    const n = alts?.length ?? 0;
    if (rules === 'spec') {
      if (i > 0 && n > 0) return err(ErrorCode.UnsupportedFilter, `topics[${i}]: conditions on topics after the first are not supported`);
      if (n > MAX_LOG_TOPIC0_ALTERNATIVES) return err(ErrorCode.UnsupportedFilter, `topics[0]: at most ${MAX_LOG_TOPIC0_ALTERNATIVES} alternatives, got ${n}`);
    } else if (n > MAX_LOG_FILTER_TOPIC_ALTERNATIVES) {
      return invalid(`topics[${i}]: at most ${MAX_LOG_FILTER_TOPIC_ALTERNATIVES} alternatives, got ${n}`);
    }
    conditions.push(n > 0 ? new OneOf(alts!) : undefined);
  }
  return ok({ address: addresses.length > 0 ? new OneOf(addresses) : undefined, topics: conditions, minTopics: topics.length });
}

/** Validates the filter and resolves its block range. */
export function planLogQuery(f: LogFilter, d: LogsDeps, rules: LogFilterRules = 'spec'): Result<Plan> {
  const criteria = planCriteria(f, rules);
  if (!criteria.ok) return criteria;
  const { address, topics, minTopics } = criteria.value;

  let from: bigint;
  let to: bigint;
  if (f.blockHash !== undefined) {
    if (f.fromBlock !== undefined || f.toBlock !== undefined) return invalid('blockHash cannot be combined with fromBlock or toBlock');
    if (f.blockHash.length !== 32) return invalid(`blockHash must be 32 bytes, got ${f.blockHash.length}`);
    const n = d.store.getBlockNumberByHash(f.blockHash);
    if (n === undefined) return err(ErrorCode.NotFound, 'no block with this hash');
    from = to = n;
  } else {
    from = resolveTag(f.fromBlock ?? { kind: 'Latest' }, d.head);
    to = resolveTag(f.toBlock ?? { kind: 'Latest' }, d.head);
    if (from > to) return invalid(`fromBlock ${from} is after toBlock ${to}`);
  }
  if (to - from + 1n > MAX_LOG_BLOCK_RANGE) {
    return err(ErrorCode.LogsRangeTooLarge, `block range ${from}..${to} spans ${to - from + 1n} blocks; at most ${MAX_LOG_BLOCK_RANGE}`);
  }
  if (from < d.firstAvailableBlock) {
    return err(ErrorCode.HistoryPruned, `blocks below ${d.firstAvailableBlock} are pruned; the range starts at ${from}`);
  }
  const cursorTo = to;
  if (to > d.head) to = d.head;
  let bloom: Uint8Array[][] | undefined;
  if (rules === 'full') {
    // Only short conditions: each alternative is a keccak per page, and a long OR list rarely rules a block out.
    const tested = [address, ...topics].filter((c): c is OneOf => c !== undefined && c.values.length <= MAX_LOG_BLOOM_ALTERNATIVES);
    if (tested.length > 0) bloom = tested.map((c) => c.values.map(bloomProbe));
  }
  return ok({ from, to, cursorTo, address, topics, minTopics, bloom });
}

/** Whether a block whose record is `rec` may hold a log matching every condition of `bloom`. */
function bloomAdmits(rec: Uint8Array, bloom: readonly (readonly Uint8Array[])[]): boolean {
  const off = blockBloomOffset(rec);
  for (const condition of bloom) {
    let any = false;
    for (let j = 0; j < condition.length && !any; j++) any = bloomMayContain(rec, off, condition[j]!);
    if (!any) return false;
  }
  return true;
}

export function getLogsPage(f: LogFilter, cursor: LogCursor | undefined, limit: number | undefined, d: LogsDeps, rules: LogFilterRules = 'spec'): Result<LogPage> {
  const max = limit ?? MAX_LOGS_PER_PAGE;
  if (!Number.isInteger(max) || max < 1) return invalid('limit must be at least 1');
  if (max > MAX_LOGS_PER_PAGE) return err(ErrorCode.LogsTooManyResults, `limit ${max} is above the page maximum ${MAX_LOGS_PER_PAGE}`);
  const planned = planLogQuery(f, d, rules);
  if (!planned.ok) return planned;
  const p = planned.value;
  let block = p.from;
  let startIndex = 0;
  if (cursor !== undefined) {
    if (cursor.blockNumber < p.from || cursor.blockNumber > p.cursorTo) {
      return invalid(`cursor block ${cursor.blockNumber} is outside the filter's range ${p.from}..${p.cursorTo}`);
    }
    block = cursor.blockNumber;
    startIndex = cursor.logIndex;
  }
  const logs: EthLogView[] = [];
  let bytes = 0;
  // What the message will have spent once the logs collected so far are encoded into the reply.
  const projected = (extraLogs: number, extraBytes: number): bigint =>
    d.counter() + BigInt(logs.length + extraLogs) * LOG_REPLY_INSTRUCTIONS_PER_LOG + BigInt(bytes + extraBytes) * LOG_REPLY_INSTRUCTIONS_PER_BYTE;
  const topicConds = p.topics;
  const nTopicConds = topicConds.length;
  for (; block <= p.to; block++, startIndex = 0) {
    if (logs.length > 0 || block !== (cursor?.blockNumber ?? p.from)) {
      if (projected(0, 0) >= LOG_PAGE_INSTRUCTION_SOFT_LIMIT) return ok({ logs, nextCursor: { blockNumber: block, logIndex: startIndex } });
    }
    let rec: Uint8Array | undefined;
    if (p.bloom !== undefined) {
      rec = d.store.getBlockRecord(block);
      if (rec === undefined || !bloomAdmits(rec, p.bloom)) continue;
    }
    const raw = d.store.maps.blockLogs.get(u64be(block));
    if (raw === undefined) continue;
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    const n = view.getUint32(0);
    let off = 4;
    let stored: StoredBlock | undefined;
    for (let i = 0; i < n; i++) {
      const at = off;
      const k = raw[at + 24]!;
      const dataLen = view.getUint32(at + 25 + 32 * k);
      off = at + 29 + 32 * k + dataLen;
      if (i < startIndex) continue;
      if (k < p.minTopics) continue;
      if (p.address !== undefined && !p.address.matches(raw, at + 4)) continue;
      let hit = true;
      for (let j = 0; j < nTopicConds && hit; j++) {
        const c = topicConds[j];
        if (c !== undefined) hit = c.matches(raw, at + 25 + 32 * j);
      }
      if (!hit) continue;
      const size = 150 + 32 * k + dataLen;
      if (logs.length >= max || (logs.length > 0 && (bytes + size > MAX_LOG_PAGE_BYTES || projected(1, size) >= LOG_PAGE_INSTRUCTION_SOFT_LIMIT))) {
        return ok({ logs, nextCursor: { blockNumber: block, logIndex: i } });
      }
      if (stored === undefined) {
        rec ??= d.store.getBlockRecord(block);
        if (rec === undefined) break; // logs without a block record: nothing to report them under
        stored = decodeBlock(block, rec);
      }
      const txIndex = view.getUint32(at);
      const topics: Bytes32[] = [];
      for (let j = 0; j < k; j++) topics.push(raw.subarray(at + 25 + 32 * j, at + 57 + 32 * j));
      logs.push({
        address: raw.subarray(at + 4, at + 24),
        topics,
        data: raw.subarray(at + 29 + 32 * k, off),
        blockNumber: block,
        blockHash: stored.hash,
        transactionHash: stored.txs[txIndex]?.ethHash ?? new Uint8Array(32),
        transactionIndex: txIndex,
        logIndex: i,
        removed: false,
      });
      bytes += size;
    }
  }
  return ok({ logs, nextCursor: undefined });
}
