import { describe, expect, it } from 'vitest';
import { RLP } from '@ethereumjs/rlp';
import { createTx } from '@ethereumjs/tx';
import { parseSignedTx, parseStoredFields, recoverSender } from '../../src/core/tx/decode.js';
import { decodeCanonical, deriveSyntheticSender, encodeCanonical, syntheticTxHash } from '../../src/core/tx/ic_synthetic.js';
import { countZeroBytes, intrinsicGas } from '../../src/core/tx/intrinsic.js';
import { keccak256 } from '../../src/core/crypto.js';
import { ErrorCode } from '../../src/core/errors.js';
import { bigintToMinBytes, bytesToBigint, toHex } from '../../src/core/codec/bytes.js';
import { addr, common, key, otherCommon, PRICE, sign1559, sign2930, signLegacy } from '../support/chain_testkit.js';
import { createTxFromRLP } from '@ethereumjs/tx';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const k = key(1);

describe('signed transaction decoding', () => {
  for (const [name, sign, type] of [
    ['legacy (EIP-155)', signLegacy, 0],
    ['EIP-2930', sign2930, 1],
    ['EIP-1559', sign1559, 2],
  ] as const) {
    it(`${name}: parses the fields and recovers the signer`, () => {
      const data = Uint8Array.of(1, 0, 2);
      const al: [Uint8Array, Uint8Array[]][] = type === 0 ? [] : [[addr(9), [new Uint8Array(32).fill(3)]]];
      const raw = sign(k, { nonce: 7n, value: 12345n, gasLimit: 50000n, data, accessList: al });
      const p = parseSignedTx(raw);
      if (!p.ok) throw new Error(p.error.message);
      const f = p.value.fields;
      expect(f.type).toBe(type);
      expect(f.nonce).toBe(7n);
      expect(f.value).toBe(12345n);
      expect(f.gasLimit).toBe(50000n);
      expect(f.data).toEqual(data);
      expect(f.to).toEqual(addr(1));
      expect(f.chainId).toBe(4801360n);
      expect(f.accessList.length).toBe(al.length);
      const ref = createTxFromRLP(raw, { common });
      expect(toHex(recoverSenderOk(p.value))).toBe(toHex(ref.getSenderAddress().bytes));
      expect(toHex(recoverSenderOk(p.value))).toBe(toHex(k.address));
      expect(toHex(p.value.signingPayload())).toBe(toHex(ref.getMessageToSign() instanceof Uint8Array ? (ref.getMessageToSign() as Uint8Array) : RLP.encode(ref.getMessageToSign() as Uint8Array[])));
      expect(toHex(keccak256(raw))).toBe(toHex(ref.hash()));
      expect(p.value.sig.r).toBe(ref.r);
      expect(p.value.sig.s).toBe(ref.s);
      expect(p.value.sig.v).toBe(ref.v);
    });
  }

  it('contract creation has no to', () => {
    const p = parseSignedTx(sign1559(k, { to: null, gasLimit: 100000n, data: Uint8Array.of(0x60, 0) }));
    expect(p.ok && p.value.fields.to).toBe(undefined);
  });

  it('rejects type 0x03 and 0x04 (and unknown types) as UnsupportedType', () => {
    for (const t of [0x03, 0x04, 0x05, 0x00, 0x7f]) {
      const p = parseSignedTx(Uint8Array.of(t, 0xc0));
      expect(p.ok ? undefined : p.error.code).toBe(ErrorCode.DecodeUnsupportedType);
    }
  });

  it('rejects a wrong chain id (legacy and typed)', () => {
    for (const raw of [signLegacy(k, {}, otherCommon), sign1559(k, {}, otherCommon), sign2930(k, {}, otherCommon)]) {
      const p = parseSignedTx(raw);
      expect(p.ok ? undefined : p.error.code).toBe(ErrorCode.DecodeWrongChainId);
    }
  });

  it('rejects a pre-EIP-155 legacy transaction (v = 27/28)', () => {
    const raw = RLP.encode([bigintToMinBytes(0n), bigintToMinBytes(PRICE), bigintToMinBytes(21000n), addr(1), bigintToMinBytes(1n), new Uint8Array(0), bigintToMinBytes(27n), bigintToMinBytes(5n), bigintToMinBytes(6n)]);
    const p = parseSignedTx(raw);
    expect(p.ok ? undefined : p.error.code).toBe(ErrorCode.DecodeLegacyChainIdMissing);
  });

  it('rejects malformed encodings as DecodeError::Malformed', () => {
    const good = sign1559(k);
    const cases = [
      new Uint8Array(0),
      good.subarray(0, good.length - 3), // truncated
      Uint8Array.of(...good, 0x00), // trailing byte
      Uint8Array.of(0x83, 1, 2, 3), // an RLP string, not a tx
      Uint8Array.of(0x02, 0xc3, 0x01, 0x02, 0x03), // too few fields
      RLP.encode([Uint8Array.of(0, 1), ...Array(8).fill(Uint8Array.of(1))]), // leading zero in nonce
      Uint8Array.of(0x02, 0x81, 0x05), // typed payload that is not a list
    ];
    for (const raw of cases) {
      const p = parseSignedTx(raw);
      expect(p.ok ? undefined : p.error.code, toHex(raw)).toBe(ErrorCode.DecodeMalformed);
    }
    // `to` of 19 bytes
    const items = RLP.decode(good.subarray(1)) as Uint8Array[];
    items[5] = new Uint8Array(19);
    const bad = Uint8Array.of(2, ...RLP.encode(items));
    expect(errOf(parseSignedTx(bad))).toBe(ErrorCode.DecodeMalformed);
  });

  it('rejects high-s (EIP-2), zero r and bad yParity as DecodeError::InvalidSignature', () => {
    const good = sign1559(k);
    const items = RLP.decode(good.subarray(1)) as Uint8Array[];
    const s = bytesToBigint(items[11]!);
    const highS = [...items];
    highS[11] = bigintToMinBytes(N - s);
    highS[9] = bigintToMinBytes(1n - bytesToBigint(items[9]!));
    expect(errOf(parseSignedTx(Uint8Array.of(2, ...RLP.encode(highS))))).toBe(ErrorCode.DecodeInvalidSignature);
    const zeroR = [...items];
    zeroR[10] = new Uint8Array(0);
    expect(errOf(parseSignedTx(Uint8Array.of(2, ...RLP.encode(zeroR))))).toBe(ErrorCode.DecodeInvalidSignature);
    const badParity = [...items];
    badParity[9] = Uint8Array.of(2);
    expect(errOf(parseSignedTx(Uint8Array.of(2, ...RLP.encode(badParity))))).toBe(ErrorCode.DecodeInvalidSignature);
    // Legacy with v = 30: neither 27/28 nor EIP-155.
    const leg = RLP.decode(signLegacy(k)) as Uint8Array[];
    leg[6] = Uint8Array.of(30);
    expect(errOf(parseSignedTx(RLP.encode(leg)))).toBe(ErrorCode.DecodeInvalidSignature);
  });

  it('a tampered payload recovers a different sender, never the original', () => {
    const good = sign1559(k, { value: 5n });
    const items = RLP.decode(good.subarray(1)) as Uint8Array[];
    items[6] = bigintToMinBytes(6n);
    const p = parseSignedTx(Uint8Array.of(2, ...RLP.encode(items)));
    if (!p.ok) throw new Error(p.error.message);
    const r = recoverSender(p.value);
    expect(r.ok && toHex(r.value) === toHex(k.address)).toBe(false);
  });
});

