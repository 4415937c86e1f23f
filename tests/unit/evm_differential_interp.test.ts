// Differential check of the fast run loop (src/core/evm/interpreter.ts): the same transactions through
//   (a) our engine with the fast loop, (b) our engine with EthereumJS's own loop, (c) stock EthereumJS
// must agree on status, gas, return data and logs ((a) and (b) also on the failure message and on every
// touched storage slot, balance and nonce). The programs stress what the fast loop executes itself:
// stack and arithmetic edge cases, memory expansion, jumps (into push data, past the code), out of gas
// mid-loop, nested reverts, return data bounds, static-call violations, precompiles, deep calls, CREATE2,
// SELFDESTRUCT, and a solc-compiled ERC-20.
import { bigIntToBytes, generateAddress } from '@ethereumjs/util';
import { encodeDeployData, encodeFunctionData, type Abi } from 'viem';
import { describe, expect, it } from 'vitest';
import type { ExecTx, IncludedOutcome } from '../../src/core/engine.js';
import { usesFastInterpreter } from '../../src/core/evm/interpreter.js';
import { compileFixture } from '../fixtures/solidity/compile.js';
import { asm, deployCode, hex, label, ref, word, type Item } from '../support/asm.js';
import { ALICE, ETH, env, expectStateMatchesStock, expectStockAgrees, included, newEngine, tx } from '../support/evm_fixtures.js';

const op = (...b: number[]): Uint8Array => Uint8Array.from(b);
const h = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'hex'));
const concat = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(parts.flatMap((p) => [...p]));
const churnData = (v: bigint, w: bigint): Uint8Array => concat(word(v), word(w), word(0x40000n));
const push20 = (a: Uint8Array): Uint8Array => op(0x73, ...a);
const contract = (nonce: bigint): Uint8Array => generateAddress(ALICE, bigIntToBytes(nonce));
const pc = (id: number): Uint8Array => {
  const a = new Uint8Array(20);
  a[19] = id;
  return a;
};
const [SLT, SGT, SAR, BYTE, SIGNEXTEND, SDIV, SMOD, ADDMOD, MULMOD, EXP, MOD, OR, XOR, SHL, SHR, MCOPY, MSIZE, PC, GAS] =
  [0x12, 0x13, 0x1d, 0x1a, 0x0b, 0x05, 0x07, 0x08, 0x09, 0x0a, 0x06, 0x17, 0x18, 0x1b, 0x1c, 0x5e, 0x59, 0x58, 0x5a].map((b) => op(b)) as Uint8Array[] as [
    Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array,
    Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array,
  ];
const MAXW = (1n << 256n) - 1n;
const NEG5 = MAXW - 4n; // -5 in two's complement

/** Stores each computed value in slots 0, 1, ...: items are programs that leave one word on the stack. */
function storeAll(...values: Item[][]): Uint8Array {
  const items: Item[] = [];
  values.forEach((v, i) => items.push(...v, i, 'SSTORE'));
  items.push('STOP');
  return asm(...items);
}

const ARITH = storeAll(
  [3, NEG5, SDIV], [3, NEG5, SMOD], [NEG5, 3, SLT], [NEG5, 3, SGT], [3, NEG5, SLT], [1, NEG5, SAR], [300, NEG5, SAR],
  [NEG5, 31, BYTE], [0xff, 0, SIGNEXTEND], [0x7f, 0, SIGNEXTEND], [7, 5, 3, ADDMOD], [7, MAXW, MAXW, MULMOD],
  [300, 2, EXP], [0, 7, EXP], [MAXW, 1, 'ADD'], [MAXW, MAXW, 'MUL'], [1, 0, 'SUB'], [0, 5, 'DIV'], [0, 5, MOD],
  [5, 256, SHL], [5, 255, SHL], [MAXW, 256, SHR], [MAXW, 255, SHR], [1, 1n << 200n, SHL], [0, 'NOT'], [MAXW, 'ISZERO'],
  [0xf0, 0x0f, OR], [0xff, 0x0f, XOR], [MAXW, MAXW, 'EQ'], [2, 1, 'LT'], [2, 1, 'GT'],
);

