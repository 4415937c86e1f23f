// The per-transaction instruction budget and the per-transaction log limit (DESIGN rule 5).
import { getActivePrecompiles } from '@ethereumjs/evm';
import { describe, expect, it } from 'vitest';
import { MAX_LOG_BYTES_PER_TX, MAX_LOGS_PER_TX } from '../../src/core/constants.js';
import type { ExecTx } from '../../src/core/engine.js';
import {
  PRECOMPILE_INSTRUCTIONS_PER_GAS,
  precompileAddressHex,
  precompileGas,
  precompileWorkInstructions,
} from '../../src/core/evm/budget.js';
import {
  KZG_POINT_EVALUATION_INPUT,
  bls12PairingInput,
  bn254PairingInput,
} from '../../src/core/evm/warmup.js';
import { MemoryCoreHost } from '../../src/core/host.js';
import { asm, deployCode, hex, label, ref, word } from '../support/asm.js';
import { LOG_EMITTER_RUNTIME, emitCall } from '../support/finalize.js';
import { SteppingHost, ALICE, BASE_FEE, BOB, COINBASE, ETH, TIP, env, included, newEngine, tx } from '../support/evm_fixtures.js';


// SSTORE(0, 1) then loop forever on JUMPDEST.
const SPIN = asm(1, 0, 'SSTORE', label('top'), ref('top'), 'JUMP');
// LOG0 `calldata[0]` times.
const LOGGER = asm(0, 'CALLDATALOAD', label('top'), 'DUP1', 'ISZERO', ref('end'), 'JUMPI', 0, 0, 'LOG0', 1, 'SWAP1', 'SUB', ref('top'), 'JUMP', label('end'), 'STOP');

async function setup(host: MemoryCoreHost, budget: bigint) {
  const { engine } = await newEngine(host, { txInstructionBudget: budget });
  engine.setGenesisBalance(ALICE, 100n * ETH);
  engine.setGenesisBalance(BOB, 100n * ETH);
  engine.beginBlock(env(1n, { gasLimit: 30_000_000n }));
  const spin = included(await engine.runTx(tx({ nonce: 0n, to: undefined, data: deployCode(SPIN) }))).contractAddress!;
  const logger = included(await engine.runTx(tx({ nonce: 1n, to: undefined, data: deployCode(LOGGER) }))).contractAddress!;
  await engine.commitBlock();
  return { engine, spin, logger };
}

