// Records written directly (block production, issue 28's third pass): the block record, the fee summary and
// bigintToMinBytes are the bytes ByteWriter and the division loop wrote before (those encoders, as they were,
// are the references here), so the stable layout does not change; groupTips' one-tip pass groups as the sort
// did; an account's nonce read alone is decodeAccount's.
import { describe, expect, it } from 'vitest';
import { bigintToMinBytes, ByteWriter } from '../../src/core/codec/bytes.js';
import { decodeFeeSummary, encodeFeeSummary, groupTips, type FeeSummary, type TipGroup } from '../../src/core/chain/fee_summary.js';
import { EMPTY_BLOOM } from '../../src/core/chain/bloom.js';
import { decodeAccount, decodeAccountNonce, encodeAccount, type AccountRecord } from '../../src/core/evm/encoding.js';
import { decodeBlock, encodeBlock, writeBlockFields, type StoredBlock } from '../../src/core/chain/store.js';

const U64_EDGES = [0n, 1n, 127n, 255n, 256n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 48n - 1n, 2n ** 48n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 63n, 2n ** 64n - 1n];
const BIG_EDGES = [0n, 1n, 7n, 255n, 256n, 10n ** 9n, 2n ** 48n - 1n, 2n ** 48n, 2n ** 48n + 1n, 10n ** 18n * 3n, 10n ** 27n, 2n ** 96n - 1n, 2n ** 255n + 12345n, 2n ** 256n - 1n];

/** The division loop bigintToMinBytes was: minimal big-endian bytes. */
const refMinBytes = (n: bigint): Uint8Array => {
  const out: number[] = [];
  for (let x = n; x > 0n; x >>= 8n) out.unshift(Number(x & 255n));
  return Uint8Array.from(out);
};

const refFeeSummary = (s: FeeSummary): Uint8Array => {
  const w = new ByteWriter(40 + s.tips.length * 16).u8(1).big(s.baseFeePerGas).u64(s.gasUsed).u64(s.gasLimit).u32(s.tips.length);
  for (const t of s.tips) w.big(t.tip).u64(t.gasUsed);
  return w.finish();
};

const refGroupTips = (txs: readonly TipGroup[]): TipGroup[] => {
  const sorted = [...txs].sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0));
  const out: { tip: bigint; gasUsed: bigint }[] = [];
  for (const t of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && last.tip === t.tip) last.gasUsed += t.gasUsed;
    else out.push({ tip: t.tip, gasUsed: t.gasUsed });
  }
  return out;
};