// Loop calldata[0] times: acc = ((acc * 31 + i) ^ (acc >> 3)) << 1, with memory traffic; stores acc and MSIZE.
const MIX_LOOP = asm(
  1, 0, 'CALLDATALOAD',
  label('top'), 'DUP1', 'ISZERO', ref('end'), 'JUMPI',
  'DUP1', 'DUP3', 31, 'MUL', 'ADD', 'DUP3', 3, SHR, XOR, 1, SHL, 'SWAP2', 'POP',
  'DUP2', 'DUP2', 0x1f, 'AND', 32, 'MUL', 'MSTORE', 'DUP1', 0x1f, 'AND', 32, 'MUL', 'MLOAD', 'POP',
  1, 'SWAP1', 'SUB', ref('top'), 'JUMP',
  label('end'), 'POP', 0, 'SSTORE', MSIZE, 1, 'SSTORE', 'STOP',
);

// Memory: MSTORE at calldata[0], MSTORE8, MCOPY, MLOAD of the copy, MSIZE; returns 96 bytes from 0.
const MEMORY = asm(
  0xabcdefn, 0, 'CALLDATALOAD', 'MSTORE', 0x1234, 5, 'MSTORE8', 64, 0, 32, MCOPY, 32, 'MLOAD', 2, 'SSTORE',
  MSIZE, 3, 'SSTORE', 96, 0, 'RETURN',
);
// Jumps: calldata[0] is the JUMP target; 6 is the 0x5b inside PUSH1's data, 12 is a real JUMPDEST.
const JUMPS = asm(0, 'CALLDATALOAD', op(0x56, 0x60, 0x5b, 0x60, 0x5b), 1, 0, 'SSTORE', 'STOP', label('real'), 2, 0, 'SSTORE', 'STOP');
// JUMPI with a zero condition to an invalid target falls through; a non-zero one to it halts.
const JUMPI = asm(0, 'CALLDATALOAD', 0xffff, 'JUMPI', 7, 0, 'SSTORE', 'STOP');
// Stack: underflow, overflow (pushes forever), and a PUSH32 cut off by the end of the code.
const UNDERFLOW = asm(1, 'ADD', 'STOP');
const OVERFLOW = asm(label('top'), 0, ref('top'), 'JUMP');
const CUT_PUSH = asm(1, 0, 'SSTORE', op(0x7f, 1, 2, 3));
const INVALIDS = [asm(1, 0, 'SSTORE', 'INVALID'), asm(1, 0, 'SSTORE', op(0x0c)), asm(1, 0, 'SSTORE', op(0xef))];
// Gas: GAS read after a few steps, and PC.
const GAS_PC = asm(1, 2, 'ADD', 'POP', GAS, 0, 'SSTORE', PC, 1, 'SSTORE', 'STOP');
// CALLDATALOAD at calldatasize - 5, at calldatasize and at 2^255; CALLDATACOPY past the end.
const CALLDATA = asm(
  5, 'CALLDATASIZE', 'SUB', 'CALLDATALOAD', 0, 'SSTORE', 'CALLDATASIZE', 'CALLDATALOAD', 1, 'SSTORE',
  1n << 255n, 'CALLDATALOAD', 2, 'SSTORE', 40, 3, 0, 'CALLDATACOPY', 0, 'MLOAD', 3, 'SSTORE', 32, 'MLOAD', 4, 'SSTORE', 'STOP',
);

// Callee: REVERT with 4 bytes of data after an SSTORE. Middle: calls it, stores the result and RETURNDATASIZE,
// returns the data; if calldata[0] != 0 it then RETURNDATACOPY(0, 2, 8) out of bounds.
const REVERTER = asm(0x42, 0, 'SSTORE', 0xdeadbeefn << 224n, 0, 'MSTORE', 4, 0, 'REVERT');
const middle = (callee: Uint8Array): Uint8Array =>
  asm(
    0, 0, 0, 0, 0, push20(callee), GAS, 'CALL', 0, 'SSTORE', 'RETURNDATASIZE', 1, 'SSTORE',
    0, 'CALLDATALOAD', ref('oob'), 'JUMPI', 'RETURNDATASIZE', 0, 0, 'RETURNDATACOPY', 'RETURNDATASIZE', 0, 'RETURN',
    label('oob'), 8, 2, 0, 'RETURNDATACOPY', 'STOP',
  );
