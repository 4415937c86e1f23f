// Hashing and signature recovery used by the core (tx decode) and plugged into EthereumJS
// (Common customCrypto). One module so the cheapest measured implementation is swapped in one place.
//
// keccak256: ./keccak.ts, a keccak-f[1600] on int32 locals written for QuickJS. Inside the canister one
// permutation (136-byte block) costs 1.88 M instructions, against 4.28 M for js-sha3 and about 13 M for
// @noble/hashes (measured with the host's counter; scratch/blockprof).
// Recovery: ./secp256k1.ts, written for the canister's cost model: about 47 M instructions inside the
// canister against about 184 M for @noble/curves (whose precomputation saves < 8%), same results.

import { publicKeyBytes, recoverPublicKey as recoverPublicKeySecp256k1, recoverPointAt, recoveryPoint, type RecoveryPoint } from './secp256k1.js';
import { keccak256 as keccak256Impl } from './keccak.js';

/** keccak256 (Ethereum's), a fresh 32-byte array. */
export function keccak256(data: Uint8Array): Uint8Array {
  return keccak256Impl(data);
}

/** Uncompressed public key (64 bytes, no 0x04 prefix) that signed msgHash, or undefined if the signature is invalid. */
export function recoverPublicKey(msgHash: Uint8Array, r: bigint, s: bigint, yParity: number): Uint8Array | undefined {
  return recoverPublicKeySecp256k1(msgHash, r, s, yParity);
}

/** The 20-byte Ethereum address of a 64-byte uncompressed public key. */
export function publicKeyToAddress(publicKey: Uint8Array): Uint8Array {
  return keccak256(publicKey).subarray(12);
}

export function recoverAddress(msgHash: Uint8Array, r: bigint, s: bigint, yParity: number): Uint8Array | undefined {
  const pub = recoverPublicKey(msgHash, r, s, yParity);
  return pub === undefined ? undefined : publicKeyToAddress(pub);
}

export { recoveryPoint, type RecoveryPoint };

/**
 * Addresses of recently recovered keys, by the key's x (its y is compared): a sender's key is hashed once
 * (one keccak block, ~1.75 M instructions) and not again on its next transactions. A memo of a pure
 * function, so it changes no answer; cleared when full, so it stays small (~200 bytes an entry).
 */
const addressMemo = new Map<bigint, { y: bigint; address: Uint8Array }>();
const ADDRESS_MEMO_ENTRIES = 1024;

/** recoverAddress with the signature's point R already found by recoveryPoint (hash-free, done first). */
export function recoverAddressAt(msgHash: Uint8Array, point: RecoveryPoint, s: bigint): Uint8Array | undefined {
  const q = recoverPointAt(msgHash, point, s);
  if (q === undefined) return undefined;
  const known = addressMemo.get(q.x);
  if (known !== undefined && known.y === q.y) return known.address.slice();
  const address = publicKeyToAddress(publicKeyBytes(q));
  if (addressMemo.size >= ADDRESS_MEMO_ENTRIES) addressMemo.clear();
  addressMemo.set(q.x, { y: q.y, address: address.slice() });
  return address;
}
