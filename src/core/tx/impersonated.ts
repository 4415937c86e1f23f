// Impersonated transactions (development canisters only: dev_submit_impersonated): a transaction from an
// address whose key nobody needs, as anvil's and Hardhat's impersonation make them. The stored raw bytes are
// the transaction with the placeholder signature of the anvil this project pins (r = 0, s = 0, y parity 0; a
// legacy v is chainId * 2 + 35; what its eth_getTransactionByHash shows). It is never recovered (the sender
// is stored), and views take its signature as that placeholder (impersonatedSignature).
//
// eth_tx_hash, as anvil computes an impersonated transaction's (crates/anvil/core/src/eth/transaction,
// MaybeImpersonatedTransaction::hash): keccak256(network encoding || sender), where the network encoding of
// a typed transaction is the RLP string of its EIP-2718 bytes, and of a legacy one its RLP list. Appending
// the sender keeps two senders' otherwise equal transactions apart. (anvil's newer source signs with r = s = 1;
// the test compares with the pinned anvil binary.)

import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../crypto.js';
import type { Address } from '../engine.js';
import { bigintToMinBytes, concatBytes } from '../codec/bytes.js';
import type { EthSignature, TxFields } from './types.js';

const EMPTY = new Uint8Array(0);
/** The placeholder's r and s (0: the empty RLP string). */
const ZERO = EMPTY;

/** The raw bytes of `f` with anvil's placeholder signature (EIP-2718 bytes for types 1 and 2). */
export function impersonatedRaw(f: TxFields): Uint8Array {
  const n = bigintToMinBytes;
  const to = f.to ?? EMPTY;
  const access = f.accessList.map(([a, keys]) => [a, [...keys]]);
  if (f.type === 0) return RLP.encode([n(f.nonce), n(f.maxFeePerGas), n(f.gasLimit), to, n(f.value), f.data, n(f.chainId * 2n + 35n), ZERO, ZERO]);
  if (f.type === 1) return concatBytes(Uint8Array.of(1), RLP.encode([n(f.chainId), n(f.nonce), n(f.maxFeePerGas), n(f.gasLimit), to, n(f.value), f.data, access, EMPTY, ZERO, ZERO]));
  return concatBytes(
    Uint8Array.of(2),
    RLP.encode([n(f.chainId), n(f.nonce), n(f.maxPriorityFeePerGas), n(f.maxFeePerGas), n(f.gasLimit), to, n(f.value), f.data, access, EMPTY, ZERO, ZERO]),
  );
}

/** The signature an impersonated transaction's raw bytes carry. */
export function impersonatedSignature(f: TxFields): EthSignature {
  return { v: f.type === 0 ? f.chainId * 2n + 35n : 0n, r: 0n, s: 0n, yParity: 0 };
}

/** anvil's hash of an impersonated transaction (see the header). */
export function impersonatedTxHash(raw: Uint8Array, sender: Address): Uint8Array {
  const network = raw[0]! >= 0xc0 ? raw : RLP.encode(raw);
  return keccak256(concatBytes(network, sender));
}

