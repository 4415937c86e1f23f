// The start-up check of the EthereumJS internals the engine relies on (src/core/evm/internals.ts).
import { describe, expect, it } from 'vitest';
import { EthereumJsShapeError, checkEvmInternals } from '../../src/core/evm/internals.js';
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
});
