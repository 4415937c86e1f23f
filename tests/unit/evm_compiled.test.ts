// Compiled runs of pure operations (src/core/evm/interpreter_compiled.ts) against the fast loop stepping through
// the same code: random straight runs, the edges where a run must not be taken (gas, stack height), and every
// contract of the e2e fixtures, each through two engines (compiled code on and off) over the same blocks;
// outcomes (status, gas, return data, logs, failure) and the touched state must be identical, and the compiled
// runs must actually have run.
import { bigIntToBytes, generateAddress } from '@ethereumjs/util';
import { encodeDeployData, encodeFunctionData, type Abi } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExecTx, IncludedOutcome } from '../../src/core/engine.js';
import type { EvmEngine } from '../../src/core/evm/index.js';
import { clearQueue, compiledOps, compileQueued, type CodeSegments, enqueue, findSegments, onCompiled, queuedCount, setMaxCompiledOps } from '../../src/core/evm/interpreter_compiled.js';
import { compileFixture } from '../fixtures/solidity/compile.js';
import { asm, deployCode, hex, label, ref, word, type Item } from '../support/asm.js';
import { rng } from '../support/random.js';
import { SteppingHost, ALICE, BOB, ETH, env, included, newEngine, tx } from '../support/evm_fixtures.js';


// Calls of every compiled run, and of those with memory operations, counted through the test hook.
let segmentCalls = 0;
let memoryCalls = 0;
const seen = new Set<CodeSegments>();
onCompiled((segs, from, to) => {
  seen.add(segs);
  for (let i = from; i < to; i++) {
    const s = segs.list[i]!;
    const run = s.run;
    s.run = (st, sp, x) => {
      segmentCalls++;
      if (s.mem > 0) memoryCalls++;
      return run(st, sp, x);
    };
  }
});
afterAll(() => onCompiled(undefined));

const contractAt = (nonce: bigint): Uint8Array => generateAddress(ALICE, bigIntToBytes(nonce));
const hexBytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));
const MAXW = (1n << 256n) - 1n;

// ADD MUL SUB DIV MOD LT GT SLT SGT EQ AND OR XOR SHL SHR
const PURE_BINARY = [0x01, 0x02, 0x03, 0x04, 0x06, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17, 0x18, 0x1b, 0x1c].map((b) => Uint8Array.of(b));
const EDGE_WORDS = [0n, 1n, 2n, 255n, 256n, 257n, MAXW, MAXW - 4n, 1n << 255n, (1n << 255n) - 1n, 1n << 128n, 0xdeadbeefn];

// ADDRESS, CALLER, CALLVALUE, CALLDATASIZE
const ENV_PUSHES = [0x30, 0x33, 0x34, 0x36].map((b) => Uint8Array.of(b));

/**
 * A random straight run of pure operations over `depth` entry items that stays within the stack it has; with
 * `env`, also the frame's environment (ADDRESS, CALLER, CALLVALUE, CALLDATASIZE, CALLDATALOAD) and MLOAD,
 * MSTORE and MSTORE8 at pushed offsets below 0x120.
 */
function randomRun(next: () => number, depth: number, ops: number, env = false): { items: Item[]; depth: number } {
  const items: Item[] = [];
  let d = depth;
  for (let i = 0; i < ops; i++) {
    const r = next() % 100;
    if (env && r >= 90) {
      const k = next() % 6;
      if (k === 0) items.push(ENV_PUSHES[next() % ENV_PUSHES.length]!);
      else if (k === 1) items.push(next() % 140, 'CALLDATALOAD');
      else if (k === 2) items.push(next() % 0x100, 'MLOAD');
      else if (d >= 2) items.push(next() % 0x100, k === 5 ? 'MSTORE8' : 'MSTORE');
      if (k < 3) d++;
      else if (d >= 2) d--;
      continue;
    }
    if (r < 22 || d < 2) {
      const w = next() % 3 === 0 ? EDGE_WORDS[next() % EDGE_WORDS.length]! : BigInt(next() % 300);
      items.push(w);
      d++;
    } else if (r < 34) {
      items.push(Uint8Array.of(0x7f + 1 + (next() % Math.min(d, 16)))); // DUPn
      d++;
    } else if (r < 46) {
      items.push(Uint8Array.of(0x8f + 1 + (next() % Math.min(d - 1, 16)))); // SWAPn
    } else if (r < 50) {
      items.push(Uint8Array.of(0x50)); // POP
      d--;
    } else if (r < 54) {
      items.push(Uint8Array.of(next() % 2 === 0 ? 0x15 : 0x19)); // ISZERO, NOT
    } else if (r < 56) {
      items.push(Uint8Array.of(0x5b));
    } else {
      items.push(PURE_BINARY[next() % PURE_BINARY.length]!);
      d--;
    }
    if (d > 40) {
      items.push(Uint8Array.of(0x50));
      d--;
    }
  }
  return { items, depth: d };
}

