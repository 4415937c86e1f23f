// secp256k1 public-key recovery (ECDSA, as Ethereum uses it), written for the canister's cost model.
//
// Why not @noble/curves: inside the canister (QuickJS interpreted in wasm, every instruction costs
// cycles) noble's recovery cost about four times this module's, and was most of a transaction's submit
// (bench: submit_raw.transfer.without_key.instructions, a submit that recovers; the square root, main loop
// of ~127 doublings and ~62 additions, two inversions, R's tables and scalar recoding are its bulk; the
// dated measurements are docs/performance.md's, "Signature recovery in a submit").
// Measured in the canister (scratch micro-benchmarks, relative costs):
//   a BigInt + or - costs about what a BigInt * of 256-bit operands does (a shift half), a 512-bit % p
//   five of them; a Number multiply-add on locals about a seventh of one, so a 10-26-bit-limb field multiply (100+
//   multiply-adds) costs more than a BigInt multiply plus %; pseudo-Mersenne folding with BigInt shifts and
//   masks (7 BigInt operations) costs more than one %.
// BigInt operations cost about the same whatever their size up to ~1000 bits, so the design counts
// BigInt operations and above all `%` reductions:
//   - field elements are BigInts in (-p, p): every reduction is a plain `%` (JS keeps the sign of the
//     dividend, which is harmless because only products and sums are taken until the final output);
//   - a square that only feeds products reduced next (X^2, Y^2 in dbl; Z^2, H^2 in madd; every other
//     squaring of the square root) is folded once by 2^256 = 2^32 + 977 (mod p) instead: mask, shift,
//     small multiply, add, a little over half a 512-bit `%`, leaving < 2^290; the dividends after it grow
//     by ~34 bits (a `%` costs a fixed part plus a part per dividend bit). Folding a value that feeds
//     itself (Z in dbl) would grow it by ~33 bits a step, so those stay `%`;
//   - lazy reduction: a product is reduced only when it feeds another product, and sums/differences of
//     products are reduced once (e.g. Y3 = (R*(V - X3) - Y1*HHH) % p);
//   - Jacobian coordinates; one field inversion at the end; inversions (that one and r^-1 mod n) by
//     Lehmer's extended Euclid on Number leading digits (cheaper than BigInt Euclid, under a third of Fermat);
//   - Q = u1*G + u2*R by one shared doubling chain of ~128 doublings: u2*R is split with the GLV
//     endomorphism (lambda*(x, y) = (beta*x, y)) into two ~128-bit halves, and u1*G into its low and high
//     128 bits with precomputed affine tables of odd multiples of G and of 2^128*G (built once per heap,
//     see warmUp); all four scalars are written in width-w NAF, so additions are sparse;
//   - the odd multiples of R are made affine, without an inversion, on an isomorphic curve on which the
//     main loop then runs (see oddMultiplesIso), so it only needs the cheaper mixed (Jacobian + affine)
//     addition.
// Validation follows @noble/curves' Signature.recoverPublicKey exactly (the previous implementation):
// r, s in [1, n); recovery id 0..3 (2/3 mean R.x = r + n, which must be below p); R.x must have a square
// root; the recovered point must not be infinity. The result is the same 64-byte x || y as noble's.

import { HEX_DIGITS } from './codec/bytes.js';

/** Field prime p = 2^256 - 2^32 - 977. */
export const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;
/** Group order n (the curve has cofactor 1, so every point other than infinity has order n). */
export const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const GX = 0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798n;
const GY = 0x483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8n;
/** beta^3 = 1 mod p and lambda^3 = 1 mod n with lambda*(x, y) = (beta*x, y) for every point. */
export const BETA = 0x7ae96a2b657c07106e64479eac3434e99cf0497512f58995c1396c28719501een;
export const LAMBDA = 0x5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72n;
// A short basis of the lattice {(a, b) : a + b*lambda = 0 mod n}: (A1, B1) and (A2, B2) (B2 = A1).
// The unit test checks both vectors lie in the lattice.
export const GLV_A1 = 0x3086d221a7d46bcde86c90e49284eb15n;
export const GLV_B1 = -0xe4437ed6010e88286f547fa90abfe4c3n;
export const GLV_A2 = 0x114ca50f7a8e2f3f657c1108d9d44cfd8n;
export const GLV_B2 = GLV_A1;
const HALF_N = N >> 1n;

/** wNAF window for the R term (table of 2^(W_R-2) odd multiples of R, built per signature). */
const W_R = 5;
/**
 * wNAF window for the G term (tables of 2^(W_G-2) odd multiples of G and 2^128*G, built once). Measured
 * in the canister: 12 saves a few percent of a recovery over 10 (fewer G additions); building the
 * tables costs about four times as much, once per heap (the warm-up's 'secp256k1' step).
 */
const W_G = 12;

