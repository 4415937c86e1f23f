// Chain history: blocks, hash index, receipts and per-block logs. Every read is a point get.
//
// Blocks (20)            number u64 -> u8 version(1) || block fields || [state changes]
//                        block fields = hash[32] || parent_hash[32] || timestamp u64 || gas_limit u64
//                        || gas_used u64 || base_fee big || state_root[32] || transactions_root[32] || receipts_root[32]
//                        || bloom[256] || coinbase[20] || mix_hash[32] || size u32 || u32 n || n * (tx_id[8] || eth_tx_hash[32])
//                        state changes: the block's out-of-transaction writes (export/state_changes.ts), present
//                        only when it has some (block 0 with genesis allocations, a block after development cheats);
//                        records written before they existed end after the fields, which reads as none.
//                        The block fields are export segment 0's too (writeBlockFields/readBlockFields, one codec).
// BlockHashToNumber (21) hash[32] -> number u64
// Receipts (24)          tx_id -> u8 status || gas_used u64 || cumulative_gas_used u64 || effective_gas_price big
//                        || opt contract[20] || first_log_index u32 || log_count u32 || u8 has_bloom || bloom[256]?
//                        || failure code (u8 len + utf8; empty on success)
// BlockLogs (25)         number u64 -> u32 n || n * (tx_index u32 || address[20] || u8 k || k * topic[32] || u32 len || data)
//   Logs live once, per block (eth_getLogs reads whole blocks); a receipt points at its range.

import type { Address, Bytes32, ExecLog } from '../engine.js';
import type { KvMap } from '../host.js';
import { bigintToMinBytes, ByteReader, ByteWriter, putBig, putU32, readU64be, u64be } from '../codec/bytes.js';
import { BLOOM_BYTES, EMPTY_BLOOM } from './bloom.js';
import { decodeFeeSummary, encodeFeeSummary, type FeeSummary } from './fee_summary.js';

export interface StoredBlock {
  readonly number: bigint;
  readonly hash: Bytes32;
  readonly parentHash: Bytes32;
  readonly timestamp: bigint;
  readonly gasLimit: bigint;
  readonly gasUsed: bigint;
  readonly baseFeePerGas: bigint;
  readonly stateRoot: Bytes32;
  readonly transactionsRoot: Bytes32;
  readonly receiptsRoot: Bytes32;
  readonly logsBloom: Uint8Array;
  readonly coinbase: Address;
  readonly mixHash: Bytes32;
  /** RLP size of the full block (header, transactions, no ommers, no withdrawals). */
  readonly size: number;
  readonly txs: readonly { readonly txId: Uint8Array; readonly ethHash: Bytes32 }[];
  /** The encoded state changes applied before the block's first transaction (export/state_changes.ts); absent: none. */
  readonly stateChanges?: Uint8Array;
}

export interface StoredReceipt {
  readonly status: 0 | 1;
  readonly gasUsed: bigint;
  readonly cumulativeGasUsed: bigint;
  readonly effectiveGasPrice: bigint;
  readonly contractAddress: Address | undefined;
  readonly firstLogIndex: number;
  readonly logCount: number;
  readonly logsBloom: Uint8Array;
  /** Error code when status is 0 (exec.reverted, exec.halt.*), '' on success. */
  readonly failureCode: string;
}

export interface StoredLog extends ExecLog {
  readonly txIndex: number;
}

export interface ChainMaps {
  readonly blocks: KvMap;
  readonly blockHashToNumber: KvMap;
  readonly receipts: KvMap;
  readonly blockLogs: KvMap;
  /** Per-block fee summaries (fee_summary.ts); absent in tools that do not need fee history. */
  readonly blockFeeSummary?: KvMap;
}

/** The block fields shared by the stored record and export segment 0 (the header comment has their layout). */
export function writeBlockFields(w: ByteWriter, b: StoredBlock): ByteWriter {
  w.fixed(b.hash)
    .fixed(b.parentHash)
    .u64(b.timestamp)
    .u64(b.gasLimit)
    .u64(b.gasUsed)
    .big(b.baseFeePerGas)
    .fixed(b.stateRoot)
    .fixed(b.transactionsRoot)
    .fixed(b.receiptsRoot)
    .fixed(b.logsBloom)
    .fixed(b.coinbase)
    .fixed(b.mixHash)
    .u32(b.size)
    .u32(b.txs.length);
  for (const t of b.txs) w.fixed(t.txId).fixed(t.ethHash);
  return w;
}