/**
 * A program: three calldata words on the stack, a jump to a random run, a JUMPI that falls through into a
 * second run, then every stack item stored in slots 0, 1, ... .
 */
function randomProgram(next: () => number, env = false): Uint8Array {
  const a = randomRun(next, 3, 4 + (next() % 30), env);
  const b = randomRun(next, a.depth + 1, 2 + (next() % 20), env);
  const store: Item[] = [];
  for (let i = 0; i < b.depth; i++) store.push(i, 'SSTORE');
  // memory paid for up to 0x120 in one program of two (its runs' memory operations run compiled), none in the other
  const paid: Item[] = env && next() % 2 === 0 ? [1, 0x100, 'MSTORE'] : [];
  return asm(
    ...paid, 0, 'CALLDATALOAD', 32, 'CALLDATALOAD', 64, 'CALLDATALOAD', ref('a'), 'JUMP',
    label('a'), ...a.items, 0, 96, 'CALLDATALOAD', 'JUMPI', 0, ...b.items, ...store, 'STOP',
  );
}

/**
 * A loop program: calldata word 0 iterations over an accumulator (calldata word 1); each iteration a random run
 * over a copy of it, a JUMPI forward over a few more operations taken when the run's top item is not zero, the
 * run's items folded into the new accumulator, a call of a subroutine that returns through a JUMP to the address
 * on the stack, and the counter's JUMPI back to the top. Every run ends in its JUMP or JUMPI (to a pushed
 * destination, or to the return address) and the fast loop follows them run to run.
 */
function randomLoop(next: () => number, id: number): Uint8Array {
  const body = randomRun(next, 1, 3 + (next() % 20), id % 2 === 1);
  const fold: Item[] = [];
  for (let i = 1; i < body.depth; i++) fold.push(next() % 2 === 0 ? 'ADD' : Uint8Array.of(0x18)); // ADD, XOR
  return asm(
    32, 'CALLDATALOAD', 0, 'CALLDATALOAD', ref(`top${id}`), 'JUMP',
    label(`top${id}`), 'DUP2', ...body.items, 'DUP1', ref(`skip${id}`), 'JUMPI', 7, 'ADD', 3, 'MUL', label(`skip${id}`),
    ...fold, ref(`ret${id}`), ref(`sub${id}`), 'JUMP', label(`ret${id}`),
    'SWAP2', 'POP', 1, 'SWAP1', 'SUB', 'DUP1', ref(`top${id}`), 'JUMPI',
    'POP', 0, 'SSTORE', 'STOP',
    label(`sub${id}`), 'SWAP1', 5, Uint8Array.of(0x18), 'SWAP1', 'JUMP', // XOR
  );
}

interface Call {
  readonly to: Uint8Array;
  readonly data: Uint8Array;
  readonly gasLimit?: bigint;
  readonly value?: bigint;
}

/**
 * Runs `deploys` (block 1, with one warm-up call each in `warm`), compiles what the engine queued, then runs
 * `calls` in block 2, in an engine with compiled code and one without; compares outcomes and `slots` of `watch`.
 */