// ---------------------------------------------------------------------------------------------------
// Field helpers

/** a mod m in [0, m). */
function norm(a: bigint, m: bigint): bigint {
  const r = a % m;
  return r < 0n ? r + m : r;
}

/** 2^256 mod p: a 512-bit t is t mod 2^256 + (t >> 256) * FOLD (mod p). */
const FOLD = 0x1000003d1n;
const MASK256 = (1n << 256n) - 1n;

/** Below this both remainders are exact Numbers (< 2^53), and Euclid finishes in Number arithmetic. */
const SMALL = 1n << 50n;

/**
 * Inverse of a modulo the prime m (a not divisible by m): extended Euclid with Lehmer's method. Plain
 * BigInt Euclid costs ~150 steps of 5 BigInt operations; here the quotients are
 * found on the leading ~50 bits of the remainders as Numbers (exact below 2^53), and only the
 * accumulated 2x2 matrix of each run of quotients is applied to the BigInts (Knuth, TAOCP 4.5.2, L).
 */
export function invert(a: bigint, m: bigint): bigint {
  const x = norm(a, m);
  if (x === 0n) throw new Error('secp256k1: inverse of zero');
  // Invariant: t0 * a = r0 and t1 * a = r1 (mod m); r0 > r1 >= 0.
  let r0 = m;
  let r1 = x;
  let t0 = 0n;
  let t1 = 1n;
  while (r1 >= SMALL) {
    // Leading digits of r0 and r1, shifted by the same amount so that u < 2^51.
    const e = Math.floor(Math.log2(Number(r0)));
    const k = BigInt(e > 50 ? e - 50 : 0);
    let u = Number(r0 >> k);
    let v = Number(r1 >> k);
    // (A B; C D) maps (r0, r1) to the remainders after the quotients simulated so far.
    let A = 1;
    let B = 0;
    let C = 0;
    let D = 1;
    for (;;) {
      const vc = v + C;
      const vd = v + D;
      if (vc <= 0 || vd <= 0) break;
      const q = Math.floor((u + A) / vc);
      // The true quotient lies between (u+A)/(v+C) and (u+B)/(v+D): stop unless both give q.
      if (q !== Math.floor((u + B) / vd)) break;
      const nc = A - q * C;
      A = C;
      C = nc;
      const nd = B - q * D;
      B = D;
      D = nd;
      const nv = u - q * v;
      u = v;
      v = nv;
    }
    if (B === 0) {
      // No quotient could be simulated: one full-precision step.
      const q = r0 / r1;
      const r = r0 - q * r1;
      r0 = r1;
      r1 = r;
      const t = t0 - q * t1;
      t0 = t1;
      t1 = t;
    } else {
      const bA = BigInt(A);
      const bB = BigInt(B);
      const bC = BigInt(C);
      const bD = BigInt(D);
      const n0 = bA * r0 + bB * r1;
      r1 = bC * r0 + bD * r1;
      r0 = n0;
      const s0 = bA * t0 + bB * t1;
      t1 = bC * t0 + bD * t1;
      t0 = s0;
    }
  }
  if (r1 === 0n) throw new Error('secp256k1: not invertible');
  // One BigInt step so both remainders are small, then Euclid on Numbers (exact: all values < 2^50).
  const q0 = r0 / r1;
  let u = Number(r1);
  let v = Number(r0 - q0 * r1);
  let s = t1;
  let t = t0 - q0 * t1;
  let A = 1; // the remainder u is A*r1' + B*r2' with r1', r2' the remainders before this loop
  let B = 0;
  let C = 0;
  let D = 1;
  while (v !== 0) {
    const q = Math.floor(u / v);
    const nv = u - q * v;
    u = v;
    v = nv;
    const nc = A - q * C;
    A = C;
    C = nc;
    const nd = B - q * D;
    B = D;
    D = nd;
  }
  if (u !== 1) throw new Error('secp256k1: not invertible');
  const inv = (BigInt(A) * s + BigInt(B) * t) % m;
  return inv < 0n ? inv + m : inv;
}

/**
 * s^(2^k) mod p. Squarings go in pairs: the first is folded by 2^256 = FOLD (mod p) instead of reduced
 * (see dbl), the second reduced by `%` (a 580-bit dividend): a few percent cheaper than two `%`.
 * (Pairing squarings under one 1024-bit % measured no cheaper.) The result is a `%` output, in (-p, p).
 */
function sqrN(s: bigint, k: number): bigint {
  let t = s;
  let i = 0;
  for (; i + 1 < k; i += 2) {
    const u = t * t;
    const f = (u & MASK256) + (u >> 256n) * FOLD;
    t = (f * f) % P;
  }
  if (i < k) t = (t * t) % P;
  return t;
}

