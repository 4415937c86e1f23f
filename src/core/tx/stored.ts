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

export function decodeStoredTx(b: Uint8Array): StoredTx {
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
    case 'Included':
      return new ByteWriter(45).u8(1).u64(s.blockNumber).u32(s.txIndex).fixed(s.blockHash).finish();
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