async function compare(deploys: Uint8Array[], warm: Call[], calls: Call[], watch: Uint8Array[], slots: number): Promise<IncludedOutcome[]> {
  const run = async (noCompiledCode: boolean): Promise<{ engine: EvmEngine; outs: IncludedOutcome[] }> => {
    clearQueue();
    const { engine } = await newEngine(undefined, { noCompiledCode });
    engine.setGenesisBalance(ALICE, 1000n * ETH);
    let nonce = 0n;
    const deployed: number[] = [];
    const exec = (c: Call): ExecTx => tx({ nonce: nonce++, to: c.to, data: c.data, gasLimit: c.gasLimit ?? 3_000_000n, value: c.value ?? 0n });
    engine.beginBlock(env(1n, { gasLimit: 1_000_000_000n }));
    for (const d of deploys) deployed.push(included(await engine.runTx({ ...exec({ to: new Uint8Array(0), data: d }), to: undefined })).status);
    for (const c of warm) included(await engine.runTx(exec(c)));
    await engine.commitBlock();
    compileQueued(1 << 30);
    engine.beginBlock(env(2n, { gasLimit: 1_000_000_000n }));
    expect(deployed).toEqual(deploys.map(() => 1));
    const outs: IncludedOutcome[] = [];
    for (const c of calls) outs.push(included(await engine.runTx(exec(c))));
    await engine.commitBlock();
    return { engine, outs };
  };
  const before = segmentCalls;
  const off = await run(true);
  expect(segmentCalls).toBe(before);
  const on = await run(false);
  expect(segmentCalls).toBeGreaterThan(before);
  for (let i = 0; i < calls.length; i++) expect({ ...on.outs[i]!, instructions: 0n }, `call ${i}`).toEqual({ ...off.outs[i]!, instructions: 0n });
  for (const a of watch) {
    expect(on.engine.getBalance(a)).toBe(off.engine.getBalance(a));
    expect(on.engine.getNonce(a)).toBe(off.engine.getNonce(a));
    for (let s = 0; s < slots; s++) expect(hex(on.engine.getStorage(a, word(BigInt(s)))), `${hex(a)}[${s}]`).toBe(hex(off.engine.getStorage(a, word(BigInt(s)))));
  }
  return on.outs;
}

const cd = (...w: bigint[]): Uint8Array => Uint8Array.from(w.flatMap((x) => [...word(x)]));

