// export_blocks: the blocks from a cursor as byte chunks of their segments (format.ts), in order, until
// max_bytes (clamped to EXPORT_MAX_BYTES) or the instruction soft limit is reached. Point reads only.
//
// Cursor rules (docs/export-format.md):
//   - absent: start at the first available block, segment 0, offset 0;
//   - block_number below the first available block: Err Pruned { first_available_block };
//   - block_number above head + 1, segment above 2, byte_offset past the segment's end, or a cursor at
//     head + 1 that is not (head + 1, 0, 0): Err InvalidCursor;
//   - (head + 1, 0, 0): caught up; Ok with no chunks and the same cursor;
//   - byte_offset equal to the segment's length is the start of the next segment.

import type { ChainStore, StoredBlock, StoredLog } from '../chain/store.js';
import type { CommitmentVersion } from '../chain/commitments.js';
import type { CoreHost, KvMap } from '../host.js';
import { decodeReceipt } from '../chain/store.js';
import { decodeStoredTx } from '../tx/stored.js';
import { ok, type Result } from '../errors.js';
import {
  EXPORT_INSTRUCTION_SOFT_LIMIT,
  EXPORT_MAX_BYTES,
  EXPORT_MAX_SEGMENT,
  SEGMENT_BLOCK,
  SEGMENT_RECEIPTS,
  SEGMENT_TRANSACTIONS,
  encodeBlockSegment,
  encodeReceiptRecord,
  encodeRecordSegment,
  encodeTxRecord,
  type ExportChunk,
  type ExportCursor,
  type ExportError,
  type ExportResponse,
} from './format.js';

export interface ExportDeps {
  readonly host: CoreHost;
  readonly store: ChainStore;
  readonly txs: KvMap;
  readonly headNumber: bigint;
  readonly firstAvailableBlock: bigint;
  /** The chain's commitment version, written into every block segment. */
  readonly commitment: CommitmentVersion;
}

export type ExportResult = { ok: true; value: ExportResponse } | { ok: false; error: ExportError };

const fail = (error: ExportError): ExportResult => ({ ok: false, error });

/** Builds one segment of a block (the block record is read once per block by the caller). */
export function buildSegment(d: Pick<ExportDeps, 'store' | 'txs' | 'commitment'>, b: StoredBlock, segment: number): Result<Uint8Array> {
  if (segment === SEGMENT_BLOCK) return ok(encodeBlockSegment(b, d.commitment));
  if (segment === SEGMENT_TRANSACTIONS) {
    const records: Uint8Array[] = [];
    for (const t of b.txs) {
      const raw = d.txs.get(t.txId);
      if (raw === undefined) return { ok: false, error: { code: 'exec.state.unavailable', message: `transaction body missing in block ${b.number}` } };
      records.push(encodeTxRecord(t.txId, decodeStoredTx(raw)));
    }
    return ok(encodeRecordSegment(SEGMENT_TRANSACTIONS, b.number, records));
  }
  let logs: StoredLog[] | undefined;
  const records: Uint8Array[] = [];
  for (const t of b.txs) {
    const raw = d.store.maps.receipts.get(t.txId);
    if (raw === undefined) return { ok: false, error: { code: 'exec.state.unavailable', message: `receipt missing in block ${b.number}` } };
    const r = decodeReceipt(raw);
    if (r.logCount > 0) logs ??= d.store.getBlockLogs(b.number);
    const mine = r.logCount === 0 ? [] : logs!.slice(r.firstLogIndex, r.firstLogIndex + r.logCount);
    records.push(encodeReceiptRecord(t.txId, r, mine));
  }
  return ok(encodeRecordSegment(SEGMENT_RECEIPTS, b.number, records));
}

export function exportBlocks(d: ExportDeps, cursor: ExportCursor | undefined, maxBytes: number): ExportResult {
  const head = d.headNumber;
  const first = d.firstAvailableBlock;
  if (!Number.isInteger(maxBytes) || maxBytes <= 0) return fail({ kind: 'InvalidArgument', message: 'max_bytes must be positive' });
  const budget = Math.min(maxBytes, EXPORT_MAX_BYTES);
  let cur = cursor ?? { blockNumber: first, segment: 0, byteOffset: 0 };
  if (!Number.isInteger(cur.segment) || cur.segment < 0 || cur.segment > EXPORT_MAX_SEGMENT) {
    return fail({ kind: 'InvalidCursor', message: `segment must be in 0..${EXPORT_MAX_SEGMENT}, got ${cur.segment}` });
  }
  if (!Number.isInteger(cur.byteOffset) || cur.byteOffset < 0) return fail({ kind: 'InvalidCursor', message: 'byte_offset must be a non-negative integer' });
  if (cur.blockNumber > head + 1n) {
    return fail({ kind: 'InvalidCursor', message: `block_number ${cur.blockNumber} is beyond the head ${head} + 1` });
  }
  if (cur.blockNumber === head + 1n && (cur.segment !== 0 || cur.byteOffset !== 0)) {
    return fail({ kind: 'InvalidCursor', message: `block ${cur.blockNumber} does not exist yet; the only cursor there is segment 0, byte_offset 0` });
  }
  if (cur.blockNumber < first) return fail({ kind: 'Pruned', firstAvailableBlock: first });

  const chunks: ExportChunk[] = [];
  let used = 0;
  let block: StoredBlock | undefined;
  let firstSegment = true;
  while (used < budget && cur.blockNumber <= head) {
    if (chunks.length > 0 && d.host.instructionCounter() >= EXPORT_INSTRUCTION_SOFT_LIMIT) break;
    if (block === undefined || block.number !== cur.blockNumber) block = d.store.getBlock(cur.blockNumber);
    if (block === undefined) return fail({ kind: 'Unavailable', message: `block ${cur.blockNumber} is missing from the store` });
    const seg = buildSegment(d, block, cur.segment);
    if (!seg.ok) return fail({ kind: 'Unavailable', message: seg.error.message });
    const bytes = seg.value;
    if (cur.byteOffset > bytes.length) {
      if (firstSegment) {
        return fail({ kind: 'InvalidCursor', message: `byte_offset ${cur.byteOffset} is past the end of segment ${cur.segment} of block ${cur.blockNumber} (${bytes.length} bytes)` });
      }
    }
    firstSegment = false;
    const take = Math.min(bytes.length - cur.byteOffset, budget - used);
    if (take > 0) {
      chunks.push({ blockNumber: cur.blockNumber, segment: cur.segment, byteOffset: cur.byteOffset, segmentLength: bytes.length, data: bytes.subarray(cur.byteOffset, cur.byteOffset + take) });
      used += take;
    }
    const off = cur.byteOffset + take;
    if (off < bytes.length) cur = { ...cur, byteOffset: off };
    else if (cur.segment < EXPORT_MAX_SEGMENT) cur = { blockNumber: cur.blockNumber, segment: cur.segment + 1, byteOffset: 0 };
    else cur = { blockNumber: cur.blockNumber + 1n, segment: 0, byteOffset: 0 };
  }
  return { ok: true, value: { chunks, nextCursor: cur, headBlock: head, firstAvailableBlock: first } };
}
