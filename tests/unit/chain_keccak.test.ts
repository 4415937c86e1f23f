import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { keccak_256 } from '@noble/hashes/sha3.js';
import sha3 from 'js-sha3';
import { keccak256 } from '../../src/core/keccak.js';
import { keccak256 as cryptoKeccak } from '../../src/core/crypto.js';
import { toHex } from '../../src/core/codec/bytes.js';
import { randomBytes as bytes } from '../support/random.js';


describe('keccak256 (src/core/keccak.ts)', () => {
  it('the committed permutation is the generator output (scripts/gen-keccak.mjs --check)', () => {
    const r = spawnSync(process.execPath, ['scripts/gen-keccak.mjs', '--check'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
  it('known vectors', () => {
    expect(toHex(keccak256(new Uint8Array(0)))).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(toHex(keccak256(new TextEncoder().encode('abc')))).toBe('4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45');
  });
  it('matches @noble/hashes and js-sha3 on every length 0..700 and around block boundaries', () => {
    const lengths = [...Array.from({ length: 701 }, (_, i) => i), 1087, 1088, 1089, 4544, 10000];
    for (const len of lengths) {
      for (const seed of [1, 0x9e3779b9, len * 7919 + 3]) {
        const d = bytes(len, seed);
        const ref = toHex(keccak_256(d));
        expect(toHex(keccak256(d)), `len=${len}`).toBe(ref);
        expect(sha3.keccak256(d), `len=${len}`).toBe(ref);
      }
    }
  });
  it('all-0xff inputs (every int32 word negative) and subarray views with odd offsets', () => {
    for (const len of [31, 32, 135, 136, 137, 272]) {
      const d = new Uint8Array(len).fill(0xff);
      expect(toHex(keccak256(d))).toBe(toHex(keccak_256(d)));
      const big = bytes(len + 3, len);
      const view = big.subarray(3);
      expect(toHex(keccak256(view))).toBe(toHex(keccak_256(view)));
    }
  });
  it('views at every byte offset (whole blocks are read as int32 words, copied first when unaligned)', () => {
    for (const len of [0, 1, 135, 136, 137, 271, 272, 273, 1000, 4100]) {
      const big = bytes(len + 8, len + 11);
      for (let o = 0; o < 8; o++) {
        const view = big.subarray(o, o + len);
        expect(toHex(keccak256(view)), `len=${len} offset=${o}`).toBe(toHex(keccak_256(view)));
      }
    }
  });
  it('returns a fresh array each call and does not modify its input; crypto.keccak256 is this function', () => {
    const d = bytes(200, 5);
    const copy = d.slice();
    const a = keccak256(d);
    const b = keccak256(d);
    expect(a).not.toBe(b);
    expect(a).toEqual(b);
    expect(d).toEqual(copy);
    a[0]! ^= 1;
    expect(keccak256(d)).toEqual(b);
    expect(cryptoKeccak(d)).toEqual(b);
  });
});