/**
 * A square root of c mod p, or undefined if c is not a square. p = 3 mod 4, so it is c^((p+1)/4).
 * (p+1)/4 in binary is 223 ones, a zero, 22 ones, then 00001100: an addition chain of 253 squarings
 * and 13 multiplications that builds x_k = c^(2^k - 1) for the runs of ones.
 */
export function sqrtModP(c: bigint): bigint | undefined {
  const x1 = norm(c, P);
  const x2 = (sqrN(x1, 1) * x1) % P;
  const x3 = (sqrN(x2, 1) * x1) % P;
  const x6 = (sqrN(x3, 3) * x3) % P;
  const x9 = (sqrN(x6, 3) * x3) % P;
  const x11 = (sqrN(x9, 2) * x2) % P;
  const x22 = (sqrN(x11, 11) * x11) % P;
  const x44 = (sqrN(x22, 22) * x22) % P;
  const x88 = (sqrN(x44, 44) * x44) % P;
  const x176 = (sqrN(x88, 88) * x88) % P;
  const x220 = (sqrN(x176, 44) * x44) % P;
  const x223 = (sqrN(x220, 3) * x3) % P;
  let t = (sqrN(x223, 23) * x22) % P; // 223 ones, 0, 22 ones
  t = (sqrN(t, 6) * x2) % P; // 000011
  t = sqrN(t, 2); // 00
  const root = norm(t, P);
  return (root * root - x1) % P === 0n ? root : undefined;
}

// ---------------------------------------------------------------------------------------------------
// The Jacobian accumulator (X/Z^2, Y/Z^3); Z = 0 is infinity. Module variables, so the hot loop
// allocates nothing but BigInts. Every coordinate is the result of a `% P`, so it lies in (-p, p) and
// "is zero mod p" is `=== 0n`.

let AX = 0n;
let AY = 0n;
let AZ = 0n;
/**
 * Z's pending factor: doublings since the last flushZ multiply Z by 2 Y each; their Ys are collected here
 * (ZK of them, at most 2) and applied to AZ with one `%` when Z is next read (flushZ), instead of one `%`
 * a doubling: a run of 2 or 3 doublings between additions saves one or two reductions.
 */
let ZM = 1n;
let ZK = 0;
const ZSHIFT = [0n, 1n, 2n, 3n];

/** Applies the pending doublings' factor to AZ. Every reader of AZ other than the loop's infinity test calls it first. */
function flushZ(): void {
  if (ZK !== 0) {
    AZ = ((AZ * ZM) << ZSHIFT[ZK]!) % P;
    ZK = 0;
  }
}

/**
 * A <- 2A (a = 0 curve): 3 reductions and 2 folds. X^2 and Y^2 are folded once by 2^256 = FOLD (mod p)
 * (mask, shift, small multiply, add: a little over half a `% p`, measured) instead of
 * reduced: the result, below 2^290 in absolute value, only feeds products that are reduced by `%` next,
 * which grow by ~34 bits (a small part of a `%` each). Z is still reduced: it feeds itself every doubling.
 */
function dbl(): void {
  const x = AX;
  const y = AY;
  const y2 = y * y;
  const yy = (y2 & MASK256) + (y2 >> 256n) * FOLD;
  // S / 4 with S = 4 X Y^2, not reduced: it is only used in sums and in one product below, where a
  // 512-bit factor and the (768-bit) % cost together about a third of the % they save.
  const s = x * yy;
  const x2 = x * x;
  const m = ((x2 & MASK256) + (x2 >> 256n) * FOLD) * 3n; // M = 3 X^2
  const x3 = (m * m - (s << 3n)) % P; // M^2 - 2S
  AY = (m * ((s << 2n) - x3) - ((yy * yy) << 3n)) % P; // M (S - X3) - 8 Y^4
  // Z3 = 2 Y Z, deferred (see ZM). Y is never 0 mod p (no point of order 2), so AZ stays nonzero.
  if (ZK === 0) ZM = y;
  else ZM *= y;
  AX = x3;
  if (++ZK === 3) flushZ();
}

/**
 * A <- A + (x2, y2) with (x2, y2) affine, not infinity: 5 reductions and 2 folds. Handles A = infinity,
 * A = ±(x2, y2). x2 and y2 may be any integers representing the coordinates mod p (see addDigitMapped).
 */
