// src/core/secp256k1.ts against @noble/curves (the previous implementation): same public key for valid
// signatures, undefined exactly where noble throws, the curve constants it relies on, and Ethereum vectors.
import { describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { RLP } from '@ethereumjs/rlp';
import {
  BETA,
  GLV_A1,
  GLV_A2,
  GLV_B1,
  GLV_B2,
  LAMBDA,
  N,
  P,
  invert,
  keyTables,
  recoverPublicKey,
  publicKeyBytes,
  recoverPointAt,
  recoverPublicKeyAt,
  recoveryPoint,
  splitScalar,
  sqrtModP,
  verifiesAs,
  warmUp,
} from '../../src/core/secp256k1.js';
import { addressByKnownKey, isKnownKey, keccak256, recoverAddress, recoverAddressAt, recoverAddressComparing, rememberKey } from '../../src/core/crypto.js';
import { ecrecoverHook } from '../../src/core/evm/common.js';
import { parseSignedTx, recoverSender, recoverSenderWithKey } from '../../src/core/tx/decode.js';
import { bigintToFixed, bytesToBigint, toHex } from '../../src/core/codec/bytes.js';
import { key, sign1559, signLegacy } from '../support/chain_testkit.js';

/** Deterministic PRNG (xorshift32), so a failure can be replayed. */
function rng(seed: number): (n: number) => Uint8Array {
  let x = seed >>> 0 || 1;
  return (n) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      x ^= x << 13;
      x >>>= 0;
      x ^= x >>> 17;
      x ^= x << 5;
      x >>>= 0;
      out[i] = x & 0xff;
    }
    return out;
  };
}

/** noble's answer: the 64-byte key, or undefined where it throws. */
function noble(h: Uint8Array, r: bigint, s: bigint, rec: number): Uint8Array | undefined {
  try {
    return new secp256k1.Signature(r, s, rec).recoverPublicKey(h).toBytes(false).subarray(1);
  } catch {
    return undefined;
  }
}

function expectSame(h: Uint8Array, r: bigint, s: bigint, rec: number): Uint8Array | undefined {
  const want = noble(h, r, s, rec);
  const got = recoverPublicKey(h, r, s, rec);
  expect(got === undefined ? undefined : toHex(got), `r=${r} s=${s} rec=${rec} h=${toHex(h)}`).toBe(
    want === undefined ? undefined : toHex(want),
  );
  return got;
}

function modPow(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  let x = b % m;
  for (let k = e; k > 0n; k >>= 1n) {
    if (k & 1n) r = (r * x) % m;
    x = (x * x) % m;
  }
  return r;
}

const G = secp256k1.Point.BASE;
const be32 = (v: bigint): Uint8Array => bigintToFixed(v, 32);

