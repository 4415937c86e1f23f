// Hashing and signature recovery used by the core (tx decode) and plugged into EthereumJS
// (Common customCrypto). One module so the cheapest measured implementation is swapped in one place.
//
// keccak256: js-sha3, about 3x cheaper than @noble/hashes inside the canister (DESIGN.md: 4.6 M vs
// 13 M instructions for 118 bytes). js-sha3 probes `typeof window`/`self` at load; the canister
// entry deletes azle's throwing getters before this module loads, so a plain import is enough here.
// Recovery: @noble/curves secp256k1 (the only pure-JS candidate; its precomputation saves < 8%).

import { secp256k1 } from '@noble/curves/secp256k1.js';
import sha3 from 'js-sha3';

const keccakImpl = sha3.keccak256;

export function keccak256(data: Uint8Array): Uint8Array {
  return new Uint8Array(keccakImpl.arrayBuffer(data));
}

/** Uncompressed public key (64 bytes, no 0x04 prefix) that signed msgHash, or undefined if the signature is invalid. */
export function recoverPublicKey(msgHash: Uint8Array, r: bigint, s: bigint, yParity: number): Uint8Array | undefined {
  try {
    const sig = new secp256k1.Signature(r, s, yParity);
    const point = sig.recoverPublicKey(msgHash);
    return point.toBytes(false).subarray(1);
  } catch {
    return undefined;
  }
}

/** The 20-byte Ethereum address of a 64-byte uncompressed public key. */
export function publicKeyToAddress(publicKey: Uint8Array): Uint8Array {
  return keccak256(publicKey).subarray(12);
}

export function recoverAddress(msgHash: Uint8Array, r: bigint, s: bigint, yParity: number): Uint8Array | undefined {
  const pub = recoverPublicKey(msgHash, r, s, yParity);
  return pub === undefined ? undefined : publicKeyToAddress(pub);
}