function madd(x2: bigint, y2: bigint): void {
  flushZ();
  const z1 = AZ;
  if (z1 === 0n) {
    AX = x2;
    AY = y2;
    AZ = 1n;
    return;
  }
  const zz = z1 * z1;
  const z1z1 = (zz & MASK256) + (zz >> 256n) * FOLD; // folded, not reduced (see dbl)
  const h = (x2 * z1z1 - AX) % P; // U2 - X1
  const r = (y2 * z1 * z1z1 - AY) % P; // S2 - Y1 (one reduction of a 768-bit value)
  if (h === 0n) {
    if (r === 0n) {
      AX = x2;
      AY = y2;
      AZ = 1n;
      dbl();
    } else {
      AZ = 0n; // A = -(x2, y2)
    }
    return;
  }
  const h2 = h * h;
  const hh = (h2 & MASK256) + (h2 >> 256n) * FOLD; // folded, not reduced (see dbl)
  const hhh = h * hh; // not reduced: only used in the sums below
  const v = AX * hh; // not reduced either (the Y3 sum is 768 bits wide anyway)
  const x3 = (r * r - hhh - (v << 1n)) % P;
  AY = (r * (v - x3) - AY * hhh) % P;
  // Z3 folded, not reduced (see dbl): a doubling reduces it next, or, for up to three more additions at
  // the same digit position, it grows by ~33-66 bits each, which only widens their products a little.
  const zh = z1 * h;
  AZ = (zh & MASK256) + (zh >> 256n) * FOLD;
  AX = x3;
  LAST_H = h;
}

/** H of madd's last general addition: the ratio Z3 / Z1 (used to put a table on one common Z). */
let LAST_H = 0n;

/** (x1, y1, z1) + (x2, y2, z2), both Jacobian and not infinity, for building tables only (no equal/opposite inputs). */
function addJacobian(x1: bigint, y1: bigint, z1: bigint, x2: bigint, y2: bigint, z2: bigint): [bigint, bigint, bigint] {
  const z1z1 = (z1 * z1) % P;
  const z2z2 = (z2 * z2) % P;
  const u1 = (x1 * z2z2) % P;
  const s1 = (y1 * z2 * z2z2) % P;
  const h = (x2 * z1z1 - u1) % P;
  const r = (y2 * z1 * z1z1 - s1) % P;
  if (h === 0n) throw new Error('secp256k1: table addition of equal or opposite points');
  const hh = (h * h) % P;
  const hhh = h * hh;
  const v = (u1 * hh) % P;
  const x3 = (r * r - hhh - (v << 1n)) % P;
  const y3 = (r * (v - x3) - s1 * hhh) % P;
  const z3 = (((z1 * z2) % P) * h) % P;
  return [x3, y3, z3];
}

/** Affine odd multiples (1, 3, 5, ..., 2*count-1) * (x, y) of an affine point: xs, ys in [0, p). */
interface OddTable {
  xs: bigint[];
  ys: bigint[];
}

/** Odd multiples of the affine point (x, y): Jacobian chain T + 2P, then one batch inversion (Montgomery's trick). */
function oddMultiples(x: bigint, y: bigint, count: number): OddTable {
  AX = x;
  AY = y;
  AZ = 1n;
  ZK = 0;
  dbl();
  flushZ();
  const dx = AX;
  const dy = AY;
  const dz = AZ;
  const jx = [x];
  const jy = [y];
  const jz = [1n];
  for (let i = 1; i < count; i++) {
    const [nx, ny, nz] = addJacobian(jx[i - 1]!, jy[i - 1]!, jz[i - 1]!, dx, dy, dz);
    jx.push(nx);
    jy.push(ny);
    jz.push(nz);
  }
  return toAffine(jx, jy, jz);
}

/** Batch conversion to affine: one inversion and about 6 multiplications per point. */
function toAffine(jx: bigint[], jy: bigint[], jz: bigint[]): OddTable {
  const n = jz.length;
  const prefix: bigint[] = new Array<bigint>(n);
  let acc = 1n;
  for (let i = 0; i < n; i++) {
    prefix[i] = acc;
    acc = (acc * jz[i]!) % P;
  }
  let inv = invert(acc, P); // 1 / (z0 ... z_{n-1})
  const xs: bigint[] = new Array<bigint>(n);
  const ys: bigint[] = new Array<bigint>(n);
  for (let i = n - 1; i >= 0; i--) {
    const zi = (inv * prefix[i]!) % P; // 1 / z_i
    inv = (inv * jz[i]!) % P; // 1 / (z0 ... z_{i-1})
    const zi2 = (zi * zi) % P;
    xs[i] = norm(jx[i]! * zi2, P);
    ys[i] = norm(((jy[i]! * zi2) % P) * zi, P);
  }
  return { xs, ys };
}

/**
 * Odd multiples 1, 3, ..., 2*count-1 of the affine point R = (x, y), affine on an isomorphic curve,
 * without any field inversion ("effective affine"). For a nonzero W, (x, y) -> (x W^2, y W^3) maps the
 * curve y^2 = x^3 + 7 onto y^2 = x^3 + 7 W^6; doubling and addition formulas for a = 0 curves do not
 * involve the constant, so the whole main loop can run on the image curve and the result is mapped back
 * by multiplying its Jacobian Z by W. Here D = 2R = (Xd, Yd, Zd) is affine on the image for W = Zd, so
 * the chain T + D uses mixed additions; each addition multiplies Z by its H, so the chain's points are
 * rescaled to the last point's Z (Zl) with the running product of the H's, which makes them all affine
 * on the image for W = Zd * Zl. Costs ~1/3 of building Jacobian multiples and batch-inverting them; the
 * price is two multiplications per G addition (G's tables are affine on the original curve).
 */
