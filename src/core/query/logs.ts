// eth_getLogs as pages (rpc_eth_get_logs_paged): a filter, a cursor, a page size.
//
// Filter (SPEC "Log filter"): fromBlock, toBlock (tags: latest/pending/safe/finalized = head, earliest = 0;
// default latest), or blockHash (not combinable with either; resolved through the block-hash index, so any
// stored block can be named); one address at most; topics[0] one value or an OR list of at most 16; any
// condition on topics[1..] is UnsupportedFilter. As in geth, a filter with N topic positions only matches logs
// with at least N topics (a wildcard position still needs a topic there).
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
// and the transactions' hashes). Logs are matched on the stored bytes; only matches are decoded.

import { type BlockTag } from '../block_tag.js';
import {
  LOG_PAGE_INSTRUCTION_SOFT_LIMIT,
  LOG_REPLY_INSTRUCTIONS_PER_BYTE,
  LOG_REPLY_INSTRUCTIONS_PER_LOG,
  MAX_LOG_BLOCK_RANGE,
  MAX_LOG_PAGE_BYTES,
  MAX_LOG_TOPIC0_ALTERNATIVES,
  MAX_LOG_TOPICS,
  MAX_LOGS_PER_PAGE,
} from '../constants.js';
import type { Bytes32 } from '../engine.js';
import { ErrorCode, err, ok, type Result } from '../errors.js';
import { u64be } from '../codec/bytes.js';
import type { ChainStore, StoredBlock } from '../chain/store.js';
import type { EthLogView } from '../views.js';

export interface LogFilter {
  readonly fromBlock?: BlockTag | undefined;
  readonly toBlock?: BlockTag | undefined;
  readonly blockHash?: Uint8Array | undefined;
  /** At most one (a list is accepted by the type so that the rule has one place: here). */
  readonly addresses?: readonly Uint8Array[] | undefined;
  /** Per position: an OR list; undefined or empty = any value. */
  readonly topics?: readonly (readonly Uint8Array[] | undefined)[] | undefined;
}

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

interface Plan {
  readonly from: bigint;
  readonly to: bigint;
  /** Inclusive upper bound a cursor may name (the requested toBlock, before clamping to the head). */
  readonly cursorTo: bigint;
  readonly address: Uint8Array | undefined;
  readonly topic0: readonly Uint8Array[] | undefined;
  readonly minTopics: number;
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

/** Validates the filter and resolves its block range. */
export function planLogQuery(f: LogFilter, d: LogsDeps): Result<Plan> {
  const addresses = f.addresses ?? [];
  if (addresses.length > 1) return err(ErrorCode.UnsupportedFilter, 'address: a single address only (a list of addresses is not supported)');
  const address = addresses[0];
  if (address !== undefined && address.length !== 20) return err(ErrorCode.ArgAddressLength, `address must be 20 bytes, got ${address.length}`);
  const topics = f.topics ?? [];
  if (topics.length > MAX_LOG_TOPICS) return invalid(`topics: at most ${MAX_LOG_TOPICS} positions`);
  for (const [i, alts] of topics.entries()) {
    for (const t of alts ?? []) if (t.length !== 32) return invalid(`topics[${i}]: topics must be 32 bytes`);
    if (i > 0 && alts !== undefined && alts.length > 0) {
      return err(ErrorCode.UnsupportedFilter, `topics[${i}]: conditions on topics after the first are not supported`);
    }
  }
  const t0 = topics[0];
  if (t0 !== undefined && t0.length > MAX_LOG_TOPIC0_ALTERNATIVES) {
    return err(ErrorCode.UnsupportedFilter, `topics[0]: at most ${MAX_LOG_TOPIC0_ALTERNATIVES} alternatives, got ${t0.length}`);
  }
  const topic0 = t0 !== undefined && t0.length > 0 ? t0 : undefined;

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
  return ok({ from, to, cursorTo, address, topic0, minTopics: topics.length });
}

/** First 4 bytes as an unsigned 32-bit number (a cheap pre-filter before a full compare). */
const head32 = (b: Uint8Array, off: number): number => ((b[off]! << 24) | (b[off + 1]! << 16) | (b[off + 2]! << 8) | b[off + 3]!) >>> 0;

function equalAt(b: Uint8Array, off: number, x: Uint8Array): boolean {
  for (let i = 0; i < x.length; i++) if (b[off + i] !== x[i]) return false;
  return true;
}

export function getLogsPage(f: LogFilter, cursor: LogCursor | undefined, limit: number | undefined, d: LogsDeps): Result<LogPage> {
  const max = limit ?? MAX_LOGS_PER_PAGE;
  if (!Number.isInteger(max) || max < 1) return invalid('limit must be at least 1');
  if (max > MAX_LOGS_PER_PAGE) return err(ErrorCode.LogsTooManyResults, `limit ${max} is above the page maximum ${MAX_LOGS_PER_PAGE}`);
  const planned = planLogQuery(f, d);
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
  const addrHead = p.address === undefined ? 0 : head32(p.address, 0);
  const topicHeads = p.topic0?.map((t) => head32(t, 0));
  const logs: EthLogView[] = [];
  let bytes = 0;
  // What the message will have spent once the logs collected so far are encoded into the reply.
  const projected = (extraLogs: number, extraBytes: number): bigint =>
    d.counter() + BigInt(logs.length + extraLogs) * LOG_REPLY_INSTRUCTIONS_PER_LOG + BigInt(bytes + extraBytes) * LOG_REPLY_INSTRUCTIONS_PER_BYTE;
  for (; block <= p.to; block++, startIndex = 0) {
    if (logs.length > 0 || block !== (cursor?.blockNumber ?? p.from)) {
      if (projected(0, 0) >= LOG_PAGE_INSTRUCTION_SOFT_LIMIT) return ok({ logs, nextCursor: { blockNumber: block, logIndex: startIndex } });
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
      if (p.address !== undefined && (head32(raw, at + 4) !== addrHead || !equalAt(raw, at + 4, p.address))) continue;
      if (p.topic0 !== undefined) {
        if (k === 0) continue;
        const h = head32(raw, at + 25);
        let hit = false;
        for (let j = 0; j < p.topic0.length && !hit; j++) hit = topicHeads![j] === h && equalAt(raw, at + 25, p.topic0[j]!);
        if (!hit) continue;
      }
      const size = 150 + 32 * k + dataLen;
      if (logs.length >= max || (logs.length > 0 && (bytes + size > MAX_LOG_PAGE_BYTES || projected(1, size) >= LOG_PAGE_INSTRUCTION_SOFT_LIMIT))) {
        return ok({ logs, nextCursor: { blockNumber: block, logIndex: i } });
      }
      stored ??= d.store.getBlock(block);
      if (stored === undefined) break; // logs without a block record: nothing to report them under
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