describe('compiled runs of pure operations', () => {
  it('random straight runs: the same stack, state and gas as stepping through them', async () => {
    const draw = rng(0x5eed);
    const next = (): number => draw(1 << 30);
    const programs = Array.from({ length: 40 }, () => randomProgram(next));
    const addrs = programs.map((_, i) => contractAt(BigInt(i)));
    const inputs = [cd(7n, 9n, MAXW, 1n), cd(0n, MAXW - 4n, 1n << 255n, 0n), cd(123456789n, 3n, 256n, 1n)];
    const calls = addrs.flatMap((to) => inputs.map((data) => ({ to, data })));
    const outs = await compare(programs.map((p) => deployCode(p)), addrs.map((to) => ({ to, data: inputs[0]! })), calls, addrs, 48);
    expect(outs.filter((o) => o.status === 1).length).toBeGreaterThan(calls.length / 2);
  });

  it('random runs with environment and memory operations: the same state and gas, with and without memory paid for', async () => {
    const draw = rng(0xe1a);
    const next = (): number => draw(1 << 30);
    const programs = Array.from({ length: 40 }, () => randomProgram(next, true));
    const before = memoryCalls;
    const addrs = programs.map((_, i) => contractAt(BigInt(i)));
    const inputs = [cd(7n, 9n, MAXW, 1n), cd(0n, MAXW - 4n, 1n << 255n, 0n, 5n), cd(123456789n, 3n, 256n, 1n).subarray(0, 100)];
    const calls = addrs.flatMap((to) => inputs.flatMap((data, i) => [{ to, data }, { to, data, value: BigInt(i + 1) * 1000n }]));
    const outs = await compare(programs.map((p) => deployCode(p)), addrs.map((to) => ({ to, data: inputs[0]! })), calls, addrs, 48);
    expect(outs.filter((o) => o.status === 1).length).toBeGreaterThan(calls.length / 2);
    expect(memoryCalls).toBeGreaterThan(before + 20);
  });

  it('memory paid for but not yet stored (a call output area): runs write and read it as the loop does', async () => {
    // CALL to an account without code, output area 0x4000 bytes: paid for, nothing written, no store behind it
    const big = (1n << 200n) + 0x1234n;
    const code = asm(
      0x4000, 0, 0, 0, 0, 0xdead, 'GAS', 'CALL', 'POP', ref('a'), 'JUMP',
      label('a'), big, 0x3000, 'MSTORE', 0x3000, 'MLOAD', 0x2f00, 'MSTORE8', 0x2f00, 'MLOAD', 0x3000, 'MLOAD', 0, 'SSTORE', 1, 'SSTORE', 'STOP',
    );
    const at = contractAt(0n);
    const before = memoryCalls;
    const outs = await compare([deployCode(code)], [{ to: at, data: cd() }], [{ to: at, data: cd() }], [at], 2);
    expect(outs[0]!.status).toBe(1);
    expect(memoryCalls).toBeGreaterThan(before);
  });

  it('random loops of runs ending in JUMP and JUMPI: the same state and gas, out of gas at every step of an iteration', async () => {
    const draw = rng(0x100b);
    const next = (): number => draw(1 << 30);
    const programs = Array.from({ length: 24 }, (_, i) => randomLoop(next, i));
    const addrs = programs.map((_, i) => contractAt(BigInt(i)));
    const inputs = [cd(5n, 9n), cd(1n, MAXW), cd(17n, 1n << 255n), cd(3n, 0n)];
    const calls: Call[] = addrs.flatMap((to) => inputs.map((data) => ({ to, data })));
    // the first program, twelve iterations, with gas limits from Prague's floor for this calldata (21,700: 420
    // gas left after the intrinsic 21,280) on: out of gas at every step of its later iterations (and at its
    // SSTORE after them)
    for (let g = 0n; g < 800n; g += 1n) calls.push({ to: addrs[0]!, data: cd(12n, 3n), gasLimit: 21_700n + g });
    const outs = await compare(programs.map((p) => deployCode(p)), addrs.map((to) => ({ to, data: inputs[0]! })), calls, addrs, 1);
    expect(outs.slice(0, addrs.length * inputs.length).every((o) => o.status === 1)).toBe(true);
    expect(outs.slice(addrs.length * inputs.length).every((o) => o.failure?.message === 'out of gas')).toBe(true);
  });

  it('a destination that is not a JUMPDEST: the same invalid jump, pushed or from the stack', async () => {
    // PUSH1 7 JUMP lands on PUSH data (not a JUMPDEST); PUSH1 14 JUMPI on a 0x5b byte inside PUSH data
    const bad = asm(ref('a'), 'JUMP', label('a'), 0, 'CALLDATALOAD', 1, 'ADD', 7, 'JUMP', 'STOP');
    const badi = asm(ref('a'), 'JUMP', label('a'), 0, 'CALLDATALOAD', 1, 'ADD', 14, 'JUMPI', Uint8Array.of(0x61, 0x5b, 0x5b), 'STOP');
    // a JUMP to a destination from the call data: valid (4, the JUMPDEST), PUSH data, past the code, past 2^53
    const any = asm(ref('a'), 'JUMP', label('a'), 0, 'CALLDATALOAD', 'DUP1', 'POP', 'JUMP');
    const [a, b, c] = [0n, 1n, 2n].map(contractAt) as [Uint8Array, Uint8Array, Uint8Array];
    const calls: Call[] = [{ to: a, data: cd(1n) }, { to: b, data: cd(1n) }, { to: b, data: cd(MAXW) }];
    for (const d of [1n, 5n, 200n, 1n << 60n]) calls.push({ to: c, data: cd(d) }, { to: c, data: cd(d), gasLimit: 100_000n });
    calls.push({ to: c, data: cd(4n), gasLimit: 80_000n }); // back to the JUMPDEST until out of gas
    const outs = await compare([bad, badi, any].map((x) => deployCode(x)), [{ to: a, data: cd(1n) }, { to: c, data: cd(1n) }], calls, [a, b, c], 2);
    expect(outs[0]!.failure?.message).toMatch(/invalid JUMP/);
    expect(outs[1]!.failure?.message).toMatch(/invalid JUMP/);
    expect(outs[2]!.status).toBe(1);
    expect(outs.slice(3, 11).every((o) => /^invalid JUMP/.test(o.failure?.message ?? ''))).toBe(true);
    expect(outs[11]!.failure?.message).toBe('out of gas');
  });

  it('a run is not taken when its gas or stack would fail: errors at the same step, with the same gas', async () => {
    // entry: a jump into a run of 30 ADD-heavy steps that reads 3 items below its entry
    const run: Item[] = [];
    for (let i = 0; i < 10; i++) run.push('DUP3', 'DUP3', 'ADD');
    const body = asm(0, 'CALLDATALOAD', 'DUP1', 'DUP1', ref('r'), 'JUMP', label('r'), ...run, 0, 'SSTORE', 'STOP');
    // the same run entered with one item only (underflow at its second DUP3... inside the run)
    const short = asm(0, 'CALLDATALOAD', ref('r'), 'JUMP', label('r'), ...run, 0, 'SSTORE', 'STOP');
    // pushes past 1024 items: a loop of runs that each push 40 items
    const pushes: Item[] = Array.from({ length: 40 }, (_, i) => i + 1);
    const overflow = asm(label('top'), ...pushes, ref('top'), 'JUMP');
    const deploys = [body, short, overflow].map((c) => deployCode(c));
    const [a, b, c] = [0n, 1n, 2n].map(contractAt) as [Uint8Array, Uint8Array, Uint8Array];
    const calls: Call[] = [{ to: a, data: cd(5n) }, { to: b, data: cd(5n) }, { to: c, data: cd() }];
    // out of gas at every step inside the run: gas limits around where it runs out
    for (let g = 0n; g < 400n; g += 1n) calls.push({ to: a, data: cd(5n), gasLimit: 21_360n + g });
    const outs = await compare(deploys, [{ to: a, data: cd(1n) }, { to: b, data: cd(1n) }], calls, [a, b, c], 2);
    expect(outs[0]!.status).toBe(1);
    expect(outs[1]!.failure?.message).toBe('stack underflow');
    expect(outs[2]!.failure?.message).toBe('stack overflow');
    expect(outs.some((o) => o.failure?.message === 'out of gas')).toBe(true);
  });

  it('edges of runs ending in JUMPI and of memory inside what is paid for: the same gas, errors at the same step', async () => {
    // a run reading 3 items below its entry and ending in a JUMPI back to itself, entered with 1 item (underflow)
    // and with 3 (a loop that grows the stack by one item an iteration: overflow, or no loop when the sum is 0)
    const loop = (items: Item[]): Uint8Array => asm(...items, ref('r'), 'JUMP', label('r'), 'DUP3', 'DUP3', 'ADD', 'DUP1', ref('r'), 'JUMPI', 0, 'SSTORE', 'STOP');
    const short = loop([0, 'CALLDATALOAD']);
    const jumpi = loop([0, 'CALLDATALOAD', 'DUP1', 'DUP1']);
    // memory paid for up to 0x60 (MSTORE at 0x40); then runs reaching exactly 0x60 (taken) and 0x61 (stepped: expansion)
    const mem = (off: number): Uint8Array => asm(1, 0x40, 'MSTORE', ref('a'), 'JUMP', label('a'), 7, off, 'MSTORE', off, 'MLOAD', 0, 'SSTORE', 'STOP');
    const deploys = [short, jumpi, mem(0x40), mem(0x41), mem(0x5f)].map((c) => deployCode(c));
    const [sh, j, m0, m1, m2] = [0n, 1n, 2n, 3n, 4n].map(contractAt) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array];
    const before = memoryCalls;
    const calls: Call[] = [{ to: sh, data: cd(1n) }, { to: j, data: cd(1n) }, { to: j, data: cd(0n) }, { to: m0, data: cd() }, { to: m1, data: cd() }, { to: m2, data: cd() }];
    // out of gas at every step of the memory runs
    for (let g = 0n; g < 60n; g += 1n) calls.push({ to: m0, data: cd(), gasLimit: 21_000n + g }, { to: m1, data: cd(), gasLimit: 21_000n + g });
    const outs = await compare(deploys, [{ to: j, data: cd(0n) }, { to: m0, data: cd() }, { to: m1, data: cd() }], calls, [sh, j, m0, m1, m2], 1);
    expect(outs[0]!.failure?.message).toBe('stack underflow');
    expect(outs[1]!.failure?.message).toBe('stack overflow');
    expect(outs.slice(2, 6).every((o) => o.status === 1)).toBe(true);
    expect(outs[4]!.gasUsed).toBeGreaterThan(outs[3]!.gasUsed); // 0x41 expands memory by a word
    expect(memoryCalls).toBeGreaterThan(before);
  });

  it('every contract of the e2e fixtures: identical outcomes, logs and state', async () => {
    const token = compileFixture('Token.sol', 'Token');
    const pair = compileFixture('Pair.sol', 'Pair');
    const diff = (name: string) => compileFixture('../../e2e/contracts/Differential.sol', name);
    const lf = (name: string) => compileFixture('../../e2e/contracts/LogFilters.sol', name);
    const router = compileFixture('Pair.sol', 'Router');
    const fixtures = { token, probe: diff('Probe'), store: diff('Store'), factory: diff('Factory'), reverter: diff('Reverter'), nft: lf('Nft'), emitter: lf('Emitter'), pair, router };
    const abi = (c: { abi: unknown[] }): Abi => c.abi as Abi;
    const deploy = (c: { abi: unknown[]; bytecode: `0x${string}` }, args: unknown[] = []): Uint8Array =>
      hexBytes(encodeDeployData({ abi: abi(c), bytecode: c.bytecode, args } as never));
    // Constructor arguments are filled from the ABI: this test only needs the code to run.
    const argsFor = (c: { abi: unknown[] }): unknown[] => {
      const inputs = ((abi(c).find((x) => x.type === 'constructor') as { inputs?: { type: string }[] } | undefined)?.inputs ?? []);
      return inputs.map((i) => (i.type === 'address' ? `0x${'11'.repeat(20)}` : i.type.startsWith('uint') ? 10n ** 24n : i.type === 'string' ? 'T' : i.type === 'bool' ? false : '0x'));
    };
    const names = Object.keys(fixtures) as (keyof typeof fixtures)[];
    const deploys = names.map((n) => deploy(fixtures[n], argsFor(fixtures[n])));
    const at = Object.fromEntries(names.map((n, i) => [n, contractAt(BigInt(i))])) as Record<keyof typeof fixtures, Uint8Array>;
    const call = (n: keyof typeof fixtures, fn: string, args: unknown[] = [], extra: Partial<Call> = {}): Call => ({
      to: at[n],
      data: hexBytes(encodeFunctionData({ abi: abi(fixtures[n]), functionName: fn, args } as never)),
      ...extra,
    });
    // Every callable function of every fixture, with arguments from its ABI (some revert: that is compared too).
    const everyFunction = (n: keyof typeof fixtures, seed: bigint): Call[] =>
      (abi(fixtures[n]).filter((x) => x.type === 'function') as unknown as { name: string; inputs: { type: string }[] }[]).map((f) =>
        call(
          n,
          f.name,
          f.inputs.map((i, k) =>
            i.type === 'address' ? `0x${Buffer.from(at[names[(Number(seed) + k) % names.length]!]).toString('hex')}` :
            i.type.startsWith('uint') ? (seed + BigInt(k)) % 200n :
            i.type.startsWith('int') ? -seed :
            i.type === 'bool' ? true :
            i.type === 'bytes32' ? `0x${'ab'.repeat(32)}` :
            i.type === 'string' ? 'x' :
            i.type.endsWith('[]') ? [] :
            '0x1234',
          ),
        ),
      );
    const calls: Call[] = [];
    for (const seed of [1n, 7n, 1000n]) for (const n of names) calls.push(...everyFunction(n, seed));
    const warm = names.flatMap((n) => everyFunction(n, 2n));
    const outs = await compare(deploys, warm, calls, [ALICE, ...names.map((n) => at[n])], 16);
    expect(outs.some((o) => o.status === 1 && o.logs.length > 0)).toBe(true);
    expect(seen.size).toBeGreaterThanOrEqual(names.length);
  });
});

