// Differential check of the engine's own inner call frames (src/core/evm/call_frame.ts): the same transactions
// through (a) our engine with its own frames, (b) our engine with EthereumJS's runCall for every frame, and
// (c) stock EthereumJS must agree on status, gas, return data and logs ((a) and (b) also on the failure
// message, the state root and every watched slot, balance and nonce). The programs exercise what the frame
// set-up does: nested calls and return data, reverts inside calls, value transfers (to code, to a missing
// account, to an existing empty account, to a precompile, more than the balance), CALLCODE and DELEGATECALL
// storage context, static-call violations, the depth limit, precompiles, and an EIP-7702-delegated account.
import { Address, bigIntToBytes, createAccount, generateAddress } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import type { VM } from '@ethereumjs/vm';
import type { BlockEnv, ExecTx, IncludedOutcome } from '../../src/core/engine.js';
import type { EvmEngine } from '../../src/core/evm/index.js';
import { asm, deployCode, hex, type Item, label, ref, word } from '../support/asm.js';
import { ALICE, ETH, env, expectStateMatchesStock, expectStockAgrees, included, newEngine, tx } from '../support/evm_fixtures.js';

const op = (...b: number[]): Uint8Array => Uint8Array.from(b);
const push20 = (a: Uint8Array): Uint8Array => op(0x73, ...a);
const concat = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(parts.flatMap((p) => [...p]));
const contract = (nonce: bigint): Uint8Array => generateAddress(ALICE, bigIntToBytes(nonce));
const addrWord = (a: Uint8Array): Uint8Array => word(BigInt(`0x${hex(a)}`));
const pc = (id: number): Uint8Array => {
  const a = new Uint8Array(20);
  a[19] = id;
  return a;
};

const CALL_KINDS = { CALL: 0xf1, CALLCODE: 0xf2, DELEGATECALL: 0xf4, STATICCALL: 0xfa } as const;
type Kind = keyof typeof CALL_KINDS;

/**
 * Proxy: calldata = target (word 0), value (word 1), gas (word 2), then the input it forwards. Makes one call
 * of its kind, stores success (slot 100), RETURNDATASIZE (101), the first return word (102) and SELFBALANCE
 * (103), and returns the callee's return data.
 */
function proxy(kind: Kind): Uint8Array {
  const withValue = kind === 'CALL' || kind === 'CALLCODE';
  return asm(
    96, 'CALLDATASIZE', 'SUB', 96, 0, 'CALLDATACOPY',
    32, 0, 96, 'CALLDATASIZE', 'SUB', 0, ...(withValue ? [32, 'CALLDATALOAD'] : []), 0, 'CALLDATALOAD', 64, 'CALLDATALOAD',
    op(CALL_KINDS[kind]),
    100, 'SSTORE', 'RETURNDATASIZE', 101, 'SSTORE', 0, 'MLOAD', 102, 'SSTORE', 'SELFBALANCE', 103, 'SSTORE',
    'RETURNDATASIZE', 0, 0, 'RETURNDATACOPY', 'RETURNDATASIZE', 0, 'RETURN',
  );
}
const callData = (target: Uint8Array, value: bigint, gas: bigint, input: Uint8Array = new Uint8Array(0)): Uint8Array =>
  concat(addrWord(target), word(value), word(gas), input);

