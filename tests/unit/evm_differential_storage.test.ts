// Differential check of the fast loop's stepped storage, KECCAK256 and LOG paths (src/core/evm/interpreter.ts,
// state.ts, keccak_memo.ts) against stock EthereumJS: outcomes, gas (refunds included), logs and state.
// Mapping-slot hashes repeated within and across transactions (the word memo), slot keys with their high bits
// set (a cold slot's key bytes from its word), KECCAK256 of memory beyond its size and of 65 bytes, logs with
// wide and narrow topics, LOG and SSTORE in a static context, SSTORE refunds across a DELEGATECALL frame that
// returns or reverts, and a slot warmed by a reverted frame cold again; slots a frame keeps (their journal key,
// warmth and words) changed or warmed by a DELEGATECALL that returns or reverts, and more slots than it keeps.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bigIntToBytes, generateAddress } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import type { ExecTx, IncludedOutcome } from '../../src/core/engine.js';
import { usesFastInterpreter } from '../../src/core/evm/interpreter.js';
import { asm, deployCode, hex, label, ref, word } from '../support/asm.js';
import { ALICE, env, expectStateMatchesStock, expectStockAgrees, included, newEngine, tx } from '../support/evm_fixtures.js';

const op = (...b: number[]): Uint8Array => Uint8Array.from(b);
const push20 = (a: Uint8Array): Uint8Array => op(0x73, ...a);
const concat = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(parts.flatMap((p) => [...p]));
const contract = (nonce: bigint): Uint8Array => generateAddress(ALICE, bigIntToBytes(nonce));
const MAX = (1n << 256n) - 1n;

/**
 * calldata a, b, v: mem[0..64] = a || b; h = keccak(a || b); sstore(h, v); slot 1 = sload(h); slot 2 = keccak
 * of the same bytes again; slot 3 = keccak after one byte changed; slot 4 = keccak of 40 bytes at 1000 (memory
 * beyond its size); slot 5 = keccak of 0 bytes at 5000; slot 6 = keccak of 65 bytes; slot 7 = MSIZE; LOG4,
 * LOG1 and LOG0; slot 8 = GAS.
 */
const KEC = asm(
  0, 'CALLDATALOAD', 0, 'MSTORE', 32, 'CALLDATALOAD', 32, 'MSTORE',
  64, 0, 'KECCAK256',
  64, 'CALLDATALOAD', 'DUP2', 'SSTORE',
  'DUP1', 'SLOAD', 1, 'SSTORE',
  64, 0, 'KECCAK256', 2, 'SSTORE',
  7, 63, 'MSTORE8', 64, 0, 'KECCAK256', 3, 'SSTORE',
  40, 1000, 'KECCAK256', 4, 'SSTORE',
  0, 5000, 'KECCAK256', 5, 'SSTORE',
  65, 0, 'KECCAK256', 6, 'SSTORE',
  'MSIZE', 7, 'SSTORE',
  0, 1n << 200n, 0x1234, MAX, 64, 0, 'LOG4',
  'DUP1', 33, 1, 'LOG1',
  0, 0, 'LOG0',
  'GAS', 8, 'SSTORE',
);

/** Delegate target: writes slots 10 and 11 of its caller's storage, reads cold slot 20, then returns or reverts (calldata[0]). */
const CHILD = asm(
  1, 10, 'SSTORE', 9, 11, 'SSTORE', 2, 11, 'SSTORE', 20, 'SLOAD', 'POP',
  0, 'CALLDATALOAD', ref('rev'), 'JUMPI', 'STOP', label('rev'), 0, 0, 'REVERT',
);

/**
 * calldata[1] != 0: sets slots 10 = 1, 11 = 2 (the state the next transaction starts from). Otherwise clears
 * slot 10 (refund), DELEGATECALLs the child with calldata[0] (its writes restore 10, dirty 11 and restore it),
 * then slot 11: 2 -> 3 -> 2; slot 12 = the call's success; 13 and 14 = the gas of SLOAD 10 (warm) and SLOAD 20
 * (cold again when the child reverted, warm otherwise).
 */
