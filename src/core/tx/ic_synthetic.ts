// IcSynthetic transactions (submit_ic_tx): no signature; the sender is derived from the caller principal
// and the canister id. They execute as type 2 (EIP-1559 fee rules) without an access list.
//
// Definitions (stable: changing any of them changes addresses and hashes):
//   sender       = keccak256("evm-ic-synthetic-v1" || u8 len(canister) || canister || u8 len(caller) || caller)[12..32]
//   canonical    = 0x01 (version) || chain_id u64 || from[20] || to_flag u8 (0|1) || to[20] if to_flag = 1
//                  || nonce u64 || gas_limit u64 || max_fee u256 || max_priority_fee u256 || value u256
//                  || u32 len(data) || data                                  (all integers big-endian, fixed width)
//   eth_tx_hash  = keccak256("evm-ic-synthetic-tx-v1" || canonical)
// The domain prefixes keep synthetic addresses and hashes apart from any signed transaction's: a signed
// tx hash is keccak of bytes starting with 0x01/0x02/0xc0.., never with the ASCII prefix.

import { CHAIN_ID } from '../constants.js';
import { keccak256 } from '../crypto.js';
import type { Address } from '../engine.js';
import { ErrorCode, err, ok, type Result } from '../errors.js';
import { ByteReader, ByteWriter, bigintToFixed, bytesToBigint, concatBytes } from '../codec/bytes.js';
import type { TxFields } from './types.js';

const SENDER_DOMAIN = new TextEncoder().encode('evm-ic-synthetic-v1');
const HASH_DOMAIN = new TextEncoder().encode('evm-ic-synthetic-tx-v1');
const CANONICAL_VERSION = 0x01;
const U64_MAX = (1n << 64n) - 1n;
const U256_MAX = (1n << 256n) - 1n;
/** A principal is at most 29 bytes (IC interface spec). */
const MAX_PRINCIPAL_LEN = 29;
export const ANONYMOUS_PRINCIPAL = Uint8Array.of(0x04);

/** The submit_ic_tx record, as the Candid wrapper passes it. */
export interface IcTxRecord {
  readonly to: Uint8Array | undefined;
  readonly value: bigint;
  readonly gasLimit: bigint;
  readonly nonce: bigint;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
  readonly data: Uint8Array;
}

export function isAnonymous(principal: Uint8Array): boolean {
  return principal.length === 1 && principal[0] === 0x04;
}

export function deriveSyntheticSender(caller: Uint8Array, canisterId: Uint8Array): Result<Address> {
  if (caller.length === 0 || caller.length > MAX_PRINCIPAL_LEN) {
    return err(ErrorCode.PrincipalDerivationFailed, `caller principal must be 1..${MAX_PRINCIPAL_LEN} bytes`);
  }
  if (canisterId.length === 0 || canisterId.length > MAX_PRINCIPAL_LEN) {
    return err(ErrorCode.PrincipalDerivationFailed, `canister id must be 1..${MAX_PRINCIPAL_LEN} bytes`);
  }
  const pre = concatBytes(SENDER_DOMAIN, Uint8Array.of(canisterId.length), canisterId, Uint8Array.of(caller.length), caller);
  return ok(keccak256(pre).slice(12));
}

/** Range checks of the record fields that Candid's nat cannot express. */
export function checkIcRecord(rec: IcTxRecord): Result<void> {
  if (rec.to !== undefined && rec.to.length !== 20) return err(ErrorCode.ArgInvalid, `to must be exactly 20 bytes, got ${rec.to.length}`);
  if (rec.nonce < 0n || rec.nonce >= U64_MAX) return err(ErrorCode.ArgInvalid, 'nonce out of range');
  if (rec.gasLimit < 0n || rec.gasLimit > U64_MAX) return err(ErrorCode.ArgInvalid, 'gas_limit out of range');
  for (const [name, v] of [
    ['value', rec.value],
    ['max_fee_per_gas', rec.maxFeePerGas],
    ['max_priority_fee_per_gas', rec.maxPriorityFeePerGas],
  ] as const) {
    if (v < 0n || v > U256_MAX) return err(ErrorCode.ArgInvalid, `${name} out of range`);
  }
  return ok(undefined);
}

export function encodeCanonical(rec: IcTxRecord, from: Address): Uint8Array {
  const w = new ByteWriter(160 + rec.data.length)
    .u8(CANONICAL_VERSION)
    .u64(CHAIN_ID)
    .fixed(from);
  if (rec.to === undefined) w.u8(0);
  else w.u8(1).fixed(rec.to);
  return w
    .u64(rec.nonce)
    .u64(rec.gasLimit)
    .fixed(bigintToFixed(rec.maxFeePerGas, 32))
    .fixed(bigintToFixed(rec.maxPriorityFeePerGas, 32))
    .fixed(bigintToFixed(rec.value, 32))
    .bytes(rec.data)
    .finish();
}

export function syntheticTxHash(canonical: Uint8Array): Uint8Array {
  return keccak256(concatBytes(HASH_DOMAIN, canonical));
}

export interface DecodedSynthetic {
  readonly from: Address;
  readonly fields: TxFields;
}

export function decodeCanonical(b: Uint8Array): DecodedSynthetic {
  const r = new ByteReader(b);
  const version = r.u8();
  if (version !== CANONICAL_VERSION) throw new Error(`unknown IcSynthetic canonical version ${version}`);
  const chainId = r.u64();
  const from = r.fixed(20);
  const to = r.u8() === 1 ? r.fixed(20) : undefined;
  const nonce = r.u64();
  const gasLimit = r.u64();
  const maxFeePerGas = bytesToBigint(r.fixed(32));
  const maxPriorityFeePerGas = bytesToBigint(r.fixed(32));
  const value = bytesToBigint(r.fixed(32));
  const data = r.bytes();
  return {
    from,
    fields: { type: 2, chainId, nonce, gasLimit, maxFeePerGas, maxPriorityFeePerGas, to, value, data, accessList: [] },
  };
}