describe('compiled runs under the instruction budget', () => {
  it('straight-line and looping compiled code is stopped at the same counter read as the interpreter', async () => {
    const pairs = (n: number): Item[] => Array.from({ length: n }, () => [0, Uint8Array.of(0x50)]).flat(); // PUSH0 POP
    // endless: four 1,000-byte straight runs cut by jumps, then back to the start
    const straight = asm(label('s'), ...[0, 1, 2, 3].flatMap((i) => [...pairs(499), ref(`r${i}`), 'JUMP', label(`r${i}`)]), ref('s'), 'JUMP');
    // endless: a loop whose body is one short compiled run
    const loop = asm(0, label('top'), 1, 'ADD', 'DUP1', 3, 'MUL', 'POP', ref('top'), 'JUMP');
    // endless: a JUMPI loop that calls a subroutine returning through a JUMP to the address on the stack
    const subs = asm(0, label('top'), 1, 'ADD', ref('ret'), ref('sub'), 'JUMP', label('ret'), 'DUP1', ref('top'), 'JUMPI', 'STOP', label('sub'), 'DUP1', 'POP', 'JUMP');
    // endless: runs of 9 to 40 bytes chained by JUMPs to pushed destinations (fused runs, whose inner jumps
    // reach budget checks at every position over the iterations: 4 + 3 x 9 + ... bytes a lap)
    const chain = asm(label('c0'), ...pairs(3), 1, 'POP', ref('c1'), 'JUMP', label('c1'), ...pairs(5), ref('c2'), 'JUMP', label('c2'), ...pairs(19), ref('c3'), 'JUMP', label('c3'), ...pairs(2), ref('c0'), 'JUMP');
    const outcome = async (noCompiledCode: boolean) => {
      clearQueue();
      const host = new SteppingHost(1_000_000n);
      const { engine } = await newEngine(host, { txInstructionBudget: 200_000_000n, noCompiledCode });
      engine.setGenesisBalance(ALICE, 100n * ETH);
      engine.setGenesisBalance(BOB, 100n * ETH);
      engine.beginBlock(env(1n, { gasLimit: 30_000_000n }));
      const at = [];
      for (const [i, code] of [straight, loop, subs, chain].entries()) {
        at.push(included(await engine.runTx(tx({ nonce: BigInt(i), to: undefined, data: deployCode(code), gasLimit: 3_000_000n }))).contractAddress!);
      }
      await engine.commitBlock();
      compileQueued(1 << 30);
      engine.beginBlock(env(2n, { gasLimit: 60_000_000n }));
      const calls = segmentCalls;
      const outs = [];
      for (const [i, to] of at.entries()) outs.push(included(await engine.runTx(tx({ from: BOB, nonce: BigInt(i), to, gasLimit: 10_000_000n }))));
      return { outs, calls: segmentCalls - calls };
    };
    const off = await outcome(true);
    const on = await outcome(false);
    expect(off.calls).toBe(0);
    expect(on.calls).toBeGreaterThan(100);
    for (const [i, o] of on.outs.entries()) {
      expect(o.failure?.code).toBe('exec.halt.instruction_budget');
      // the same number of counter reads (1 M each on this host): the budget stopped both at the same jump
      expect(o, `program ${i}`).toEqual(off.outs[i]);
      expect(o.instructions).toBeGreaterThan(200_000_000n);
      expect(o.instructions).toBeLessThan(203_000_000n);
    }
  });
});

