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
import { bigintToMinBytes, byteLength48, fromHex, put48 } from '../codec/bytes.js';
import { EMPTY_BLOOM } from './bloom.js';
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

/** The fields after the base fee, all constant: withdrawalsRoot, blobGasUsed 0, excessBlobGas 0, parentBeaconBlockRoot, requestsHash (one copy instead of five writes). */
const HEADER_TAIL = Uint8Array.of(0xa0, ...WITHDRAWALS_ROOT, 0x80, 0x80, 0xa0, ...PARENT_BEACON_BLOCK_ROOT, 0xa0, ...EMPTY_REQUESTS_HASH);

/** The list prefix (3), 12 fixed fields of 33 bytes, the coinbase (21), the bloom (259), five integers of at most 33 bytes, seven one-byte fields and the nonce (9). */
const HEADER_MAX_BYTES = 3 + 12 * 33 + 21 + 259 + 5 * 33 + 7 + 9;

/**
 * RLP(header), written field by field into one buffer: the list's payload is always between 256 and 65,535
 * bytes (the bloom alone is 259), so its prefix is always 0xf9 and two length bytes. In the canister this
 * is about a third of the generic list encoder's cost (rlpEncodeBytesList, which tests/unit/chain_header
 * compares it with).
 */
export function encodeHeader(h: HeaderFields): Uint8Array {
  const out = new Uint8Array(HEADER_MAX_BYTES);
  out[0] = 0xf9;
  let o = putHash(out, 3, h.parentHash);
  o = putHash(out, o, EMPTY_OMMERS_HASH);
  out[o] = 0x94;
  out.set(h.coinbase, o + 1);
  o = putHash(out, o + 21, h.stateRoot);
  o = putHash(out, o, h.transactionsRoot);
  o = putHash(out, o, h.receiptsRoot);
  if (h.logsBloom.length !== 256) throw new Error(`header: the bloom has ${h.logsBloom.length} bytes`);
  out[o] = 0xb9;
  out[o + 1] = 0x01;
  out[o + 2] = 0x00;
  // out starts zeroed: the shared empty bloom of a block without logs needs no copy
  if (h.logsBloom !== EMPTY_BLOOM) out.set(h.logsBloom, o + 3);
  out[o + 259] = 0x80; // difficulty 0
  o = putInt(out, o + 260, h.number);
  o = putInt(out, o, h.gasLimit);
  o = putInt(out, o, h.gasUsed);
  o = putInt(out, o, h.timestamp);
  out[o] = 0x80; // extraData
  o = putHash(out, o + 1, h.mixHash);
  out[o] = 0x88; // nonce: 8 zero bytes
  o = putInt(out, o + 9, h.baseFeePerGas);
  out.set(HEADER_TAIL, o);
  o += HEADER_TAIL.length;
  const payload = o - 3;
  out[1] = payload >> 8;
  out[2] = payload & 0xff;
  return out.slice(0, o);
}

function putHash(out: Uint8Array, o: number, h: Uint8Array): number {
  if (h.length !== 32) throw new Error(`header: a 32-byte field has ${h.length} bytes`);
  out[o] = 0xa0;
  out.set(h, o + 1);
  return o + 33;
}

/** An integer field: minimal big-endian bytes; below 2^48 with Number arithmetic (no bigint work). */
function putInt(out: Uint8Array, o: number, v: bigint): number {
  if (v < 0x80n) {
    if (v < 0n) throw new Error('header: negative integer field');
    out[o] = v === 0n ? 0x80 : Number(v);
    return o + 1;
  }
  if (v >= 0x1000000000000n) {
    const b = bigintToMinBytes(v);
    if (b.length > 32) throw new Error('header: integer field wider than 32 bytes');
    out[o] = 0x80 + b.length;
    out.set(b, o + 1);
    return o + 1 + b.length;
  }
  const x = Number(v);
  const len = byteLength48(x);
  out[o] = 0x80 + len;
  put48(out, o + 1 + len, x, len);
  return o + 1 + len;
}

export function headerHash(encoded: Uint8Array): Bytes32 {
  return keccak256(encoded);
}
