// The decoder of the export_blocks payload (format versions 1, 2 and 3, docs/export-format.md), beside its encoder
// (./format.ts): pure functions from the exported bytes to the stored records they carry. The indexer reads
// the stream with it; tests rebuild the canister's views from its records (tests/support/export_views.ts).
//
//   const asm = new ExportAssembler(cursor);           // where the pull starts
//   for (const chunk of response.chunks) for (const b of asm.push(chunk)) store(b);   // whole blocks, in order
//   cursor = asm.cursor;                               // equals response.next_cursor

import { ByteReader } from '../codec/bytes.js';
import { readBlockFields, type StoredBlock, type StoredLog, type StoredReceipt } from '../chain/store.js';
import type { StoredTx } from '../tx/stored.js';
import type { TxOrigin } from '../tx/types.js';
import { isCommitmentVersion, type CommitmentVersion } from '../chain/commitments.js';
import { decodeStateChanges, StateChangesError, type AccountChange } from './state_changes.js';
import { EXPORT_FORMAT_VERSIONS_READ, EXPORT_MAX_SEGMENT, SEGMENT_BLOCK, SEGMENT_RECEIPTS, SEGMENT_TRANSACTIONS, type ExportChunk, type ExportCursor } from './format.js';

export class ExportFormatError extends Error {}

export interface ExportedTx extends StoredTx {
  readonly txId: Uint8Array;
}

export interface ExportedReceipt extends StoredReceipt {
  readonly txId: Uint8Array;
  /** This receipt's logs; their block log index is firstLogIndex + i. */
  readonly logs: readonly StoredLog[];
}

export interface ExportedBlock {
  readonly block: ExportedBlockRecord;
  /** In block order. */
  readonly txs: readonly ExportedTx[];
  readonly receipts: readonly ExportedReceipt[];
  /**
   * State written at the start of the block, before its first transaction, by no transaction: block 0's
   * genesis allocations and code, a later block's development cheats (empty for most blocks, and for every
   * block of format version 1). Apply them in order before executing the block's transactions.
   */
  readonly stateChanges: readonly AccountChange[];
  /** The block's three segments as exported (the indexer archives them). */
  readonly segments: readonly [Uint8Array, Uint8Array, Uint8Array];
}

/** The codec's reader, with this format's error for truncated input. */
class Reader extends ByteReader {
  protected override truncated(n: number): Error {
    return new ExportFormatError(`truncated: need ${n} bytes at offset ${this.off} of ${this.b.length}`);
  }
}

function readHeader(r: Reader, segment: number): { blockNumber: bigint; version: number } {
  const v = r.u8();
  if (!EXPORT_FORMAT_VERSIONS_READ.includes(v)) throw new ExportFormatError(`unsupported export format version ${v} (this decoder reads ${EXPORT_FORMAT_VERSIONS_READ.join(', ')})`);
  const s = r.u8();
  if (s !== segment) throw new ExportFormatError(`expected segment ${segment}, found ${s}`);
  return { blockNumber: r.u64(), version: v };
}

/** A block record as exported: the stored record and the rule its roots were made with. */
export type ExportedBlockRecord = StoredBlock & {
  /** Its commitment version (../chain/commitments.ts): from format 3 on in segment 0; 1 for formats 1 and 2. */
  readonly commitment: CommitmentVersion;
};

/**
 * Segment 0: the block record, its (tx_id, eth_tx_hash) list, (version 3) its commitment version and (version
 * 2) its state changes, kept encoded in `block.stateChanges` as the store keeps them (absent when there are
 * none); decodeBlock decodes them.
 */
export function decodeBlockSegment(bytes: Uint8Array): ExportedBlockRecord {
  const r = new Reader(bytes);
  const { blockNumber, version } = readHeader(r, SEGMENT_BLOCK);
  const block = readBlockFields(r, blockNumber);
  if (version === 1) {
    if (r.remaining !== 0) throw new ExportFormatError(`${r.remaining} trailing bytes in segment 0`);
    return { ...block, commitment: 1 };
  }
  let commitment: CommitmentVersion = 1;
  if (version >= 3) {
    const v = r.u8();
    if (!isCommitmentVersion(v)) throw new ExportFormatError(`block ${blockNumber}: unknown commitment version ${v}`);
    commitment = v;
  }
  const changes = r.fixed(r.remaining);
  if (changes.length < 4) throw new ExportFormatError('segment 0 ends before its state changes');
  // An empty list (4 zero bytes) is stored as none.
  const empty = changes.length === 4 && changes[0] === 0 && changes[1] === 0 && changes[2] === 0 && changes[3] === 0;
  return empty ? { ...block, commitment } : { ...block, commitment, stateChanges: changes };
}

