// Stored encodings of a transaction (Txs map) and of its status (TxStatus map).
//
// StoredTx  = u8 origin (0 EthSigned, 1 IcSynthetic, 2 Impersonated) || from[20] || eth_tx_hash[32]
//             || u8 len(principal) || principal (the submitting IC caller; empty for raw txs) || u32 len(raw) || raw
//   raw is the signed transaction exactly as submitted, or the IcSynthetic canonical bytes. Fields are parsed
//   from raw on read (cheap; no hashing, no recovery): one source of truth, no second copy of calldata.
// TxStatus  = 0x00 Queued | 0x01 Included || block u64 || index u32 || block_hash[32] | 0x02 Dropped || code (u8 len + utf8)

import type { Address, Bytes32 } from '../engine.js';
import type { ErrorCode } from '../errors.js';
import { ByteReader, ByteWriter } from '../codec/bytes.js';
import { parseSignedTx, parseStoredFields } from './decode.js';
import { decodeCanonical } from './ic_synthetic.js';
import { impersonatedSignature } from './impersonated.js';
import { TxOrigin, type EthSignature, type TxFields } from './types.js';

export interface StoredTx {
  readonly origin: TxOrigin;
  readonly from: Address;
  readonly ethHash: Bytes32;
  readonly principal: Uint8Array;
  readonly raw: Uint8Array;
}

export function encodeStoredTx(t: StoredTx): Uint8Array {
  return new ByteWriter(64 + t.raw.length)
    .u8(t.origin)
    .fixed(t.from)
    .fixed(t.ethHash)
    .short(t.principal)
    .bytes(t.raw)
    .finish();
}

/**
 * Read in place (block production reads one per transaction, block.transfer.instructions_per_tx): the fields
 * as ByteReader gives them (views of b); a record too short for its lengths goes to ByteReader for its error.
 */
export function decodeStoredTx(b: Uint8Array): StoredTx {
  const p = 54 + (b[53] ?? 0);
  const n = b.length >= p + 4 ? b[p]! * 0x1000000 + ((b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) : -1;
  if (n < 0 || p + 4 + n > b.length) return decodeStoredTxByReader(b);
  return { origin: b[0] as TxOrigin, from: b.subarray(1, 21), ethHash: b.subarray(21, 53), principal: b.subarray(54, p), raw: b.subarray(p + 4, p + 4 + n) };
}

/** decodeStoredTx through ByteReader: the reference, and the errors of a truncated record. */
export function decodeStoredTxByReader(b: Uint8Array): StoredTx {
  const r = new ByteReader(b);
  const origin = r.u8() as TxOrigin;
  return { origin, from: r.fixed(20), ethHash: r.fixed(32), principal: r.short(), raw: r.bytes() };
}

/** Fields (and the signature of an EthSigned tx) of a stored transaction. */
export function storedFields(t: StoredTx): { fields: TxFields; sig: EthSignature | undefined } {
  if (t.origin === TxOrigin.IcSynthetic) return { fields: decodeCanonical(t.raw).fields, sig: undefined };
  if (t.origin === TxOrigin.Impersonated) {
    // The placeholder signature (r = s = 0) is outside parseSignedTx's ranges: the fields alone are parsed.
    const fields = storedTxFields(t);
    return { fields, sig: impersonatedSignature(fields) };
  }
  const p = parseSignedTx(t.raw);
  // Stored bytes passed the same parse at submit; failing now means corrupted storage.
  if (!p.ok) throw new Error(`stored transaction no longer parses: ${p.error.message}`);
  return { fields: p.value.fields, sig: p.value.sig };
}

/** Fields only (block production): an EthSigned transaction's signature is not read. */
export function storedTxFields(t: StoredTx): TxFields {
  if (t.origin === TxOrigin.IcSynthetic) return decodeCanonical(t.raw).fields;
  const p = parseStoredFields(t.raw);
  if (!p.ok) throw new Error(`stored transaction no longer parses: ${p.error.message}`);
  return p.value;
}

export type TxStatus =
  | { readonly kind: 'Queued' }
  | { readonly kind: 'Included'; readonly blockNumber: bigint; readonly txIndex: number; readonly blockHash: Bytes32 }
  | { readonly kind: 'Dropped'; readonly code: ErrorCode };

export function encodeTxStatus(s: TxStatus): Uint8Array {
  switch (s.kind) {
    case 'Queued':
      return Uint8Array.of(0);
    case 'Included': {
      // Written in place (one per included transaction, block.finalize.instructions_per_tx): ByteWriter's bytes.
      const h = s.blockHash;
      const out = new Uint8Array(13 + h.length);
      const v = new DataView(out.buffer);
      out[0] = 1;
      v.setBigUint64(1, s.blockNumber);
      v.setUint32(9, s.txIndex >>> 0);
      out.set(h, 13);
      return out;
    }
    case 'Dropped':
      return new ByteWriter(32).u8(2).str(s.code).finish();
  }
}

export function decodeTxStatus(b: Uint8Array): TxStatus {
  const r = new ByteReader(b);
  const k = r.u8();
  if (k === 0) return { kind: 'Queued' };
  if (k === 1) return { kind: 'Included', blockNumber: r.u64(), txIndex: r.u32(), blockHash: r.fixed(32) };
  return { kind: 'Dropped', code: r.str() as ErrorCode };
}