// Outer: calls the middle with calldata passed through, stores its success flag and return data word.
const outer = (mid: Uint8Array): Uint8Array =>
  asm(
    'CALLDATASIZE', 0, 0, 'CALLDATACOPY', 32, 0, 'CALLDATASIZE', 0, 0, push20(mid), GAS, 'CALL', 5, 'SSTORE',
    0, 'MLOAD', 6, 'SSTORE', 'STOP',
  );
// Static-call violations: STATICCALL into a contract that does SSTORE / LOG0.
const SSTORER = asm(1, 1, 'SSTORE', 'STOP');
const LOGGER = asm(0, 0, 'LOG0', 'STOP');
const staticCaller = (a: Uint8Array, b: Uint8Array): Uint8Array =>
  asm(0, 0, 0, 0, push20(a), 100_000, 'STATICCALL', 0, 'SSTORE', 0, 0, 0, 0, push20(b), 100_000, 'STATICCALL', 1, 'SSTORE', 'STOP');
// Precompiles from a contract: SHA256, IDENTITY, ECRECOVER of garbage, MODEXP; stores flags and outputs.
const PRECOMPILES = asm(
  0x616263, 0, 'MSTORE',
  32, 32, 3, 29, push20(pc(2)), GAS, 'STATICCALL', 0, 'SSTORE', 32, 'MLOAD', 1, 'SSTORE',
  32, 64, 32, 0, push20(pc(4)), GAS, 'STATICCALL', 2, 'SSTORE', 64, 'MLOAD', 3, 'SSTORE',
  32, 128, 128, 0, push20(pc(1)), GAS, 'STATICCALL', 4, 'SSTORE', 'RETURNDATASIZE', 5, 'SSTORE', 'STOP',
);
// Recursion: calls itself with depth + 1 (calldata[0]) forwarding all gas; stores the deepest depth reached.
const RECURSE = asm(
  0, 'CALLDATALOAD', 'DUP1', 0, 'SSTORE', 1, 'ADD', 0, 'MSTORE',
  0, 0, 32, 0, 0, 'ADDRESS', GAS, 'CALL', 'POP', 'STOP',
);
// CREATE2 of calldata init code (collides when called again), CREATE of reverting init code; stores addresses.
const FACTORY = asm(
  'CALLDATASIZE', 0, 0, 'CALLDATACOPY', 7, 'CALLDATASIZE', 0, 0, 'CREATE2', 0, 'SSTORE',
  0xfd5f5f, 0, 'MSTORE', 3, 29, 0, 'CREATE', 2, 'SSTORE', 'STOP',
);
const INIT = asm(0x5f5ff3n, 0, 'MSTORE', 1, 9, 'SSTORE', 3, 29, 'RETURN'); // deploys 0x5f5ff3
// SELFDESTRUCT to calldata's address of a pre-existing contract (EIP-6780: only the balance moves).
const DESTRUCT = asm(0, 'CALLDATALOAD', 'SELFDESTRUCT');

