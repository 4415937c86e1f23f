// Block header: Ethereum's Prague field list, so explorers and libraries can recompute the block hash
// as keccak256(RLP(header)) from the fields the views return.
//
// Fields this chain fixes (no PoW/PoS, no beacon chain, no blobs, no withdrawals, no EL requests):
//   ommersHash = keccak(RLP([])), difficulty = 0, nonce = 8 zero bytes, extraData = empty,
//   mixHash (prevRandao) = parent hash (deterministic; not a source of randomness),
//   withdrawalsRoot = empty trie root, blobGasUsed = 0, excessBlobGas = 0,
//   parentBeaconBlockRoot = 32 zero bytes, requestsHash = sha256("") (EIP-7685 with no requests).

import { sha256 } from '@noble/hashes/sha2.js';
import { keccak256 } from '../crypto.js';
import type { Address, Bytes32 } from '../engine.js';
import { bigintToMinBytes, fromHex } from '../codec/bytes.js';
import { rlpEncodeBytesList } from '../codec/rlp.js';
import { EMPTY_TRIE_ROOT } from './trie.js';

export const EMPTY_OMMERS_HASH = fromHex('1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347');
export const ZERO_HASH = new Uint8Array(32);
export const ZERO_NONCE = new Uint8Array(8);
export const EMPTY_REQUESTS_HASH = sha256(new Uint8Array(0));
export const WITHDRAWALS_ROOT = EMPTY_TRIE_ROOT;
export const PARENT_BEACON_BLOCK_ROOT = ZERO_HASH;

/** The header fields that vary per block; the rest are the constants above. */
export interface HeaderFields {
  readonly parentHash: Bytes32;
  readonly coinbase: Address;
  readonly stateRoot: Bytes32;
  readonly transactionsRoot: Bytes32;
  readonly receiptsRoot: Bytes32;
  readonly logsBloom: Uint8Array;
  readonly number: bigint;
  readonly gasLimit: bigint;
  readonly gasUsed: bigint;
  readonly timestamp: bigint;
  readonly mixHash: Bytes32;
  readonly baseFeePerGas: bigint;
}

export function encodeHeader(h: HeaderFields): Uint8Array {
  const n = bigintToMinBytes;
  return rlpEncodeBytesList([
    h.parentHash,
    EMPTY_OMMERS_HASH,
    h.coinbase,
    h.stateRoot,
    h.transactionsRoot,
    h.receiptsRoot,
    h.logsBloom,
    n(0n), // difficulty
    n(h.number),
    n(h.gasLimit),
    n(h.gasUsed),
    n(h.timestamp),
    new Uint8Array(0), // extraData
    h.mixHash,
    ZERO_NONCE,
    n(h.baseFeePerGas),
    WITHDRAWALS_ROOT,
    n(0n), // blobGasUsed
    n(0n), // excessBlobGas
    PARENT_BEACON_BLOCK_ROOT,
    EMPTY_REQUESTS_HASH,
  ]);
}

export function headerHash(encoded: Uint8Array): Bytes32 {
  return keccak256(encoded);
}