describe('instruction budget', () => {
  it('halts a JUMPDEST loop: status 0, all gas used, effects undone, nonce bumped, fee charged', async () => {
    const host = new SteppingHost(1_000_000n);
    const { engine, spin } = await setup(host, 500_000_000n);
    const before = engine.getBalance(BOB);
    const cbBefore = engine.getBalance(COINBASE);
    engine.beginBlock(env(2n));
    const spinTx: ExecTx = tx({ from: BOB, nonce: 0n, to: spin, gasLimit: 2_000_000n });
    const o = included(await engine.runTx(spinTx));
    expect(o).toMatchObject({
      status: 0,
      gasUsed: 2_000_000n,
      logs: [],
      failure: { code: 'exec.halt.instruction_budget' },
    });
    // Stopped at the first counter read past the budget: reads are 64 code bytes (16 loop rounds) apart, 1 M apart here.
    expect(o.instructions).toBeGreaterThan(500_000_000n);
    expect(o.instructions).toBeLessThan(503_000_000n);
    // The block goes on: the next transaction of the same sender sees the bumped nonce.
    included(await engine.runTx(tx({ from: BOB, nonce: 1n, to: ALICE, gasLimit: 21000n })));
    await engine.commitBlock();
    expect(engine.getNonce(BOB)).toBe(2n);
    expect(hex(engine.getStorage(spin, word(0n)))).toBe(hex(word(0n))); // the SSTORE before the loop is undone
    expect(engine.getBalance(BOB)).toBe(before - 2_021_000n * (BASE_FEE + TIP));
    expect(engine.getBalance(COINBASE) - cbBefore).toBe(2_021_000n * TIP);
  });

  it('is relative to the start of the transaction: same outcome at any position and counter value', async () => {
    const outcomes = [];
    for (const [start, preceding] of [
      [0n, 0],
      [3_000_000_000n, 3],
    ] as const) {
      const host = new SteppingHost(1_000_000n);
      const { engine, spin } = await setup(host, 500_000_000n);
      host.instructions = start;
      engine.beginBlock(env(2n));
      for (let i = 0; i < preceding; i++) included(await engine.runTx(tx({ nonce: BigInt(2 + i), gasLimit: 21000n })));
      const o = included(await engine.runTx(tx({ from: BOB, nonce: 0n, to: spin, gasLimit: 1_000_000n })));
      outcomes.push([o.status, o.gasUsed, o.failure?.code, o.instructions]);
      engine.abortBlock();
    }
    expect(outcomes[0]).toEqual(outcomes[1]);
  });

  it('counts straight-line code: a run longer than the fast loop counts between jumps takes the stock loop', async () => {
    const host = new SteppingHost(1_000_000n);
    const { engine } = await setup(host, 100_000_000n);
    const pairs = (n: number) => Array.from({ length: n }, () => ['PUSH0', 'POP']).flat();
    // 4,000 bytes with no jump (longer than MAX_UNCOUNTED_RUN_BYTES): 4,000 steps, a read every 16 on this
    // host is 250 M, past the 100 M budget.
    const straight = asm(...pairs(2000), 'STOP');
    // The same steps cut into 1,000-byte runs by jumps: the fast loop counts each run's bytes at its jump, and a
    // count past 64 bytes reads the counter: one read a jump.
    const cut = asm(...[0, 1, 2, 3].flatMap((i) => [...pairs(499), ref(`r${i}`), 'JUMP', label(`r${i}`)]), 'STOP');
    engine.beginBlock(env(2n));
    const deployed = [];
    for (const [i, code] of [straight, cut].entries()) {
      deployed.push(included(await engine.runTx(tx({ nonce: BigInt(2 + i), to: undefined, data: deployCode(code), gasLimit: 2_000_000n }))).contractAddress!);
    }
    const long = included(await engine.runTx(tx({ from: BOB, nonce: 0n, to: deployed[0]!, gasLimit: 100_000n })));
    expect(long.failure?.code).toBe('exec.halt.instruction_budget');
    const short = included(await engine.runTx(tx({ from: BOB, nonce: 1n, to: deployed[1]!, gasLimit: 100_000n })));
    expect(short.status).toBe(1);
    expect(short.instructions).toBeGreaterThanOrEqual(4_000_000n);
    expect(short.instructions).toBeLessThan(10_000_000n);
  });

  it('an ordinary transaction under the same budget is unaffected, and counter reads are spaced out', async () => {
    const host = new SteppingHost(1_000_000n);
    const { engine, logger } = await setup(host, 500_000_000n);
    engine.beginBlock(env(2n));
    const o = included(await engine.runTx(tx({ nonce: 2n, to: logger, data: word(3n) })));
    expect(o.status).toBe(1);
    expect(o.logs).toHaveLength(3);
    // About 60 opcode steps, but only a handful of counter reads (1 M each on this host).
    expect(o.instructions).toBeLessThan(10_000_000n);
  });

  it('eth_call applies the same budget; a larger call budget lets the loop run out of gas instead', async () => {
    const host = new SteppingHost(1_000_000n);
    const { engine, spin } = await setup(host, 500_000_000n);
    // 300,000 gas of the 4-byte loop is 100 K code bytes: about 1,560 counter reads (64 bytes apart), 1.56 B on this host.
    const call = tx({ from: BOB, nonce: 0n, to: spin, gasLimit: 300_000n, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n });
    const r = await engine.call(call, env(2n));
    expect(r).toMatchObject({ status: 0, gasUsed: 300_000n, failure: { code: 'exec.halt.instruction_budget' } });
    const r2 = await engine.call(call, env(2n), { instructionBudget: 10n ** 12n });
    expect(r2).toMatchObject({ status: 0, gasUsed: 300_000n, failure: { code: 'exec.halt', message: 'out of gas' } });
  });

  it('checks a precompile before it starts, from the gas it will charge', async () => {
    const host = new MemoryCoreHost(); // counter stays 0: only reserves can exhaust the budget
    const { engine } = await setup(host, 1_000_000_000n);
    engine.beginBlock(env(2n, { gasLimit: 30_000_000n }));
    const kzg = new Uint8Array(20);
    kzg[19] = 0x0a;
    // KZG: 50000 gas * 100 K instructions/gas > 1 B.
    const o = included(await engine.runTx(tx({ from: BOB, nonce: 0n, to: kzg, data: KZG_POINT_EVALUATION_INPUT })));
    expect(o.failure?.code).toBe('exec.halt.instruction_budget');
    // IDENTITY is cheap and runs.
    const id = new Uint8Array(20);
    id[19] = 4;
    const ok = included(await engine.runTx(tx({ from: BOB, nonce: 1n, to: id, data: new Uint8Array([9]) })));
    expect(hex(ok.returnData)).toBe('09');
    // A KECCAK256 over 1 MB reserves 7711 keccak blocks * 5 M > 1 B and stops before hashing.
    const big = asm(1, 0x100000, 'MSTORE8', 0x100000, 0, 'KECCAK256', 'STOP');
    const h = included(await engine.runTx(tx({ from: BOB, nonce: 2n, to: undefined, data: big, gasLimit: 3_000_000n })));
    expect(h.failure?.code).toBe('exec.halt.instruction_budget');
  });

  it('precompileGas gives exactly what each precompile charges', async () => {
    const { engine } = await newEngine();
    const g1 = new Uint8Array([...word(1n), ...word(2n)]);
    const inputs: Record<number, Uint8Array> = {
      1: new Uint8Array(128),
      2: new Uint8Array(100),
      3: new Uint8Array(100),
      4: new Uint8Array(100),
      5: new Uint8Array([...word(1n), ...word(40n), ...word(1n), 3, ...new Uint8Array(39).fill(0xff), 7]),
      6: new Uint8Array([...g1, ...g1]),
      7: new Uint8Array([...g1, ...word(2n)]),
      8: bn254PairingInput(),
      9: new Uint8Array([0, 0, 0, 12, ...new Uint8Array(209)]),
      0x0a: KZG_POINT_EVALUATION_INPUT,
      0x0b: new Uint8Array(256),
      0x0c: new Uint8Array(160 * 3),
      0x0d: new Uint8Array(512),
      0x0e: new Uint8Array(288 * 2),
      0x0f: bls12PairingInput(),
      0x10: new Uint8Array(64),
      0x11: new Uint8Array(128),
    };
    const modexpCases = [
      new Uint8Array([...word(1n), ...word(40n), ...word(1n), 3, ...new Uint8Array(39).fill(0xff), 7]),
      new Uint8Array([...word(64n), ...word(2n), ...word(64n)]), // exponent beyond the data: zeros
      new Uint8Array([...word(2n ** 200n), ...word(1n), ...word(1n)]), // absurd base length
      new Uint8Array(10), // shorter than the header
      new Uint8Array([...word(0n), ...word(33n), ...word(0n), ...new Uint8Array(32), 0x80]),
    ];
    const modexp = getActivePrecompiles(engine.common).get('0000000000000000000000000000000000000005')!;
    for (const data of modexpCases) {
      const opts = { data, gasLimit: 2n ** 64n, common: engine.common, _EVM: engine.vm.evm };
      const ran = await (modexp as (o: typeof opts) => Promise<{ executionGasUsed: bigint }>)(opts);
      // Out of gas charges the whole limit.
      const g = precompileGas(5, data, engine.common)!;
      expect(g < opts.gasLimit ? g : opts.gasLimit, hex(data)).toBe(ran.executionGasUsed);
    }
    const precompiles = getActivePrecompiles(engine.common);
    expect(precompiles.size).toBe(17);
    for (const [addr, fn] of precompiles) {
      const id = parseInt(addr, 16);
      const opts = { data: inputs[id]!, gasLimit: 10_000_000n, common: engine.common, _EVM: engine.vm.evm };
      const computed = precompileGas(id, opts.data, engine.common);
      const ran = await (fn as (o: typeof opts) => Promise<{ executionGasUsed: bigint }>)(opts);
      expect(computed, `precompile ${id}`).toBe(ran.executionGasUsed);
    }
    // The MSMs' bulk discount, at pair counts across EIP-2537's table and past its end.
    for (const [id, pairLen] of [[0x0c, 160], [0x0e, 288]] as const) {
      const fn = precompiles.get(precompileAddressHex(id))!;
      for (const pairs of [1, 2, 3, 17, 128, 130]) {
        const opts = { data: new Uint8Array(pairs * pairLen), gasLimit: 10n ** 9n, common: engine.common, _EVM: engine.vm.evm };
        const ran = await (fn as (o: typeof opts) => Promise<{ executionGasUsed: bigint }>)(opts);
        expect(precompileGas(id, opts.data, engine.common), `precompile ${id}, ${pairs} pairs`).toBe(ran.executionGasUsed);
      }
    }
  });

  it('a precompile priced above the gas its call was given just fails the call: no reservation, the transaction goes on', async () => {
    const host = new MemoryCoreHost(); // counter stays 0: only reserves can exhaust the budget
    const { engine } = await setup(host, 1_000_000_000n);
    engine.beginBlock(env(2n, { gasLimit: 30_000_000n }));
    // MODEXP with a 2^200-byte modulus: a price of about 1e119 gas, far above anything a call can have.
    const modexpIn = hex(new Uint8Array([...word(1n), ...word(1n), ...word(2n ** 200n), 3, 5]));
    // CALL(gas 1_000_000, 0x05, value 0, in 0..len, out 0..32); SSTORE(0, success); SSTORE(1, 7) after it.
    const len = modexpIn.length / 2;
    const code = asm(
      ...Array.from({ length: len }, (_, i) => [Number.parseInt(modexpIn.slice(2 * i, 2 * i + 2), 16), i, 'MSTORE8']).flat(),
      32, 0, len, 0, 0, 5, 1_000_000, 'CALL', 0, 'SSTORE', 7, 1, 'SSTORE', 'STOP',
    );
    const o = included(await engine.runTx(tx({ from: BOB, nonce: 0n, to: undefined, data: deployCode(code), gasLimit: 3_000_000n })));
    expect(o.status).toBe(1);
    const caller = o.contractAddress!;
    const r = included(await engine.runTx(tx({ from: BOB, nonce: 1n, to: caller, gasLimit: 2_000_000n })));
    // The call failed (out of gas inside the precompile), the caller went on and stored both words.
    expect(r.status, r.failure?.message).toBe(1);
    await engine.commitBlock();
    expect(engine.getStorage(caller, word(0n))).toEqual(word(0n));
    expect(engine.getStorage(caller, word(1n))).toEqual(word(7n));
  });

  it('reserves for the work a precompile does: MODEXP with an empty modulus and MSM pairs with zero scalars are cheap', async () => {
    const common = (await newEngine()).engine.common; // the EVM adds the precompiles' parameters
    // A 1000-byte base, 1000-byte exponent and empty modulus: priced at the base's length, but no exponentiation.
    const empty = new Uint8Array([...word(1000n), ...word(1000n), ...word(0n), ...new Uint8Array(2000).fill(0xff)]);
    const price = precompileGas(5, empty, common)!;
    expect(precompileWorkInstructions(5, empty, price, common)).toBeLessThan(10_000_000n);
    expect(price * PRECOMPILE_INSTRUCTIONS_PER_GAS[5]!).toBeGreaterThan(20_000_000_000n);
    // Empty base and modulus: nothing is read, whatever the exponent's declared length.
    const nothing = new Uint8Array([...word(0n), ...word(2n ** 255n), ...word(0n)]);
    expect(precompileWorkInstructions(5, nothing, precompileGas(5, nothing, common)!, common)).toBe(0n);
    // The same lengths with a 1000-byte modulus: a real exponentiation, reserved by the model, below the price bound.
    const full = new Uint8Array([...word(1000n), ...word(1000n), ...word(1000n), ...new Uint8Array(3000).fill(0xff)]);
    const fullPrice = precompileGas(5, full, common)!;
    const fullWork = precompileWorkInstructions(5, full, fullPrice, common);
    expect(fullWork).toBeGreaterThan(20_000_000_000n);
    expect(fullWork).toBeLessThanOrEqual(fullPrice * PRECOMPILE_INSTRUCTIONS_PER_GAS[5]!);
    // G1 MSM: 8 pairs with zero scalars reserve for 2 pairs, with non-zero scalars for 8 (undiscounted).
    const zeros = new Uint8Array(8 * 160);
    const ones = new Uint8Array(8 * 160);
    for (let k = 0; k < 8; k++) ones[k * 160 + 159] = 1;
    const perPair = common.param('bls12381G1MulGas') * PRECOMPILE_INSTRUCTIONS_PER_GAS[0x0c]!;
    expect(precompileWorkInstructions(0x0c, zeros, 0n, common)).toBe(2n * perPair);
    expect(precompileWorkInstructions(0x0c, ones, 0n, common)).toBe(8n * perPair);
  });
});

