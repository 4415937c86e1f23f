// parseStoredFields (the in-place walk block production uses) against the item-tree parse it replaced
// (parseStoredFieldsByItems): the same result, fields or error, on generated transactions of every accepted
// type, edge cases, signed ones, and byte-level mutations of them.
import { describe, expect, it } from 'vitest';
import { RLP } from '@ethereumjs/rlp';
import { parseSignedTx, parseSignedTxByItems, parseStoredFields, parseStoredFieldsByItems, walkStoredFields } from '../../src/core/tx/decode.js';
import { impersonatedRaw } from '../../src/core/tx/impersonated.js';
import { CHAIN_ID } from '../../src/core/constants.js';
import { bigintToMinBytes, ByteWriter, concatBytes } from '../../src/core/codec/bytes.js';
import { decodeStoredTx, decodeStoredTxByReader, decodeTxStatus, encodeStoredTx, encodeTxStatus } from '../../src/core/tx/stored.js';
import { TxOrigin } from '../../src/core/tx/types.js';
import { addr, key, sign1559, sign2930, signLegacy } from '../support/chain_testkit.js';

// Deterministic xorshift, so a failure reproduces.
let seed = 0x2545f491;
function rnd(n: number): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) % n;
}
function bytes(n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = rnd(256);
  return b;
}
/** An integer of 0..maxBytes bytes, small and boundary values often. */
function int(maxBytes: number): bigint {
  const pick = rnd(8);
  if (pick === 0) return 0n;
  if (pick === 1) return BigInt(rnd(128));
  if (pick === 2) return (1n << BigInt(8 * (1 + rnd(maxBytes)))) - 1n;
  if (pick === 3) return 1n << BigInt(rnd(8 * maxBytes));
  let v = 0n;
  const n = 1 + rnd(maxBytes);
  for (let i = 0; i < n; i++) v = (v << 8n) | BigInt(rnd(256));
  return v;
}
const n = bigintToMinBytes;
function data(): Uint8Array {
  const pick = rnd(40);
  if (pick < 6) return new Uint8Array(0);
  if (pick < 9) return Uint8Array.of(rnd(256));
  if (pick < 13) return bytes(55 + rnd(3));
  if (pick < 16) return bytes(255 + rnd(3));
  // The three-byte length boundary, rarely: deep equality over 64 KiB is most of this file's time.
  if (pick === 16) return rnd(8) === 0 ? bytes(65535 + rnd(3)) : bytes(rnd(1000));
  return bytes(rnd(200));
}
function accessList(): Uint8Array[][] | (Uint8Array | Uint8Array[])[][] {
  const out: (Uint8Array | Uint8Array[])[][] = [];
  const entries = rnd(4) === 0 ? 0 : rnd(5);
  for (let i = 0; i < entries; i++) {
    const keys: Uint8Array[] = [];
    const nk = rnd(3) === 0 ? 0 : rnd(4);
    for (let j = 0; j < nk; j++) keys.push(bytes(32));
    out.push([bytes(20), keys]);
  }
  return out;
}
function randomTx(): Uint8Array {
  const type = rnd(3);
  const to = rnd(4) === 0 ? new Uint8Array(0) : bytes(20);
  const nonce = rnd(10) === 0 ? (1n << 64n) - 2n : int(8);
  // r and s: mostly in range (below n/2), so the signed walk reads them; sometimes zero or out of range.
  const r = rnd(10) === 0 ? new Uint8Array(0) : n(rnd(4) === 0 ? int(32) : int(31));
  const s = rnd(10) === 0 ? new Uint8Array(0) : n(rnd(4) === 0 ? int(32) : int(31));
  if (type === 0) {
    const v = CHAIN_ID * 2n + 35n + BigInt(rnd(2));
    return RLP.encode([n(nonce), n(int(32)), n(int(8)), to, n(int(32)), data(), n(v), r, s]);
  }
  const yp = n(BigInt(rnd(2)));
  const fees = type === 1 ? [n(int(32))] : [n(int(32)), n(int(32))];
  return concatBytes(Uint8Array.of(type), RLP.encode([n(CHAIN_ID), n(nonce), ...fees, n(int(8)), to, n(int(32)), data(), accessList() as never, yp, r, s]));
}

/** parseSignedTx by the walk and by the item tree: the same fields, signature and signing payload, or error. */
function sameSigned(raw: Uint8Array): void {
  const walked = parseSignedTx(raw);
  const reference = parseSignedTxByItems(raw);
  expect(walked.ok).toBe(reference.ok);
  if (!walked.ok || !reference.ok) {
    expect(walked).toEqual(reference);
    return;
  }
  expect(walked.value.fields).toEqual(reference.value.fields);
  expect(walked.value.sig).toEqual(reference.value.sig);
  expect(walked.value.signingPayload()).toEqual(reference.value.signingPayload());
}

