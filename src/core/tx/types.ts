// The transaction model shared by the pool, block production and the views.

import type { Address, Bytes32 } from '../engine.js';

export type AccessList = readonly (readonly [Address, readonly Bytes32[]])[];

/** Fields common to every accepted transaction. Types 0 and 1 carry gasPrice in both fee fields. */
export interface TxFields {
  /** Ethereum type as executed: IcSynthetic executes as 2. */
  readonly type: 0 | 1 | 2;
  readonly chainId: bigint;
  readonly nonce: bigint;
  readonly gasLimit: bigint;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
  readonly to: Address | undefined;
  readonly value: bigint;
  readonly data: Uint8Array;
  readonly accessList: AccessList;
}

export interface EthSignature {
  /** As encoded: legacy v = chainId*2+35+yParity; typed v = yParity. */
  readonly v: bigint;
  readonly r: bigint;
  readonly s: bigint;
  readonly yParity: 0 | 1;
}

/** Impersonated: queued by a development canister's dev_submit_impersonated, with anvil's placeholder signature. */
export const TxOrigin = { EthSigned: 0, IcSynthetic: 1, Impersonated: 2 } as const;
export type TxOrigin = (typeof TxOrigin)[keyof typeof TxOrigin];

/** A parsed EthSigned transaction (no hashing, no recovery done yet). */
export interface ParsedEthTx {
  readonly fields: TxFields;
  readonly sig: EthSignature;
  /** Bytes whose keccak is the signing hash. */
  signingPayload(): Uint8Array;
}