/** Reads what writeBlockFields wrote (without stateChanges: the caller reads what follows). */
export function readBlockFields(r: ByteReader, number: bigint): StoredBlock {
  const hash = r.fixed(32);
  const parentHash = r.fixed(32);
  const timestamp = r.u64();
  const gasLimit = r.u64();
  const gasUsed = r.u64();
  const baseFeePerGas = r.big();
  const stateRoot = r.fixed(32);
  const transactionsRoot = r.fixed(32);
  const receiptsRoot = r.fixed(32);
  const logsBloom = r.fixed(BLOOM_BYTES);
  const coinbase = r.fixed(20);
  const mixHash = r.fixed(32);
  const size = r.u32();
  const n = r.u32();
  // Each entry is 40 bytes: a count the bytes cannot hold is refused before allocating for it.
  if (n > r.remaining / 40) r.fixed(n * 40);
  const txs: { txId: Uint8Array; ethHash: Bytes32 }[] = [];
  for (let i = 0; i < n; i++) txs.push({ txId: r.fixed(8), ethHash: r.fixed(32) });
  return { number, hash, parentHash, timestamp, gasLimit, gasUsed, baseFeePerGas, stateRoot, transactionsRoot, receiptsRoot, logsBloom, coinbase, mixHash, size, txs };
}

/**
 * The block record, sized first and written into one array: the bytes writeBlockFields (ByteWriter, export
 * segment 0's codec) writes after the version byte, which tests/unit/chain_record_writers.test.ts compares it
 * with; one record a block, whose eighteen writer calls cost more than the writes (block.fixed.instructions).
 */
export function encodeBlock(b: StoredBlock): Uint8Array {
  const base = bigintToMinBytes(b.baseFeePerGas);
  const changes = b.stateChanges;
  let size =
    1 + b.hash.length + b.parentHash.length + 24 + 1 + base.length + b.stateRoot.length + b.transactionsRoot.length + b.receiptsRoot.length +
    b.logsBloom.length + b.coinbase.length + b.mixHash.length + 8 + (changes?.length ?? 0);
  for (const t of b.txs) size += t.txId.length + t.ethHash.length;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out[0] = 1;
  let o = putFixed(out, 1, b.hash);
  o = putFixed(out, o, b.parentHash);
  view.setBigUint64(o, b.timestamp);
  view.setBigUint64(o + 8, b.gasLimit);
  view.setBigUint64(o + 16, b.gasUsed);
  o = putBig(out, o + 24, base);
  o = putFixed(out, o, b.stateRoot);
  o = putFixed(out, o, b.transactionsRoot);
  o = putFixed(out, o, b.receiptsRoot);
  // out starts zeroed: the shared empty bloom of a block without logs needs no copy
  if (b.logsBloom !== EMPTY_BLOOM) out.set(b.logsBloom, o);
  o += b.logsBloom.length;
  o = putFixed(out, o, b.coinbase);
  o = putFixed(out, o, b.mixHash);
  o = putU32(out, o, b.size);
  o = putU32(out, o, b.txs.length);
  for (const t of b.txs) o = putFixed(out, putFixed(out, o, t.txId), t.ethHash);
  if (changes !== undefined) out.set(changes, o);
  return out;
}

/** Where the logsBloom starts in an encoded block record (after the fixed fields and the base fee's length-prefixed bytes). */
export function blockBloomOffset(bytes: Uint8Array): number {
  const baseFeeAt = 1 + 32 + 32 + 8 + 8 + 8;
  return baseFeeAt + 1 + bytes[baseFeeAt]! + 3 * 32;
}

export function decodeBlock(number: bigint, bytes: Uint8Array): StoredBlock {
  const r = new ByteReader(bytes);
  r.u8();
  const b = readBlockFields(r, number);
  return r.remaining === 0 ? b : { ...b, stateChanges: r.fixed(r.remaining) };
}

/**
 * The receipt record, sized first and written into one array: the bytes ByteWriter wrote (tests/unit/chain_receipt_writer.test.ts
 * keeps that encoder as the reference), whose method calls and u64s through DataView cost more in the canister,
 * one receipt a transaction (block.finalize.instructions_per_tx).
 */
export function encodeReceipt(r: StoredReceipt): Uint8Array {
  const price = bigintToMinBytes(r.effectiveGasPrice);
  // A failure code (exec.reverted, ...) as ByteWriter.str writes it: rare, so the writer's own way.
  const code = r.failureCode === '' ? undefined : new ByteWriter(32).str(r.failureCode).finish();
  const contract = r.contractAddress;
  // Most receipts have no logs: their all-zero bloom is stored as one flag byte. (A receipt with logs has a
  // non-zero bloom: every log sets bits for its address. Testing logCount saves a 256-step isZero scan.)
  const bloom = r.logCount === 0 ? undefined : r.logsBloom;
  const out = new Uint8Array(
    18 + price.length + (contract === undefined ? 1 : 1 + contract.length) + 8 + (bloom === undefined ? 1 : 1 + bloom.length) + (code === undefined ? 1 : code.length),
  );
  const view = new DataView(out.buffer);
  out[0] = r.status;
  view.setBigUint64(1, r.gasUsed);
  view.setBigUint64(9, r.cumulativeGasUsed);
  let o = putBig(out, 17, price);
  if (contract === undefined) out[o++] = 0;
  else {
    out[o] = 1;
    o = putFixed(out, o + 1, contract);
  }
  o = putU32(out, o, r.firstLogIndex);
  o = putU32(out, o, r.logCount);
  if (bloom === undefined) out[o++] = 0;
  else {
    out[o] = 1;
    o = putFixed(out, o + 1, bloom);
  }
  if (code === undefined) out[o] = 0;
  else out.set(code, o);
  return out;
}

