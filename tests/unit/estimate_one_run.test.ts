// eth_estimateGas's one-run answer (IncludedOutcome.sameAtGasUsed, src/core/evm/gas_left.ts): over calls
// that take it and calls that must not (refunds, inner calls and 63/64, GAS, the stipend check after a cheap
// last write, creations, reverts, precompiles, balance reads, the EIP-7623 floor), the estimate equals the
// search without it and a plain binary search for the least gas limit that succeeds; where it took one run,
// a run at the answer succeeds with the same outcome and a run one gas below fails.
import { bigIntToBytes, generateAddress } from '@ethereumjs/util';
import { encodeDeployData, encodeFunctionData, type Abi } from 'viem';
import { describe, expect, it } from 'vitest';
import type { BlockEnv, ExecTx } from '../../src/core/engine.js';
import { codeReadsNoGas } from '../../src/core/evm/gas_left.js';
import type { EvmEngine } from '../../src/core/evm/index.js';
import type { MemoryCoreHost } from '../../src/core/host.js';
import { estimateGas } from '../../src/core/query/estimate.js';
import { compileFixture } from '../fixtures/solidity/compile.js';
import { asm, deployCode, hex, label, ref, word } from '../support/asm.js';
import { ALICE, BASE_FEE, BOB, ETH, TIP, env, included, newEngine, tx } from '../support/evm_fixtures.js';

const at = (nonce: bigint): Uint8Array => generateAddress(ALICE, bigIntToBytes(nonce));
const hexBytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));
const push20 = (a: Uint8Array): Uint8Array => Uint8Array.of(0x73, ...a);
const CAROL = new Uint8Array(20).fill(0xcc);
const CAP = 3_000_000n;

describe('gas_left.ts: code that cannot observe its gas', () => {
  it('follows instruction boundaries and reachability', () => {
    expect(codeReadsNoGas(asm(1, 0, 'SSTORE', 'STOP'))).toBe(true);
    expect(codeReadsNoGas(new Uint8Array(0))).toBe(true);
    expect(codeReadsNoGas(asm(0, 'POP', 'GAS'))).toBe(false);
    // handlers note these when they run (watchGasReaders)
    expect(codeReadsNoGas(asm(0, 'POP', 'CALL', 'BALANCE'))).toBe(true);
    // inside PUSH data
    expect(codeReadsNoGas(Uint8Array.of(0x62, 0x5a, 0x5a, 0x5a, 0x00))).toBe(true);
    // after a halt, unreachable until a JUMPDEST
    for (const end of [0x00, 0x56, 0xf3, 0xfd, 0xfe, 0xff]) {
      expect(codeReadsNoGas(Uint8Array.of(end, 0x5a))).toBe(true);
      expect(codeReadsNoGas(Uint8Array.of(end, 0x5b, 0x5a))).toBe(false);
    }
    // a JUMPDEST byte inside PUSH data is no entry
    expect(codeReadsNoGas(Uint8Array.of(0x00, 0x60, 0x5b, 0x5a))).toBe(true);
    // JUMPI falls through
    expect(codeReadsNoGas(Uint8Array.of(0x57, 0x5a))).toBe(false);
    // an EIP-7702 delegation runs other code
    expect(codeReadsNoGas(Uint8Array.of(0xef, 0x01, 0x00, ...new Uint8Array(20)))).toBe(false);
  });
});

interface Case {
  readonly name: string;
  readonly tx: ExecTx;
  /** Whether the estimate must answer after one run (true) or must not (false). */
  readonly oneRun: boolean;
}

async function estimate(engine: EvmEngine, host: MemoryCoreHost, e: BlockEnv, t: ExecTx, oneRun: boolean) {
  return estimateGas({
    run: (gas, instructionBudget, first) => engine.call({ ...t, gasLimit: gas }, e, { instructionBudget, checkGasUsedRun: oneRun && first }),
    counter: () => host.instructionCounter(),
    deadline: 1n << 62n,
    cap: t.gasLimit,
  });
}

/** The least gas limit in [lo, hi] with which the call succeeds (success taken to be monotone in the limit). */
async function leastSucceeding(engine: EvmEngine, e: BlockEnv, t: ExecTx, lo: bigint, hi: bigint): Promise<bigint> {
  const ok = async (g: bigint) => (await engine.call({ ...t, gasLimit: g }, e)).status === 1;
  while (lo < hi) {
    const mid = (lo + hi) / 2n;
    if (await ok(mid)) hi = mid;
    else lo = mid + 1n;
  }
  return hi;
}