// Storage gas rules (EIP-2200/2929/3529) on the synchronous SLOAD/SSTORE path. v = calldata[0], w = calldata[32]:
// slot 0 w then back to v (restores the original from the second call on), slot 1 cleared then recreated,
// slot 2 set to w (clears it when w = 0 after a non-zero value), slot 3 0 -> 9 -> 0, slot 4 written twice
// (a no-op the second time), slot 5 = SLOAD(0) + SLOAD(9) (warm and cold), slot 8 w -> 0 -> v (dirty clear,
// then recreate back to the original); transient storage stays apart.
// It first MSTOREs at calldata[64]: a far offset burns enough gas that the EIP-3529 cap (gas used / 5) leaves
// the refunds visible in gasUsed.
const CHURN = asm(
  0, 64, 'CALLDATALOAD', 'MSTORE',
  32, 'CALLDATALOAD', 0, 'SSTORE', 0, 'CALLDATALOAD', 0, 'SSTORE',
  0, 1, 'SSTORE', 0, 'CALLDATALOAD', 1, 'SSTORE',
  32, 'CALLDATALOAD', 2, 'SSTORE',
  9, 3, 'SSTORE', 0, 3, 'SSTORE',
  0, 'CALLDATALOAD', 4, 'SSTORE', 0, 'CALLDATALOAD', 4, 'SSTORE',
  0, 'SLOAD', 9, 'SLOAD', 'ADD', 5, 'SSTORE',
  32, 'CALLDATALOAD', 8, 'SSTORE', 0, 8, 'SSTORE', 0, 'CALLDATALOAD', 8, 'SSTORE',
  0x77, 0, 'TSTORE', 0, 'TLOAD', 1, 'TLOAD', 'ADD', 6, 'SSTORE', 0, 'SLOAD', 7, 'SSTORE', 'STOP',
);
// Warm slots across a self-call: the inner frame (calldata[0] = 1 reverts, 2 returns) touches slots 0x10 and 0x11,
// then the outer frame touches them again, so its gas shows whether the revert cooled them.
const SELF_WARM = asm(
  0, 'CALLDATALOAD', ref('inner'), 'JUMPI',
  32, 'CALLDATALOAD', 0, 'MSTORE', 0, 0, 32, 0, 0, 'ADDRESS', GAS, 'CALL', 0x20, 'SSTORE',
  0x10, 'SLOAD', 'POP', 3, 0x11, 'SSTORE', GAS, 0x21, 'SSTORE', 'STOP',
  label('inner'), 0x10, 'SLOAD', 'POP', 1, 0x11, 'SSTORE', 2, 0, 'CALLDATALOAD', 'EQ', ref('ok'), 'JUMPI', 0, 0, 'REVERT',
  label('ok'), 'STOP',
);
// SLOAD / SSTORE with little gas: calls `target` with each gas amount and stores the results in slots 0, 1, ...
// (2294 and 2301 straddle the EIP-2200 stipend check once SSTORER's two pushes are paid).
const GAS_PROBE_AMOUNTS = [100, 2102, 2105, 2300, 2306, 2307, 22_105, 22_106, 30_000];
const gasProbe = (target: Uint8Array): Uint8Array =>
  asm(...GAS_PROBE_AMOUNTS.flatMap((g, i): Item[] => [0, 0, 0, 0, 0, push20(target), g, 'CALL', i, 'SSTORE']), 'STOP');
// Returns what slot 0 held (from an earlier transaction), then what SLOAD finds after storing calldata[0] there.
const ROUND_TRIP = asm(0, 'SLOAD', 0, 'MSTORE', 0, 'CALLDATALOAD', 0, 'SSTORE', 0, 'SLOAD', 32, 'MSTORE', 64, 0, 'RETURN');
const SLOADER = asm(0, 'SLOAD', 0, 'SLOAD', 'ADD', 'POP', 'STOP');
// Transient storage between transactions: stores what TLOAD(0) finds, then TSTOREs 1 there (a later
// transaction must find 0 again: the top-level frame clears it, whichever path runs the frame).
const TRANSIENT_LEAK = asm(0, 'TLOAD', 0, 'SSTORE', 1, 0, 'TSTORE', 'STOP');
// Memory paid for but never stored: a CALL's 16 KB output area with no return data (EthereumJS extends its
// store only as far as it writes); then a wide word written and read back inside it, stored in slots 0 and 1.
const PAID_UNSTORED = asm(
  0x4000, 0, 0, 0, 0, 0xdead, 'GAS', 'CALL', 'POP',
  (1n << 200n) + 0x1234n, 0x3000, 'MSTORE', 0x3000, 'MLOAD', 0x2f00, 'MSTORE8', 0x2f00, 'MLOAD', 0x3000, 'MLOAD', 0, 'SSTORE', 1, 'SSTORE', 'STOP',
);

interface Case {
  to: Uint8Array | undefined;
  data: Uint8Array;
  gasLimit?: bigint;
  value?: bigint;
}