describe('fused runs and the budget count', () => {
  it('runs chained by JUMPs and JUMPIs count the same code bytes at the same jumps: the same counter reads, gas and state', async () => {
    const pairs = (n: number): Item[] => Array.from({ length: n }, () => [0, Uint8Array.of(0x50)]).flat(); // PUSH0 POP
    // calldata word 0 laps of runs joined by JUMPs and a JUMPI taken on every other pair of laps (one fused run
    // from c0 to c3's JUMPI, which ends early at c1's JUMPI when it is not taken; its inner jumps reach one or two
    // budget checks, 64 code bytes apart, a lap)
    const chain = asm(
      0, 'CALLDATALOAD', label('c0'), ...pairs(3), ref('c1'), 'JUMP', label('c1'), ...pairs(37), 'DUP1', 2, 'AND', ref('c2'), 'JUMPI',
      ...pairs(4), ref('c2'), 'JUMP', label('c2'), ...pairs(29), ref('c3'), 'JUMP', label('c3'), ...pairs(5), 1, 'SWAP1', 'SUB', 'DUP1', ref('c0'), 'JUMPI',
      0, 'SSTORE', 'STOP',
    );
    const outcome = async (noCompiledCode: boolean) => {
      clearQueue();
      // every counter read advances the counter by one: `instructions` is the number of reads
      const host = new SteppingHost(1n);
      const { engine } = await newEngine(host, { txInstructionBudget: 1n << 40n, noCompiledCode });
      engine.setGenesisBalance(ALICE, 100n * ETH);
      engine.setGenesisBalance(BOB, 100n * ETH);
      engine.beginBlock(env(1n, { gasLimit: 30_000_000n }));
      const to = included(await engine.runTx(tx({ nonce: 0n, to: undefined, data: deployCode(chain), gasLimit: 3_000_000n }))).contractAddress!;
      await engine.commitBlock();
      compileQueued(1 << 30);
      engine.beginBlock(env(2n, { gasLimit: 30_000_000n }));
      const calls = segmentCalls;
      const outs = [];
      for (let n = 1n; n <= 24n; n++) outs.push(included(await engine.runTx(tx({ from: BOB, nonce: n - 1n, to, data: cd(n), gasLimit: 200_000n }))));
      return { outs, calls: segmentCalls - calls };
    };
    const off = await outcome(true);
    const on = await outcome(false);
    expect(off.calls).toBe(0);
    expect(on.calls).toBeGreaterThan(24);
    for (const [i, o] of on.outs.entries()) {
      expect(o.status).toBe(1);
      expect(o, `laps ${i + 1}`).toEqual(off.outs[i]);
    }
  });
});