function oddMultiplesIso(x: bigint, y: bigint, count: number): { t: OddTable; w: bigint } {
  AX = x;
  AY = y;
  AZ = 1n;
  ZK = 0;
  dbl();
  flushZ();
  const dx = AX;
  const dy = AY;
  const zd = AZ;
  const zd2 = (zd * zd) % P;
  const jx = [(x * zd2) % P];
  const jy = [(((y * zd2) % P) * zd) % P];
  const hs: bigint[] = [];
  AX = jx[0]!;
  AY = jy[0]!;
  AZ = 1n;
  ZK = 0;
  for (let i = 1; i < count; i++) {
    madd(dx, dy); // never a special case: (2i-1)R != ±2R since R has prime order n
    AZ %= P; // madd leaves Z folded; reduced here, where madds follow each other without a doubling
    jx.push(AX);
    jy.push(AY);
    hs.push(LAST_H);
  }
  const xs: bigint[] = new Array<bigint>(count);
  const ys: bigint[] = new Array<bigint>(count);
  xs[count - 1] = jx[count - 1]!;
  ys[count - 1] = jy[count - 1]!;
  let f = 1n; // Zl / Z_i
  for (let i = count - 2; i >= 0; i--) {
    f = (f * hs[i]!) % P;
    const f2 = (f * f) % P;
    xs[i] = (jx[i]! * f2) % P;
    ys[i] = (((jy[i]! * f2) % P) * f) % P;
  }
  return { t: { xs, ys }, w: (zd * AZ) % P };
}

/** The same table for lambda * point: (beta * x, y). */
function endoTable(t: OddTable): OddTable {
  return { xs: t.xs.map((x) => (x * BETA) % P), ys: t.ys };
}

// ---------------------------------------------------------------------------------------------------
// Scalars

/**
 * Width-w NAF of k >= 0 into out (zeroed, long enough): out[i] is 0 or odd in (-2^(w-1), 2^(w-1)),
 * sum out[i] * 2^i = k (negated digits if neg). Works on 32-bit Number words: per-bit BigInt work
 * would cost more than the additions it saves.
 */
function wnaf(k: bigint, w: number, neg: boolean, out: Int16Array): void {
  const words: number[] = [];
  while (k > 0n) {
    words.push(Number(k & 0xffffffffn));
    k >>= 32n;
  }
  const bits = words.length * 32;
  words.push(0, 0);
  const full = 1 << w;
  const half = full >> 1;
  const mask = full - 1;
  let carry = 0;
  let i = 0;
  while (i < bits) {
    const sh = i & 31;
    let win = words[i >>> 5]! >>> sh;
    if (sh + w > 32) win |= words[(i >>> 5) + 1]! << (32 - sh); // sh > 0 here
    win &= mask;
    if ((win & 1) === carry) {
      // This bit plus the carry is even: digit 0, the carry moves up.
      i++;
      continue;
    }
    let d = win + carry; // odd, in [1, 2^w - 1]
    if (d > half) {
      d -= full;
      carry = 1;
    } else {
      carry = 0;
    }
    out[i] = neg ? -d : d;
    i += w;
  }
  if (carry === 1) out[i] = neg ? -1 : 1;
}

/** k = k1 + k2 * lambda (mod n) with |k1|, |k2| about 2^128 (GLV decomposition with the short basis). */
export function splitScalar(k: bigint): [bigint, bigint] {
  const c1 = (GLV_B2 * k + HALF_N) / N; // round(b2 k / n)
  const c2 = (-GLV_B1 * k + HALF_N) / N; // round(-b1 k / n)
  const k1 = k - c1 * GLV_A1 - c2 * GLV_A2;
  const k2 = -c1 * GLV_B1 - c2 * GLV_B2;
  return [k1, k2];
}

// ---------------------------------------------------------------------------------------------------
// Fixed-base tables (per heap)

const MASK128 = (1n << 128n) - 1n;
let gTables: { lo: OddTable; hi: OddTable } | undefined;

function baseTables(): { lo: OddTable; hi: OddTable } {
  if (gTables === undefined) {
    const count = 1 << (W_G - 2);
    const lo = oddMultiples(GX, GY, count);
    // 2^128 * G by 128 doublings, made affine.
    AX = GX;
    AY = GY;
    AZ = 1n;
    ZK = 0;
    for (let i = 0; i < 128; i++) dbl();
    flushZ();
    const h = toAffine([AX], [AY], [AZ]);
    const hi = oddMultiples(h.xs[0]!, h.ys[0]!, count);
    gTables = { lo, hi };
  }
  return gTables;
}