/** The decoded state changes of a block record (empty when it has none); ExportFormatError if malformed. */
export function blockStateChanges(block: StoredBlock): AccountChange[] {
  if (block.stateChanges === undefined) return [];
  try {
    return decodeStateChanges(block.stateChanges);
  } catch (e) {
    if (e instanceof StateChangesError) throw new ExportFormatError(`block ${block.number}: ${e.message}`);
    throw e;
  }
}

/** Reads `header || u32 n || n * (u32 len || record)`, each record with `read` (which may leave appended fields unread). */
function decodeRecords<T>(bytes: Uint8Array, segment: number, read: (r: Reader) => T): { blockNumber: bigint; records: T[] } {
  const r = new Reader(bytes);
  const { blockNumber } = readHeader(r, segment);
  const n = r.u32();
  const records: T[] = [];
  for (let i = 0; i < n; i++) records.push(read(new Reader(r.bytes())));
  if (r.remaining !== 0) throw new ExportFormatError(`${r.remaining} trailing bytes in segment ${segment}`);
  return { blockNumber, records };
}

export function decodeTxSegment(bytes: Uint8Array): { blockNumber: bigint; txs: ExportedTx[] } {
  const { blockNumber, records } = decodeRecords(bytes, SEGMENT_TRANSACTIONS, (r) => {
    const txId = r.fixed(8);
    const ethHash = r.fixed(32);
    const origin = r.u8() as TxOrigin;
    const from = r.fixed(20);
    const principal = r.short();
    const raw = r.bytes();
    return { txId, ethHash, origin, from, principal, raw };
  });
  return { blockNumber, txs: records };
}

export function decodeReceiptSegment(bytes: Uint8Array): { blockNumber: bigint; receipts: ExportedReceipt[] } {
  const { blockNumber, records } = decodeRecords(bytes, SEGMENT_RECEIPTS, (r) => {
    const txId = r.fixed(8);
    const status = r.u8() as 0 | 1;
    const gasUsed = r.u64();
    const cumulativeGasUsed = r.u64();
    const effectiveGasPrice = r.big();
    const contractAddress = r.u8() === 1 ? r.fixed(20) : undefined;
    const failureCode = r.str();
    const firstLogIndex = r.u32();
    const logsBloom = r.u8() === 1 ? r.fixed(256) : new Uint8Array(256);
    const m = r.u32();
    const logs: StoredLog[] = [];
    for (let i = 0; i < m; i++) {
      const address = r.fixed(20);
      const k = r.u8();
      const topics: Uint8Array[] = [];
      for (let j = 0; j < k; j++) topics.push(r.fixed(32));
      logs.push({ address, topics, data: r.bytes(), txIndex: -1 });
    }
    return { txId, status, gasUsed, cumulativeGasUsed, effectiveGasPrice, contractAddress, failureCode, firstLogIndex, logCount: m, logsBloom, logs };
  });
  return { blockNumber, receipts: records };
}

/** Decodes the three segments of one block and checks they agree with each other. */
export function decodeBlock(segments: readonly [Uint8Array, Uint8Array, Uint8Array]): ExportedBlock {
  const block = decodeBlockSegment(segments[0]);
  const stateChanges = blockStateChanges(block);
  const t = decodeTxSegment(segments[1]);
  const r = decodeReceiptSegment(segments[2]);
  if (t.blockNumber !== block.number || r.blockNumber !== block.number) throw new ExportFormatError(`segments of block ${block.number} name other blocks`);
  if (t.txs.length !== block.txs.length || r.receipts.length !== block.txs.length) {
    throw new ExportFormatError(`block ${block.number}: ${block.txs.length} transactions, ${t.txs.length} bodies, ${r.receipts.length} receipts`);
  }
  const receipts = r.receipts.map((x, i) => ({ ...x, logs: x.logs.map((l) => ({ ...l, txIndex: i })) }));
  return { block, txs: t.txs, receipts, stateChanges, segments: [segments[0], segments[1], segments[2]] };
}

/**
 * Reassembles blocks from chunks, in the order export_blocks returns them (several calls in a row). Throws
 * ExportFormatError if a chunk does not continue exactly where the previous one ended.
 *
 * A segment is spliced only from chunks of one encoding: the canister may be upgraded between two calls, and
 * a segment continued in another format (format 3's segment 0 is one byte longer) would decode as corrupt or,
 * worse, as something else. Such a block is pulled again from its start (see push).
 */
export class ExportAssembler {
  private parts: Uint8Array[] = [];
  private partsLength = 0;
  /** segment_len of the segment in progress (undefined when none, or when restored from a snapshot). */
  private partLength: number | undefined;
  private segments: Uint8Array[] = [];

  /**
   * `cursor` is where the pull starts. To resume a pull stopped mid-block, pass the state saved with
   * snapshot(); a bare mid-block cursor cannot rebuild that block (its earlier bytes are not here).
   */
  constructor(
    private cur: ExportCursor,
    saved?: { readonly segments: readonly Uint8Array[]; readonly partial: Uint8Array },
  ) {
    if (saved !== undefined) {
      this.segments = [...saved.segments];
      if (saved.partial.length > 0) this.parts = [saved.partial];
      this.partsLength = saved.partial.length;
    }
  }