describe('the compilation queue', () => {
  it("takes the code a block stored, not a creation's initcode (top level or from CREATE)", async () => {
    clearQueue();
    const { engine } = await newEngine(undefined, {});
    engine.setGenesisBalance(ALICE, 100n * ETH);
    // a factory: CREATE with its call data as the initcode, the new address in slot 0
    const factory = asm('CALLDATASIZE', 0, 0, 'CALLDATACOPY', 'CALLDATASIZE', 0, 0, 'CREATE', 0, 'SSTORE', 'STOP');
    const child = asm(0, 'CALLDATALOAD', ref('a'), 'JUMP', label('a'), 1, 'ADD', 0, 'SSTORE', 'STOP');
    engine.beginBlock(env(1n, { gasLimit: 30_000_000n }));
    const made = included(await engine.runTx(tx({ nonce: 0n, to: undefined, data: deployCode(factory), gasLimit: 1_000_000n })));
    expect(made.status).toBe(1);
    await engine.commitBlock();
    // the factory's runtime code, stored by the block; not the initcode that ran
    expect(queuedCount()).toBe(1);
    compileQueued(1 << 30);
    expect(queuedCount()).toBe(0);
    engine.beginBlock(env(2n, { gasLimit: 30_000_000n }));
    const created = included(await engine.runTx(tx({ nonce: 1n, to: made.contractAddress!, data: deployCode(child), gasLimit: 1_000_000n })));
    expect(created.status).toBe(1);
    await engine.commitBlock();
    // the child's runtime code; not the initcode the factory ran through CREATE
    expect(queuedCount()).toBe(1);
    clearQueue();
  });
});

describe('compiled code in the heap', () => {
  it('is bounded: past the bound the code compiled first is dropped and interpreted again', () => {
    setMaxCompiledOps(50);
    try {
      const codes = [1, 2, 3].map((k) => asm(0, 'CALLDATALOAD', ref('a'), 'JUMP', label('a'), ...Array.from({ length: 10 }, () => [k, 'ADD']).flat(), 0, 'SSTORE', 'STOP'));
      const all = codes.map((c) => findSegments(c)!);
      // compiled through the queue, as the engine does: one run of 21 operations each (PUSH ADD x 10, PUSH0)
      for (const s of all) compileAllVia({ code: s.code, segs: s });
      expect(all[0]!.at).toBeNull();
      expect(all[0]!.list).toHaveLength(0);
      expect(all[2]!.at).not.toBeNull();
      expect(all[1]!.at).not.toBeNull();
      expect(all[2]!.ops).toEqual([21]);
      expect(compiledOps()).toBe(42);
    } finally {
      setMaxCompiledOps(undefined);
    }
  });
});

function compileAllVia(c: { code: Uint8Array; segs: CodeSegments | null | undefined }): void {
  clearQueue();
  enqueue(c);
  compileQueued(1 << 30);
}