/**
 * Builds the fixed-base tables now (the canister's 'secp256k1' warm-up step: the wNAF tables of recovery,
 * about two thirds of it, and G's comb for verification), not in the first submit. Idempotent.
 */
export function warmUp(): void {
  baseTables();
  gCombTable();
}

// ---------------------------------------------------------------------------------------------------
// Recovery

const DIGITS = 272; // > 129 bits + window + carry for every scalar in the main loop

function bytesToBig(b: Uint8Array): bigint {
  if (b.length === 0) return 0n;
  let hex = '0x';
  for (let i = 0; i < b.length; i++) hex += HEX[b[i]!]!;
  return BigInt(hex);
}
const HEX = HEX_DIGITS;

function writeBig32(v: bigint, out: Uint8Array, off: number): void {
  let x = v;
  for (let i = 7; i >= 0; i--) {
    const w = Number(x & 0xffffffffn);
    x >>= 32n;
    const o = off + i * 4;
    out[o] = w >>> 24;
    out[o + 1] = (w >>> 16) & 0xff;
    out[o + 2] = (w >>> 8) & 0xff;
    out[o + 3] = w & 0xff;
  }
}

/** Adds digit d's table entry (odd multiple |d|, negated if d < 0) to the accumulator. */
function addDigit(t: OddTable, d: number): void {
  if (d > 0) madd(t.xs[d >> 1]!, t.ys[d >> 1]!);
  else madd(t.xs[-d >> 1]!, -t.ys[-d >> 1]!);
}

/**
 * The same for a table on the original curve while the accumulator runs on the image for W (w2 = W^2,
 * w3 = W^3). The mapped point is passed unreduced (512-bit coordinates): madd's products with it are
 * reduced anyway, and the wider dividends cost less than two more `%`.
 */
function addDigitMapped(t: OddTable, d: number, w2: bigint, w3: bigint): void {
  if (d > 0) madd(t.xs[d >> 1]! * w2, t.ys[d >> 1]! * w3);
  else madd(t.xs[-d >> 1]! * w2, -(t.ys[-d >> 1]! * w3));
}

/** z of ECDSA: the hash as an integer (its leftmost 256 bits), mod n. */
function hashScalar(msgHash: Uint8Array): bigint {
  let z = bytesToBig(msgHash);
  if (msgHash.length > 32) z >>= BigInt(msgHash.length * 8 - 256);
  return z >= N ? z - N : z;
}

/** The point R of a signature: its x from r and the recovery id, its y's parity from the recovery id. */
export interface RecoveryPoint {
  readonly rx: bigint;
  readonly ry: bigint;
}

/**
 * R for (r, recovery), or undefined if there is none: r outside [1, n), recovery id outside 0..3, R.x = r + n
 * not below p (ids 2, 3), or R.x not the x of a curve point (no square root; about half of all r). Needs no
 * message hash, so a submit can refuse such a signature before hashing the payload (docs/hardening.md).
 */
export function recoveryPoint(r: bigint, recovery: number): RecoveryPoint | undefined {
  if (r <= 0n || r >= N) return undefined;
  if (recovery !== 0 && recovery !== 1 && recovery !== 2 && recovery !== 3) return undefined;
  const rx = recovery >= 2 ? r + N : r;
  if (rx >= P) return undefined;
  let ry = sqrtModP((rx * rx * rx + 7n) % P);
  if (ry === undefined) return undefined;
  if (Number(ry & 1n) !== (recovery & 1)) ry = P - ry;
  return { rx, ry };
}

/**
 * The 64-byte uncompressed public key (x || y, no 0x04 prefix) that produced the ECDSA signature
 * (r, s, recovery) over msgHash, or undefined if the signature is invalid. Same results as
 * @noble/curves' `new secp256k1.Signature(r, s, recovery).recoverPublicKey(msgHash)`.
 */
export function recoverPublicKey(msgHash: Uint8Array, r: bigint, s: bigint, recovery: number): Uint8Array | undefined {
  if (s <= 0n || s >= N) return undefined;
  const point = recoveryPoint(r, recovery);
  return point === undefined ? undefined : recoverPublicKeyAt(msgHash, point, s);
}

/** recoverPublicKey with R already found by recoveryPoint (the same r and recovery id). */
export function recoverPublicKeyAt(msgHash: Uint8Array, point: RecoveryPoint, s: bigint): Uint8Array | undefined {
  const q = recoverPointAt(msgHash, point, s);
  return q === undefined ? undefined : publicKeyBytes(q);
}

