// The direct `vec nat8` argument decoder must agree with IDL.decode wherever it answers, and leave every
// other encoding to IDL.decode.
import { IDL } from '@dfinity/candid';
import { describe, expect, it } from 'vitest';
import { decodeSingleBlob } from '../../src/canister/blob_arg.js';

const enc = (types: IDL.Type[], values: unknown[]): Uint8Array => new Uint8Array(IDL.encode(types, values));

describe('decodeSingleBlob', () => {
  it('gives IDL.decode result for blobs of every LEB128 length class', () => {
    for (const n of [0, 1, 127, 128, 300, 16383, 16384, 131072]) {
      const blob = Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) & 0xff);
      const bytes = enc([IDL.Vec(IDL.Nat8)], [blob]);
      const got = decodeSingleBlob(bytes);
      expect(got, `length ${n}`).toEqual(IDL.decode([IDL.Vec(IDL.Nat8)], bytes)[0]);
      // A copy, not a view of the message bytes.
      expect(got!.buffer).not.toBe(bytes.buffer);
    }
  });

  it('declines other encodings', () => {
    const blob = Uint8Array.of(1, 2, 3);
    expect(decodeSingleBlob(enc([IDL.Vec(IDL.Nat8), IDL.Nat8], [blob, 1]))).toBeUndefined();
    expect(decodeSingleBlob(enc([IDL.Vec(IDL.Nat16)], [[1, 2]]))).toBeUndefined();
    expect(decodeSingleBlob(enc([IDL.Opt(IDL.Vec(IDL.Nat8))], [[blob]]))).toBeUndefined();
    const ok = enc([IDL.Vec(IDL.Nat8)], [blob]);
    expect(decodeSingleBlob(ok.subarray(0, ok.length - 1))).toBeUndefined();
    expect(decodeSingleBlob(Uint8Array.of(...ok, 0))).toBeUndefined();
    expect(decodeSingleBlob(new Uint8Array(0))).toBeUndefined();
    // An overlong but valid LEB128 length (what IDL.decode accepts too): same bytes.
    const overlong = Uint8Array.of(...ok.subarray(0, 9), 0x83, 0x00, 1, 2, 3);
    expect(decodeSingleBlob(overlong)).toEqual(IDL.decode([IDL.Vec(IDL.Nat8)], overlong)[0]);
  });
});
