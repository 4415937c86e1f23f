import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { blake3 as nobleBlake3 } from '@noble/hashes/blake3.js';
import { blake3 } from '../../src/core/blake3.js';
import { toHex } from '../../src/core/codec/bytes.js';
import { randomBytes as bytes } from '../support/random.js';

describe('BLAKE3 (src/core/blake3.ts)', () => {
  it('the committed compression function is the generator output (scripts/gen-blake3.mjs --check)', () => {
    const r = spawnSync(process.execPath, ['scripts/gen-blake3.mjs', '--check'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
  it('known vectors (the BLAKE3 reference)', () => {
    expect(toHex(blake3(new Uint8Array(0)))).toBe('af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262');
    expect(toHex(blake3(new TextEncoder().encode('abc')))).toBe('6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85');
  });
  it('matches @noble/hashes on every length 0..1100 and across chunk and tree boundaries', () => {
    const lengths = [...Array.from({ length: 1101 }, (_, i) => i), 2047, 2048, 2049, 3072, 3073, 4095, 4096, 4097, 5 * 1024 + 1, 8 * 1024, 8 * 1024 + 1, 31 * 1024 + 7, 64 * 1024 + 3];
    for (const len of lengths) {
      for (const seed of [1, len * 7919 + 3]) {
        const d = bytes(len, seed);
        expect(toHex(blake3(d)), `len=${len}`).toBe(toHex(nobleBlake3(d)));
      }
    }
  });
  it('reads its input at any offset of any buffer and leaves it unchanged', () => {
    const backing = bytes(300, 5);
    const view = backing.subarray(3, 203);
    const copy = view.slice();
    expect(toHex(blake3(view))).toBe(toHex(nobleBlake3(copy)));
    expect(view).toEqual(copy);
  });
});
