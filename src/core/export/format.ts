// export_blocks payload, format version 3 (docs/export-format.md is the reference; ./decode.ts the
// decoder). Every block is three byte strings, its segments, read in the order (block, segment, offset):
//
//   segment 0  block:        header(0) || hash[32] || parent_hash[32] || timestamp u64 || gas_limit u64 || gas_used u64
//                            || base_fee big || state_root[32] || transactions_root[32] || receipts_root[32]
//                            || logs_bloom[256] || miner[20] || mix_hash[32] || size u32
//                            || u32 n || n * (tx_id[8] || eth_tx_hash[32]) || commitment u8
//                            || state changes (./state_changes.ts)
//   segment 1  transactions: header(1) || u32 n || n * (u32 len || tx record)
//                            tx record = tx_id[8] || eth_tx_hash[32] || u8 origin (0 EthSigned, 1 IcSynthetic, 2 Impersonated)
//                            || sender[20] || u8 len || principal || u32 len || raw
//   segment 2  receipts:     header(2) || u32 n || n * (u32 len || receipt record)
//                            receipt record = tx_id[8] || status u8 || gas_used u64 || cumulative_gas_used u64
//                            || effective_gas_price big || u8 has_contract || contract[20]? || failure_code str
//                            || first_log_index u32 || u8 has_bloom || logs_bloom[256]? || u32 m
//                            || m * (address[20] || u8 k || k * topic[32] || u32 len || data)
//   header(s) = u8 format_version (3) || u8 segment || block_number u64
//
// Integers are big-endian; big = u8 length + minimal big-endian bytes; str = u8 length + UTF-8. Records are
// length-prefixed so that a decoder can skip fields appended at a record's end. Version 2 added the state
// changes at the end of segment 0, version 3 the block's commitment version (../chain/commitments.ts) before
// them; ./decode.ts still reads versions 1 and 2 (their blocks are all of commitment version 1).

import { ByteWriter } from '../codec/bytes.js';
import { NO_STATE_CHANGES } from './state_changes.js';
import { writeBlockFields, type StoredBlock, type StoredLog, type StoredReceipt } from '../chain/store.js';
import type { StoredTx } from '../tx/stored.js';
import type { CommitmentVersion } from '../chain/commitments.js';

/** The version the canister writes. */
export const EXPORT_FORMAT_VERSION = 3;
/**
 * The versions ./decode.ts reads (1: segment 0 without state changes, as archived by earlier indexers; 2:
 * without the commitment version, keccak256's).
 */
export const EXPORT_FORMAT_VERSIONS_READ: readonly number[] = [1, 2, 3];
/** Segments are 0..EXPORT_MAX_SEGMENT; INDEXER_MAX_SEGMENT must equal it (SPEC: 2). */
export const EXPORT_MAX_SEGMENT = 2;
export const SEGMENT_BLOCK = 0;
export const SEGMENT_TRANSACTIONS = 1;
export const SEGMENT_RECEIPTS = 2;
/**
 * Most payload bytes one export_blocks response carries, whatever max_bytes asks: 2 MiB of chunk data plus
 * the Candid framing (about 40 bytes a chunk) stays well under the IC's 3 MiB query response limit.
 */
export const EXPORT_MAX_BYTES = 2 * 1024 * 1024;
/**
 * A response stops starting new segments once the query has spent this many instructions (the IC's query
 * limit is 5 B; one segment of a full block costs far less, export.1mib.instructions), so any max_bytes is safe.
 */
export const EXPORT_INSTRUCTION_SOFT_LIMIT = 3_000_000_000n;

export interface ExportCursor {
  readonly blockNumber: bigint;
  readonly segment: number;
  readonly byteOffset: number;
}

export interface ExportChunk {
  readonly blockNumber: bigint;
  readonly segment: number;
  /** Offset of `data` within the segment. */
  readonly byteOffset: number;
  /** Total length of the segment; the segment is complete when byteOffset + data.length === segmentLength. */
  readonly segmentLength: number;
  readonly data: Uint8Array;
}

export interface ExportResponse {
  readonly chunks: readonly ExportChunk[];
  /** Where the next call starts: after the last byte returned (the same cursor when nothing was returned). */
  readonly nextCursor: ExportCursor;
  readonly headBlock: bigint;
  readonly firstAvailableBlock: bigint;
}

export type ExportError =
  | { readonly kind: 'Pruned'; readonly firstAvailableBlock: bigint }
  | { readonly kind: 'InvalidCursor'; readonly message: string }
  | { readonly kind: 'InvalidArgument'; readonly message: string }
  | { readonly kind: 'Unavailable'; readonly message: string };

const header = (w: ByteWriter, segment: number, n: bigint): ByteWriter => w.u8(EXPORT_FORMAT_VERSION).u8(segment).u64(n);

export function encodeBlockSegment(b: StoredBlock, commitment: CommitmentVersion): Uint8Array {
  const changes = b.stateChanges ?? NO_STATE_CHANGES;
  const w = writeBlockFields(header(new ByteWriter(725 + 40 * b.txs.length + changes.length), SEGMENT_BLOCK, b.number), b);
  return w.u8(commitment).fixed(changes).finish();
}

export function encodeTxRecord(txId: Uint8Array, t: StoredTx): Uint8Array {
  return new ByteWriter(72 + t.raw.length).fixed(txId).fixed(t.ethHash).u8(t.origin).fixed(t.from).short(t.principal).bytes(t.raw).finish();
}

export function encodeReceiptRecord(txId: Uint8Array, r: StoredReceipt, logs: readonly StoredLog[]): Uint8Array {
  const w = new ByteWriter(96 + (r.logCount > 0 ? 256 : 0) + logs.length * 128)
    .fixed(txId)
    .u8(r.status)
    .u64(r.gasUsed)
    .u64(r.cumulativeGasUsed)
    .big(r.effectiveGasPrice)
    .optFixed(r.contractAddress)
    .str(r.failureCode)
    .u32(r.firstLogIndex);
  if (r.logCount === 0) w.u8(0);
  else w.u8(1).fixed(r.logsBloom);
  w.u32(logs.length);
  for (const l of logs) {
    w.fixed(l.address).u8(l.topics.length);
    for (const t of l.topics) w.fixed(t);
    w.bytes(l.data);
  }
  return w.finish();
}

/** header || u32 n || n * (u32 len || record) */
export function encodeRecordSegment(segment: number, blockNumber: bigint, records: readonly Uint8Array[]): Uint8Array {
  let size = 14;
  for (const r of records) size += 4 + r.length;
  const w = header(new ByteWriter(size), segment, blockNumber).u32(records.length);
  for (const r of records) w.bytes(r);
  return w.finish();
}
