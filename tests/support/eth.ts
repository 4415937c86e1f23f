// Ethereum-side helpers for the wasm tests: keys, addresses, signed transactions (EthereumJS does the
// signing, so the canister is checked against an independent implementation), bloom, hex.
import { Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';

export const CHAIN_ID = 4801360;
export const GWEI = 10n ** 9n;
export const ETH = 10n ** 18n;
export const BASE_FEE = 250n * GWEI;
export const common = createCustomCommon({ chainId: CHAIN_ID }, Mainnet, { hardfork: Hardfork.Prague });

export const keccak = (b: Uint8Array): Uint8Array => keccak_256(b);
export { toHex as hex, fromHex } from '../../src/gateway/hex.js';
export const cat = (...xs: Uint8Array[]): Uint8Array => Uint8Array.from(Buffer.concat(xs));

export interface Account {
  readonly key: Uint8Array;
  readonly address: Uint8Array;
}

/** A deterministic test account: private key = 32 bytes of `seed`. */
export function account(seed: number): Account {
  const key = new Uint8Array(32).fill(seed);
  return { key, address: keccak(secp256k1.getPublicKey(key, false).subarray(1)).subarray(12) };
}

/** An address that holds nothing (a recipient): 0xbb.. with `n` in the last byte. */
export function plainAddress(n: number): Uint8Array {
  const a = new Uint8Array(20).fill(0xbb);
  a[19] = n;
  return a;
}

/** CREATE address: keccak256(rlp([sender, nonce]))[12..]. */
export function createAddress(sender: Uint8Array, nonce: bigint): Uint8Array {
  return keccak(RLP.encode([sender, nonce])).subarray(12);
}

interface TxBase {
  nonce: bigint;
  to?: Uint8Array | undefined;
  value?: bigint;
  data?: Uint8Array;
  gasLimit: bigint;
}

export const legacyTx = (from: Account, t: TxBase & { gasPrice: bigint }): TypedTransaction =>
  createLegacyTx({ ...t, to: t.to }, { common }).sign(from.key);

export const accessListTx = (from: Account, t: TxBase & { gasPrice: bigint; accessList?: [Uint8Array, Uint8Array[]][] }): TypedTransaction =>
  createAccessList2930Tx({ ...t, to: t.to, accessList: t.accessList ?? [] }, { common }).sign(from.key);

export const feeMarketTx = (from: Account, t: TxBase & { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }): TypedTransaction =>
  createFeeMarket1559Tx({ ...t, to: t.to }, { common }).sign(from.key);

/** A 21000-gas EIP-1559 value transfer at the default fees (maxFee 1000 gwei, priority 250 gwei). */
export const transfer = (from: Account, nonce: bigint, to: Uint8Array, value: bigint): TypedTransaction =>
  feeMarketTx(from, { nonce, to, value, gasLimit: 21000n, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI });

/** Ethereum's 2048-bit logs bloom, computed here from the definition (yellow paper M3:2048). */
export function logsBloom(logs: readonly { address: Uint8Array; topics: readonly Uint8Array[] }[]): Uint8Array {
  const bloom = new Uint8Array(256);
  const add = (v: Uint8Array): void => {
    const h = keccak(v);
    for (let i = 0; i < 6; i += 2) {
      const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
      const at = 255 - (bit >> 3);
      bloom[at] = bloom[at]! | (1 << (bit & 7));
    }
  };
  for (const l of logs) {
    add(l.address);
    for (const t of l.topics) add(t);
  }
  return bloom;
}

export const orBlooms = (blooms: readonly Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(256);
  for (const b of blooms) b.forEach((x, i) => (out[i] = out[i]! | x));
  return out;
};