/** The public key of recoverPublicKeyAt as its affine coordinates, both in [0, p). */
export function recoverPointAt(msgHash: Uint8Array, point: RecoveryPoint, s: bigint): { x: bigint; y: bigint } | undefined {
  if (s <= 0n || s >= N) return undefined;
  const { rx, ry } = point;
  const z = hashScalar(msgHash);

  // Q = u1 G + u2 R with u1 = -z / r, u2 = s / r (mod n).
  const rinv = invert(rx, N);
  const u1 = ((N - z) * rinv) % N;
  const u2 = (s * rinv) % N;

  const g = baseTables();
  const dLo = new Int16Array(DIGITS);
  const dHi = new Int16Array(DIGITS);
  wnaf(u1 & MASK128, W_G, false, dLo);
  wnaf(u1 >> 128n, W_G, false, dHi);
  const [k1, k2] = splitScalar(u2);
  const d1 = new Int16Array(DIGITS);
  const d2 = new Int16Array(DIGITS);
  wnaf(k1 < 0n ? -k1 : k1, W_R, k1 < 0n, d1);
  wnaf(k2 < 0n ? -k2 : k2, W_R, k2 < 0n, d2);
  const { t: tR, w } = oddMultiplesIso(rx, ry, 1 << (W_R - 2));
  const tRl = endoTable(tR); // the endomorphism commutes with the isomorphism (both scale x)
  const w2 = (w * w) % P;
  const w3 = (w2 * w) % P;

  let top = DIGITS - 1;
  while (top >= 0 && dLo[top] === 0 && dHi[top] === 0 && d1[top] === 0 && d2[top] === 0) top--;
  AX = 0n;
  AY = 0n;
  AZ = 0n;
  ZK = 0;
  for (let i = top; i >= 0; i--) {
    if (AZ !== 0n) dbl();
    const a = dLo[i]!;
    if (a !== 0) addDigitMapped(g.lo, a, w2, w3);
    const b = dHi[i]!;
    if (b !== 0) addDigitMapped(g.hi, b, w2, w3);
    const c = d1[i]!;
    if (c !== 0) addDigit(tR, c);
    const e = d2[i]!;
    if (e !== 0) addDigit(tRl, e);
  }
  flushZ();
  if (AZ === 0n) return undefined; // Q is infinity
  const zi = invert(AZ * w, P); // back from the image curve: Z * W
  const zi2 = (zi * zi) % P;
  return { x: norm(AX * zi2, P), y: norm(((AY * zi2) % P) * zi, P) };
}

