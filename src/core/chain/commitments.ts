// Block commitments: the header's transactionsRoot and receiptsRoot.
//
// This chain does NOT use Ethereum's ordered Merkle-Patricia trie roots for these two fields. No client of
// the chain verifies them (no light clients; ethers, viem and explorers take the roots as opaque bytes),
// and inside the canister the two tries cost several keccak blocks per transaction (one per trie node, each
// keccak.block.instructions), more than executing a value transfer (block.transfer.instructions_per_tx). Instead each root
// is one keccak256 over a flat, deterministic serialization that an indexer can recompute from exported
// block, transaction and receipt data:
//
//   transactionsRoot = keccak256(h_0 || h_1 || ... || h_{n-1})
//       h_i = the eth_tx_hash (32 bytes) of the block's i-th transaction (keccak256 of the signed bytes for
//       EthSigned transactions; the IcSynthetic hash otherwise, see tx/ic_synthetic.ts), in block order.
//
//   receiptsRoot = keccak256(r_0 || r_1 || ... || r_{n-1})
//       r_i = status u8 (1 success, 0 failure) || cumulativeGasUsed u64 || logCount u32
//             || for each log, in order: address[20] || topicCount u8 || topicCount * topic[32]
//                                        || dataLength u32 || data
//       All integers big-endian. The bloom is not included: it is a function of the logs.
//
//   A block with no transactions (only the genesis block) has both roots equal to Ethereum's empty-trie
//   root keccak256(RLP("")) = 0x56e81f17...b421, as on Ethereum.
//
// The header hash stays Ethereum's keccak256(RLP(header)) over these field values (see header.ts).

import type { Bytes32, ExecLog } from '../engine.js';
import { keccak256 } from '../crypto.js';
import { EMPTY_TRIE_ROOT } from './trie.js';

export interface ReceiptCommitmentInput {
  readonly status: 0 | 1;
  readonly cumulativeGasUsed: bigint;
  readonly logs: readonly ExecLog[];
}

export function transactionsRoot(ethHashes: readonly Bytes32[]): Bytes32 {
  const n = ethHashes.length;
  if (n === 0) return EMPTY_TRIE_ROOT;
  const buf = new Uint8Array(32 * n);
  for (let i = 0; i < n; i++) buf.set(ethHashes[i]!, 32 * i);
  return keccak256(buf);
}

export function receiptsRoot(receipts: readonly ReceiptCommitmentInput[]): Bytes32 {
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
  return keccak256(buf);
}