// Echo: stores calldata[0] + 1, CALLER, CALLVALUE and ADDRESS in slots 1-4, logs, returns calldata[0] * 2.
const ECHO = asm(
  1, 0, 'CALLDATALOAD', 'ADD', 1, 'SSTORE', 'CALLER', 2, 'SSTORE', 'CALLVALUE', 3, 'SSTORE', 'ADDRESS', 4, 'SSTORE',
  0xec40, 0, 0, 'LOG1',
  2, 0, 'CALLDATALOAD', 'MUL', 0, 'MSTORE', 32, 0, 'RETURN',
);
// Writes, logs, then reverts with data: its writes and log must vanish, its return data must reach the caller.
const REVERTER = asm(0x42, 7, 'SSTORE', 0, 0, 'LOG0', 0xbadn << 240n, 0, 'MSTORE', 2, 0, 'REVERT');
// Recursion: calls itself with depth + 1 (calldata[0]) forwarding all gas; stores the deepest depth reached.
const RECURSE = asm(0, 'CALLDATALOAD', 'DUP1', 0, 'SSTORE', 1, 'ADD', 0, 'MSTORE', 0, 0, 32, 0, 0, 'ADDRESS', 'GAS', 'CALL', 'POP', 'STOP');
// Forwards everything to ECHO with a STATICCALL, then writes (allowed: it is not itself static).
const statically = (target: Uint8Array): Uint8Array =>
  asm(32, 0, 'CALLDATASIZE', 0, 0, 'CALLDATACOPY', 'CALLDATASIZE', 0, push20(target), 'GAS', 'STATICCALL', 9, 'SSTORE', 'STOP');

// Account reads (account_ops.ts): for each of the first six calldata words, BALANCE, EXTCODESIZE and EXTCODEHASH
// of that address into slots 200 + 3i .. 202 + 3i, then the GAS left into slot 199 (the cold and warm charges).
const ACCOUNT_READS = asm(
  ...Array.from({ length: 6 }, (_, i) => [
    32 * i, 'CALLDATALOAD', 'BALANCE', 200 + 3 * i, 'SSTORE',
    32 * i, 'CALLDATALOAD', 'EXTCODESIZE', 201 + 3 * i, 'SSTORE',
    32 * i, 'CALLDATALOAD', 'EXTCODEHASH', 202 + 3 * i, 'SSTORE',
  ]).flat(),
  'GAS', 199, 'SSTORE',
);

const EOF_LIKE = Uint8Array.of(0xef, 0x00, 0x01, 0x00, 0x04);

// Bank: sends calldata[0] wei back to its CALLER.
const BANK = asm(0, 0, 0, 0, 0, 'CALLDATALOAD', 'CALLER', 'GAS', 'CALL', 'POP', 'STOP');
/**
 * The frame's own account across inner frames (call_frame.ts reads it when asked): SELFBALANCE into slots
 * 10, 11, 12, 14, 16 after a call that pays it back (the bank), a value call that reverts, a CREATE and a
 * CREATE2 of children sent value that SELFDESTRUCT to their creator (EIP-6780: created in the transaction, so
 * deleted), their addresses into 13 and 15, then BALANCE of itself into 17.
 */
const balancer = (bank: Uint8Array, reverter: Uint8Array): Uint8Array =>
  asm(
    'CALLER', push20(bank), 'EQ', 'ISZERO', ref('go'), 'JUMPI', 'STOP', label('go'), // the bank's payment: nothing to do
    'SELFBALANCE', 10, 'SSTORE',
    5, 0, 'MSTORE', 0, 0, 32, 0, 0, push20(bank), 'GAS', 'CALL', 'POP',
    'SELFBALANCE', 11, 'SSTORE',
    0, 0, 0, 0, 3, push20(reverter), 'GAS', 'CALL', 'POP',
    'SELFBALANCE', 12, 'SSTORE',
    0x33ff, 0, 'MSTORE', 2, 30, 2, 'CREATE', 13, 'SSTORE',
    'SELFBALANCE', 14, 'SSTORE',
    7, 2, 30, 1, 'CREATE2', 15, 'SSTORE',
    'SELFBALANCE', 16, 'SSTORE',
    'ADDRESS', 'BALANCE', 17, 'SSTORE',
  );
// Warms slot 5 of its storage context and account `x`, then fails: by REVERT, or by INVALID (all its gas).
const warmer = (x: Uint8Array, fail: 'REVERT' | 'INVALID'): Uint8Array =>
  asm(5, 'SLOAD', 'POP', push20(x), 'BALANCE', 'POP', ...(fail === 'REVERT' ? [0, 0, 'REVERT'] : ['INVALID']));
/**
 * Warm and cold access across failed frames (the journal's revert): DELEGATECALLs the reverting warmer, then the
 * out-of-gas one (50,000 gas), then measures SLOAD of slot 5 and BALANCE of `x` (slots 20, 21: cold again unless
 * the transaction's access list names them) and SLOAD again (22: warm).
 */
