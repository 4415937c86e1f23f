import { describe, expect, it } from 'vitest';
import { RLP } from '@ethereumjs/rlp';
import { bigintToMinBytes, ByteReader, ByteWriter, bytesEqual, bytesToBigint, fromHex, toHex } from '../../src/core/codec/bytes.js';
import { rlpEncodeBytesList } from '../../src/core/codec/rlp.js';
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
    expect(fromHex('0x00010F10fFaB')).toEqual(Uint8Array.of(0, 1, 15, 16, 255, 171));
    expect(() => fromHex('abc')).toThrow(/odd hex length/);
  });
  it('bytesEqual: every length around its string path (32..4096 bytes), a difference at any byte, any byte value', () => {
    for (const len of [0, 1, 31, 32, 33, 56, 100, 4095, 4096, 4097, 9000]) {
      const a = bytes(len, len + 11);
      expect(bytesEqual(a, a.slice())).toBe(true);
      expect(bytesEqual(a, a.subarray(0, Math.max(0, len - 1)))).toBe(len === 0);
      for (const at of [0, len >> 1, len - 1]) {
        if (at < 0 || at >= len) continue;
        for (const flip of [1, 0x80, 0xff]) {
          const b = a.slice();
          b[at]! ^= flip;
          expect(bytesEqual(a, b), `len=${len} at=${at} flip=${flip}`).toBe(false);
        }
      }
    }
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
  it('bigintToMinBytes gives the minimal big-endian bytes around the 2^48 Number path boundary and its 48-bit chunks', () => {
    const ref = (v: bigint): string => (v === 0n ? '' : (v.toString(16).length % 2 ? '0' : '') + v.toString(16));
    const values = [1n, 127n, 128n, 255n, 256n, 65535n, 65536n, 10n ** 12n, 10n ** 15n];
    for (let k = 1n; k <= 256n; k++) values.push((1n << k) - 1n, 1n << k, (1n << k) + 1n);
    for (let len = 1; len <= 33; len++) for (let i = 0; i < 30; i++) values.push(bytesToBigint(bytes(len, len * 100 + i)));
    for (const v of values) expect(toHex(bigintToMinBytes(v)), String(v)).toBe(ref(v));
  });
});

describe('codec/bytes text fields', () => {
  it('ByteWriter.str / ByteReader.str: ASCII written directly, anything else as UTF-8, both read back the same', () => {
    const texts = ['', 'exec.reverted', 'submit.nonce_too_low', 'x'.repeat(255), '\u00e9t\u00e9', 'caf\u00e9 \u2615', '\u{1f600}', 'ascii then \u00ff'];
    for (const t of texts) {
      const bytes = new ByteWriter(4).str(t).finish();
      const utf8 = new TextEncoder().encode(t);
      expect(Array.from(bytes)).toEqual([utf8.length, ...utf8]);
      expect(new ByteReader(bytes).str()).toBe(t);
    }
    expect(() => new ByteWriter().str('\u00e9'.repeat(128))).toThrow(/too long/);
  });
});

describe('codec/rlp', () => {
  it('rlpEncodeBytesList matches @ethereumjs/rlp for strings of every length class', () => {
    const items: Uint8Array[] = [new Uint8Array(0), Uint8Array.of(0), Uint8Array.of(0x7f), Uint8Array.of(0x80), Uint8Array.of(0xff)];
    for (const len of [2, 20, 32, 55, 56, 57, 255, 256, 257, 1000, 70000]) items.push(bytes(len, len));
    for (let n = 0; n <= items.length; n++) {
      const list = items.slice(0, n);
      expect(toHex(rlpEncodeBytesList(list))).toBe(toHex(RLP.encode(list)));
    }
    // A list payload of 56+ bytes, and one single-byte list.
    expect(toHex(rlpEncodeBytesList([bytes(54, 1)]))).toBe(toHex(RLP.encode([bytes(54, 1)])));
    expect(toHex(rlpEncodeBytesList([bytes(55, 2)]))).toBe(toHex(RLP.encode([bytes(55, 2)])));
  });
});