describe('eth_estimateGas: the one-run answer', () => {
  it('answers what the full search and a binary search answer, in one run only where that is proven', async () => {
    const token = compileFixture('Token.sol', 'Token');
    const diff = (name: string) => compileFixture('../../e2e/contracts/Differential.sol', name);
    const [probe, store, factory] = [diff('Probe'), diff('Store'), diff('Factory')];
    const abi = (c: { abi: unknown[] }): Abi => c.abi as Abi;
    const deploy = (c: { abi: unknown[]; bytecode: `0x${string}` }, args: unknown[] = []): Uint8Array =>
      hexBytes(encodeDeployData({ abi: abi(c), bytecode: c.bytecode, args } as never));
    const fn = (c: { abi: unknown[] }, name: string, args: unknown[] = []): Uint8Array =>
      hexBytes(encodeFunctionData({ abi: abi(c), functionName: name, args } as never));
    const a = (x: Uint8Array): `0x${string}` => `0x${Buffer.from(x).toString('hex')}`;

    // slot calldata[0] := calldata[32]
    const SET = asm(32, 'CALLDATALOAD', 0, 'CALLDATALOAD', 'SSTORE', 'STOP');
    // a first change, then a cheap (dirty) write last: with no gas to spare the stipend check fails
    const DIRTY_LAST = asm(1, 0, 'SSTORE', 2, 0, 'SSTORE', 'STOP');
    // needs more than 50,000 gas left at its GAS
    const NEEDS_GAS = asm(50_000, 'GAS', 'GT', ref('ok'), 'JUMPI', 0, 0, 'REVERT', label('ok'), 'JUMPDEST', 1, 0, 'SSTORE', 'STOP');
    const REVERTS = asm(0xdeadbeefn << 224n, 0, 'MSTORE', 4, 0, 'REVERT');
    const BALANCE_OF_CALLER = asm('CALLER', 'BALANCE', 0, 'MSTORE', 32, 0, 'RETURN');
    const RETURNS = asm(0x2a, 0, 'MSTORE', 32, 0, 'RETURN');
    const ids = { token: 0n, set: 1n, dirtyLast: 2n, needsGas: 3n, reverts: 4n, balance: 5n, returns: 6n, probe: 7n, store: 8n, factory: 9n, forward: 10n, identity: 11n };
    // forwards its calldata to SET with all its gas (63/64 of it), and reverts if that call failed
    const FORWARD = asm('CALLDATASIZE', 0, 0, 'CALLDATACOPY', 0, 0, 'CALLDATASIZE', 0, 0, push20(at(ids.set)), 'GAS', 'CALL', ref('ok'), 'JUMPI', 0, 0, 'REVERT', label('ok'), 'JUMPDEST', 'STOP');
    // the identity precompile with all its gas, then a write
    const IDENTITY = asm(32, 0, 32, 0, 4, 'GAS', 'STATICCALL', 0, 'SSTORE', 'STOP');

    const make = async (opts: Parameters<typeof newEngine>[1] = {}) => {
      const { engine, host } = await newEngine(undefined, opts);
      engine.setGenesisBalance(ALICE, 100n * ETH);
      engine.beginBlock(env(1n, { gasLimit: 30_000_000n }));
      const deploys = [
        deploy(token, ['T', 'T', 10n ** 24n]),
        deployCode(SET),
        deployCode(DIRTY_LAST),
        deployCode(NEEDS_GAS),
        deployCode(REVERTS),
        deployCode(BALANCE_OF_CALLER),
        deployCode(RETURNS),
        deploy(probe),
        deploy(store),
        deploy(factory),
        deployCode(FORWARD),
        deployCode(IDENTITY),
      ];
      let nonce = 0n;
      for (const data of deploys) expect(included(await engine.runTx(tx({ nonce: nonce++, to: undefined, data, gasLimit: 5_000_000n }))).status).toBe(1);
      await engine.commitBlock();
      engine.beginBlock(env(2n, { gasLimit: 30_000_000n }));
      for (const t of [
        { to: at(ids.token), data: fn(token, 'transfer', [a(BOB), 1000n]) },
        { to: at(ids.token), data: fn(token, 'approve', [a(BOB), 500n]) },
        { to: at(ids.set), data: new Uint8Array([...word(1n), ...word(5n)]) },
        { to: at(ids.store), data: fn(store, 'fill', [0n, 4n, 9n]) },
      ]) expect(included(await engine.runTx(tx({ nonce: nonce++, ...t, gasLimit: 1_000_000n }))).status).toBe(1);
      await engine.commitBlock();
      return { engine, host: host as MemoryCoreHost };
    };

    const call = (over: Partial<ExecTx>): ExecTx => tx({ nonce: 0n, gasLimit: CAP, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, ...over });
    const pair = (k: bigint, v: bigint): Uint8Array => new Uint8Array([...word(k), ...word(v)]);
    const cases: Case[] = [
      { name: 'erc20 transfer to a new holder', tx: call({ to: at(ids.token), data: fn(token, 'transfer', [a(CAROL), 7n]) }), oneRun: true },
      { name: 'erc20 transfer to a holder', tx: call({ to: at(ids.token), data: fn(token, 'transfer', [a(BOB), 7n]) }), oneRun: true },
      { name: 'erc20 transfer with fees', tx: call({ to: at(ids.token), data: fn(token, 'transfer', [a(BOB), 7n]), maxFeePerGas: BASE_FEE + TIP, maxPriorityFeePerGas: TIP }), oneRun: true },
      { name: 'erc20 transfer of 0 (unchanged slots)', tx: call({ to: at(ids.token), data: fn(token, 'transfer', [a(BOB), 0n]) }), oneRun: false },
      { name: 'erc20 transfer of everything (a slot cleared: refund)', tx: call({ to: at(ids.token), data: fn(token, 'transfer', [a(CAROL), 10n ** 24n - 1000n]) }), oneRun: false },
      { name: 'erc20 transfer above the balance (custom error)', tx: call({ to: at(ids.token), data: fn(token, 'transfer', [a(CAROL), 10n ** 25n]) }), oneRun: false },
      { name: 'erc20 approve', tx: call({ to: at(ids.token), data: fn(token, 'approve', [a(CAROL), 9n]) }), oneRun: true },
      { name: 'erc20 transferFrom', tx: call({ from: BOB, to: at(ids.token), data: fn(token, 'transferFrom', [a(ALICE), a(CAROL), 100n]) }), oneRun: true },
      { name: 'erc20 transferFrom above the allowance (reason string)', tx: call({ from: BOB, to: at(ids.token), data: fn(token, 'transferFrom', [a(ALICE), a(CAROL), 501n]) }), oneRun: false },
      { name: 'erc20 balanceOf', tx: call({ to: at(ids.token), data: fn(token, 'balanceOf', [a(ALICE)]) }), oneRun: true },
      { name: 'a first write', tx: call({ to: at(ids.set), data: pair(2n, 3n) }), oneRun: true },
      { name: 'a changed slot', tx: call({ to: at(ids.set), data: pair(1n, 6n) }), oneRun: true },
      { name: 'an unchanged slot written last (2,200: not above the stipend)', tx: call({ to: at(ids.set), data: pair(1n, 5n) }), oneRun: false },
      { name: 'a slot cleared (refund)', tx: call({ to: at(ids.set), data: pair(1n, 0n) }), oneRun: false },
      { name: 'a dirty write last', tx: call({ to: at(ids.dirtyLast) }), oneRun: false },
      { name: 'GAS', tx: call({ to: at(ids.needsGas) }), oneRun: false },
      { name: 'a revert', tx: call({ to: at(ids.reverts) }), oneRun: false },
      { name: 'the sender balance with fees', tx: call({ to: at(ids.balance), maxFeePerGas: BASE_FEE + TIP, maxPriorityFeePerGas: TIP }), oneRun: false },
      { name: 'no storage', tx: call({ to: at(ids.returns) }), oneRun: true },
      { name: 'an inner call (63/64)', tx: call({ to: at(ids.forward), data: pair(3n, 4n) }), oneRun: false },
      { name: 'a precompile by STATICCALL', tx: call({ to: at(ids.identity) }), oneRun: false },
      { name: 'a precompile as the target', tx: call({ to: addrOf(2), data: new Uint8Array(100).fill(7) }), oneRun: false },
      { name: 'the ecrecover precompile as the target', tx: call({ to: addrOf(1), data: new Uint8Array(128) }), oneRun: false },
      { name: 'Probe.probe (staticcall with a gas argument)', tx: call({ to: at(ids.probe), data: fn(probe, 'probe', [a(addrOf(4)), '0x1234', 10_000n]) }), oneRun: false },
      { name: 'Store.fill', tx: call({ to: at(ids.store), data: fn(store, 'fill', [10n, 3n, 1n]) }), oneRun: true },
      { name: 'Store.clear (refunds)', tx: call({ to: at(ids.store), data: fn(store, 'clear', [0n, 2n]) }), oneRun: false },
      { name: 'Store.transientRoundTrip', tx: call({ to: at(ids.store), data: fn(store, 'transientRoundTrip', [5n]) }), oneRun: true },
      { name: 'Factory.make (CREATE2)', tx: call({ to: at(ids.factory), data: fn(factory, 'make', [`0x${'11'.repeat(32)}`]) }), oneRun: false },
      { name: 'a creation', tx: call({ to: undefined, data: deployCode(SET) }), oneRun: false },
      { name: 'a value transfer', tx: call({ to: CAROL, value: 1n }), oneRun: true },
      { name: 'the EIP-7623 floor decides', tx: call({ to: at(ids.set), data: new Uint8Array(2000).fill(1) }), oneRun: true },
      { name: 'out of gas at the cap', tx: call({ to: at(ids.store), data: fn(store, 'fill', [0n, 60n, 3n]), gasLimit: 200_000n }), oneRun: false },
    ];

    const { engine, host } = await make();
    const e = env(3n, { gasLimit: CAP });
    let oneRunCount = 0;
    for (const c of cases) {
      const fresh = await estimate(engine, host, e, c.tx, true);
      const full = await estimate(engine, host, e, c.tx, false);
      expect(fresh.ok ? fresh.value.gas : fresh.error, c.name).toEqual(full.ok ? full.value.gas : full.error);
      if (!fresh.ok || !full.ok) {
        expect(c.oneRun, c.name).toBe(false);
        continue;
      }
      const top = await engine.call(c.tx, e);
      expect(fresh.value.gas, c.name).toBe(await leastSucceeding(engine, e, c.tx, top.gasUsed, CAP));
      if (c.oneRun) {
        oneRunCount++;
        expect(fresh.value.runs, c.name).toBe(1);
        const atAnswer = await engine.call({ ...c.tx, gasLimit: fresh.value.gas }, e);
        expect([atAnswer.status, atAnswer.gasUsed, hex(atAnswer.returnData), atAnswer.logs.length], c.name).toEqual([1, top.gasUsed, hex(top.returnData), top.logs.length]);
        expect((await engine.call({ ...c.tx, gasLimit: fresh.value.gas - 1n }, e)).status, c.name).toBe(0);
      } else expect(fresh.value.runs, c.name).toBeGreaterThan(1);
    }
    expect(oneRunCount).toBe(cases.filter((c) => c.oneRun).length);
    // the cases that must not take one run do need more than their gasUsed
    for (const name of ['an unchanged slot written last (2,200: not above the stipend)', 'a dirty write last', 'GAS', 'an inner call (63/64)']) {
      const t = cases.find((c) => c.name === name)!.tx;
      const r = await estimate(engine, host, e, t, true);
      expect(r.ok && r.value.gas > (await engine.call(t, e)).gasUsed, name).toBe(true);
    }

    // code read from the stable map and not scanned yet: the full search, until the step after a block scans it
    const genesis = new Uint8Array(20).fill(0x77);
    const fresh = await make();
    fresh.engine.setGenesisCode(genesis, Uint8Array.of(...SET, 0x00)); // code no block stored (SET's hash is cached)
    const unscanned = call({ to: genesis, data: pair(9n, 1n) });
    const before = await estimate(fresh.engine, fresh.host, e, unscanned, true);
    fresh.engine.afterBlock();
    const after = await estimate(fresh.engine, fresh.host, e, unscanned, true);
    expect([before.ok && before.value.runs, after.ok && after.value.runs]).toEqual([2, 1]);
    expect(before.ok && after.ok && before.value.gas === after.value.gas).toBe(true);

    // EthereumJS's own loop writes storage through putStorage, whose gas left is not known: no one-run answer
    const stock = await make({ stockInterpreter: true });
    const transfer = cases[0]!.tx;
    const viaStock = await estimate(stock.engine, stock.host, e, transfer, true);
    expect(viaStock.ok && viaStock.value.runs).toBeGreaterThan(1);
    expect(viaStock.ok && viaStock.value.gas).toBe((await estimate(engine, host, e, transfer, true)).ok ? ((await estimate(engine, host, e, transfer, true)) as { value: { gas: bigint } }).value.gas : -1n);
  });
});

function addrOf(n: number): Uint8Array {
  const a = new Uint8Array(20);
  a[19] = n;
  return a;
}
