// The start-up check of the EthereumJS internals the engine relies on (src/core/evm/internals.ts).
import { describe, expect, it } from 'vitest';
import { Address } from '@ethereumjs/util';
import { EthereumJsShapeError, checkCallFrameInternals, checkEvmInternals, checkRunStateShapes } from '../../src/core/evm/internals.js';
import { interpreterPrototype } from '../../src/core/evm/interpreter.js';
import { env, newEngine } from '../support/evm_fixtures.js';

describe('EthereumJS internals check', () => {
  it('accepts the EVM of this EthereumJS version and names what changed when a shape breaks', async () => {
    const { engine } = await newEngine();
    const evm = engine.vm.evm as unknown as Record<string, unknown>;
    expect(() => checkEvmInternals(evm)).not.toThrow();
    const broken = (patch: Record<string, unknown>): unknown => Object.assign(Object.create(Object.getPrototypeOf(evm)), evm, patch);
    expect(() => checkEvmInternals(broken({ _precompiles: {} }))).toThrow(EthereumJsShapeError);
    expect(() => checkEvmInternals(broken({ _precompiles: {} }))).toThrow(/EVM._precompiles/);
    expect(() => checkEvmInternals(broken({ _opcodeMap: [] }))).toThrow(/EVM._opcodeMap/);
    expect(() => checkEvmInternals(broken({ journal: { cleanJournal() {}, journal: {}, alwaysWarmJournal: new Map() } }))).toThrow(/warm storage slots/);
    expect(() => checkEvmInternals(broken({ transientStorage: {} }))).toThrow(/transientStorage.clear/);
    // The archive's call capture names a frame's last opcode by its fullName.
    const map = evm._opcodeMap as { opcodeInfo: object }[];
    const noName = map.map((e, i) => (i === 0xf1 ? { ...e, opcodeInfo: { ...e.opcodeInfo, fullName: undefined } } : e));
    expect(() => checkEvmInternals(broken({ _opcodeMap: noName }))).toThrow(/_opcodeMap\[241\]\.opcodeInfo has no fullName/);
  });

  it("checks a live frame's stack and memory as the fast loop reads them, and names what changed", async () => {
    const { engine } = await newEngine();
    const evm = engine.vm.evm as unknown as {
      runCode(o: unknown): Promise<unknown>;
      _opcodeMap: { opHandler: (rs: unknown, c: unknown) => unknown }[];
      events: { on(e: string, f: () => void): void; off(e: string, f: () => void): void };
    };
    // Capture a real RunState from a one-opcode frame (STOP), on EthereumJS's own loop (a step listener makes
    // the engine use it), where STOP goes through its handler.
    const stop = evm._opcodeMap[0]!;
    let live: { stack: Record<string, unknown>; memory: Record<string, unknown> } | undefined;
    const onStep = (): void => {};
    evm._opcodeMap[0] = { ...stop, opHandler: (rs, c) => ((live = rs as never), stop.opHandler(rs, c)) };
    evm.events.on('step', onStep);
    try {
      await evm.runCode({ code: Uint8Array.of(0x00), gasLimit: 100_000n });
    } finally {
      evm._opcodeMap[0] = stop;
      evm.events.off('step', onStep);
    }
    expect(live).toBeDefined();
    expect(() => checkRunStateShapes(live)).not.toThrow();
    const withStack = (stack: unknown) => ({ ...live!, stack });
    expect(() => checkRunStateShapes(withStack({ ...live!.stack, _store: new Map() }))).toThrow(EthereumJsShapeError);
    // A push that no longer lands at _store[_len]: the loop would read the wrong slot.
    const wrongPush = Object.assign(Object.create(Object.getPrototypeOf(live!.stack)), live!.stack, { push(this: { _store: bigint[] }, v: bigint) { this._store.unshift(v); } });
    expect(() => checkRunStateShapes(withStack(wrongPush))).toThrow(/Stack.push/);
    expect(() => checkRunStateShapes({ ...live!, memory: { _store: [] } })).toThrow(/RunState.memory/);
    // The other declared fields, by type: a run state or interpreter that lost one fails naming it.
    expect(() => checkRunStateShapes({ ...live!, gasLeft: 1 })).toThrow(/RunState\.gasLeft is no longer a bigint/);
    // The archive's call capture reads the frame's depth.
    expect(() => checkRunStateShapes({ ...live!, env: { ...(live as unknown as { env: object }).env, depth: undefined } })).toThrow(/RunState\.env\.depth is no longer a number/);
    const it = (live as unknown as { interpreter: object }).interpreter;
    const noUseGas = Object.assign(Object.create(Object.getPrototypeOf(it)), it, { useGas: undefined });
    expect(() => checkRunStateShapes({ ...live!, interpreter: noUseGas })).toThrow(/Interpreter\.useGas is no longer a function/);
  });
});