describe('log limit', () => {
  it(`allows ${MAX_LOGS_PER_TX} logs and fails a transaction with more, charging all gas`, async () => {
    const { engine, logger } = await setup(new MemoryCoreHost(), 10n ** 12n);
    engine.beginBlock(env(2n));
    const ok = included(await engine.runTx(tx({ nonce: 2n, to: logger, data: word(BigInt(MAX_LOGS_PER_TX)) })));
    expect(ok.status).toBe(1);
    expect(ok.logs).toHaveLength(MAX_LOGS_PER_TX);
    const tooMany = included(await engine.runTx(tx({ nonce: 3n, to: logger, data: word(BigInt(MAX_LOGS_PER_TX + 1)), gasLimit: 500_000n })));
    expect(tooMany).toMatchObject({ status: 0, gasUsed: 500_000n, logs: [], failure: { code: 'exec.halt.too_many_logs' } });
  });

  it(`allows ${MAX_LOG_BYTES_PER_TX} bytes of log data and topics and fails a transaction with more, charging all gas`, async () => {
    const { engine } = await setup(new MemoryCoreHost(), 10n ** 12n);
    engine.beginBlock(env(2n, { gasLimit: 30_000_000n }));
    const emitter = included(await engine.runTx(tx({ nonce: 2n, to: undefined, data: deployCode(LOG_EMITTER_RUNTIME) }))).contractAddress!;
    // 64 LOG4 logs of 896 data bytes + 128 topic bytes: exactly the limit.
    const perLog = MAX_LOG_BYTES_PER_TX / MAX_LOGS_PER_TX - 128;
    const atLimit = included(await engine.runTx(tx({ nonce: 3n, to: emitter, data: emitCall(MAX_LOGS_PER_TX, perLog, 4), gasLimit: 2_000_000n })));
    expect(atLimit.status).toBe(1);
    expect(atLimit.logs.reduce((n, l) => n + l.data.length + 32 * l.topics.length, 0)).toBe(MAX_LOG_BYTES_PER_TX);
    await engine.commitBlock();
    const balance = engine.getBalance(ALICE);
    // One byte more, in a single LOG0: fails with every log dropped and all of its gas charged.
    engine.beginBlock(env(3n, { gasLimit: 30_000_000n }));
    const over = included(await engine.runTx(tx({ nonce: 4n, to: emitter, data: emitCall(1, MAX_LOG_BYTES_PER_TX + 1, 0), gasLimit: 1_500_000n })));
    expect(over).toMatchObject({ status: 0, gasUsed: 1_500_000n, logs: [], failure: { code: 'exec.halt.too_many_log_bytes' } });
    await engine.commitBlock();
    expect(engine.getBalance(ALICE)).toBe(balance - 1_500_000n * (BASE_FEE + TIP));
    expect(engine.getNonce(ALICE)).toBe(5n);
  });

  it('counts only the logs that reach the receipt (a reverted inner call does not count)', async () => {
    const { engine, logger } = await setup(new MemoryCoreHost(), 10n ** 12n);
    // CALL logger with calldata 100 (100 logs) and revert afterwards from inside: wrapper = call, then REVERT.
    const reverter = asm(100, 0, 'MSTORE', 0, 0, 32, 0, 0, new Uint8Array([0x73, ...logger]), 'GAS', 'CALL', 0, 0, 'REVERT');
    const outer = asm(0, 0, 0, 0, 0, 0, 'CALLDATALOAD', 'GAS', 'CALL', 'POP', 'STOP');
    engine.beginBlock(env(2n));
    const r = included(await engine.runTx(tx({ nonce: 2n, to: undefined, data: deployCode(reverter) }))).contractAddress!;
    const o = included(await engine.runTx(tx({ nonce: 3n, to: undefined, data: deployCode(outer) }))).contractAddress!;
    const res = included(await engine.runTx(tx({ nonce: 4n, to: o, data: word(BigInt('0x' + hex(r))), gasLimit: 2_000_000n })));
    expect(res.status).toBe(1);
    expect(res.logs).toHaveLength(0);
  });
});