describe('stored transactions (block production)', () => {
  it('parseStoredFields gives the same fields as parseSignedTx for every type, without the signature', () => {
    const raws = [
      signLegacy(k),
      sign2930(k, { accessList: [[addr(2), [new Uint8Array(32).fill(3)]]], gasLimit: 100000n }),
      sign1559(k, { data: Uint8Array.of(0, 1, 2), gasLimit: 100000n }),
      sign1559(k, { to: null, data: new Uint8Array(40).fill(9), gasLimit: 200000n }),
    ];
    for (const raw of raws) {
      const full = parseSignedTx(raw);
      const stored = parseStoredFields(raw);
      if (!full.ok || !stored.ok) throw new Error('did not parse');
      expect(stored.value).toEqual(full.value.fields);
    }
    expect(parseStoredFields(Uint8Array.of(0x02, 0xc0)).ok).toBe(false);
  });
});

describe('IcSynthetic', () => {
  const caller = Uint8Array.of(1, 2, 3);
  const canister = Uint8Array.of(0, 0, 0, 0, 0, 0x10, 0, 1, 1, 1);
  it('derives the sender deterministically from caller and canister', () => {
    const a = deriveSyntheticSender(caller, canister);
    const b = deriveSyntheticSender(caller, canister);
    const c = deriveSyntheticSender(Uint8Array.of(1, 2, 4), canister);
    const d = deriveSyntheticSender(caller, Uint8Array.of(9));
    expect(a.ok && b.ok && c.ok && d.ok).toBe(true);
    if (!a.ok || !b.ok || !c.ok || !d.ok) return;
    expect(a.value).toEqual(b.value);
    expect(a.value).not.toEqual(c.value);
    expect(a.value).not.toEqual(d.value);
    const expected = keccak256(Uint8Array.of(...new TextEncoder().encode('evm-ic-synthetic-v1'), canister.length, ...canister, caller.length, ...caller)).slice(12);
    expect(a.value).toEqual(expected);
    expect(errOf(deriveSyntheticSender(new Uint8Array(0), canister))).toBe(ErrorCode.PrincipalDerivationFailed);
    expect(errOf(deriveSyntheticSender(new Uint8Array(30), canister))).toBe(ErrorCode.PrincipalDerivationFailed);
  });

  it('canonical bytes round-trip with a to_flag, and the hash has a domain prefix', () => {
    const from = addr(7);
    for (const to of [undefined, addr(3)]) {
      const rec = { to, value: 5n, gasLimit: 30000n, nonce: 2n, maxFeePerGas: 3n * PRICE, maxPriorityFeePerGas: PRICE, data: Uint8Array.of(9, 9) };
      const bytes = encodeCanonical(rec, from);
      expect(bytes[29]).toBe(to === undefined ? 0 : 1);
      const d = decodeCanonical(bytes);
      expect(d.from).toEqual(from);
      expect(d.fields).toMatchObject({ type: 2, nonce: 2n, gasLimit: 30000n, value: 5n, maxFeePerGas: 3n * PRICE, maxPriorityFeePerGas: PRICE });
      expect(d.fields.to).toEqual(to);
      expect(d.fields.data).toEqual(rec.data);
      expect(syntheticTxHash(bytes)).not.toEqual(keccak256(bytes));
    }
  });
});