describe('bigintToMinBytes', () => {
  it('is the minimal big-endian bytes at every byte boundary and at random', () => {
    const vals = [...BIG_EDGES, ...U64_EDGES];
    for (let b = 0n; b <= 256n; b++) vals.push((1n << b) - 1n, 1n << b, (1n << b) + 1n);
    let x = 0x9e3779b97f4a7c15n;
    for (let i = 0; i < 3000; i++) {
      x = (x * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
      const bits = BigInt(i % 257);
      let v = 0n;
      for (let k = 0n; k < bits; k += 64n) v = (v << 64n) | x;
      vals.push(v & ((1n << bits) - 1n));
    }
    for (const v of vals) {
      if (v >= 1n << 256n) continue;
      expect(bigintToMinBytes(v), `${v}`).toEqual(refMinBytes(v));
    }
  });
});

describe('the fee summary written directly', () => {
  it('is the bytes ByteWriter wrote, and decodes back', () => {
    let n = 0;
    for (const base of BIG_EDGES) {
      for (const gas of U64_EDGES) {
        const i = n++;
        const tips = Array.from({ length: i % 4 }, (_, k) => ({ tip: BIG_EDGES[(i + 3 * k) % BIG_EDGES.length]!, gasUsed: U64_EDGES[(i * 7 + k) % U64_EDGES.length]! }));
        const s: FeeSummary = { baseFeePerGas: base, gasUsed: gas, gasLimit: U64_EDGES[(i * 5) % U64_EDGES.length]!, tips };
        const enc = encodeFeeSummary(s);
        expect(enc, `summary ${i}`).toEqual(refFeeSummary(s));
        expect(decodeFeeSummary(enc)).toEqual(s);
      }
    }
  });

  it('groups tips as the sort did: one tip, several, none', () => {
    const cases: TipGroup[][] = [
      [],
      [{ tip: 5n, gasUsed: 21000n }],
      [{ tip: 5n, gasUsed: 21000n }, { tip: 5n, gasUsed: 50000n }, { tip: 5n, gasUsed: 1n }],
      [{ tip: 5n, gasUsed: 21000n }, { tip: 3n, gasUsed: 50000n }, { tip: 5n, gasUsed: 1n }, { tip: 0n, gasUsed: 7n }],
      [{ tip: 9n, gasUsed: 1n }, { tip: 9n, gasUsed: 2n }, { tip: 1n, gasUsed: 3n }],
    ];
    for (const c of cases) expect(groupTips(c)).toEqual(refGroupTips(c));
  });
});

describe('the block record written directly', () => {
  const bytes = (n: number, seed: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (seed * 31 + i * 7) & 255);
  it('is the bytes of the version byte and writeBlockFields (ByteWriter), and decodes back', () => {
    let n = 0;
    for (const base of BIG_EDGES) {
      for (const txCount of [0, 1, 3]) {
        for (const changes of [undefined, bytes(37, n)]) {
          for (const bloom of [EMPTY_BLOOM, bytes(256, n)]) {
            const i = n++;
            const b: StoredBlock = {
              number: BigInt(i),
              hash: bytes(32, i),
              parentHash: bytes(32, i + 1),
              timestamp: U64_EDGES[i % U64_EDGES.length]!,
              gasLimit: U64_EDGES[(i * 3) % U64_EDGES.length]!,
              gasUsed: U64_EDGES[(i * 5) % U64_EDGES.length]!,
              baseFeePerGas: base,
              stateRoot: bytes(32, i + 2),
              transactionsRoot: bytes(32, i + 3),
              receiptsRoot: bytes(32, i + 4),
              logsBloom: bloom,
              coinbase: bytes(20, i + 5),
              mixHash: bytes(32, i + 6),
              size: [0, 1, 600, 2 ** 31, 2 ** 32 - 1][i % 5]!,
              txs: Array.from({ length: txCount }, (_, k) => ({ txId: bytes(8, i + 10 * k), ethHash: bytes(32, i + 10 * k + 1) })),
              ...(changes === undefined ? {} : { stateChanges: changes }),
            };
            const w = writeBlockFields(new ByteWriter(64).u8(1), b);
            if (changes !== undefined) w.fixed(changes);
            const enc = encodeBlock(b);
            expect(enc, `block ${i}`).toEqual(w.finish());
            expect(decodeBlock(b.number, enc)).toEqual(b);
          }
        }
      }
    }
  });
});

describe("an account record's nonce read alone", () => {
  it('is decodeAccount(b).nonce for existing accounts and 0 for a tombstone', () => {
    for (const nonce of U64_EDGES) {
      for (const balance of BIG_EDGES) {
        const rec: AccountRecord = { exists: true, nonce, balance, codeHash: nonce % 2n === 0n ? undefined : new Uint8Array(32).fill(9), codeSize: 3, gen: Number(nonce % 7n), hasStorage: balance % 2n === 0n };
        const enc = encodeAccount(rec);
        expect(decodeAccountNonce(enc)).toBe(decodeAccount(enc).nonce);
      }
    }
    expect(decodeAccountNonce(encodeAccount({ exists: false, nonce: 0n, balance: 0n, codeHash: undefined, codeSize: 0, gen: 5, hasStorage: false }))).toBe(0n);
  });
});
