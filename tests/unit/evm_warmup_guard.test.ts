// With requireWarmUp (as the canister runs it), a table-building precompile refuses to run inside a
// transaction before its warm-up step, instead of building billions of instructions of tables inside the
// transaction's budget; after the step it runs normally.
import { describe, expect, it } from 'vitest';
import { WARM_UP_STEPS, bn254PairingInput, isWarm } from '../../src/core/evm/warmup.js';
import { ALICE, ETH, env, included, newEngine, tx } from '../support/evm_fixtures.js';

const precompile = (id: number): Uint8Array => {
  const a = new Uint8Array(20);
  a[19] = id;
  return a;
};

describe('precompile warm-up guard', () => {
  it('halts a BN254 pairing call before warm-up with all gas charged, and runs it after', async () => {
    const { engine } = await newEngine(undefined, { requireWarmUp: true });
    engine.setGenesisBalance(ALICE, ETH);
    engine.beginBlock(env());
    expect(isWarm('bn254')).toBe(false);
    const before = included(await engine.runTx(tx({ nonce: 0n, to: precompile(0x08), data: bn254PairingInput(), gasLimit: 500_000n })));
    expect(before.status).toBe(0);
    expect(before.failure?.code).toBe('exec.halt.precompile_not_ready');
    expect(before.gasUsed).toBe(500_000n);

    await WARM_UP_STEPS.find((s) => s.name === 'bn254')!.run(engine);
    expect(isWarm('bn254')).toBe(true);
    const after = included(await engine.runTx(tx({ nonce: 1n, to: precompile(0x08), data: bn254PairingInput(), gasLimit: 500_000n })));
    expect(after.status).toBe(1);
    expect(after.returnData[31]).toBe(1);
  });
});