describe('intrinsic gas (Prague)', () => {
  it('counts calldata, creation, access lists and the EIP-7623 floor like EthereumJS', () => {
    const cases = [
      sign1559(k),
      sign1559(k, { data: Uint8Array.of(0, 1, 2, 0), gasLimit: 100000n }),
      sign1559(k, { to: null, data: new Uint8Array(100).fill(7), gasLimit: 200000n }),
      sign2930(k, { accessList: [[addr(2), [new Uint8Array(32), new Uint8Array(32).fill(1)]]], gasLimit: 100000n }),
      sign1559(k, { data: new Uint8Array(1000).fill(1), gasLimit: 100000n }),
    ];
    for (const raw of cases) {
      const p = parseSignedTx(raw);
      if (!p.ok) throw new Error(p.error.message);
      const ref = createTx(createTxFromRLP(raw, { common }).toJSON() as never, { common });
      const refGas = ref.getIntrinsicGas();
      // EthereumJS's getIntrinsicGas is the standard cost; the EIP-7623 floor is max'ed in on top.
      expect(intrinsicGas(p.value.fields) >= refGas).toBe(true);
      const tokens = BigInt([...p.value.fields.data].reduce((a, b) => a + (b === 0 ? 1 : 4), 0));
      const floor = 21000n + 10n * tokens;
      expect(intrinsicGas(p.value.fields)).toBe(refGas > floor ? refGas : floor);
    }
  });

  it('counts zero bytes at every alignment and length (word-wise count against a byte loop)', () => {
    let seed = 7;
    const next = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const buf = new Uint8Array(4096 + 16);
    for (let round = 0; round < 400; round++) {
      // Mostly zeros, mostly non-zeros, or mixed, so whole-zero words and every per-word count occur.
      const zeroPct = [10, 50, 90, 100, 0][round % 5]!;
      for (let i = 0; i < buf.length; i++) buf[i] = next() % 100 < zeroPct ? 0 : 1 + (next() % 255);
      const start = next() % 9;
      const len = round < 40 ? round : next() % 4096;
      const d = buf.subarray(start, start + len);
      let want = 0;
      for (const b of d) if (b === 0) want++;
      expect(countZeroBytes(d), `start ${start} length ${len}`).toBe(want);
    }
  });
});

function recoverSenderOk(p: Parameters<typeof recoverSender>[0]): Uint8Array {
  const r = recoverSender(p);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

function errOf(r: { ok: boolean; error?: { code: string } }): string | undefined {
  return r.ok ? undefined : r.error!.code;
}
