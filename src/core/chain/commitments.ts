// Block commitments: the header's transactionsRoot and receiptsRoot, and the hash of the stateRoot chain
// (../evm/state.ts).
//
// This chain does NOT use Ethereum's ordered Merkle-Patricia trie roots for these fields. No client of the
// chain verifies them (no light clients; ethers, viem and explorers take the roots as opaque bytes), and
// inside the canister the tries cost several hashes per transaction, more than executing a value transfer
// (block.transfer.instructions_per_tx). Instead each root is one hash H over a flat, deterministic
// serialization that a consumer of export_blocks recomputes from the exported blocks, transactions and
// receipts:
//
//   transactionsRoot = H(h_0 || h_1 || ... || h_{n-1})
//       h_i = the eth_tx_hash (32 bytes) of the block's i-th transaction (keccak256 of the signed bytes for
//       EthSigned transactions; the IcSynthetic hash otherwise, see tx/ic_synthetic.ts), in block order.
//
//   receiptsRoot = H(r_0 || r_1 || ... || r_{n-1})
//       r_i = status u8 (1 success, 0 failure) || cumulativeGasUsed u64 || logCount u32
//             || for each log, in order: address[20] || topicCount u8 || topicCount * topic[32]
//                                        || dataLength u32 || data
//       All integers big-endian. The bloom is not included: it is a function of the logs.
//
//   stateRoot step = H(parent_root || H(W))   (chainedRoot; W and the chain: ../evm/state.ts)
//
//   A block with no transactions (only the genesis block) has both roots equal to Ethereum's empty-trie
//   root keccak256(RLP("")) = 0x56e81f17...b421, as on Ethereum, in every version.
//
// H is fixed per chain by its commitment version, chosen at install and never changed (Meta key
// `commitment`; absent: version 1, every chain installed before versions existed):
//   1  H = keccak256.
//   2  H = BLAKE3 (../blake3.ts): the same bytes at a fraction of keccak's cost per byte inside the canister
//      (docs/performance.md, "Block commitments with BLAKE3"); the receipts commitment hashes every log byte
//      (block.finalize.instructions_per_log_byte), most of the block-level cost of a contract transaction.
// export_blocks carries the version in every block (docs/export-format.md, format 3), so a consumer verifies
// each block by the rule it was made with.
//
// The header hash stays Ethereum's keccak256(RLP(header)) over these field values in every version (header.ts).

import type { Bytes32, ExecLog } from '../engine.js';
import type { KvMap } from '../host.js';
import { keccak256 } from '../crypto.js';
import { blake3 } from '../blake3.js';
import { concatBytes } from '../codec/bytes.js';
import { MetaKey, metaKey } from '../store/meta_keys.js';
import { EMPTY_TRIE_ROOT } from './trie.js';

export type CommitmentVersion = 1 | 2;
/** The version a chain installed by this code uses. */
export const COMMITMENT_VERSION: CommitmentVersion = 2;
/** A chain without the Meta key was installed before commitment versions existed: keccak256. */
export const COMMITMENT_VERSION_UNMARKED: CommitmentVersion = 1;

export const isCommitmentVersion = (v: number): v is CommitmentVersion => v === 1 || v === 2;

/** The version's hash H. */
export function commitHash(v: CommitmentVersion): (data: Uint8Array) => Bytes32 {
  return v === 2 ? blake3 : keccak256;
}

/** One step of the state root chain: H(parent || H(data)). */
export function chainedRoot(parent: Bytes32, data: Uint8Array, v: CommitmentVersion): Bytes32 {
  const h = commitHash(v);
  return h(concatBytes(parent, h(data)));
}

const K_COMMITMENT = metaKey(MetaKey.Commitment);

/** The chain's commitment version, or undefined before the install has written it (and on a chain from before versions: see COMMITMENT_VERSION_UNMARKED). */
export function storedCommitmentVersion(meta: KvMap): CommitmentVersion | undefined {
  const b = meta.get(K_COMMITMENT);
  if (b === undefined) return undefined;
  if (b.length !== 1 || !isCommitmentVersion(b[0]!)) throw new Error(`meta: unknown commitment version ${b[0]}`);
  return b[0];
}

/** The chain's commitment version (COMMITMENT_VERSION_UNMARKED when the key is absent). */
export function commitmentVersionOf(meta: KvMap): CommitmentVersion {
  return storedCommitmentVersion(meta) ?? COMMITMENT_VERSION_UNMARKED;
}

/** Install only (EvmCore.init, before block 0's state root): nothing else writes the key. */
export function markCommitmentVersion(meta: KvMap, v: CommitmentVersion): void {
  meta.insert(K_COMMITMENT, Uint8Array.of(v));
}

export interface ReceiptCommitmentInput {
  readonly status: 0 | 1;
  readonly cumulativeGasUsed: bigint;
  readonly logs: readonly ExecLog[];
}

export function transactionsRoot(ethHashes: readonly Bytes32[], v: CommitmentVersion): Bytes32 {
  const n = ethHashes.length;
  if (n === 0) return EMPTY_TRIE_ROOT;
  const buf = new Uint8Array(32 * n);
  for (let i = 0; i < n; i++) buf.set(ethHashes[i]!, 32 * i);
  return commitHash(v)(buf);
}

export function receiptsRoot(receipts: readonly ReceiptCommitmentInput[], v: CommitmentVersion): Bytes32 {
  if (receipts.length === 0) return EMPTY_TRIE_ROOT;
  let size = 0;
  for (const r of receipts) {
    size += 13;
    for (const l of r.logs) size += 25 + 32 * l.topics.length + l.data.length;
  }
  const buf = new Uint8Array(size);
  const view = new DataView(buf.buffer);
  let o = 0;
  for (const r of receipts) {
    buf[o] = r.status;
    view.setBigUint64(o + 1, r.cumulativeGasUsed);
    view.setUint32(o + 9, r.logs.length);
    o += 13;
    for (const l of r.logs) {
      buf.set(l.address, o);
      buf[o + 20] = l.topics.length;
      o += 21;
      for (const t of l.topics) {
        buf.set(t, o);
        o += 32;
      }
      view.setUint32(o, l.data.length);
      buf.set(l.data, o + 4);
      o += 4 + l.data.length;
    }
  }
  return commitHash(v)(buf);
}
