// Warm-up: the first use of some precompiles builds curve tables in the heap (billions of instructions each,
// measured in docs/execution.md "Warm-up"), and the heap is rebuilt after every upgrade.
// Block production must never pay that inside a transaction's budget, so the canister runs these
// steps after install/upgrade, each in its own message (one step can be close to the 40 B limit).
// Each step runs the engine's own precompile on a fixed valid input and checks the answer.

import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
import type { EvmEngine } from './engine.js';
import { warmUp as warmUpSecp256k1 } from '../secp256k1.js';
import { fromHex } from './encoding.js';

export interface WarmUpStep {
  readonly name: string;
  run(engine: EvmEngine): Promise<void>;
}

const be = (v: bigint, len: number): Uint8Array => {
  const out = new Uint8Array(len);
  let x = v;
  for (let i = len - 1; i >= 0; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
};
const cat = (...xs: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(xs.reduce((n, x) => n + x.length, 0));
  let o = 0;
  for (const x of xs) {
    out.set(x, o);
    o += x.length;
  }
  return out;
};

/** EIP-197 input for e(G1, G2) * e(-G1, G2) == 1. */
export function bn254PairingInput(): Uint8Array {
  const g1 = bn254.G1.Point.BASE.toAffine();
  const n1 = bn254.G1.Point.BASE.negate().toAffine();
  const g2 = bn254.G2.Point.BASE.toAffine();
  const g2b = cat(be(g2.x.c1, 32), be(g2.x.c0, 32), be(g2.y.c1, 32), be(g2.y.c0, 32));
  return cat(be(g1.x, 32), be(g1.y, 32), g2b, be(n1.x, 32), be(n1.y, 32), g2b);
}

export function bls12G1Bytes(p: typeof bls12_381.G1.Point.BASE): Uint8Array {
  const a = p.toAffine();
  return cat(be(a.x, 64), be(a.y, 64));
}

export function bls12G2Bytes(p: typeof bls12_381.G2.Point.BASE): Uint8Array {
  const a = p.toAffine();
  return cat(be(a.x.c0, 64), be(a.x.c1, 64), be(a.y.c0, 64), be(a.y.c1, 64));
}

/** EIP-2537 pairing-check input for e(G1, G2) * e(-G1, G2) == 1. */
export function bls12PairingInput(): Uint8Array {
  const g2 = bls12G2Bytes(bls12_381.G2.Point.BASE);
  return cat(bls12G1Bytes(bls12_381.G1.Point.BASE), g2, bls12G1Bytes(bls12_381.G1.Point.BASE.negate()), g2);
}

/**
 * A valid EIP-4844 point-evaluation input (versioned hash, z, y, commitment, proof), produced offline with
 * micro-eth-signer's KZG over the full ceremony setup for a fixed blob (blob[i] = 7i + 3, z = 123456789).
 */
export const KZG_POINT_EVALUATION_INPUT: Uint8Array = fromHex(
  '013587b782a808f18a3c68092fe20b5be30b56a1888b90eee8624e1d286d91db' +
    '00000000000000000000000000000000000000000000000000000000075bcd15' +
    '64d07e89c5e87ca0a53177e298a6f4b5ba53444d2ec95fa6772475d42a1576e0' +
    'a7a7a893507182c9fa77009ce53c93a46655fb0c47317531270e93f0d68fa5783d235150b25ece77aa95520b84115571' +
    'a2429330bd76c9c6ae11153ad716c019602774f99d7986365a275156ad38f88b3b4272d47af9b8d70f86105ab2763654',
);

interface PrecompileRunner {
  getPrecompile(address: string): unknown;
  runPrecompile(
    fn: unknown,
    data: Uint8Array,
    gasLimit: bigint,
  ): Promise<{ exceptionError?: { error: string }; returnValue: Uint8Array }>;
}

/** Runs precompile `id` of the engine's block VM directly (no transaction, no budget). */
export async function runPrecompile(engine: EvmEngine, id: number, data: Uint8Array): Promise<Uint8Array> {
  const evm = engine.vm.evm as unknown as PrecompileRunner;
  const fn = evm.getPrecompile(`0x${id.toString(16).padStart(40, '0')}`);
  if (fn === undefined) throw new Error(`precompile ${id} is not active`);
  const r = await evm.runPrecompile(fn, data, 10_000_000n);
  if (r.exceptionError !== undefined) throw new Error(`warm-up of precompile ${id} failed: ${r.exceptionError.error}`);
  return r.returnValue;
}

function expectOne(out: Uint8Array, what: string): void {
  if (out.length !== 32 || out[31] !== 1) throw new Error(`${what} warm-up gave a wrong answer`);
}

const warmed = new Set<string>();

/** Whether a warm-up step has completed in this heap (the tables are per heap, so per process). */
export function isWarm(step: string): boolean {
  return warmed.has(step);
}

const STEPS: readonly WarmUpStep[] = [
  {
    name: 'secp256k1',
    async run() {
      // Builds the fixed-base tables of src/core/secp256k1.ts (sender recovery and ECRECOVER).
      warmUpSecp256k1();
    },
  },
  { name: 'bn254', run: async (e) => expectOne(await runPrecompile(e, 0x08, bn254PairingInput()), 'BN254 pairing') },
  { name: 'bls12-381', run: async (e) => expectOne(await runPrecompile(e, 0x0f, bls12PairingInput()), 'BLS12-381 pairing') },
  {
    name: 'kzg',
    async run(e) {
      const out = await runPrecompile(e, 0x0a, KZG_POINT_EVALUATION_INPUT);
      if (out.length !== 64) throw new Error('KZG warm-up gave a wrong answer');
    },
  },
];

/** The steps, each recording its completion for isWarm. */
export const WARM_UP_STEPS: readonly WarmUpStep[] = STEPS.map((s) => ({
  name: s.name,
  async run(engine: EvmEngine) {
    await s.run(engine);
    warmed.add(s.name);
  },
}));

/** Runs every step (Node tools and tests; the canister runs them one message at a time). */
export async function warmUpAll(engine: EvmEngine): Promise<void> {
  for (const s of WARM_UP_STEPS) await s.run(engine);
}