  /** Where the next chunk must start; equals the response's next_cursor after pushing all its chunks. */
  get cursor(): ExportCursor {
    return this.cur;
  }

  /** The bytes of the block in progress, to persist with the cursor (restore with the constructor). */
  snapshot(): { cursor: ExportCursor; segments: Uint8Array[]; partial: Uint8Array } {
    return { cursor: this.cur, segments: [...this.segments], partial: concat(this.parts, this.partsLength) };
  }

  /** Starts again at a new cursor (for example first_available_block after Err Pruned), dropping partial data. */
  restart(cursor: ExportCursor): void {
    this.cur = cursor;
    this.parts = [];
    this.partsLength = 0;
    this.partLength = undefined;
    this.segments = [];
  }

  /**
   * Pushes the chunks of one export_blocks response, all of format `formatVersion`, in order; returns the
   * blocks they complete. When a chunk continues a segment begun in another encoding (the canister was
   * upgraded between the calls), that block's bytes are dropped, the cursor goes back to the block's start
   * and the rest of the response is ignored: the next call pulls the block again, whole in the new format.
   */
  pushResponse(chunks: readonly ExportChunk[], formatVersion: number): ExportedBlock[] {
    const out: ExportedBlock[] = [];
    for (const c of chunks) {
      const done = this.add(c, formatVersion);
      if (done === undefined) break;
      out.push(...done);
    }
    return out;
  }

  /**
   * Pushes one chunk. With `formatVersion` (the response's), a chunk that cannot continue the segment in
   * progress returns [] with the cursor back at the block's start (segment 0, offset 0): the chunks after
   * it in the same response no longer continue the cursor, so use pushResponse for whole responses.
   */
  push(c: ExportChunk, formatVersion?: number): ExportedBlock[] {
    return this.add(c, formatVersion) ?? [];
  }

  /** One chunk; undefined when its block was dropped to be pulled again from its start. */
  private add(c: ExportChunk, formatVersion: number | undefined): ExportedBlock[] | undefined {
    const cur = this.cur;
    if (c.blockNumber !== cur.blockNumber || c.segment !== cur.segment || c.byteOffset !== cur.byteOffset) {
      throw new ExportFormatError(
        `chunk (${c.blockNumber}, ${c.segment}, ${c.byteOffset}) does not continue the cursor (${cur.blockNumber}, ${cur.segment}, ${cur.byteOffset})`,
      );
    }
    if (this.segments.length !== c.segment || this.partsLength !== c.byteOffset) {
      throw new ExportFormatError(
        `block ${c.blockNumber}: chunk at segment ${c.segment} offset ${c.byteOffset} without the bytes before it; start at segment 0 or restore a snapshot`,
      );
    }
    if (c.byteOffset > 0 && this.otherEncoding(c, formatVersion)) {
      // The cursor is mid-segment, so the canister answers from that offset; only the block's start is safe.
      this.restart({ blockNumber: c.blockNumber, segment: 0, byteOffset: 0 });
      return undefined;
    }
    const end = c.byteOffset + c.data.length;
    if (end > c.segmentLength) throw new ExportFormatError('chunk runs past its segment');
    this.parts.push(c.data);
    this.partsLength = end;
    this.partLength = c.segmentLength;
    if (end < c.segmentLength) {
      this.cur = { ...cur, byteOffset: end };
      return [];
    }
    this.segments.push(concat(this.parts, c.segmentLength));
    this.parts = [];
    this.partsLength = 0;
    this.partLength = undefined;
    if (c.segment < EXPORT_MAX_SEGMENT) {
      this.cur = { blockNumber: c.blockNumber, segment: c.segment + 1, byteOffset: 0 };
      return [];
    }
    const [s0, s1, s2] = this.segments as [Uint8Array, Uint8Array, Uint8Array];
    this.segments = [];
    this.cur = { blockNumber: c.blockNumber + 1n, segment: 0, byteOffset: 0 };
    return [decodeBlock([s0, s1, s2])];
  }

  /** Whether c, continuing the segment in progress, belongs to another encoding of it (length or format). */
  private otherEncoding(c: ExportChunk, formatVersion: number | undefined): boolean {
    if (this.partLength !== undefined && this.partLength !== c.segmentLength) return true;
    // The segment's first byte is its format version (its header).
    const first = this.parts[0];
    return formatVersion !== undefined && first !== undefined && first.length > 0 && first[0] !== formatVersion;
  }
}

function concat(parts: readonly Uint8Array[], len: number): Uint8Array {
  if (parts.length === 1 && parts[0]!.length === len) return parts[0]!;
  const out = new Uint8Array(len);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