describe('call frame internals check (call_frame.ts)', () => {
  it('accepts this EthereumJS version and names what changed when a shape breaks', async () => {
    const { engine } = await newEngine();
    const evm = engine.vm.evm as unknown as Record<string, unknown> & { journal: object };
    const proto = interpreterPrototype()!;
    expect(proto).toBeDefined();
    expect(() => checkCallFrameInternals(evm, proto)).not.toThrow();
    const broken = (patch: Record<string, unknown>): unknown => Object.assign(Object.create(Object.getPrototypeOf(evm)), evm, patch);
    expect(() => checkCallFrameInternals(broken({ transientStorage: { checkpoint() {} } }), proto)).toThrow(/transientStorage.checkpoint/);
    expect(() => checkCallFrameInternals(broken({ _optsCached: undefined }), proto)).toThrow(/EVM._optsCached/);
    expect(() => checkCallFrameInternals(evm, { constructor: function (a: unknown) { return a; } })).toThrow(/Interpreter constructor/);
    const journal = evm.journal as Record<string, unknown>;
    const badJournal = Object.assign(Object.create(Object.getPrototypeOf(journal)), journal, { journalDiff: undefined });
    expect(() => checkCallFrameInternals(broken({ journal: badJournal }), proto)).toThrow(/journalDiff/);
    // a journal whose checkpoint does more than the sync form (here: a second diff entry) is refused
    const jProto = Object.create(Object.getPrototypeOf(journal)) as { checkpoint(this: { journalHeight: number; journalDiff: unknown[] }): Promise<void> };
    jProto.checkpoint = async function () {
      this.journalHeight++;
      this.journalDiff.push([this.journalHeight, [new Set(), new Map(), new Set()]], [this.journalHeight, [new Set(), new Map(), new Set()]]);
    };
    const oddJournal = Object.assign(Object.create(jProto), journal);
    expect(() => checkCallFrameInternals(broken({ journal: oddJournal }), proto)).toThrow(/Journal.checkpoint/);
  });

  it('runs inner calls on the own frame set-up, and on EthereumJS runCall while a message listener is attached', async () => {
    const { engine } = await newEngine();
    const evm = engine.vm.evm as unknown as { runCall(o: unknown): Promise<unknown>; events: { on(e: string, f: (m: unknown) => void): void; off(e: string, f: (m: unknown) => void): void }; _executeCall(m: unknown): Promise<unknown> };
    let stockInner = 0;
    const exec = evm._executeCall.bind(evm);
    evm._executeCall = async (m: unknown) => {
      if ((m as { depth: number }).depth > 0) stockInner++;
      return exec(m);
    };
    // CALL(gas, 0x04 identity, 0, 0, 0, 0, 0); STOP
    const code = Uint8Array.of(0x5f, 0x5f, 0x5f, 0x5f, 0x5f, 0x60, 0x04, 0x5a, 0xf1, 0x00);
    const caller = new Address(Uint8Array.from({ length: 20 }, () => 0x11));
    const contract = new Address(Uint8Array.from({ length: 20 }, () => 0x22));
    engine.setGenesisBalance(caller.bytes, 10n ** 18n);
    engine.beginBlock(env(1n));
    await engine.vm.stateManager.putCode(contract, code);
    await evm.runCall({ caller, to: contract, gasLimit: 100_000n });
    expect(stockInner).toBe(0);
    const seen: unknown[] = [];
    const listener = (m: unknown): void => void seen.push(m);
    evm.events.on('beforeMessage', listener);
    try {
      await evm.runCall({ caller, to: contract, gasLimit: 100_000n });
    } finally {
      evm.events.off('beforeMessage', listener);
    }
    expect(stockInner).toBe(1);
    expect(seen.length).toBe(2);
  });
});
