import { describe, expect, it } from 'vitest';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { Bloom } from '@ethereumjs/vm';
import { blake3 } from '@noble/hashes/blake3.js';
import { COMMITMENT_VERSION, chainedRoot, commitmentVersionOf, markCommitmentVersion, receiptsRoot, storedCommitmentVersion, transactionsRoot } from '../../src/core/chain/commitments.js';
import { MemoryKvMap } from '../../src/core/host.js';
import { EMPTY_TRIE_ROOT } from '../../src/core/chain/trie.js';
import { BloomHasher } from '../../src/core/chain/bloom.js';
import { computeEffectiveGasPrice, computeNextBaseFee } from '../../src/core/chain/fees.js';
import { fromHex, toHex } from '../../src/core/codec/bytes.js';

describe.each([
  { version: 1 as const, name: 'keccak256', H: keccak_256 },
  { version: 2 as const, name: 'BLAKE3', H: (d: Uint8Array) => blake3(d) },
])('block commitments, version $version: H = $name (commitments.ts)', ({ version, H }) => {
  const h = (i: number): Uint8Array => keccak_256(Uint8Array.of(i & 255, i >> 8));
  it('empty lists give the empty-trie root', () => {
    expect(toHex(EMPTY_TRIE_ROOT)).toBe(toHex(keccak_256(Uint8Array.of(0x80))));
    expect(transactionsRoot([], version)).toEqual(EMPTY_TRIE_ROOT);
    expect(receiptsRoot([], version)).toEqual(EMPTY_TRIE_ROOT);
  });
  it('transactionsRoot = H of the concatenated eth tx hashes, in order', () => {
    for (const n of [1, 2, 5, 142, 300]) {
      const hashes = Array.from({ length: n }, (_, i) => h(i));
      const cat = new Uint8Array(32 * n);
      hashes.forEach((x, i) => cat.set(x, 32 * i));
      expect(toHex(transactionsRoot(hashes, version)), `n=${n}`).toBe(toHex(H(cat)));
    }
    // Order matters.
    expect(toHex(transactionsRoot([h(1), h(2)], version))).not.toBe(toHex(transactionsRoot([h(2), h(1)], version)));
  });
  it('receiptsRoot = H of status u8 || cumulative gas u64 || logCount u32 || logs, per receipt', () => {
    const addr = new Uint8Array(20).fill(0xaa);
    const t1 = new Uint8Array(32).fill(1);
    const t2 = new Uint8Array(32).fill(2);
    const receipts = [
      { status: 1 as const, cumulativeGasUsed: 21000n, logs: [] },
      { status: 0 as const, cumulativeGasUsed: 0x0102030405060708n, logs: [{ address: addr, topics: [t1, t2], data: Uint8Array.of(9, 8, 7) }, { address: addr, topics: [], data: new Uint8Array(0) }] },
    ];
    const expected =
      '01' + '0000000000005208' + '00000000' +
      '00' + '0102030405060708' + '00000002' +
      'aa'.repeat(20) + '02' + '01'.repeat(32) + '02'.repeat(32) + '00000003' + '090807' +
      'aa'.repeat(20) + '00' + '00000000';
    expect(toHex(receiptsRoot(receipts, version))).toBe(toHex(H(fromHex(expected))));
    // Every field is committed: status, gas, log data.
    const flip = [{ ...receipts[0]!, status: 0 as const }, receipts[1]!];
    expect(toHex(receiptsRoot(flip, version))).not.toBe(toHex(receiptsRoot(receipts, version)));
    const gas = [{ ...receipts[0]!, cumulativeGasUsed: 21001n }, receipts[1]!];
    expect(toHex(receiptsRoot(gas, version))).not.toBe(toHex(receiptsRoot(receipts, version)));
    const data = [receipts[0]!, { ...receipts[1]!, logs: [{ ...receipts[1]!.logs[0]!, data: Uint8Array.of(9, 8, 6) }, receipts[1]!.logs[1]!] }];
    expect(toHex(receiptsRoot(data, version))).not.toBe(toHex(receiptsRoot(receipts, version)));
  });
  it('a state root step is H(parent || H(data))', () => {
    const parent = h(7);
    const w = Uint8Array.from({ length: 300 }, (_, i) => i * 7);
    expect(toHex(chainedRoot(parent, w, version))).toBe(toHex(H(Uint8Array.of(...parent, ...H(w)))));
  });
});

describe('commitment versions', () => {
  it('the two versions give different roots for the same bytes', () => {
    const hashes = [keccak_256(Uint8Array.of(1))];
    expect(toHex(transactionsRoot(hashes, 1))).not.toBe(toHex(transactionsRoot(hashes, 2)));
  });
  it('a new chain is marked with COMMITMENT_VERSION; an unmarked chain is version 1', () => {
    const meta = new MemoryKvMap();
    expect(storedCommitmentVersion(meta)).toBeUndefined();
    expect(commitmentVersionOf(meta)).toBe(1);
    markCommitmentVersion(meta, COMMITMENT_VERSION);
    expect(commitmentVersionOf(meta)).toBe(2);
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
  it('one hasher over many logs (its memo keyed by the item bytes) matches EthereumJS Bloom log by log', () => {
    const hasher = new BloomHasher();
    const item = (len: number, seed: number): Uint8Array => Uint8Array.from({ length: len }, (_, i) => (seed * 131 + i * 29) & 0xff);
    for (let n = 0; n < 12; n++) {
      // Items repeat across logs (n % 3, n % 4) and differ only in bytes above 0x7f for some seeds.
      const address = item(20, n % 3);
      const topics = [item(32, 100), item(32, 200 + (n % 4)), item(32, n)];
      const mine = hasher.logsBloom([{ address, topics, data: new Uint8Array(0) }]);
      const ref = new Bloom();
      ref.add(address);
      for (const t of topics) ref.add(t);
      expect(toHex(mine), `log ${n}`).toBe(toHex(ref.bitvector));
    }
  });
  it('one hasher past its memo bound (the producer keeps one across blocks) still matches log by log', () => {
    const hasher = new BloomHasher();
    // 2,600 logs of two items each, every fourth topic a recurring one: the memo (2,048 entries) is cleared on the way
    for (let n = 0; n < 2600; n++) {
      const address = Uint8Array.from({ length: 20 }, (_, i) => (n % 7) * 31 + i);
      const topic = keccak_256(Uint8Array.of(n % 4 === 0 ? 0 : n & 255, n >> 8));
      const mine = hasher.logsBloom([{ address, topics: [topic], data: new Uint8Array(0) }]);
      if (n % 97 !== 0 && n < 2590) continue;
      const ref = new Bloom();
      ref.add(address);
      ref.add(topic);
      expect(toHex(mine), `log ${n}`).toBe(toHex(ref.bitvector));
    }
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
