// A receipt record written directly (src/core/chain/store.ts encodeReceipt) is the bytes ByteWriter wrote
// before: the stable layout does not change (the encoder as it was is the reference here), and it decodes back.
import { describe, expect, it } from 'vitest';
import { ByteWriter } from '../../src/core/codec/bytes.js';
import { decodeReceipt, encodeReceipt, type StoredReceipt } from '../../src/core/chain/store.js';

const bytes = (n: number, seed: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (seed * 31 + i * 7) & 255);
const U64_EDGES = [0n, 1n, 127n, 255n, 256n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 48n - 1n, 2n ** 48n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 63n, 2n ** 64n - 1n];
const BIG_EDGES = [0n, 1n, 7n, 10n ** 9n, 2n ** 48n - 1n, 2n ** 48n, 10n ** 18n * 3n, 2n ** 255n + 12345n, 2n ** 256n - 1n];

const refReceipt = (r: StoredReceipt): Uint8Array => {
  const w = new ByteWriter(80).u8(r.status).u64(r.gasUsed).u64(r.cumulativeGasUsed).big(r.effectiveGasPrice).optFixed(r.contractAddress).u32(r.firstLogIndex).u32(r.logCount);
  if (r.logCount === 0) w.u8(0);
  else w.u8(1).fixed(r.logsBloom);
  return w.str(r.failureCode).finish();
};

describe('a receipt written directly', () => {
  it('is the bytes ByteWriter wrote, for every field shape', () => {
    let n = 0;
    for (const gas of U64_EDGES) {
      for (const price of BIG_EDGES) {
        const i = n++;
        const r: StoredReceipt = {
          status: (i % 2) as 0 | 1,
          gasUsed: gas,
          cumulativeGasUsed: U64_EDGES[(i * 5) % U64_EDGES.length]!,
          effectiveGasPrice: price,
          contractAddress: i % 3 === 0 ? bytes(20, i) : undefined,
          firstLogIndex: [0, 1, 65535, 2 ** 31, 2 ** 32 - 1][i % 5]!,
          logCount: i % 4 === 0 ? 0 : i,
          logsBloom: i % 4 === 0 ? new Uint8Array(256) : bytes(256, i),
          failureCode: ['', 'exec.reverted', 'exec.halt.out_of_gas', 'ünïcode'][i % 4]!,
        };
        const enc = encodeReceipt(r);
        expect(enc, `receipt ${i}`).toEqual(refReceipt(r));
        expect(enc.length).toBe(enc.buffer.byteLength);
        expect(decodeReceipt(enc)).toEqual(r);
      }
    }
  });
});
