// A warm-up step that traps must not stop block production. The KZG step builds its tables in about 28 B
// instructions; under a 25 B message limit it traps, and the chain must still mine (the other steps run,
// the mining timer ticks). Before the fix in src/canister/runtime.ts each step armed the next one and a flag
// gated mining, so one trapped step left the canister accepting transactions but never making a block.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Evm } from '../support/canister.js';
import { ETH, account, plainAddress, transfer } from '../support/eth.js';

const A = account(1);
const LIMIT = 25_000_000_000n;

let evm: Evm;
beforeAll(async () => {
  evm = await Evm.start({ genesis: [{ address: A.address, balance: 10n * ETH }] }, { updateInstructionLimit: LIMIT });
});
afterAll(() => evm?.close());

describe('evm canister: warm-up failure', () => {
  it('a warm-up step over the instruction limit traps alone; the other steps run and blocks are still produced', async () => {
    const executors = evm.messages.filter((m) => m.method.endsWith('timer_executor'));
    const trapped = executors.filter((m) => m.trapped);
    expect(trapped).toHaveLength(1);
    expect(trapped[0]!.instructions!).toBeGreaterThanOrEqual(LIMIT);
    // The BN254 and BLS12-381 steps (several billion instructions each) completed.
    expect(executors.filter((m) => !m.trapped && m.instructions! > 1_000_000_000n).length).toBeGreaterThanOrEqual(2);

    const id = await evm.submit(transfer(A, 0n, plainAddress(1), 5n));
    const ran = await evm.mine();
    expect(ran.every((m) => !m.trapped)).toBe(true);
    expect(evm.blockNumber()).toBe(1n);
    expect(evm.receipt(id)).toMatchObject({ status: 1, gas_used: 21000n });
    expect(evm.balance(plainAddress(1))).toBe(5n);
  });
});
