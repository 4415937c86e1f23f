// The block header encoder (src/core/chain/header.ts) against the generic RLP list encoder and against
// EthereumJS's own Prague header hash.
import { createBlockHeader } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_OMMERS_HASH,
  EMPTY_REQUESTS_HASH,
  encodeHeader,
  headerHash,
  type HeaderFields,
  PARENT_BEACON_BLOCK_ROOT,
  WITHDRAWALS_ROOT,
  ZERO_NONCE,
} from '../../src/core/chain/header.js';
import { bigintToMinBytes, toHex } from '../../src/core/codec/bytes.js';
import { rlpEncodeBytesList } from '../../src/core/codec/rlp.js';

const fill = (n: number, seed: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed * 17 + 1) & 0xff);

function generic(h: HeaderFields): Uint8Array {
  const n = bigintToMinBytes;
  return rlpEncodeBytesList([
    h.parentHash, EMPTY_OMMERS_HASH, h.coinbase, h.stateRoot, h.transactionsRoot, h.receiptsRoot, h.logsBloom,
    n(0n), n(h.number), n(h.gasLimit), n(h.gasUsed), n(h.timestamp), new Uint8Array(0), h.mixHash, ZERO_NONCE,
    n(h.baseFeePerGas), WITHDRAWALS_ROOT, n(0n), n(0n), PARENT_BEACON_BLOCK_ROOT, EMPTY_REQUESTS_HASH,
  ]);
}

const EDGES = [0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n, 0xffffn, 0x10000n, 0xffffffn, 2n ** 31n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 40n, 2n ** 48n - 1n, 2n ** 48n, 2n ** 64n - 1n, 2n ** 200n + 12345n];

function header(i: number, ints: readonly bigint[]): HeaderFields {
  return {
    parentHash: fill(32, i),
    coinbase: fill(20, i + 1),
    stateRoot: fill(32, i + 2),
    transactionsRoot: fill(32, i + 3),
    receiptsRoot: fill(32, i + 4),
    logsBloom: i % 2 === 0 ? new Uint8Array(256) : fill(256, i + 5),
    number: ints[0]!,
    gasLimit: ints[1]!,
    gasUsed: ints[2]!,
    timestamp: ints[3]!,
    mixHash: fill(32, i + 6),
    baseFeePerGas: ints[4]!,
  };
}

describe('block header encoding', () => {
  it('is byte for byte the generic RLP list encoding, for integers at every width boundary', () => {
    let i = 0;
    for (const v of EDGES) {
      for (const at of [0, 1, 2, 3, 4]) {
        const ints = [3n, 30_000_000n, 21_000n, 1_700_000_000n, 7n];
        ints[at] = v;
        const h = header(i++, ints);
        expect(toHex(encodeHeader(h))).toBe(toHex(generic(h)));
      }
    }
  });

  it('hashes as EthereumJS hashes a Prague header with the same fields', () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
    const h = header(7, [12_345n, 3_000_000n, 21_000n, 1_764_000_000n, 1_000_000_007n]);
    const ref = createBlockHeader(
      {
        parentHash: h.parentHash, uncleHash: EMPTY_OMMERS_HASH, coinbase: h.coinbase, stateRoot: h.stateRoot,
        transactionsTrie: h.transactionsRoot, receiptTrie: h.receiptsRoot, logsBloom: h.logsBloom, difficulty: 0n,
        number: h.number, gasLimit: h.gasLimit, gasUsed: h.gasUsed, timestamp: h.timestamp, extraData: new Uint8Array(0),
        mixHash: h.mixHash, nonce: ZERO_NONCE, baseFeePerGas: h.baseFeePerGas, withdrawalsRoot: WITHDRAWALS_ROOT,
        blobGasUsed: 0n, excessBlobGas: 0n, parentBeaconBlockRoot: PARENT_BEACON_BLOCK_ROOT, requestsHash: EMPTY_REQUESTS_HASH,
      },
      { common, skipConsensusFormatValidation: true },
    );
    expect(toHex(headerHash(encodeHeader(h)))).toBe(toHex(ref.hash()));
  });

  it('refuses fields of the wrong size', () => {
    expect(() => encodeHeader({ ...header(1, [1n, 2n, 3n, 4n, 5n]), stateRoot: new Uint8Array(31) })).toThrow(/32-byte field/);
    expect(() => encodeHeader({ ...header(1, [1n, 2n, 3n, 4n, 5n]), logsBloom: new Uint8Array(255) })).toThrow(/bloom/);
  });
});