const parent = (child: Uint8Array): Uint8Array =>
  asm(
    32, 'CALLDATALOAD', ref('setup'), 'JUMPI',
    0, 10, 'SSTORE',
    0, 'CALLDATALOAD', 0, 'MSTORE', 0, 0, 32, 0, push20(child), 'GAS', 'DELEGATECALL', 12, 'SSTORE',
    3, 11, 'SSTORE', 2, 11, 'SSTORE',
    'GAS', 10, 'SLOAD', 'POP', 'GAS', 'SWAP1', 'SUB', 13, 'SSTORE',
    'GAS', 20, 'SLOAD', 'POP', 'GAS', 'SWAP1', 'SUB', 14, 'SSTORE',
    'STOP',
    label('setup'), 1, 10, 'SSTORE', 2, 11, 'SSTORE',
  );

/** Delegate target: slot 30 = calldata[0], reads slot 32 (cold), then returns or reverts (calldata[1]). */
const CHILD2 = asm(0, 'CALLDATALOAD', 30, 'SSTORE', 32, 'SLOAD', 'POP', 32, 'CALLDATALOAD', ref('rev'), 'JUMPI', 'STOP', label('rev'), 0, 0, 'REVERT');

/**
 * Reads slot 30, DELEGATECALLs CHILD2 with its calldata (slot 34 = success), then slot 33 = slot 30 as the child
 * left it, 35 = the gas of SSTORE 30 = 5, 36 = the gas of SLOAD 32 (warm only when the child returned); then
 * writes slots 40 to 49 (more than a frame keeps), 37 = the gas of SLOAD 40, 38 = the gas of clearing slot 40.
 */
const parent2 = (child: Uint8Array): Uint8Array =>
  asm(
    30, 'SLOAD', 'POP',
    0, 'CALLDATALOAD', 0, 'MSTORE', 32, 'CALLDATALOAD', 32, 'MSTORE',
    0, 0, 64, 0, push20(child), 'GAS', 'DELEGATECALL', 34, 'SSTORE',
    30, 'SLOAD', 33, 'SSTORE',
    'GAS', 5, 30, 'SSTORE', 'GAS', 'SWAP1', 'SUB', 35, 'SSTORE',
    'GAS', 32, 'SLOAD', 'POP', 'GAS', 'SWAP1', 'SUB', 36, 'SSTORE',
    ...Array.from({ length: 10 }, (_, i) => [i + 1, 40 + i, 'SSTORE'] as const).flat(),
    'GAS', 40, 'SLOAD', 'POP', 'GAS', 'SWAP1', 'SUB', 37, 'SSTORE',
    'GAS', 0, 40, 'SSTORE', 'GAS', 'SWAP1', 'SUB', 38, 'SSTORE',
  );

const LOGGER = asm(0, 0, 'LOG0', 5, 0, 'SSTORE');
/** STATICCALLs `target` with its own calldata; slot 9 = success. */
const statically = (target: Uint8Array): Uint8Array =>
  asm(32, 0, 'CALLDATASIZE', 0, 0, 'CALLDATACOPY', 0, 0, 'CALLDATASIZE', 0, push20(target), 'GAS', 'STATICCALL', 9, 'SSTORE');

interface Case {
  to: Uint8Array | undefined;
  data: Uint8Array;
  gasLimit?: bigint;
}

const slotOf = (a: bigint, b: bigint): bigint => BigInt(`0x${hex(keccak_256(concat(word(a), word(b))))}`);