/** recoverPointAt's key as the 64 bytes x || y (no 0x04 prefix), as recoverPublicKey returns it. */
export function publicKeyBytes(q: { x: bigint; y: bigint }): Uint8Array {
  const out = new Uint8Array(64);
  writeBig32(q.x, out, 0);
  writeBig32(q.y, out, 32);
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Verification against a known key (a submit whose sender's key is given as a hint)
//
// ECDSA verification: the key Q signed (r, s, recovery) over z iff R' = (z/s) G + (r/s) Q is the point R
// with x = r and y's parity the recovery id's, i.e. iff recovery would return Q. Unlike recovery, Q is
// known before the signature, so its tables can be built once per key and kept (the caller's cache): a comb
// (Lim-Lee) table of Q over the GLV halves of r/s, and one of G (per heap) over the whole z/s, share
// COMB_SPACING doublings. Measured against recovery's ~128 doublings and its square root, see
// docs/performance.md "Signature recovery in a submit".

/** Columns of every comb, so doublings of a verification: 5 teeth of 26 bits cover a GLV half (< 2^130). */
const COMB_SPACING = 26;
/** Teeth of a key's comb over a GLV half: 31 points a key (bench: submit_raw.transfer.second_with_key.instructions builds them). */
const KEY_TEETH = 5;
/** Teeth of G's comb over a whole scalar (10 * 26 = 260 bits): 1,023 points, built once per heap. */
const G_TEETH = 10;
const HALF_LIMIT = 1n << BigInt(KEY_TEETH * COMB_SPACING);

/**
 * Comb table of the affine point (x, y) with `teeth` teeth: entry m (1 <= m < 2^teeth) is
 * sum over the set bits j of m of 2^(COMB_SPACING * j) * (x, y), affine. Index 0 is unused.
 */
function combTable(x: bigint, y: bigint, teeth: number): OddTable {
  const size = 1 << teeth;
  const jx = new Array<bigint>(size);
  const jy = new Array<bigint>(size);
  const jz = new Array<bigint>(size);
  jx[0] = x; // placeholder entry (index 0 is never read): keeps toAffine's arrays dense
  jy[0] = y;
  jz[0] = 1n;
  AX = x;
  AY = y;
  AZ = 1n;
  ZK = 0;
  for (let j = 0; j < teeth; j++) {
    if (j > 0) {
      for (let i = 0; i < COMB_SPACING; i++) dbl();
      flushZ();
    }
    const m = 1 << j;
    jx[m] = AX;
    jy[m] = AY;
    jz[m] = AZ;
    // Every entry with top bit j: the entry without it plus 2^(COMB_SPACING * j) * (x, y). The two are never
    // equal or opposite: their scalars are distinct, positive and below 2^(COMB_SPACING * (teeth - 1) + 1) < n.
    for (let low = 1; low < m; low++) {
      const [nx, ny, nz] = addJacobian(jx[low]!, jy[low]!, jz[low]!, jx[m]!, jy[m]!, jz[m]!);
      jx[m + low] = nx;
      jy[m + low] = ny;
      jz[m + low] = nz;
    }
  }
  return toAffine(jx, jy, jz);
}

let gComb: OddTable | undefined;

function gCombTable(): OddTable {
  if (gComb === undefined) gComb = combTable(GX, GY, G_TEETH);
  return gComb;
}

/** A public key's verification tables: its comb and the same comb for lambda * Q (beta * x, y). */
export interface KeyTables {
  readonly comb: OddTable;
  readonly combLambda: OddTable;
}

/**
 * The tables of the 64-byte public key x || y, or undefined if it is not a point of the curve (such a hint
 * is ignored: verification against a point off the curve proves nothing). Built at a key's second hinted submit.
 */
export function keyTables(publicKey: Uint8Array): KeyTables | undefined {
  if (publicKey.length !== 64) return undefined;
  const x = bytesToBig(publicKey.subarray(0, 32));
  const y = bytesToBig(publicKey.subarray(32));
  if (x >= P || y >= P || (y * y - x * x * x - 7n) % P !== 0n) return undefined;
  const comb = combTable(x, y, KEY_TEETH);
  return { comb, combLambda: endoTable(comb) };
}

/** Comb column digits of k (0 <= k < 2^(COMB_SPACING * teeth)): out[i] = sum_j bit(k, COMB_SPACING * j + i) << j. */
function combDigits(k: bigint, teeth: number, out: Uint8Array | Uint16Array): void {
  const words: number[] = [];
  for (let i = 0; i * 32 < COMB_SPACING * teeth; i++) {
    words.push(Number(k & 0xffffffffn));
    k >>= 32n;
  }
  for (let j = 0; j < teeth; j++) {
    const base = COMB_SPACING * j;
    for (let i = 0; i < COMB_SPACING; i++) {
      const b = base + i;
      if ((words[b >>> 5]! >>> (b & 31)) & 1) out[i]! |= 1 << j;
    }
  }
}

function addComb(t: OddTable, m: number, negate: boolean): void {
  madd(t.xs[m]!, negate ? -t.ys[m]! : t.ys[m]!);
}

/**
 * Whether the key of `tables` is the one recovery would return for the signature (r, s, recovery) over
 * msgHash (recovery ids 0 and 1; 2 and 3 answer false). False: the key did not make this signature (which
 * may still be valid, by another key). About half of recovery's cost.
 */
export function verifiesAs(msgHash: Uint8Array, r: bigint, s: bigint, recovery: number, tables: KeyTables): boolean {
  if (r <= 0n || r >= N || s <= 0n || s >= N || (recovery !== 0 && recovery !== 1)) return false;
  const z = hashScalar(msgHash);
  const sinv = invert(s, N);
  const u1 = (z * sinv) % N;
  const [k1, k2] = splitScalar((r * sinv) % N);
  const a1 = k1 < 0n ? -k1 : k1;
  const a2 = k2 < 0n ? -k2 : k2;
  if (a1 >= HALF_LIMIT || a2 >= HALF_LIMIT) return false; // not for the short basis; kept as a guard
  const dg = new Uint16Array(COMB_SPACING);
  const d1 = new Uint8Array(COMB_SPACING);
  const d2 = new Uint8Array(COMB_SPACING);
  combDigits(u1, G_TEETH, dg);
  combDigits(a1, KEY_TEETH, d1);
  combDigits(a2, KEY_TEETH, d2);
  const g = gCombTable();
  AX = 0n;
  AY = 0n;
  AZ = 0n;
  ZK = 0;
  for (let i = COMB_SPACING - 1; i >= 0; i--) {
    if (AZ !== 0n) dbl();
    const a = dg[i]!;
    if (a !== 0) madd(g.xs[a]!, g.ys[a]!);
    const b = d1[i]!;
    if (b !== 0) addComb(tables.comb, b, k1 < 0n);
    const c = d2[i]!;
    if (c !== 0) addComb(tables.combLambda, c, k2 < 0n);
  }
  flushZ();
  if (AZ === 0n) return false;
  const zi = invert(AZ, P);
  const zi2 = (zi * zi) % P;
  if (norm(AX * zi2, P) !== r) return false;
  return Number(norm(((AY * zi2) % P) * zi, P) & 1n) === recovery;
}