describe('secp256k1 constants', () => {
  it('p, n and the endomorphism: beta^3 = 1 (p), lambda^3 = 1 (n), lambda*G = (beta*Gx, Gy)', () => {
    expect(P).toBe(secp256k1.Point.Fp.ORDER);
    expect(N).toBe(secp256k1.Point.Fn.ORDER);
    expect(modPow(BETA, 3n, P)).toBe(1n);
    expect(modPow(LAMBDA, 3n, N)).toBe(1n);
    const lg = G.multiply(LAMBDA).toAffine();
    expect(lg.x).toBe((G.toAffine().x * BETA) % P);
    expect(lg.y).toBe(G.toAffine().y);
  });

  it('the GLV basis vectors are in the lattice and splitScalar gives short halves', () => {
    expect((((GLV_A1 + GLV_B1 * LAMBDA) % N) + N) % N).toBe(0n);
    expect((((GLV_A2 + GLV_B2 * LAMBDA) % N) + N) % N).toBe(0n);
    const rand = rng(7);
    const ks = [0n, 1n, N - 1n, N >> 1n, (1n << 128n) - 1n, 1n << 255n];
    for (let i = 0; i < 500; i++) ks.push(bytesToBigint(rand(32)) % N);
    for (const k of ks) {
      const [k1, k2] = splitScalar(k);
      expect((((k1 + k2 * LAMBDA - k) % N) + N) % N).toBe(0n);
      expect(k1 < 1n << 129n && -k1 < 1n << 129n && k2 < 1n << 129n && -k2 < 1n << 129n).toBe(true);
    }
  });

  it('invert and sqrtModP', () => {
    const rand = rng(11);
    for (let i = 0; i < 200; i++) {
      const a = (bytesToBigint(rand(32)) % (P - 1n)) + 1n;
      expect((invert(a, P) * a) % P).toBe(1n);
      const b = (bytesToBigint(rand(32)) % (N - 1n)) + 1n;
      expect((invert(b, N) * b) % N).toBe(1n);
      const sq = (a * a) % P;
      const root = sqrtModP(sq)!;
      expect(root === a || root === P - a).toBe(true);
      // A non-residue times a residue is a non-residue: -1 is a non-residue since p = 3 mod 4.
      expect(sqrtModP(P - sq)).toBeUndefined();
    }
    // Lehmer's method: every operand size, and values around its 2^50 switch to Number arithmetic.
    const edge = [2n, 3n, (1n << 50n) - 1n, 1n << 50n, (1n << 50n) + 1n, (1n << 53n) + 1n, 1n << 200n, P >> 1n, N >> 1n, N - 2n, P - 2n];
    for (let len = 1; len <= 32; len++) for (let i = 0; i < 30; i++) edge.push(bytesToBigint(rand(len)));
    for (const a of edge) {
      for (const m of [P, N]) {
        if (a % m === 0n) continue;
        const inv = invert(a, m);
        expect(inv >= 0n && inv < m && (inv * a) % m === 1n, `${a} mod ${m}`).toBe(true);
      }
    }
    expect(invert(-5n, P)).toBe(invert(P - 5n, P));
    expect(invert(1n, P)).toBe(1n);
    expect(invert(P - 1n, P)).toBe(P - 1n);
    expect(() => invert(0n, P)).toThrow();
    expect(() => invert(N, N)).toThrow();
    expect(sqrtModP(0n)).toBe(0n);
  });
});