describe('differential: stepped SLOAD/SSTORE, KECCAK256 and LOG vs stock EthereumJS', () => {
  it('agrees on outcomes, gas and refunds, logs and state', async () => {
    let n = 0n;
    const deploys: Case[] = [];
    const dep = (runtime: Uint8Array): Uint8Array => {
      deploys.push({ to: undefined, data: deployCode(runtime), gasLimit: 1_000_000n });
      return contract(n++);
    };
    const kec = dep(KEC);
    const child = dep(CHILD);
    const par = dep(parent(child));
    const child2 = dep(CHILD2);
    const par2 = dep(parent2(child2));
    const logger = dep(LOGGER);
    const stLog = dep(statically(logger));
    const stKec = dep(statically(kec));
    const call = (to: Uint8Array, data: Uint8Array, gasLimit?: bigint): Case => ({ to, data, gasLimit });
    const kecData = (a: bigint, b: bigint, v: bigint): Uint8Array => concat(word(a), word(b), word(v));
    const pairs: [bigint, bigint][] = [[0xabcdefn, 0n], [MAX, 1n << 255n], [1n << 191n, 3n]];
    const txs: Case[] = [
      ...deploys,
      call(kec, kecData(0xabcdefn, 0n, 1000n)),
      call(kec, kecData(0xabcdefn, 0n, 1000n)), // the same slot again: memo hit, no-op write
      call(kec, kecData(0xabcdefn, 0n, 0n)), // cleared: refund
      call(kec, kecData(MAX, 1n << 255n, MAX)),
      call(kec, kecData(1n << 191n, 3n, 1n << 64n)),
      call(kec, kecData(1n << 191n, 3n, 1n << 64n), 30_000n), // out of gas part way
      call(par, concat(word(0n), word(1n))),
      call(par, concat(word(0n), word(0n))), // the child returns
      call(par, concat(word(0n), word(1n))),
      call(par, concat(word(1n), word(0n))), // the child reverts
      call(stLog, new Uint8Array(0)), // LOG in a static frame: the call fails
      call(stKec, kecData(5n, 6n, 7n)), // SSTORE in a static frame: the call fails
      call(logger, new Uint8Array(0)),
      call(par2, concat(word(7n), word(0n))), // the child writes 30 and returns
      call(par2, concat(word(8n), word(1n))), // the child's write reverted
      call(par2, concat(word(0n), word(0n))), // the child clears 30
      call(par2, concat(word(9n), word(0n))),
    ];
    const watch = Array.from({ length: Number(n) }, (_, i) => contract(BigInt(i)));
    const slots = [...Array.from({ length: 50 }, (_, i) => BigInt(i)), ...pairs.map(([a, b]) => slotOf(a, b)), slotOf(5n, 6n)];
    const toExec = (c: Case, nonce: bigint): ExecTx => tx({ nonce, to: c.to, data: c.data, gasLimit: c.gasLimit ?? 1_000_000n, value: 0n, accessList: [] });
    const e = env(1n, { gasLimit: 500_000_000n });

    const { engine } = await newEngine();
    expect(usesFastInterpreter(engine.vm.evm)).toBe(true);
    engine.setGenesisBalance(ALICE, 100n * 10n ** 18n);
    engine.beginBlock(e);
    const outs: IncludedOutcome[] = [];
    for (let i = 0; i < txs.length; i++) outs.push(included(await engine.runTx(toExec(txs[i]!, BigInt(i)))));
    await engine.commitBlock();

    const vm = await expectStockAgrees(e, txs.map((c, i) => toExec(c, BigInt(i))), outs);
    await expectStateMatchesStock(vm, [engine], watch, slots);

    // Sanity: the cases reach the paths they are meant to.
    const base = deploys.length;
    expect(outs.slice(0, base + 5).every((x) => x.status === 1)).toBe(true);
    expect(outs[base + 5]!.status).toBe(0);
    const slot = (a: Uint8Array, s: bigint): bigint => BigInt(`0x${hex(engine.getStorage(a, word(s)))}`);
    expect(slot(kec, slotOf(MAX, 1n << 255n))).toBe(MAX);
    expect(slot(kec, slotOf(1n << 191n, 3n))).toBe(1n << 64n);
    expect(slot(kec, 2n)).toBe(slotOf(1n << 191n, 3n));
    expect(outs[base]!.logs.map((l) => l.topics.length)).toEqual([4, 1, 0]);
    expect(slot(stLog, 9n)).toBe(0n);
    expect(slot(stKec, 9n)).toBe(0n);
    expect(slot(par, 12n)).toBe(0n); // the last call's child reverted
    expect([13n, 14n].map((k) => slot(par, k))).toEqual([107n, 2107n]); // warm 100 and cold 2,100 (slot 20 cold again after the revert), plus GAS and PUSHes
    expect([33n, 34n, 36n, 37n].map((k) => slot(par2, k))).toEqual([9n, 1n, 107n, 107n]); // the child's 30, success, 32 warm, 40 warm
  });

  it('prices memory operations at small and huge offsets and lengths as stock EthereumJS, to the last unit of gas', async () => {
    // Each program first expands memory to three words (a highest cost already paid), then runs one memory
    // operation at (offset = calldata[0], length = calldata[1]) as its last step: the gas a successful call uses
    // is exactly what that step needed, so the same call given one unit less runs out of gas at that step.
    const pre = [0, 64, 'MSTORE', 32, 'CALLDATALOAD', 0, 'CALLDATALOAD'] as const;
    const programs = [
      asm(...pre, 'KECCAK256'),
      asm(...pre, 'RETURN'),
      asm(...pre, 'REVERT'),
      asm(0, 64, 'MSTORE', 32, 'CALLDATALOAD', 0, 'CALLDATALOAD', 'LOG0'),
      asm(0, 64, 'MSTORE', 7, 9, 32, 'CALLDATALOAD', 0, 'CALLDATALOAD', 'LOG2'),
      asm(0, 64, 'MSTORE', 32, 'CALLDATALOAD', 5, 0, 'CALLDATALOAD', 'CALLDATACOPY'),
      asm(0, 64, 'MSTORE', 32, 'CALLDATALOAD', 5, 0, 'CALLDATALOAD', 'CODECOPY'),
    ];
    const B = 0x3fffffffn; // the largest offset and length priced in Numbers
    const args: [bigint, bigint][] = [
      [0n, 0n], [100n, 64n], [31n, 33n], [0n, 96n], [64n, 1n], [5000n, 1000n], [B, 0n], [B + 1n, 0n], [MAX, 0n],
      [B, 1n], [B + 1n, 1n], [0n, B], [0n, B + 1n], [MAX, 1n], [1n, MAX], [1n << 20n, 1n << 20n],
    ];
    const deploys: Case[] = programs.map((code) => ({ to: undefined, data: deployCode(code), gasLimit: 1_000_000n }));
    const at = programs.map((_, i) => contract(BigInt(i)));
    const calls: Case[] = at.flatMap((to) => args.map(([o, l]) => ({ to, data: concat(word(o), word(l)), gasLimit: 3_000_000n })));
    const toExec = (c: Case, nonce: bigint): ExecTx => tx({ nonce, to: c.to, data: c.data, gasLimit: c.gasLimit ?? 1_000_000n, value: 0n, accessList: [] });
    const e = env(1n, { gasLimit: 500_000_000n });
    const run = async (cases: Case[]): Promise<{ engine: Awaited<ReturnType<typeof newEngine>>['engine']; outs: IncludedOutcome[] }> => {
      const { engine } = await newEngine();
      engine.setGenesisBalance(ALICE, 100n * 10n ** 18n);
      engine.beginBlock(e);
      const outs: IncludedOutcome[] = [];
      for (let i = 0; i < cases.length; i++) outs.push(included(await engine.runTx(toExec(cases[i]!, BigInt(i)))));
      await engine.commitBlock();
      return { engine, outs };
    };
    // first the calls with plenty of gas, then each call that succeeded again with exactly its gas and one less
    // (those whose execution costs more than EIP-7623's calldata floor, so that one less still pays the floor)
    const first = await run([...deploys, ...calls]);
    const floor = (data: Uint8Array): bigint => 21000n + 10n * BigInt(data.reduce((n, b) => n + (b === 0 ? 1 : 4), 0));
    const ok = calls.filter((c, i) => first.outs[deploys.length + i]!.status === 1 && first.outs[deploys.length + i]!.gasUsed > floor(c.data));
    const exact = ok.flatMap((c) => {
      const used = first.outs[deploys.length + calls.indexOf(c)]!.gasUsed;
      return [{ ...c, gasLimit: used }, { ...c, gasLimit: used - 1n }];
    });
    const txs = [...deploys, ...calls, ...exact];
    const { outs } = await run(txs);
    await expectStockAgrees(e, txs.map((c, i) => toExec(c, BigInt(i))), outs);
    // Sanity: both sides of each bound are reached (successes, reverts and out of gas at the step).
    const tail = outs.slice(deploys.length + calls.length);
    expect(tail.length).toBeGreaterThan(30);
    expect(tail.filter((_, i) => i % 2 === 0).every((o) => o.status === 1)).toBe(true);
    expect(tail.filter((_, i) => i % 2 === 1).every((o) => o.status === 0)).toBe(true);
  });
});
