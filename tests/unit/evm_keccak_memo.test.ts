// The EVM's memoizing keccak256 (src/core/evm/keccak_memo.ts): same hashes as keccak256, answered from memory
// for repeated short inputs, fresh arrays every time, bounded memory.
import { describe, expect, it } from 'vitest';
import { keccak256 } from '../../src/core/crypto.js';
import { MEMO_GENERATION, MEMO_MAX_INPUT, memoizedKeccak256 } from '../../src/core/evm/keccak_memo.js';

describe('memoized keccak256', () => {
  it('returns keccak256 for every length, remembering inputs of up to 64 bytes only', () => {
    let computed = 0;
    const memo = memoizedKeccak256((d) => {
      computed++;
      return keccak256(d);
    });
    for (let n = 0; n <= 100; n++) {
      const data = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 0xff);
      expect(memo(data)).toEqual(keccak256(data));
      expect(memo(data)).toEqual(keccak256(data));
    }
    // 65 short lengths computed once each, 36 long ones twice
    expect(computed).toBe(MEMO_MAX_INPUT + 1 + 2 * (100 - MEMO_MAX_INPUT));
    expect(memo.hits()).toBe(MEMO_MAX_INPUT + 1);
  });

  it('hands out a fresh array each time (a caller changing its copy changes nothing else)', () => {
    const memo = memoizedKeccak256(keccak256);
    const data = new Uint8Array(32).fill(1);
    const a = memo(data);
    a.fill(0);
    const b = memo(data);
    expect(b).toEqual(keccak256(data));
    expect(b.byteOffset).toBe(0);
    expect(b.buffer.byteLength).toBe(32);
  });

  it('forgets the oldest inputs after two generations', () => {
    let computed = 0;
    const memo = memoizedKeccak256((d) => {
      computed++;
      return keccak256(d);
    });
    const input = (i: number) => Uint8Array.of(i & 0xff, (i >> 8) & 0xff, (i >> 16) & 0xff);
    for (let i = 0; i < 2 * MEMO_GENERATION + 1; i++) memo(input(i));
    expect(computed).toBe(2 * MEMO_GENERATION + 1);
    memo(input(0)); // dropped with the oldest generation
    memo(input(2 * MEMO_GENERATION)); // still remembered
    expect(computed).toBe(2 * MEMO_GENERATION + 2);
  });
});
