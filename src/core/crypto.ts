// Hashing and signature recovery used by the core (tx decode) and plugged into EthereumJS
// (Common customCrypto). One module so the cheapest measured implementation is swapped in one place.
//
// keccak256: ./keccak.ts, a keccak-f[1600] on int32 locals written for QuickJS. Inside the canister one
// permutation (136-byte block) costs 1.88 M instructions, against 4.28 M for js-sha3 and about 13 M for
// @noble/hashes (measured with the host's counter; scratch/blockprof).
// Recovery: ./secp256k1.ts, written for the canister's cost model: about 61 M instructions inside the
// canister against about 184 M for @noble/curves (whose precomputation saves < 8%), same results.

import { recoverPublicKey as recoverPublicKeySecp256k1, recoverPublicKeyAt, recoveryPoint, type RecoveryPoint } from './secp256k1.js';
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

/** recoverAddress with the signature's point R already found by recoveryPoint (hash-free, done first). */
export function recoverAddressAt(msgHash: Uint8Array, point: RecoveryPoint, s: bigint): Uint8Array | undefined {
  const pub = recoverPublicKeyAt(msgHash, point, s);
  return pub === undefined ? undefined : publicKeyToAddress(pub);
}