function putFixed(out: Uint8Array, o: number, b: Uint8Array): number {
  out.set(b, o);
  return o + b.length;
}

export function decodeReceipt(b: Uint8Array): StoredReceipt {
  const r = new ByteReader(b);
  const status = r.u8() as 0 | 1;
  const gasUsed = r.u64();
  const cumulativeGasUsed = r.u64();
  const effectiveGasPrice = r.big();
  const contractAddress = r.optFixed(20);
  const firstLogIndex = r.u32();
  const logCount = r.u32();
  const logsBloom = r.u8() === 0 ? new Uint8Array(BLOOM_BYTES) : r.fixed(BLOOM_BYTES);
  const failureCode = r.str();
  return { status, gasUsed, cumulativeGasUsed, effectiveGasPrice, contractAddress, firstLogIndex, logCount, logsBloom, failureCode };
}

export function encodeLogs(logs: readonly StoredLog[]): Uint8Array {
  const w = new ByteWriter(4 + logs.length * 128).u32(logs.length);
  for (const l of logs) {
    w.u32(l.txIndex).fixed(l.address).u8(l.topics.length);
    for (const t of l.topics) w.fixed(t);
    w.bytes(l.data);
  }
  return w.finish();
}

export function decodeLogs(b: Uint8Array): StoredLog[] {
  const r = new ByteReader(b);
  const n = r.u32();
  const out: StoredLog[] = [];
  for (let i = 0; i < n; i++) {
    const txIndex = r.u32();
    const address = r.fixed(20);
    const k = r.u8();
    const topics: Uint8Array[] = [];
    for (let j = 0; j < k; j++) topics.push(r.fixed(32));
    out.push({ txIndex, address, topics, data: r.bytes() });
  }
  return out;
}

export class ChainStore {
  constructor(readonly maps: ChainMaps) {}

  putBlock(b: StoredBlock, logs: readonly StoredLog[]): void {
    const key = u64be(b.number);
    this.maps.blocks.insert(key, encodeBlock(b));
    this.maps.blockHashToNumber.insert(b.hash, key);
    // Blocks without logs have no BlockLogs entry; a missing entry reads as no logs.
    if (logs.length > 0) this.maps.blockLogs.insert(key, encodeLogs(logs));
  }

  getBlock(n: bigint): StoredBlock | undefined {
    if (n < 0n || n >= 1n << 64n) return undefined;
    const b = this.maps.blocks.get(u64be(n));
    return b === undefined ? undefined : decodeBlock(n, b);
  }

  /** The encoded block record (decodeBlock reads it; blockBloomOffset finds its bloom without decoding). */
  getBlockRecord(n: bigint): Uint8Array | undefined {
    if (n < 0n || n >= 1n << 64n) return undefined;
    return this.maps.blocks.get(u64be(n));
  }

  getBlockNumberByHash(hash: Bytes32): bigint | undefined {
    const b = this.maps.blockHashToNumber.get(hash);
    return b === undefined ? undefined : readU64be(b);
  }

  getBlockLogs(n: bigint): StoredLog[] {
    const b = this.maps.blockLogs.get(u64be(n));
    return b === undefined ? [] : decodeLogs(b);
  }

  putReceipt(txId: Uint8Array, r: StoredReceipt): void {
    this.maps.receipts.insert(txId, encodeReceipt(r));
  }

  putFeeSummary(n: bigint, s: FeeSummary): void {
    this.maps.blockFeeSummary?.insert(u64be(n), encodeFeeSummary(s));
  }

  /** The stored summary, or undefined (a block produced before summaries existed, or no summary map). */
  getFeeSummary(n: bigint): FeeSummary | undefined {
    if (n < 0n || n >= 1n << 64n) return undefined;
    const b = this.maps.blockFeeSummary?.get(u64be(n));
    return b === undefined ? undefined : decodeFeeSummary(b);
  }

  getReceipt(txId: Uint8Array): StoredReceipt | undefined {
    const b = this.maps.receipts.get(txId);
    return b === undefined ? undefined : decodeReceipt(b);
  }
}