const coldAgain = (w1: Uint8Array, w2: Uint8Array, x: Uint8Array): Uint8Array =>
  asm(
    0, 0, 0, 0, push20(w1), 'GAS', 'DELEGATECALL', 'POP',
    0, 0, 0, 0, push20(w2), 50_000, 'DELEGATECALL', 'POP',
    'GAS', 5, 'SLOAD', 'POP', 'GAS', 'SWAP1', 'SUB', 20, 'SSTORE',
    'GAS', push20(x), 'BALANCE', 'POP', 'GAS', 'SWAP1', 'SUB', 21, 'SSTORE',
    'GAS', 5, 'SLOAD', 'POP', 'GAS', 'SWAP1', 'SUB', 22, 'SSTORE',
  );
// Transient storage: slot 31 gets TLOAD(1) before this transaction's TSTORE (0: cleared after every transaction), 30 after it.
const TRANSIENT = asm(1, 'TLOAD', 31, 'SSTORE', 42, 1, 'TSTORE', 1, 'TLOAD', 30, 'SSTORE');

interface Case {
  to: Uint8Array | undefined;
  data: Uint8Array;
  gasLimit?: bigint;
  value?: bigint;
  accessList?: ExecTx['accessList'];
}

/**
 * `execs` in one block three ways, after `prepare` on each one's state: the own frames and EthereumJS's frames in
 * this engine (`emptyGenesis` accounts given a zero genesis balance there), and stock EthereumJS
 * (expectStockAgrees); the two engines' outcomes and state roots equal. The own run and the stock VM, for the
 * case's own state checks.
 */
async function threeWays(
  e: BlockEnv,
  execs: readonly ExecTx[],
  prepare: (sm: VM['stateManager']) => Promise<void> = async () => {},
  emptyGenesis: readonly Uint8Array[] = [],
): Promise<{ own: { engine: EvmEngine; outs: IncludedOutcome[] }; vm: VM }> {
  const run = async (stockFrames: boolean) => {
    const { engine } = await newEngine(undefined, { stockFrames });
    engine.setGenesisBalance(ALICE, 100n * ETH);
    for (const a of emptyGenesis) engine.setGenesisBalance(a, 0n);
    engine.beginBlock(e);
    await prepare(engine.vm.stateManager);
    const outs: IncludedOutcome[] = [];
    for (const x of execs) outs.push(included(await engine.runTx(x)));
    const { stateRoot } = await engine.commitBlock();
    return { engine, outs, stateRoot };
  };
  const own = await run(false);
  const stock = await run(true);
  const vm = await expectStockAgrees(e, execs, own.outs, (stockVm) => prepare(stockVm.stateManager));
  for (let i = 0; i < execs.length; i++) expect({ ...own.outs[i]!, instructions: 0n }, `tx ${i}`).toEqual({ ...stock.outs[i]!, instructions: 0n });
  expect(hex(own.stateRoot)).toBe(hex(stock.stateRoot));
  return { own, vm };
}

