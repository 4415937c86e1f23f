import { describe, expect, it } from 'vitest';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { Bloom } from '@ethereumjs/vm';
import { orderedTrieRoot, EMPTY_TRIE_ROOT } from '../../src/core/chain/trie.js';
import { BloomHasher } from '../../src/core/chain/bloom.js';
import { computeEffectiveGasPrice, computeNextBaseFee } from '../../src/core/chain/fees.js';
import { keccak256 } from '../../src/core/crypto.js';
import { bigintToMinBytes, toHex } from '../../src/core/codec/bytes.js';

async function referenceRoot(values: Uint8Array[]): Promise<Uint8Array> {
  const t = new MerklePatriciaTrie();
  for (let i = 0; i < values.length; i++) await t.put(RLP.encode(bigintToMinBytes(BigInt(i))), values[i]!);
  return t.root();
}

describe('ordered trie root', () => {
  it('matches @ethereumjs/mpt for sizes 0..200 and small (embedded) and large values', async () => {
    expect(orderedTrieRoot([])).toEqual(EMPTY_TRIE_ROOT);
    for (const n of [1, 2, 3, 15, 16, 17, 127, 128, 129, 200]) {
      for (const size of [1, 5, 40, 300]) {
        const values = Array.from({ length: n }, (_, i) => keccak256(Uint8Array.of(i, size, i >> 8)).slice(0, size > 32 ? 32 : size));
        const big = size > 32 ? values.map((v) => new Uint8Array(size).fill(v[0]!)) : values;
        expect(toHex(orderedTrieRoot(big)), `n=${n} size=${size}`).toBe(toHex(await referenceRoot(big)));
      }
    }
  });
  it('handles 1024 items', async () => {
    const values = Array.from({ length: 1024 }, (_, i) => keccak256(Uint8Array.of(i & 255, i >> 8)));
    expect(toHex(orderedTrieRoot(values))).toBe(toHex(await referenceRoot(values)));
  });
});

describe('logs bloom', () => {
  it('matches EthereumJS Bloom', () => {
    const address = new Uint8Array(20).fill(0x11);
    const topics = [new Uint8Array(32).fill(1), new Uint8Array(32).fill(2)];
    const mine = new BloomHasher().logsBloom([{ address, topics, data: new Uint8Array(0) }]);
    const ref = new Bloom();
    ref.add(address);
    for (const t of topics) ref.add(t);
    expect(toHex(mine)).toBe(toHex(ref.bitvector));
  });
});

describe('fees', () => {
  it('EIP-1559 next base fee with a floor', () => {
    const B = 1000_000_000_000n;
    expect(computeNextBaseFee(B, 15n, 30n, 0n)).toBe(B);
    expect(computeNextBaseFee(B, 30n, 30n, 0n)).toBe(B + B / 8n);
    expect(computeNextBaseFee(B, 0n, 30n, 0n)).toBe(B - B / 8n);
    expect(computeNextBaseFee(B, 0n, 30n, B)).toBe(B);
    expect(computeNextBaseFee(7n, 16n, 30n, 0n)).toBe(8n); // minimum increase of 1
  });
  it('effective gas price = min(maxFee, base + priority); undefined below base', () => {
    expect(computeEffectiveGasPrice(10n, 3n, 5n)).toBe(8n);
    expect(computeEffectiveGasPrice(10n, 7n, 5n)).toBe(10n);
    expect(computeEffectiveGasPrice(4n, 1n, 5n)).toBeUndefined();
  });
});
