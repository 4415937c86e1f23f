import { describe, expect, it } from 'vitest';
import { bigintToMinBytes, bytesToBigint, fromHex, toHex } from '../../src/core/codec/bytes.js';
import { randomBytes as bytes } from '../support/random.js';

const refHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const refBig = (b: Uint8Array): bigint => (b.length === 0 ? 0n : BigInt('0x' + refHex(b)));

describe('codec/bytes', () => {
  it('toHex and bytesToBigint agree with Buffer/BigInt for lengths 0..70, random, all-0xff and leading zeros', () => {
    for (let len = 0; len <= 70; len++) {
      const cases = [bytes(len, len + 1), new Uint8Array(len).fill(0xff), new Uint8Array(len), (() => { const z = bytes(len, 7); if (len > 1) z[0] = 0; return z; })()];
      for (const b of cases) {
        expect(toHex(b)).toBe(refHex(b));
        expect(bytesToBigint(b), `len=${len} ${refHex(b)}`).toBe(refBig(b));
        expect(fromHex(toHex(b))).toEqual(b);
      }
    }
    expect(toHex(Uint8Array.of(0, 1, 15, 16, 255))).toBe('00010f10ff');
  });
  it('bigintToMinBytes inverts bytesToBigint with no leading zeros', () => {
    for (let len = 0; len <= 40; len++) {
      const b = bytes(len, 3 * len + 5);
      const v = bytesToBigint(b);
      const m = bigintToMinBytes(v);
      expect(m.length === 0 || m[0] !== 0).toBe(true);
      expect(bytesToBigint(m)).toBe(v);
    }
    expect(bytesToBigint(bigintToMinBytes((1n << 256n) - 1n))).toBe((1n << 256n) - 1n);
    expect(bigintToMinBytes(0n).length).toBe(0);
  });
});
