// The start-up check of the EthereumJS internals the engine relies on (src/core/evm/internals.ts).
import { describe, expect, it } from 'vitest';
import { EthereumJsShapeError, checkEvmInternals, checkRunStateShapes } from '../../src/core/evm/internals.js';
import { newEngine } from './evm_fixtures.js';

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
  });
});