describe('secp256k1 recovery matches @noble/curves', () => {
  warmUp();

  it('2000 random keys and messages (both recovery ids)', () => {
    const rand = rng(1234);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const sk = rand(32);
      const h = rand(32);
      const sig = secp256k1.Signature.fromBytes(secp256k1.sign(h, sk, { prehash: false, format: 'recovered' }), 'recovered');
      seen.add(sig.recovery!);
      const got = expectSame(h, sig.r, sig.s, sig.recovery!);
      expect(toHex(got!)).toBe(toHex(secp256k1.getPublicKey(sk, false).subarray(1)));
    }
    expect([...seen].sort()).toEqual([0, 1]);
  });

  it('random (r, s, recovery id) that were never signed: a key or a rejection, as noble', () => {
    const rand = rng(99);
    for (let i = 0; i < 300; i++) {
      const r = bytesToBigint(rand(32));
      const s = bytesToBigint(rand(32));
      expectSame(rand(32), r, s, i & 1);
    }
  });

  it('recoveryPoint (no hash) finds R exactly when noble can lift r, and recoverPublicKeyAt agrees with recoverPublicKey', () => {
    const rand = rng(1234);
    let lifted = 0;
    for (let i = 0; i < 300; i++) {
      const r = i % 50 === 0 ? N - 1n - BigInt(i) : bytesToBigint(rand(32));
      const s = bytesToBigint(rand(32)) % N;
      const v = i & 3;
      const h = rand(32);
      const point = recoveryPoint(r, v);
      let nobleLifts = true;
      try {
        const rx = v >= 2 ? r + N : r;
        if (r <= 0n || r >= N || rx >= P) throw new Error('out of range');
        secp256k1.Point.fromHex(toHex(Uint8Array.of(2 + (v & 1), ...be32(rx))));
      } catch {
        nobleLifts = false;
      }
      expect(point !== undefined, `r=${r} v=${v}`).toBe(nobleLifts);
      if (point === undefined) continue;
      lifted++;
      expect(Number(point.ry & 1n)).toBe(v & 1);
      expect((point.ry * point.ry - (point.rx ** 3n + 7n)) % P).toBe(0n);
      const a = recoverPublicKeyAt(h, point, s);
      const b = recoverPublicKey(h, r, s, v);
      expect(a === undefined ? 'none' : toHex(a)).toBe(b === undefined ? 'none' : toHex(b));
    }
    // About half of all r are the x of a curve point.
    expect(lifted).toBeGreaterThan(60);
    expect(lifted).toBeLessThan(240);
  });

  it('message hashes at the edges of z = hash mod n (u1 = 0, hash >= n, longer and shorter hashes)', () => {
    const sig = secp256k1.Signature.fromBytes(secp256k1.sign(new Uint8Array(32).fill(9), key(1).priv, { prehash: false, format: 'recovered' }), 'recovered');
    for (const h of [new Uint8Array(32), be32(N), be32(N + 1n), new Uint8Array(32).fill(0xff), be32(N - 1n), be32(1n), new Uint8Array(0), new Uint8Array(20).fill(3), new Uint8Array(48).fill(0xa5)]) {
      expectSame(h, sig.r, sig.s, sig.recovery!);
      expectSame(h, sig.r, sig.s, sig.recovery! ^ 1);
    }
  });

  it('R = ±G, ±2G, ±3G: partial sums that meet equal or opposite points, and Q = infinity', () => {
    const rand = rng(5);
    for (const m of [1n, 2n, 3n, 7n]) {
      const R = G.multiply(m).toAffine();
      for (const rec of [0, 1]) {
        for (let i = 0; i < 40; i++) {
          const s = (bytesToBigint(rand(32)) % (N - 1n)) + 1n;
          expectSame(rand(32), R.x, s, rec);
          // u1 G + u2 R = (s*(±m) - z)/r * G: infinity when z = ±m*s.
          const sign = (R.y & 1n) === BigInt(rec) ? 1n : N - 1n;
          const z = (s * m * sign) % N;
          expect(recoverPublicKey(be32(z), R.x, s, rec)).toBeUndefined();
          expectSame(be32(z), R.x, s, rec);
        }
      }
    }
  });

  it('rejects r or s outside [1, n), bad recovery ids, r with no curve point', () => {
    const h = new Uint8Array(32).fill(1);
    const sig = secp256k1.Signature.fromBytes(secp256k1.sign(h, key(2).priv, { prehash: false, format: 'recovered' }), 'recovered');
    const { r, s } = sig;
    const rec = sig.recovery!;
    expect(recoverPublicKey(h, r, s, rec)).toBeDefined();
    for (const [rr, ss] of [
      [0n, s],
      [N, s],
      [N + 1n, s],
      [P, s],
      [1n << 256n, s],
      [-r, s],
      [r, 0n],
      [r, N],
      [r, N + s],
      [r, -s],
    ] as const) {
      expect(recoverPublicKey(h, rr, ss, rec)).toBeUndefined();
      expect(noble(h, rr, ss, rec)).toBeUndefined();
    }
    for (const bad of [-1, 4, 0.5, 27, Number.NaN]) expect(recoverPublicKey(h, r, s, bad)).toBeUndefined();
    // x values whose x^3 + 7 has no square root.
    let found = 0;
    for (let x = 1n; found < 5; x++) {
      if (modPow((x * x * x + 7n) % P, (P - 1n) / 2n, P) === 1n) continue;
      found++;
      for (const rc of [0, 1]) {
        expect(recoverPublicKey(h, x, s, rc)).toBeUndefined();
        expectSame(h, x, s, rc);
      }
    }
  });

  it('recovery ids 2 and 3 (R.x = r + n): rejected when r + n >= p, as noble otherwise', () => {
    const h = new Uint8Array(32).fill(4);
    const rand = rng(77);
    const sig = secp256k1.Signature.fromBytes(secp256k1.sign(h, key(3).priv, { prehash: false, format: 'recovered' }), 'recovered');
    expect(recoverPublicKey(h, P - N, sig.s, 2)).toBeUndefined(); // r + n = p
    expect(recoverPublicKey(h, sig.r > P - N ? sig.r : P - N + 5n, sig.s, 3)).toBeUndefined();
    let keys = 0;
    for (let i = 0; i < 60; i++) {
      const r = (bytesToBigint(rand(17)) % (P - N - 1n)) + 1n; // r + n < p
      const got = expectSame(h, r, sig.s, 2 + (i & 1));
      if (got !== undefined) keys++;
    }
    expect(keys).toBeGreaterThan(10);
  });

  it('the ECRECOVER hook returns the same key', () => {
    const h = new Uint8Array(32).fill(6);
    const sig = secp256k1.Signature.fromBytes(secp256k1.sign(h, key(4).priv, { prehash: false, format: 'recovered' }), 'recovered');
    expect(toHex(ecrecoverHook(h, 27n + BigInt(sig.recovery!), be32(sig.r), be32(sig.s)))).toBe(toHex(noble(h, sig.r, sig.s, sig.recovery!)!));
    expect(() => ecrecoverHook(h, 27n, be32(0n), be32(sig.s))).toThrow();
  });
});

