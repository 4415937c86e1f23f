// The canister's Candid fast path (src/canister/candid_fast.ts) against @dfinity/candid, the referee: for
// every method of the service, random values of its argument and result types encode to the same bytes and
// decode to the same values; bytes it does not expect (another type table, truncation, bad tags, extra
// bytes) give exactly what IDL.decode gives, value or error.
import { IDL } from '@dfinity/candid';
import { describe, expect, it } from 'vitest';
import { fastCodec, type CandidIdl } from '../../src/canister/candid_fast.js';
import { argByteLimit, checkArgBytes, knownHeader, startsWith } from '../../src/canister/arg_check.js';
import { methodSignatures, type ArgBytes } from '../../src/canister/idl.js';

const idl = IDL as unknown as CandidIdl;
const methods = Object.entries(methodSignatures(IDL as never)) as [string, { args: IDL.Type[]; ret: IDL.Type; argBytes: ArgBytes }][];

/** A seeded random value of an IDL type (small sizes, edge values included). */
function randomValue(t: IDL.Type, rnd: () => number, depth = 0): unknown {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  if (t instanceof IDL.NullClass) return null;
  if (t instanceof IDL.BoolClass) return rnd() < 0.5;
  if (t instanceof IDL.TextClass) return pick(['', 'a', 'execution reverted', 'é∑😀', 'x'.repeat(200)]);
  if (t instanceof IDL.NatClass) return pick([0n, 1n, 127n, 128n, 2n ** 53n, 2n ** 64n, 2n ** 256n - 1n, BigInt(Math.floor(rnd() * 1e9))]);
  if (t instanceof IDL.FixedNatClass) {
    const bits = (t as unknown as { _bits: number })._bits;
    if (bits === 64) return pick([0n, 1n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 64n - 1n, BigInt(Math.floor(rnd() * 1e12))]);
    return pick([0, 1, 2 ** bits - 1, Math.floor(rnd() * 2 ** bits)]);
  }
  if (t instanceof IDL.FloatClass) return rnd() * 1000;
  if (t instanceof IDL.OptClass) return depth > 6 || rnd() < 0.4 ? [] : [randomValue((t as unknown as { _type: IDL.Type })._type, rnd, depth + 1)];
  if (t instanceof IDL.VecClass) {
    const inner = (t as unknown as { _type: IDL.Type })._type;
    const n = depth > 6 ? 0 : Math.floor(rnd() * 4);
    if (inner instanceof IDL.FixedNatClass && (inner as unknown as { _bits: number })._bits === 8) {
      return Uint8Array.from({ length: pick([0, 1, 20, 32, 200]) }, () => Math.floor(rnd() * 256));
    }
    return Array.from({ length: n }, () => randomValue(inner, rnd, depth + 1));
  }
  if (t instanceof IDL.RecordClass) {
    const out: Record<string, unknown> = {};
    for (const [k, ft] of (t as unknown as { _fields: [string, IDL.Type][] })._fields) out[k] = randomValue(ft, rnd, depth + 1);
    return out;
  }
  if (t instanceof IDL.VariantClass) {
    const [k, ft] = pick((t as unknown as { _fields: [string, IDL.Type][] })._fields);
    return { [k]: randomValue(ft, rnd, depth + 1) };
  }
  throw new Error(`no generator for ${t.display()}`);
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = Math.imul(s ^ (s >>> 15), 1 | s);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const outcome = (f: () => unknown): unknown => {
  try {
    return { value: f() };
  } catch (e) {
    return { error: (e as Error).message };
  }
};

describe('candid fast path', () => {
  it('encodes and decodes every method argument and result exactly as @dfinity/candid', () => {
    const rnd = rng(15);
    for (const [name, sig] of methods) {
      for (const types of [sig.args, [sig.ret]]) {
        const codec = fastCodec(idl, types);
        for (let i = 0; i < 25; i++) {
          const values = types.map((t) => randomValue(t, rnd));
          const reference = IDL.encode(types, values);
          expect(codec.encode(values), name).toEqual(reference);
          expect(codec.decode(reference), name).toEqual(IDL.decode(types, reference));
        }
      }
    }
  });

  it('compiles the hot methods (eth_call, estimate, submit) and leaves unknown types to @dfinity/candid', () => {
    const sigs = methodSignatures(IDL as never);
    for (const m of [sigs.rpc_eth_call_object, sigs.rpc_eth_estimate_gas_object, sigs.rpc_eth_send_raw_transaction]) {
      expect(fastCodec(idl, m.args).fast).toBe(true);
      expect(fastCodec(idl, [m.ret]).fast).toBe(true);
    }
    expect(fastCodec(idl, [IDL.Float64]).fast).toBe(false);
    expect(fastCodec(idl, [IDL.Int]).fast).toBe(false);
  });

  it('gives IDL.decode answer or error for bytes it does not expect', () => {
    const rnd = rng(7);
    const sig = methodSignatures(IDL as never).rpc_eth_call_object;
    const codec = fastCodec(idl, sig.args);
    let mutated = 0;
    for (let i = 0; i < 300; i++) {
      const values = sig.args.map((t) => randomValue(t as IDL.Type, rnd));
      const good = IDL.encode(sig.args, values);
      const bad = good.slice();
      const at = Math.floor(rnd() * bad.length);
      if (i % 3 === 0) bad[at] = Math.floor(rnd() * 256);
      const bytes = i % 3 === 1 ? good.subarray(0, at) : i % 3 === 2 ? Uint8Array.from([...good, 0]) : bad;
      if (bytes.length !== good.length || bytes.some((b, j) => b !== good[j])) mutated++;
      expect(outcome(() => codec.decode(bytes))).toEqual(outcome(() => IDL.decode(sig.args, bytes)));
    }
    expect(mutated).toBeGreaterThan(250);
    // a subtype on the wire (a record with fewer opt fields) takes @dfinity/candid's path and its answer
    const narrow = IDL.encode([IDL.Record({ to: IDL.Opt(IDL.Vec(IDL.Nat8)) }), IDL.Variant({ Latest: IDL.Null })], [{ to: [new Uint8Array(20)] }, { Latest: null }]);
    expect(codec.decode(narrow)).toEqual(IDL.decode(sig.args, narrow));
  });

  it('hands values of an unexpected JS type to IDL.encode, which reports them', () => {
    const codec = fastCodec(idl, [IDL.Variant({ Ok: IDL.Nat, Err: IDL.Text })]);
    expect(outcome(() => codec.encode([{ Ok: -1n }]))).toEqual(outcome(() => IDL.encode([IDL.Variant({ Ok: IDL.Nat, Err: IDL.Text })], [{ Ok: -1n }])));
    expect(codec.encode([{ Ok: 5 }])).toEqual(IDL.encode([IDL.Variant({ Ok: IDL.Nat, Err: IDL.Text })], [{ Ok: 5 }]));
  });
  it('the argument check gives the same answer with the fast header known as without it (valid, mutated, truncated, extended bytes)', () => {
    let shortcut = 0;
    for (const [name, sig] of methods) {
      const codec = fastCodec(idl, sig.args);
      if (codec.header === undefined) continue;
      const known = knownHeader(codec.header, sig.args.length);
      expect(known, name).toBeDefined();
      const limit = argByteLimit(sig.argBytes);
      const rnd = rng(name.length * 977 + 5);
      for (let k = 0; k < 4; k++) {
        const bytes = new Uint8Array(IDL.encode(sig.args, sig.args.map((t) => randomValue(t, rnd))));
        const variants = [bytes, bytes.subarray(0, bytes.length - 1), Uint8Array.from([...bytes, 0]), bytes.subarray(0, codec.header.length)];
        for (let i = 0; i < bytes.length; i++) {
          const m = bytes.slice();
          m[i]! ^= i % 2 === 0 ? 0x01 : 0x80;
          variants.push(m);
        }
        for (const v of variants) {
          const plain = checkArgBytes(v, sig.args.length, limit);
          expect(checkArgBytes(v, sig.args.length, limit, known), `${name} ${Buffer.from(v).toString('hex')}`).toEqual(plain);
          if (plain.ok) shortcut++;
        }
      }
    }
    expect(shortcut).toBeGreaterThan(100);
  });
  it('startsWith: word and byte paths, aligned or not, agree with a byte comparison', () => {
    const rnd = rng(7);
    const base = Uint8Array.from({ length: 80 }, () => Math.floor(rnd() * 256));
    for (const n of [0, 3, 16, 17, 35, 64]) {
      for (const off of [0, 1, 4]) {
        const prefix = base.slice(off, off + n);
        const big = new Uint8Array(100);
        big.set(base);
        for (const boff of [0, 1, 2, 4]) {
          const bytes = big.subarray(boff + off);
          const same = bytes.length >= n && prefix.every((x, i) => bytes[i] === x);
          expect(startsWith(bytes, prefix), `n=${n} off=${off} boff=${boff}`).toBe(same);
        }
        for (let i = 0; i < n; i++) {
          const m = base.slice(off, off + 70);
          m[i]! ^= 0x40;
          expect(startsWith(m, prefix)).toBe(false);
        }
        expect(startsWith(prefix.subarray(0, Math.max(0, n - 1)), prefix)).toBe(n === 0);
      }
    }
  });
});