function cases(token: { bytecode: `0x${string}`; abi: Abi }): { txs: Case[]; watch: Uint8Array[] } {
  let n = 0n;
  const deploys: Case[] = [];
  const dep = (code: Uint8Array, value = 0n): Uint8Array => {
    deploys.push({ to: undefined, data: deployCode(code), value });
    return contract(n++);
  };
  const arith = dep(ARITH);
  const mix = dep(MIX_LOOP);
  const mix2 = dep(MIX_LOOP); // same code at a second address (shared jump analysis)
  const mem = dep(MEMORY);
  const jumps = dep(JUMPS);
  const jumpi = dep(JUMPI);
  const under = dep(UNDERFLOW);
  const over = dep(OVERFLOW);
  const cut = dep(CUT_PUSH);
  const invalids = INVALIDS.map((c) => dep(c));
  const gasPc = dep(GAS_PC);
  const cd = dep(CALLDATA);
  const reverter = dep(REVERTER);
  const mid = dep(middle(reverter));
  const out = dep(outer(mid));
  const sstorer = dep(SSTORER);
  const logger = dep(LOGGER);
  const stat = dep(staticCaller(sstorer, logger));
  const pcs = dep(PRECOMPILES);
  const rec = dep(RECURSE);
  const fac = dep(FACTORY);
  const des = dep(DESTRUCT, 1000n);
  const churn = dep(CHURN);
  const roundTrip = dep(ROUND_TRIP);
  const selfWarm = dep(SELF_WARM);
  const probeStore = dep(gasProbe(sstorer));
  const sloader = dep(SLOADER);
  const probeLoad = dep(gasProbe(sloader));
  const tleak = dep(TRANSIENT_LEAK);
  const unstored = dep(PAID_UNSTORED);
  const tok = contract(n);
  const abi = token.abi;
  deploys.push({
    to: undefined,
    data: h(encodeDeployData({ abi, bytecode: token.bytecode, args: ['T', 'T', 10n ** 24n] }).slice(2)),
    gasLimit: 2_000_000n,
  });
  n++;
  const call = (to: Uint8Array, data: Uint8Array = new Uint8Array(0), gasLimit?: bigint): Case => ({ to, data, gasLimit });
  const fn = (functionName: string, args: unknown[]): Uint8Array => h(encodeFunctionData({ abi, functionName, args } as never).slice(2));
  const addr = (a: Uint8Array): `0x${string}` => `0x${hex(a)}`;
  const bob = pc(0x77);
  const txs: Case[] = [
    ...deploys,
    call(arith),
    call(mix, word(50n)),
    call(mix2, word(3n)),
    call(mix, word(100_000n), 300_000n), // out of gas mid-loop
    call(mem, word(64n)),
    call(mem, word(1n << 40n)), // memory expansion far past the gas
    call(mem, word(MAXW)),
    call(jumps, word(12n)),
    call(jumps, word(6n)), // into push data
    call(jumps, word(1000n)), // past the code
    call(jumps, word(1n << 200n)),
    call(jumpi, word(0n)),
    call(jumpi, word(1n)),
    call(under),
    call(over),
    call(cut),
    ...invalids.map((a) => call(a)),
    call(gasPc),
    call(gasPc, new Uint8Array(0), 21_000n + 2_000n), // runs out of gas at the first SSTORE
    call(cd, h('0102030405060708')),
    call(cd, new Uint8Array(0)),
    call(out, word(0n)),
    call(out, word(1n)), // RETURNDATACOPY out of bounds in the middle frame
    call(stat),
    call(pcs),
    call(rec, word(0n), 600_000n),
    call(rec, word(0n), 20_000_000n), // deep: until the 63/64 rule starves it
    call(fac, INIT),
    call(fac, INIT), // CREATE2 collision: burns the forwarded gas
    call(des, word(BigInt(`0x${hex(bob)}`))),
    call(tok, fn('transfer', [addr(bob), 1000n]), 100_000n),
    call(tok, fn('approve', [addr(bob), 500n]), 100_000n),
    call(tok, fn('transfer', [addr(bob), 10n ** 30n]), 100_000n), // reverts: balance too low
    call(tok, fn('transferFrom', [addr(bob), addr(ALICE), 1n]), 100_000n), // reverts: no allowance
    call(tok, fn('balanceOf', [addr(bob)]), 100_000n),
    call(tok, fn('transfer', [addr(bob), 1n]), 30_000n), // out of gas inside the token
    call(churn, churnData(3n, 0n)),
    call(churn, churnData(3n, 0n)), // originals now non-zero: restore, recreate and clear refunds
    call(churn, churnData(3n, 5n)),
    call(churn, churnData(4n, 0n)),
    call(churn, churnData(0n, 0n)),
    // stored values of every byte length, read back by SLOAD in the same and in the next transaction
    ...Array.from({ length: 33 }, (_, i) => call(roundTrip, word(i === 32 ? MAXW : (1n << BigInt(8 * i)) + BigInt(i) * 0x0101n))),
    call(roundTrip, word(0n)),
    call(churn, concat(word(0n), word(0n)), 21_000n + 30_000n), // out of gas part-way
    call(selfWarm, concat(word(0n), word(1n))), // inner frame reverts: its slots are cold again
    call(selfWarm, concat(word(0n), word(2n))), // inner frame returns: they stay warm
    call(probeStore),
    call(probeStore), // slot 1 of SSTORER is now set: the same amounts hit the no-op rules
    call(probeLoad),
    call(stat), // SSTORE under STATICCALL again, with the slots warm from before
    call(tleak),
    call(tleak), // slot 0 stays 0: the first transaction's TSTORE is gone
    call(unstored),
  ];
  const watch = [ALICE, bob, ...Array.from({ length: Number(n) + 1 }, (_, i) => contract(BigInt(i)))];
  return { txs, watch };
}

