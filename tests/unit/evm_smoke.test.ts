import { describe, expect, it } from 'vitest';
import { ALICE, BOB, ETH, env, included, newEngine, tx } from '../support/evm_fixtures.js';

describe('smoke', () => {
  it('transfers', async () => {
    const { engine } = await newEngine();
    engine.setGenesisBalance(ALICE, 10n * ETH);
    engine.beginBlock(env());
    const o = included(await engine.runTx(tx({ nonce: 0n, value: ETH, gasLimit: 21000n })));
    expect(o.status).toBe(1);
    expect(o.gasUsed).toBe(21000n);
    await engine.commitBlock();
    expect(engine.getBalance(BOB)).toBe(ETH);
  });
});