describe('recoverPointAt and the address memo', () => {
  warmUp();
  const addressOf = (pub: Uint8Array): string => toHex(keccak256(pub).subarray(12));

  it('recoverPointAt gives the key as coordinates in [0, p) on the curve; publicKeyBytes writes them as recoverPublicKeyAt', () => {
    const rand = rng(77);
    for (let i = 0; i < 40; i++) {
      const h = rand(32);
      const sig = secp256k1.Signature.fromBytes(secp256k1.sign(h, rand(32), { prehash: false, format: 'recovered' }), 'recovered');
      const point = recoveryPoint(sig.r, sig.recovery!)!;
      const q = recoverPointAt(h, point, sig.s)!;
      expect(q.x >= 0n && q.x < P && q.y >= 0n && q.y < P).toBe(true);
      expect((q.y * q.y - (q.x ** 3n + 7n)) % P).toBe(0n);
      expect(toHex(publicKeyBytes(q))).toBe(toHex(recoverPublicKeyAt(h, point, sig.s)!));
    }
    expect(recoverPointAt(new Uint8Array(32), recoveryPoint(G.x, 0)!, 0n)).toBeUndefined();
  });

  it('a repeated key answers from the memo with the same address (a fresh copy); Q and -Q (same x) get their own addresses', () => {
    const rand = rng(31);
    for (let i = 0; i < 20; i++) {
      const h = rand(32);
      const sk = rand(32);
      const sig = secp256k1.Signature.fromBytes(secp256k1.sign(h, sk, { prehash: false, format: 'recovered' }), 'recovered');
      const want = addressOf(secp256k1.getPublicKey(sk, false).subarray(1));
      const point = recoveryPoint(sig.r, sig.recovery!)!;
      const first = recoverAddressAt(h, point, sig.s)!;
      const second = recoverAddressAt(h, point, sig.s)!;
      expect(toHex(first)).toBe(want);
      expect(toHex(second)).toBe(want);
      second.fill(0); // a caller writing into its answer does not change the memo
      expect(toHex(recoverAddressAt(h, point, sig.s)!)).toBe(want);
      // -Q = r^-1 (s (-R) - (n - z) G): the other R and the hash n - z.
      const z = bytesToBigint(h) % N;
      const hNeg = be32((N - z) % N);
      const negPoint = recoveryPoint(sig.r, sig.recovery! ^ 1)!;
      const negKey = noble(hNeg, sig.r, sig.s, sig.recovery! ^ 1)!;
      expect(toHex(negKey.subarray(0, 32))).toBe(toHex(secp256k1.getPublicKey(sk, false).subarray(1, 33)));
      expect(toHex(negKey)).not.toBe(toHex(secp256k1.getPublicKey(sk, false).subarray(1)));
      expect(toHex(recoverAddressAt(hNeg, negPoint, sig.s)!)).toBe(addressOf(negKey));
      expect(toHex(recoverAddressAt(h, point, sig.s)!)).toBe(want);
    }
  });

  it('more keys than the memo holds: every answer still right', () => {
    const rand = rng(8);
    const sigs = Array.from({ length: 8 }, () => {
      const h = rand(32);
      const sk = rand(32);
      const sig = secp256k1.Signature.fromBytes(secp256k1.sign(h, sk, { prehash: false, format: 'recovered' }), 'recovered');
      return { h, point: recoveryPoint(sig.r, sig.recovery!)!, s: sig.s, want: addressOf(secp256k1.getPublicKey(sk, false).subarray(1)) };
    });
    // 1120 distinct keys (over the memo's 1024 entries): the same R and s over random hashes, a new key each.
    let checked = 0;
    for (let round = 0; round < 2; round++) {
      for (const x of sigs) {
        expect(toHex(recoverAddressAt(x.h, x.point, x.s)!)).toBe(x.want);
        checked++;
      }
      const rand2 = rng(100 + round);
      for (let i = 0; i < 560; i++) {
        const h = rand2(32);
        const x = sigs[i % sigs.length]!;
        const got = recoverAddressAt(h, x.point, x.s);
        // recoverPublicKey is checked against noble above; here it is the reference for the memo
        const want = recoverPublicKey(h, x.point.rx, x.s, Number(x.point.ry & 1n));
        expect(got === undefined ? 'none' : toHex(got)).toBe(want === undefined ? 'none' : addressOf(want));
      }
    }
    expect(checked).toBe(16);
  });
});