const toExec = (c: Case, nonce: bigint): ExecTx =>
  tx({ nonce, to: c.to, data: c.data, gasLimit: c.gasLimit ?? 1_000_000n, value: c.value ?? 0n });

describe('differential: fast run loop vs EthereumJS run loop vs stock EthereumJS', () => {
  it('agrees on every outcome, failure message and resulting state', async () => {
    const token = compileFixture('Token.sol', 'Token');
    const { txs, watch } = cases({ bytecode: token.bytecode as `0x${string}`, abi: token.abi as Abi });
    const e = env(1n, { gasLimit: 500_000_000n });

    const runOurs = async (stockInterpreter: boolean) => {
      const { engine } = await newEngine(undefined, { stockInterpreter });
      engine.setGenesisBalance(ALICE, 100n * ETH);
      engine.beginBlock(e);
      const outs: IncludedOutcome[] = [];
      for (let i = 0; i < txs.length; i++) outs.push(included(await engine.runTx(toExec(txs[i]!, BigInt(i)))));
      await engine.commitBlock();
      return { engine, outs };
    };
    const fast = await runOurs(false);
    const slow = await runOurs(true);
    expect(usesFastInterpreter(fast.engine.vm.evm)).toBe(true);
    expect(usesFastInterpreter(slow.engine.vm.evm)).toBe(false);

    const vm = await expectStockAgrees(e, txs.map((c, i) => toExec(c, BigInt(i))), fast.outs);
    for (let i = 0; i < txs.length; i++) expect({ ...fast.outs[i]!, instructions: 0n }, `tx ${i}`).toEqual({ ...slow.outs[i]!, instructions: 0n });

    await expectStateMatchesStock(vm, [fast.engine, slow.engine], watch, Array.from({ length: 40 }, (_, i) => BigInt(i)));

    // Sanity: the programs reach the paths they are meant to.
    const o = fast.outs;
    const msg = (i: number): string | undefined => o[i]!.failure?.message;
    const base = txs.findIndex((t) => t.to !== undefined);
    expect(o.slice(0, base).every((x) => x.status === 1)).toBe(true);
    const at = (k: number): IncludedOutcome => o[base + k]!;
    expect(at(0).status).toBe(1);
    expect(at(3).failure?.message).toBe('out of gas');
    expect(at(5).status).toBe(0);
    expect(at(8).failure?.message).toMatch(/^invalid JUMP at 0x[0-9a-f]{64}\/0x[0-9a-f]{40}:2$/);
    expect(at(12).failure?.message).toMatch(/^invalid JUMP/);
    expect(msg(base + 13)).toBe('stack underflow');
    expect(msg(base + 14)).toBe('stack overflow');
    expect(at(15).status).toBe(1);
    expect(msg(base + 16)).toBe('invalid opcode');
    expect(msg(base + 18)).toBe('invalid opcode');
    expect(at(25).status).toBe(1);
    expect(at(29).status).toBe(1);
    expect(at(34).failure?.code).toBe('exec.reverted');
    expect(at(37).failure?.message).toBe('out of gas');
    // the round trips returned the value stored before and the one just stored
    const trips = o.filter((x) => x.returnData.length === 64);
    expect(trips.length).toBe(34);
    expect(hex(trips[32]!.returnData.subarray(32))).toBe('ff'.repeat(32));
  });
});