function same(raw: Uint8Array): void {
  sameSigned(raw);
  const walked = parseStoredFields(raw);
  const reference = parseStoredFieldsByItems(raw);
  expect(walked).toEqual(reference);
  if (walked.ok && reference.ok) {
    // The same views of the input, not copies (as the item tree gave).
    expect(walked.value.data.buffer).toBe(raw.buffer);
    expect(walked.value.data.byteOffset).toBe(reference.value.data.byteOffset);
  }
}

/** The nonce 0x99 (81 99) at `at` made 81 05: a single byte below 0x80 in the long form (not canonical). */
function nonCanonicalNonce(raw: Uint8Array, at: number): Uint8Array {
  expect([raw[at], raw[at + 1]]).toEqual([0x81, 0x99]);
  const b = raw.slice();
  b[at + 1] = 5;
  return b;
}

function mutate(raw: Uint8Array): Uint8Array {
  const b = raw.slice();
  const kind = rnd(4);
  if (kind === 0 && b.length > 0) b[rnd(b.length)] = rnd(256);
  else if (kind === 1) return b.subarray(0, rnd(b.length + 1));
  else if (kind === 2) return concatBytes(b, bytes(1 + rnd(3)));
  else if (b.length > 0) {
    // A header byte near the front: lengths and kinds are where the walk's checks are.
    const i = rnd(Math.min(b.length, 12));
    b[i] = (b[i]! + (rnd(2) === 0 ? 1 : 255)) & 255;
  }
  return b;
}

describe('transaction walk (parseStoredFields, parseSignedTx) vs the item-tree parse', () => {
  it('random transactions of types 0, 1 and 2 give the same fields', () => {
    let ok = 0;
    for (let i = 0; i < 1000; i++) {
      const raw = randomTx();
      same(raw);
      // Every transaction the parse accepts is read by the walk itself, not handed back.
      if (parseStoredFieldsByItems(raw).ok) {
        expect(walkStoredFields(raw)).toBeDefined();
        ok++;
      }
    }
    expect(ok).toBeGreaterThan(800);
  });

  it('signed transactions (creation, data, access lists) and impersonated raws give the same fields', () => {
    const k = key(3);
    const al: [Uint8Array, Uint8Array[]][] = [[addr(9), [new Uint8Array(32).fill(3), new Uint8Array(32)]], [addr(2), []]];
    const raws: Uint8Array[] = [];
    for (const sign of [signLegacy, sign2930, sign1559]) {
      raws.push(sign(k, {}));
      raws.push(sign(k, { to: null, gasLimit: 1_000_000n, data: bytes(3000) }));
      raws.push(sign(k, { nonce: (1n << 64n) - 2n, value: (1n << 256n) - 1n, gasLimit: (1n << 64n) - 1n, data: Uint8Array.of(0) }));
      if (sign !== signLegacy) raws.push(sign(k, { accessList: al, data: bytes(56) }));
    }
    for (const raw of raws) {
      expect(parseSignedTx(raw).ok).toBe(true);
      expect(walkStoredFields(raw)).toBeDefined();
      same(raw);
    }
    for (const type of [0, 1, 2] as const) {
      const f = parseStoredFieldsByItems(raws[type * 4 - (type > 0 ? 1 : 0) + 1]!);
      if (!f.ok) throw new Error(f.error.message);
      same(impersonatedRaw({ ...f.value, type, accessList: type === 0 ? [] : al }));
    }
  });

  it('edge cases and refusals give the same result (the walk hands what it does not accept to the parse)', () => {
    const base = randomTx();
    const cases: Uint8Array[] = [
      new Uint8Array(0),
      Uint8Array.of(0xc0),
      Uint8Array.of(0x80),
      Uint8Array.of(0x03, 0xc0),
      Uint8Array.of(0x04, 0xc0),
      Uint8Array.of(0x02, 0xc0),
      concatBytes(base, Uint8Array.of(0)),
      // Legacy without EIP-155, wrong chain id, a leading zero, a non-canonical single byte, r as a list.
      RLP.encode([n(1n), n(1n), n(21000n), bytes(20), n(0n), new Uint8Array(0), n(27n), n(1n), n(1n)]),
      RLP.encode([n(1n), n(1n), n(21000n), bytes(20), n(0n), new Uint8Array(0), n(37n), n(1n), n(1n)]),
      RLP.encode([Uint8Array.of(0, 1), n(1n), n(21000n), bytes(20), n(0n), new Uint8Array(0), n(CHAIN_ID * 2n + 35n), n(1n), n(1n)]),
      nonCanonicalNonce(RLP.encode([n(0x99n), n(1n), n(21000n), bytes(20), n(0n), new Uint8Array(0), n(CHAIN_ID * 2n + 35n), n(1n), n(1n)]), 1),
      nonCanonicalNonce(concatBytes(Uint8Array.of(2), RLP.encode([n(CHAIN_ID), n(0x99n), n(1n), n(1n), n(21000n), bytes(20), n(0n), new Uint8Array(0), [], n(1n), n(1n), n(1n)])), 6),
      RLP.encode([n(1n), n(1n), n(21000n), bytes(20), n(0n), new Uint8Array(0), n(CHAIN_ID * 2n + 35n), [n(1n)] as never, n(1n)]),
      RLP.encode([n(1n), n(1n), n(21000n), bytes(19), n(0n), new Uint8Array(0), n(CHAIN_ID * 2n + 35n), n(1n), n(1n)]),
      RLP.encode([n((1n << 64n) - 1n), n(1n), n(21000n), bytes(20), n(0n), new Uint8Array(0), n(CHAIN_ID * 2n + 35n), n(1n), n(1n)]),
      concatBytes(Uint8Array.of(2), RLP.encode([n(CHAIN_ID), n(1n), n(1n), n(1n), n(21000n), bytes(20), n(0n), new Uint8Array(0), [[bytes(20), [bytes(31)]]] as never, n(1n), n(1n), n(1n)])),
      concatBytes(Uint8Array.of(2), RLP.encode([n(CHAIN_ID), n(1n), n(1n), n(1n), n(21000n), bytes(20), n(0n), new Uint8Array(0), [[bytes(20), [bytes(32)], new Uint8Array(0)]] as never, n(1n), n(1n), n(1n)])),
      concatBytes(Uint8Array.of(2), RLP.encode([n(CHAIN_ID), n(1n), n(1n), n(1n), n(21000n), bytes(20), n(0n), new Uint8Array(0), [], n(2n), n(1n), n(1n)])),
      concatBytes(Uint8Array.of(1), RLP.encode([n(CHAIN_ID + 1n), n(1n), n(1n), n(21000n), bytes(20), n(0n), new Uint8Array(0), [], n(1n), n(1n), n(1n)])),
      concatBytes(Uint8Array.of(1), RLP.encode([n(CHAIN_ID), n(1n), n(1n), n(21000n), bytes(20), n(0n), new Uint8Array(0), [], n(1n), n(1n)])),
    ];
    for (const raw of cases) same(raw);
  });

  it('mutated transactions give the same result', () => {
    for (let i = 0; i < 3000; i++) {
      let raw = randomTx();
      const rounds = 1 + rnd(3);
      for (let j = 0; j < rounds; j++) raw = mutate(raw);
      same(raw);
    }
  });
});