describe('Ethereum vectors', () => {
  it('EIP-155 example: key 0x46..46 signs nonce 9 to 0x35..35 on chain 1; sender 0x9d8A62f6...5A4F', () => {
    const fields = [9n, 20n * 10n ** 9n, 21000n, new Uint8Array(20).fill(0x35), 10n ** 18n, new Uint8Array(0), 1n, 0n, 0n];
    const signing = RLP.encode(fields);
    expect(toHex(signing)).toBe('ec098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080018080');
    const hash = keccak256(signing);
    expect(toHex(hash)).toBe('daf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53');
    const r = 18515461264373351373200002665853028612451056578545711640558177340181847433846n;
    const s = 46948507304638947509940763649030358759909902576025900602547168820602576006531n;
    const v = 37n; // 35 + 2 * 1 + yParity
    const address = recoverAddress(hash, r, s, Number((v - 35n) & 1n));
    expect(toHex(address!)).toBe('9d8a62f656a8d1615c1294fd71e9cfb3e4855a4f');
    const pub = recoverPublicKey(hash, r, s, 0)!;
    expect(toHex(pub)).toBe(toHex(secp256k1.getPublicKey(new Uint8Array(32).fill(0x46), false).subarray(1)));
  });

  it('the decoder only ever hands recovery ids 0 and 1 to recovery (EIP-155 v parity, typed yParity <= 1)', () => {
    const k = key(1);
    for (let nonce = 0n; nonce < 12n; nonce++) {
      for (const raw of [signLegacy(k, { nonce }), sign1559(k, { nonce })]) {
        const p = parseSignedTx(raw);
        if (!p.ok) throw new Error(p.error.message);
        expect([0, 1]).toContain(p.value.sig.yParity);
      }
    }
    // A typed transaction whose yParity is 2 is rejected before recovery.
    const raw = sign1559(k, {});
    const items = RLP.decode(raw.subarray(1)) as Uint8Array[];
    items[9] = Uint8Array.of(2);
    const bad = new Uint8Array([2, ...RLP.encode(items)]);
    const p = parseSignedTx(bad);
    expect(p.ok).toBe(false);
  });
});

