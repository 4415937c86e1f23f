// The canister's ASCII paths for TextEncoder / TextDecoder must give exactly what the class they wrap gives
// (azle's @sinonjs/text-encoding polyfill in the canister), for ASCII and everything else.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: no type declarations
import { TextDecoder as PolyDecoder, TextEncoder as PolyEncoder } from '@sinonjs/text-encoding';
import { asciiFastDecoder, asciiFastEncoder } from '../../src/canister/text_codec.js';

const bases: [string, typeof TextEncoder, typeof TextDecoder][] = [
  ['polyfill', PolyEncoder, PolyDecoder],
  ['Node', TextEncoder, TextDecoder],
];

describe.each(bases)('ASCII-fast text codecs over %s', (_name, BaseEnc, BaseDec) => {
  const Enc = asciiFastEncoder(BaseEnc);
  const Dec = asciiFastDecoder(BaseDec);
  const strings = ['', 'DIDL', 'submit.invalid_fee', 'x'.repeat(300), '\u007f\u0000', 'é', 'a€b', '😀', '\ud800 lone', 'mixed ascii then ü'];

  it('encode', () => {
    for (const s of strings) expect(new Enc().encode(s), s).toEqual(new BaseEnc().encode(s));
    expect(new Enc().encode()).toEqual(new BaseEnc().encode());
    expect(new Enc().encoding).toBe('utf-8');
  });

  it('decode, with fatal, BOM, streaming and non-Uint8Array inputs', () => {
    const inputs = [...strings.map((s) => new BaseEnc().encode(s)), Uint8Array.of(0xef, 0xbb, 0xbf, 0x41), Uint8Array.of(0xff, 0x41), Uint8Array.of(0xe2, 0x82)];
    for (const b of inputs) {
      expect(new Dec().decode(b)).toBe(new BaseDec().decode(b));
      expect(new Dec('utf-8', { ignoreBOM: true }).decode(b)).toBe(new BaseDec('utf-8', { ignoreBOM: true }).decode(b));
      const fatal = (D: typeof TextDecoder): string => {
        try {
          return new D('utf-8', { fatal: true }).decode(b);
        } catch {
          return 'threw';
        }
      };
      expect(fatal(Dec)).toBe(fatal(BaseDec));
      expect(new Dec().decode(b.buffer.slice(b.byteOffset, b.byteOffset + b.length))).toBe(new BaseDec().decode(b));
    }
    // Streaming: a character split across calls, then ASCII on the same decoder.
    const euro = new BaseEnc().encode('€');
    const d = new Dec();
    const ref = new BaseDec();
    const parts = [euro.subarray(0, 1), euro.subarray(1), Uint8Array.of(0x41)];
    expect(parts.map((p, i) => d.decode(p, { stream: i < 2 })).join('')).toBe(parts.map((p, i) => ref.decode(p, { stream: i < 2 })).join(''));
    expect(new Dec().decode()).toBe('');
  });
});