describe('differential: own call frames vs EthereumJS frames vs stock EthereumJS', () => {
  it('agrees on every outcome, failure message, state root and resulting state', async () => {
    let n = 0n;
    const deploys: Case[] = [];
    const dep = (runtime: Uint8Array, value = 0n): Uint8Array => {
      deploys.push({ to: undefined, data: deployCode(runtime), value, gasLimit: 1_000_000n });
      return contract(n++);
    };
    const pCall = dep(proxy('CALL'), 1000n);
    const pCode = dep(proxy('CALLCODE'), 1000n);
    const pDel = dep(proxy('DELEGATECALL'));
    const pStat = dep(proxy('STATICCALL'));
    const echo = dep(ECHO);
    const rev = dep(REVERTER);
    const rec = dep(RECURSE);
    const pCall2 = dep(proxy('CALL'), 10n);
    const statEcho = dep(statically(echo));
    const reads = dep(ACCOUNT_READS, 55n);
    const bank = dep(BANK, 500n);
    const bal = dep(balancer(bank, rev), 100n);
    const farAway = Uint8Array.from({ length: 20 }, (_, i) => 0xa0 + i);
    const cold = dep(coldAgain(dep(warmer(farAway, 'REVERT')), dep(warmer(farAway, 'INVALID')), farAway));
    const trans = dep(TRANSIENT);
    const delegated = Uint8Array.from({ length: 20 }, (_, i) => 0x70 + i); // an EOA delegating to ECHO (EIP-7702)
    const emptyExisting = Uint8Array.from({ length: 20 }, (_, i) => 0x30 + i); // exists, empty: deleted when touched
    const missing = Uint8Array.from({ length: 20 }, (_, i) => 0x50 + i);
    const eofLike = Uint8Array.from({ length: 20 }, (_, i) => 0x90 + i); // code starting 0xEF00 (placed, not deployable)
    const call = (to: Uint8Array, data: Uint8Array, gasLimit?: bigint, value?: bigint, accessList?: ExecTx['accessList']): Case => ({ to, data, gasLimit, value, accessList });
    const G = 500_000n;
    const txs: Case[] = [
      ...deploys,
      call(pCall, callData(echo, 0n, G, word(5n))),
      call(pCall, callData(echo, 7n, G, word(6n))), // value to code
      call(pCall, callData(echo, 5000n, G, word(6n))), // more than the proxy holds: fails before the frame
      call(pCall, callData(missing, 0n, G)), // missing account, no value: touched, not created
      call(pCall, callData(emptyExisting, 0n, G)), // existing empty account: touched, then deleted
      call(pCall, callData(missing, 3n, G)), // value to a missing account: created
      call(pCall, callData(pc(4), 2n, G, word(0x1234n))), // IDENTITY with value
      call(pCall, callData(pc(2), 0n, G, word(0x1234n))), // SHA256
      call(pCall, callData(pc(1), 0n, G, new Uint8Array(128))), // ECRECOVER of zeros
      call(pCall, callData(pc(5), 0n, 100n, new Uint8Array(96))), // MODEXP out of gas
      call(pCall, callData(rev, 1n, G)), // revert inside: value, writes and log undone, data returned
      call(pCall, callData(rev, 0n, 21_000n)), // out of gas inside
      call(pCode, callData(echo, 4n, G, word(9n))), // CALLCODE: ECHO's writes land in the proxy
      call(pDel, callData(echo, 0n, G, word(11n)), undefined, 77n), // DELEGATECALL: caller and value kept
      call(pStat, callData(echo, 0n, G, word(1n))), // SSTORE under STATICCALL
      call(pStat, callData(pCall2, 0n, G, callData(echo, 1n, G))), // a value CALL under STATICCALL
      call(pStat, callData(pCall2, 0n, G, callData(echo, 0n, G))), // a zero-value CALL under STATICCALL: then SSTORE fails
      call(pCall, callData(pCall2, 0n, G, callData(pDel, 0n, G, callData(echo, 0n, G, word(3n))))), // three deep
      call(pCall, callData(pCall2, 5n, G, callData(rev, 0n, G))), // nested revert below a value call
      call(statEcho, word(21n)),
      call(pCall, callData(delegated, 0n, G, word(13n))), // EIP-7702: ECHO's code in the delegating account
      call(pCall, callData(delegated, 9n, G, word(14n))),
      call(pDel, callData(delegated, 0n, G, word(15n))),
      call(pStat, callData(delegated, 0n, G, word(16n))),
      // BALANCE, EXTCODESIZE, EXTCODEHASH: itself, code, an EOA, a missing and an existing empty account, a
      // precompile, an EIP-7702 designator, the same address twice (warm)
      call(reads, concat(addrWord(reads), addrWord(echo), addrWord(ALICE), addrWord(missing), addrWord(emptyExisting), addrWord(pc(2)))),
      call(reads, concat(addrWord(delegated), addrWord(delegated), addrWord(pc(1)), word(0n), word((1n << 255n) | BigInt(`0x${hex(echo)}`)), addrWord(eofLike))),
      call(reads, concat(addrWord(echo), addrWord(rev)), 21_000n + 16n * 64n + 2_700n), // out of gas at a cold access
      call(pStat, callData(reads, 0n, G, concat(addrWord(echo), addrWord(pCall)))), // under STATICCALL: reads run, the SSTOREs fail
      call(rec, word(0n), 600_000n),
      call(rec, word(0n), 30_000_000n), // deep: until the 63/64 rule starves it
      call(pCall, concat(word((0xabcdn << 200n) | BigInt(`0x${hex(echo)}`)), word(0n), word(G), word(8n))), // bits above the address ignored
      call(bal, new Uint8Array(0)), // the frame's balance across a repaying call, a reverted value call, CREATE, CREATE2, SELFDESTRUCT
      call(pCall, callData(bal, 0n, G)), // the same one frame down
      call(cold, new Uint8Array(0)), // warm slot and account cooled by a reverted and an out-of-gas frame
      call(cold, new Uint8Array(0), undefined, undefined, [[farAway, []], [cold, [word(5n)]], [pc(2), [word(1n)]]]), // ... unless the access list names them (a precompile's entry too)
      call(pCall, callData(cold, 0n, G), undefined, undefined, [[pc(2), [word(1n), word(2n)]], [pc(3), []]]),
      call(pCall, callData(echo, 0n, 5_000n, word(1n))), // out of gas in the inner frame (its SSTORE), the proxy goes on
      call(pCall, callData(pCall2, 0n, G, callData(echo, 0n, 5_000n, word(1n)))), // two frames down
      call(trans, new Uint8Array(0)),
      call(trans, new Uint8Array(0)), // the first transaction's transient value is gone
      call(pCall, callData(trans, 0n, G)),
    ];
    const watch = [ALICE, delegated, eofLike, emptyExisting, missing, farAway, pc(1), pc(2), pc(4), ...Array.from({ length: Number(n) }, (_, i) => contract(BigInt(i)))];
    const designator = concat(op(0xef, 0x01, 0x00), echo);
    const toExec = (c: Case, nonce: bigint): ExecTx => tx({ nonce, to: c.to, data: c.data, gasLimit: c.gasLimit ?? 1_000_000n, value: c.value ?? 0n, accessList: c.accessList ?? [] });
    const e = env(1n, { gasLimit: 500_000_000n });

    const { own, vm } = await threeWays(
      e,
      txs.map((c, i) => toExec(c, BigInt(i))),
      async (sm) => {
        await sm.putCode(new Address(delegated), designator);
        await sm.putCode(new Address(eofLike), EOF_LIKE);
        await sm.putAccount(new Address(emptyExisting), createAccount({}));
      },
      [emptyExisting],
    );

    await expectStateMatchesStock(vm, [own.engine], watch, [0n, 1n, 2n, 3n, 4n, 5n, 7n, 9n, 10n, 11n, 12n, 13n, 14n, 15n, 16n, 17n, 20n, 21n, 22n, 30n, 31n, 100n, 101n, 102n, 103n, ...Array.from({ length: 19 }, (_, i) => 199n + BigInt(i))]);
    // the existing empty account was touched by a zero-value call and removed (EIP-161), as EthereumJS does
    expect(await vm.stateManager.getAccount(new Address(emptyExisting))).toBeUndefined();

    // Sanity: the cases reach the paths they are meant to.
    const base = deploys.length;
    const o = own.outs;
    expect(o.slice(0, base).every((x) => x.status === 1)).toBe(true);
    const slot = (a: Uint8Array, s: bigint): bigint => BigInt(`0x${hex(own.engine.getStorage(a, word(s)))}`);
    expect(o[base + 10]!.status).toBe(1);
    expect(hex(o[base + 10]!.returnData)).toBe('0bad');
    expect(own.engine.getBalance(missing)).toBe(3n);
    expect(slot(delegated, 1n)).toBe(15n); // the last call into it that wrote (the STATICCALL failed)
    expect(slot(pDel, 1n)).toBe(16n); // the delegated account's code ran in the proxy's storage
    expect(slot(pDel, 2n)).toBe(BigInt(`0x${hex(ALICE)}`)); // DELEGATECALL kept CALLER
    expect(slot(pStat, 100n)).toBe(0n); // the last STATICCALL into the delegated account could not write
    expect(slot(rec, 0n)).toBeGreaterThan(10n);
    // the last of them that wrote (the second): the delegated account, then address 0, then echo through a dirty word
    expect(slot(reads, 200n)).toBe(9n);
    expect(slot(reads, 201n)).toBe(23n); // the designator's size
    expect(slot(reads, 202n)).toBeGreaterThan(0n);
    expect(slot(reads, 211n)).toBe(0n); // EXTCODEHASH of a missing account
    expect(slot(reads, 213n)).toBe(BigInt(ECHO.length)); // only the low 160 bits of the word name the account
    expect(slot(reads, 216n)).toBe(2n); // code starting 0xEF00: EthereumJS answers EOFBYTES' size
    // the balancer (last run one frame down, with no value): 100, +5 from the bank, the reverted 3 kept, the
    // children's value back from their SELFDESTRUCTs
    expect([10n, 11n, 12n, 14n, 16n, 17n].map((k) => slot(bal, k))).toEqual([105n, 110n, 110n, 110n, 110n, 110n]);
    expect(slot(bal, 13n)).not.toBe(0n);
    expect(slot(bal, 15n)).not.toBe(0n);
    expect(slot(trans, 31n)).toBe(0n);
    expect(slot(trans, 30n)).toBe(42n);
    // the last transaction into `cold` (one frame down, its access list naming only precompiles): slot 5 and the
    // account cold again after the failed frames warmed them (SLOAD 2,100 and BALANCE 2,600, plus GAS and PUSHes), then warm
    expect([20n, 21n, 22n].map((k) => slot(cold, k))).toEqual([2107n, 2607n, 107n]);
  });

  // call_frame.ts keeps one Interpreter per call depth and resets it for the next frame there: memory zeroed (or
  // new when it grew), stack emptied, run state, result and environment made anew. These frames leave a depth
  // dirty (memory written and grown past 8 KB, values left on the stack, a revert, all gas used) and run the
  // next frame at that depth: a reader that fails (all its gas) unless memory is empty and zero, a POP that
  // must underflow; in chains whose frames revert after deeper ones succeeded, run out of gas at each depth,
  // re-enter, mix the call kinds and create from inside calls.
  it('agrees where frames at one depth follow each other (kept interpreters)', async () => {
    let n = 0n;
    const deploys: Case[] = [];
    const dep = (runtime: Uint8Array, value = 0n): Uint8Array => {
      deploys.push({ to: undefined, data: deployCode(runtime), value, gasLimit: 1_000_000n });
      return contract(n++);
    };
    // memory written at 0, 8000 and 20000 (grown past 8 KB), five words left on the stack, reverts when calldata[0] != 0
    const DIRTY = asm(0, 'NOT', 0, 'MSTORE', 0, 'NOT', 8000, 'MSTORE', 0, 'NOT', 20000, 'MSTORE', 1, 2, 3, 4, 5, 0, 'CALLDATALOAD', ref('r'), 'JUMPI', 'STOP', label('r'), 0, 0, 'REVERT');
    // MSIZE must be 0 and memory zero: else INVALID; counts its runs in slot 1
    const CLEAN = asm('MSIZE', 64, 'MLOAD', op(0x17), 8000, 'MLOAD', op(0x17), 20000, 'MLOAD', op(0x17), ref('bad'), 'JUMPI', 1, 'SLOAD', 1, 'ADD', 1, 'SSTORE', 'STOP', label('bad'), 'INVALID');
    // POP on what must be an empty stack
    const UNDER = asm('POP', 1, 2, 'SSTORE');
    const dirty = dep(DIRTY);
    const clean = dep(CLEAN);
    const under = dep(UNDER);
    const callTo = (kind: Kind, to: Uint8Array, inLen: number, slot: number, gas: Item = 'GAS'): Item[] =>
      kind === 'CALL' || kind === 'CALLCODE'
        ? [0, 0, inLen, 0, 0, push20(to), gas, op(CALL_KINDS[kind]), slot, 'SSTORE']
        : [0, 0, inLen, 0, push20(to), gas, op(CALL_KINDS[kind]), slot, 'SSTORE'];
    // calldata: word 0 DIRTY's mode, then init code for a CREATE made after the calls; each call's success in slots 10-21
    const DRIVER = asm(
      0, 'CALLDATALOAD', 0, 'MSTORE',
      ...callTo('CALL', dirty, 32, 10),
      ...callTo('CALL', under, 0, 11, 100_000),
      ...callTo('CALL', clean, 0, 12),
      ...callTo('DELEGATECALL', dirty, 32, 13),
      ...callTo('DELEGATECALL', clean, 0, 14),
      ...callTo('CALLCODE', dirty, 0, 15),
      ...callTo('STATICCALL', under, 0, 16, 100_000),
      ...callTo('CALLCODE', clean, 0, 17),
      ...callTo('STATICCALL', dirty, 32, 18),
      ...callTo('CALL', clean, 0, 19),
      32, 'CALLDATASIZE', 'SUB', 'DUP1', 32, 0, 'CALLDATACOPY', 0, 0, 'CREATE', 20, 'SSTORE',
      ...callTo('CALL', clean, 0, 21),
    );
    // init code: calls DIRTY, UNDER and CLEAN from the creation frame (one depth down), stores the three results
    const INIT = asm(...callTo('CALL', dirty, 0, 0), ...callTo('CALL', under, 0, 1, 100_000), ...callTo('CALL', clean, 0, 2));
    const driver = dep(DRIVER);
    // word 0: n (frames left below), word 1: the n that reverts. Writes memory, calls itself with n - 1, then
    // CLEAN at the depth the callee used; results in slots 100 + n and 200 + n.
    const CHAIN = asm(
      0, 'CALLDATALOAD', 'DUP1', 'ISZERO', ref('bottom'), 'JUMPI',
      0, 'NOT', 64, 'MSTORE', 0, 'NOT', 9000, 'MSTORE',
      1, 'DUP2', 'SUB', 0, 'MSTORE', 32, 'CALLDATALOAD', 32, 'MSTORE',
      0, 0, 64, 0, 0, 'ADDRESS', 'GAS', 'CALL', 'DUP2', 100, 'ADD', 'SSTORE',
      0, 0, 0, 0, 0, push20(clean), 'GAS', 'CALL', 'DUP2', 200, 'ADD', 'SSTORE',
      label('bottom'), 32, 'CALLDATALOAD', 'EQ', ref('fail'), 'JUMPI', 'STOP',
      label('fail'), 0, 0, 'REVERT',
    );
    const chain = dep(CHAIN);
    const pCall = dep(proxy('CALL'), 1000n);
    const pCall2 = dep(proxy('CALL'), 10n);
    const pDel = dep(proxy('DELEGATECALL'));
    const pCode = dep(proxy('CALLCODE'), 1000n);
    const pStat = dep(proxy('STATICCALL'));
    // CREATE of its calldata as init code (children that SELFDESTRUCT to their caller): the callee's created-address
    // set, kept for its depth, must not carry a child into a later transaction (EIP-6780 would delete it)
    const factory = dep(asm('CALLDATASIZE', 0, 0, 'CALLDATACOPY', 'CALLDATASIZE', 0, 0, 'CREATE', 0, 'SSTORE'));
    const KILL = deployCode(asm('CALLER', 'SELFDESTRUCT'));
    const child1 = generateAddress(factory, bigIntToBytes(1n));
    const child2 = generateAddress(factory, bigIntToBytes(2n));
    const call = (to: Uint8Array, data: Uint8Array, gasLimit?: bigint): Case => ({ to, data, gasLimit });
    const G = 3_000_000n;
    const chainData = (depth: bigint, failAt: bigint): Uint8Array => concat(word(depth), word(failAt));
    const txs: Case[] = [
      ...deploys,
      call(driver, word(0n), 3_000_000n),
      call(driver, word(1n), 3_000_000n), // DIRTY reverts each time
      call(driver, concat(word(0n), INIT), 3_000_000n), // and a CREATE whose frame calls them one depth down
      call(pCall, callData(driver, 0n, G, concat(word(0n), INIT)), 5_000_000n), // all one depth further
      call(pDel, callData(driver, 0n, G, concat(word(1n), INIT)), 5_000_000n),
      call(pCode, callData(driver, 0n, G, word(0n)), 5_000_000n),
      call(pStat, callData(driver, 0n, G, word(0n)), 5_000_000n), // static: the writes fail
      call(chain, chainData(6n, 99n), 5_000_000n), // deep, every frame succeeds
      call(chain, chainData(6n, 3n), 5_000_000n), // n = 3 reverts after the frames below it succeeded
      call(chain, chainData(6n, 0n), 5_000_000n), // the deepest reverts
      call(chain, chainData(6n, 6n), 5_000_000n), // the top reverts
      call(pCall, callData(chain, 0n, G, chainData(5n, 2n)), 5_000_000n),
      // out of gas at every depth: the same chain with ever more gas
      ...Array.from({ length: 14 }, (_, i) => call(chain, chainData(6n, 99n), 40_000n + BigInt(i) * 30_000n)),
      // re-entry: the proxy calls itself through the second proxy, then the chain
      call(pCall, callData(pCall2, 0n, G, callData(pCall, 0n, G, callData(chain, 0n, G, chainData(3n, 1n)))), 5_000_000n),
      call(pCall, callData(pCall2, 0n, G, callData(pDel, 0n, G, callData(driver, 0n, G, word(0n)))), 5_000_000n),
      call(driver, word(0n), 3_000_000n),
      call(pCall, callData(factory, 0n, G, KILL), 5_000_000n),
      call(pCall, callData(child1, 0n, G), 5_000_000n), // not created in this transaction: kept
      call(pCall, callData(factory, 0n, G, KILL), 5_000_000n),
      call(pCall2, callData(child2, 0n, G), 5_000_000n),
    ];
    const watch = [ALICE, child1, child2, ...Array.from({ length: Number(n) + 4 }, (_, i) => contract(BigInt(i)))];
    const toExec = (c: Case, nonce: bigint): ExecTx => tx({ nonce, to: c.to, data: c.data, gasLimit: c.gasLimit ?? 1_000_000n, value: c.value ?? 0n, accessList: c.accessList ?? [] });
    const e = env(1n, { gasLimit: 500_000_000n });
    const { own, vm } = await threeWays(e, txs.map((c, i) => toExec(c, BigInt(i))));
    const slots = [0n, 1n, 2n, ...Array.from({ length: 12 }, (_, i) => 10n + BigInt(i)), ...Array.from({ length: 7 }, (_, i) => 100n + BigInt(i)), ...Array.from({ length: 7 }, (_, i) => 200n + BigInt(i))];
    await expectStateMatchesStock(vm, [own.engine], watch, slots);

    // Sanity: the cases reach the paths they are meant to.
    const o = own.outs;
    expect(o.slice(0, deploys.length).every((x) => x.status === 1)).toBe(true);
    const slot = (a: Uint8Array, k: bigint): bigint => BigInt(`0x${hex(own.engine.getStorage(a, word(k)))}`);
    // the driver's last run (top level, DIRTY not reverting): every CLEAN ran clean, every UNDER underflowed
    expect([10n, 11n, 12n, 13n, 14n, 15n, 16n, 17n, 18n, 19n, 21n].map((k) => slot(driver, k))).toEqual([1n, 0n, 1n, 1n, 1n, 1n, 0n, 1n, 1n, 1n, 1n]);
    expect(slot(clean, 1n)).toBeGreaterThan(20n);
    expect(slot(under, 2n)).toBe(0n);
    // the out-of-gas chains stopped at different depths: some of them succeeded, some did not
    expect(own.engine.getCode(child1).length).toBe(2); // SELFDESTRUCT in a later transaction kept it
    const oog = o.slice(deploys.length + 12, deploys.length + 26).map((x) => x.status);
    expect(oog).toContain(0);
    expect(oog).toContain(1);
  });
});