describe('verification against a known key (a submit with its sender key as a hint)', () => {
  warmUp();
  const pubOf = (sk: Uint8Array | bigint): Uint8Array => secp256k1.getPublicKey(typeof sk === 'bigint' ? be32(sk) : sk, false).subarray(1);

  /** verifiesAs must say exactly whether recovery (noble's) returns this key. */
  function expectVerifySame(h: Uint8Array, r: bigint, s: bigint, rec: number, key: Uint8Array): boolean {
    const tables = keyTables(key);
    if (tables === undefined) throw new Error('test key is not a curve point');
    const want = noble(h, r, s, rec);
    const got = verifiesAs(h, r, s, rec, tables);
    expect(got, `r=${r} s=${s} rec=${rec} h=${toHex(h)} key=${toHex(key)}`).toBe(want !== undefined && toHex(want) === toHex(key));
    return got;
  }

  it('300 random keys: the signer verifies; the other recovery id, another hash or another key do not', () => {
    const rand = rng(4242);
    let verified = 0;
    for (let i = 0; i < 300; i++) {
      const sk = rand(32);
      const h = rand(32);
      const sig = secp256k1.Signature.fromBytes(secp256k1.sign(h, sk, { prehash: false, format: 'recovered' }), 'recovered');
      const key = pubOf(sk);
      if (expectVerifySame(h, sig.r, sig.s, sig.recovery!, key)) verified++;
      expectVerifySame(h, sig.r, sig.s, sig.recovery! ^ 1, key);
      const other = h.slice();
      other[i % 32]! ^= 1 << (i % 8);
      expectVerifySame(other, sig.r, sig.s, sig.recovery!, key);
      expectVerifySame(h, sig.r, sig.s, sig.recovery!, pubOf(rand(32)));
    }
    expect(verified).toBe(300);
  });

  it('signatures never made: exactly the key recovery finds verifies', () => {
    const rand = rng(7);
    let found = 0;
    for (let i = 0; i < 200; i++) {
      const h = rand(32);
      const r = bytesToBigint(rand(32)) % N;
      const s = bytesToBigint(rand(32)) % N;
      const want = noble(h, r, s, i & 1);
      if (want !== undefined) {
        found++;
        expect(expectVerifySame(h, r, s, i & 1, want)).toBe(true);
      }
      expectVerifySame(h, r, s, i & 1, pubOf(rand(32)));
    }
    expect(found).toBeGreaterThan(50);
  });

  it('chosen keys and nonces: Q = ±G, ±2G, small and large scalars, z = 0 and z >= n, R = infinity', () => {
    // s = (z + r d) / k for key d and nonce k, R = k G: partial sums of G's and Q's combs meet equal and
    // opposite points when d is small, and u1 = 0 when z = 0 (mod n).
    const rand = rng(11);
    const scalars = [1n, 2n, 3n, N - 1n, N - 2n, 1n << 128n, (1n << 130n) - 1n, N >> 1n];
    for (const d of scalars) {
      const key = pubOf(d);
      for (const k of [...scalars, d, N - d]) {
        const R = G.multiply(k).toAffine();
        const r = R.x % N;
        const rec = Number(R.y & 1n);
        for (const h of [rand(32), new Uint8Array(32), be32(N), be32(N + 5n), be32((N - ((r * d) % N)) % N)]) {
          let z = bytesToBigint(h);
          if (z >= N) z -= N;
          const s = (invert(k, N) * (z + r * d)) % N;
          if (s === 0n) continue;
          expect(expectVerifySame(h, r, s, rec, key)).toBe(true);
          expectVerifySame(h, r, s, rec ^ 1, key);
        }
      }
    }
    // u1 G + u2 K = infinity: K = -(z / r) G, which recovery never returns for a valid R.
    const r = G.multiply(5n).toAffine().x;
    const h = rand(32);
    const z = bytesToBigint(h) % N;
    const k = (N - ((z * invert(r, N)) % N)) % N;
    expectVerifySame(h, r, 12345n, 0, pubOf(k));
    expect(verifiesAs(h, r, 12345n, 0, keyTables(pubOf(k))!)).toBe(false);
  });

  it('keyTables refuses what is not a curve point; verifiesAs refuses r, s out of range and recovery ids 2, 3', () => {
    const key = pubOf(key1());
    expect(keyTables(key.subarray(1))).toBeUndefined();
    expect(keyTables(new Uint8Array(64))).toBeUndefined();
    const offCurve = key.slice();
    offCurve[63]! ^= 1;
    expect(keyTables(offCurve)).toBeUndefined();
    expect(keyTables(cat(be32(P + 1n), key.subarray(32)))).toBeUndefined();
    const h = new Uint8Array(32).fill(3);
    const sig = secp256k1.Signature.fromBytes(secp256k1.sign(h, key1(), { prehash: false, format: 'recovered' }), 'recovered');
    const t = keyTables(key)!;
    expect(verifiesAs(h, sig.r, sig.s, sig.recovery!, t)).toBe(true);
    for (const [r, s, rec] of [[0n, sig.s, sig.recovery!], [sig.r, 0n, sig.recovery!], [N, sig.s, sig.recovery!], [sig.r, N, sig.recovery!], [sig.r, sig.s, sig.recovery! + 2]] as const) {
      expect(verifiesAs(h, r, s, rec, t)).toBe(false);
    }
  });

  const key1 = (): Uint8Array => key(901).priv;
  const cat = (a: Uint8Array, b: Uint8Array): Uint8Array => new Uint8Array([...a, ...b]);

  it('the known-key cache: a kept key (an admitted submit) gets its tables at its second sight, then verifies', () => {
    const rand = rng(606);
    const sk = rand(32);
    const key = pubOf(sk);
    const address = keccak256(key).subarray(12);
    const sign = (h: Uint8Array) => secp256k1.Signature.fromBytes(secp256k1.sign(h, sk, { prehash: false, format: 'recovered' }), 'recovered');
    const h1 = rand(32);
    const s1 = sign(h1);
    expect(isKnownKey(key, true)).toBe(false);
    expect(addressByKnownKey(h1, s1.r, s1.s, s1.recovery!, key, true)).toBeUndefined();
    // Recovery compares with the hint and keeps nothing itself.
    const wrong = recoverAddressComparing(h1, recoveryPoint(s1.r, s1.recovery!)!, s1.s, pubOf(rand(32)))!;
    expect([toHex(wrong.address), wrong.isHinted]).toEqual([toHex(address), false]);
    const right = recoverAddressComparing(h1, recoveryPoint(s1.r, s1.recovery!)!, s1.s, key)!;
    expect([toHex(right.address), right.isHinted]).toEqual([toHex(address), true]);
    expect(isKnownKey(key, true)).toBe(false);
    // Kept (the submit was admitted), without tables: an inspection (no table building) still recovers.
    rememberKey(key, address);
    expect([isKnownKey(key, true), isKnownKey(key, false)]).toEqual([true, false]);
    const h2 = rand(32);
    const s2 = sign(h2);
    expect(addressByKnownKey(h2, s2.r, s2.s, s2.recovery!, key, false)).toBeUndefined();
    // Second sight in an update: tables built, the signature verified.
    expect(toHex(addressByKnownKey(h2, s2.r, s2.s, s2.recovery!, key, true) as Uint8Array)).toBe(toHex(address));
    expect(isKnownKey(key, false)).toBe(true);
    // A signature by another key, and the other recovery id: false (the submit is refused).
    const stranger = secp256k1.Signature.fromBytes(secp256k1.sign(h2, rand(32), { prehash: false, format: 'recovered' }), 'recovered');
    expect(addressByKnownKey(h2, stranger.r, stranger.s, stranger.recovery!, key, true)).toBe(false);
    expect(addressByKnownKey(h2, s2.r, s2.s, s2.recovery! ^ 1, key, true)).toBe(false);
    // Answers are fresh copies.
    const a = addressByKnownKey(h2, s2.r, s2.s, s2.recovery!, key, false) as Uint8Array;
    a.fill(0);
    expect(toHex(addressByKnownKey(h2, s2.r, s2.s, s2.recovery!, key, false) as Uint8Array)).toBe(toHex(address));
  });

  it('recoverSenderWithKey answers as recoverSender for the right key on every sight, and refuses another key', () => {
    const k = key(902);
    const pub = pubOf(k.priv);
    for (let nonce = 0n; nonce < 4n; nonce++) {
      for (const raw of [sign1559(k, { nonce }), signLegacy(k, { nonce })]) {
        const p = parseSignedTx(raw);
        if (!p.ok) throw new Error(p.error.message);
        const plain = recoverSender(p.value);
        if (!plain.ok) throw new Error(plain.error.message);
        expect(toHex(plain.value)).toBe(toHex(k.address));
        for (const opts of [{ buildTables: true, pointFirst: false }, { buildTables: false, pointFirst: true }]) {
          const hinted = recoverSenderWithKey(p.value, pub, opts);
          expect(hinted.ok && toHex(hinted.value)).toBe(toHex(k.address));
          const wrong = recoverSenderWithKey(p.value, pubOf(key(903).priv), opts);
          expect(!wrong.ok && wrong.error.code).toBe('submit.sender_key_mismatch');
          const short = recoverSenderWithKey(p.value, pub.subarray(1), opts);
          expect(!short.ok && short.error.code).toBe('submit.sender_key_mismatch');
        }
        // What submitRaw does once the transaction is admitted.
        rememberKey(pub, k.address);
      }
    }
    expect(isKnownKey(pub, false)).toBe(true);
    // An r that is not the x of a curve point: refused before hashing with pointFirst; without it a kept key's
    // verification answers first (not made by the key).
    const p = parseSignedTx(sign1559(k, { nonce: 9n }));
    if (!p.ok) throw new Error(p.error.message);
    let badR = 5n;
    while (recoveryPoint(badR, 0) !== undefined) badR++;
    const bad = { ...p.value, sig: { ...p.value.sig, r: badR } };
    const first = recoverSenderWithKey(bad, pub, { buildTables: true, pointFirst: true });
    expect(!first.ok && first.error.code).toBe('DecodeError::InvalidSignature');
    const verified = recoverSenderWithKey(bad, pub, { buildTables: true, pointFirst: false });
    expect(!verified.ok && verified.error.code).toBe('submit.sender_key_mismatch');
    const unknown = recoverSenderWithKey(bad, pubOf(key(904).priv), { buildTables: true, pointFirst: false });
    expect(!unknown.ok && unknown.error.code).toBe('DecodeError::InvalidSignature');
  });

  it('the cache keeps the 512 most recently used keys: a verified key moves to the end, the oldest goes', () => {
    const rand = rng(808);
    const sk = rand(32);
    const key = pubOf(sk);
    const address = keccak256(key).subarray(12);
    const h = rand(32);
    const sig = secp256k1.Signature.fromBytes(secp256k1.sign(h, sk, { prehash: false, format: 'recovered' }), 'recovered');
    rememberKey(key, address);
    // Other kept keys (rememberKey takes what recovery returned; any 64 bytes do here). Earlier tests' keys
    // are in the cache too, and are the oldest.
    const others = Array.from({ length: 1100 }, () => rand(64));
    for (const o of others.slice(0, 511)) rememberKey(o, address);
    expect(isKnownKey(key, true)).toBe(true);
    // Used again: now the most recent, so the next key evicts the oldest other one instead.
    expect(addressByKnownKey(h, sig.r, sig.s, sig.recovery!, key, true)).not.toBe(false);
    rememberKey(others[511]!, address);
    expect([isKnownKey(key, true), isKnownKey(others[0]!, true), isKnownKey(others[1]!, true), isKnownKey(others[511]!, true)]).toEqual([true, false, true, true]);
    // Not used again: evicted once 512 newer keys came.
    for (const o of others.slice(512, 1022)) rememberKey(o, address);
    expect(isKnownKey(key, true)).toBe(true);
    rememberKey(others[1022]!, address);
    expect(isKnownKey(key, true)).toBe(false);
  });
});
