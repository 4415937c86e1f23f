// IcSynthetic identities, computed in the tests from the formulas documented in src/core/tx/ic_synthetic.ts
// (not by calling that code), so the canister's derivation is checked against the documentation.
import { Principal } from '@dfinity/principal';
import { word } from './asm.js';
import { CANISTER_ID, type IcTxInput } from './canister.js';
import { cat, keccak } from './eth.js';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** A user's self-authenticating principal: an Ed25519 public key (32 bytes of `seed`) in DER. */
export function selfAuthenticating(seed: number): Principal {
  const der = Uint8Array.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00, ...new Uint8Array(32).fill(seed)]);
  return Principal.selfAuthenticating(der);
}

/** sender = keccak256("evm-ic-synthetic-v1" || u8 len(canister) || canister || u8 len(caller) || caller)[12..32]. */
export function syntheticSender(caller: Principal, canister: Principal = Principal.fromText(CANISTER_ID)): Uint8Array {
  const c = canister.toUint8Array();
  const p = caller.toUint8Array();
  return keccak(cat(utf8('evm-ic-synthetic-v1'), Uint8Array.of(c.length), c, Uint8Array.of(p.length), p)).subarray(12);
}

/**
 * eth_tx_hash = keccak256("evm-ic-synthetic-tx-v1" || canonical), canonical = 0x01 || chain_id u64 || from ||
 * to_flag u8 (|| to) || nonce u64 || gas_limit u64 || max_fee u256 || max_priority_fee u256 || value u256 ||
 * u32 len(data) || data, all big-endian.
 */
export function syntheticHash(from: Uint8Array, t: IcTxInput): Uint8Array {
  const u = (v: bigint, n: number) => word(v).subarray(32 - n);
  const to = t.to.length === 0 ? Uint8Array.of(0) : cat(Uint8Array.of(1), t.to[0]!);
  const canonical = cat(
    Uint8Array.of(1),
    u(4801360n, 8),
    from,
    to,
    u(t.nonce, 8),
    u(t.gas_limit, 8),
    word(t.max_fee_per_gas),
    word(t.max_priority_fee_per_gas),
    word(t.value),
    u(BigInt(t.data.length), 4),
    t.data,
  );
  return keccak(cat(utf8('evm-ic-synthetic-tx-v1'), canonical));
}