function readOutcome(read: (b: Uint8Array) => unknown, b: Uint8Array): unknown {
  try {
    return read(b);
  } catch (e) {
    return { threw: (e as Error).message };
  }
}

describe('stored records read and written in place', () => {
  it('decodeStoredTx gives ByteReader\'s fields, and its error on a truncated record', () => {
    for (let i = 0; i < 300; i++) {
      const rec = encodeStoredTx({ origin: rnd(3) as TxOrigin, from: bytes(20), ethHash: bytes(32), principal: bytes(rnd(4) === 0 ? 0 : rnd(30)), raw: randomTx() });
      const b = rnd(3) === 0 ? concatBytes(rec, bytes(1 + rnd(4))) : rec;
      expect(decodeStoredTx(b)).toEqual(decodeStoredTxByReader(b));
      for (const c of [b.subarray(0, rnd(b.length)), b.subarray(0, 54 + rnd(40)), mutate(b)]) expect(readOutcome(decodeStoredTx, c)).toEqual(readOutcome(decodeStoredTxByReader, c));
    }
  });

  it('the Included status has ByteWriter\'s bytes', () => {
    for (const [blockNumber, txIndex] of [[0n, 0], [1n, 1], [(1n << 64n) - 1n, 0xffffffff], [0x0102030405060708n, 0x0a0b0c0d]] as const) {
      const blockHash = bytes(32);
      const s = { kind: 'Included', blockNumber, txIndex, blockHash } as const;
      expect(encodeTxStatus(s)).toEqual(new ByteWriter(45).u8(1).u64(blockNumber).u32(txIndex).fixed(blockHash).finish());
      expect(decodeTxStatus(encodeTxStatus(s))).toEqual(s);
    }
  });
});
