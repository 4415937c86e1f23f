// The engine's two state managers share one code cache, and code a block stores is handed to the
// interpreter's analysis at commit: eth_call queries (whose own reads are discarded with their heap) then
// find the code array, and its JUMPDEST analysis, that the block left behind.
import { Address } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { keccak256 } from '../../src/core/crypto.js';
import { MemoryCoreHost } from '../../src/core/host.js';
import { FlatStateManager } from '../../src/core/evm/state.js';
import { MemoryId } from '../../src/core/store/memory_ids.js';

describe('shared code cache', () => {
  it('gives a second state manager the very code array the first stored, and reports it at commit', async () => {
    const host = new MemoryCoreHost();
    const maps = { accounts: host.openMap(MemoryId.Accounts), code: host.openMap(MemoryId.Code), storage: host.openMap(MemoryId.Storage) };
    const cache = new Map<string, Uint8Array>();
    const stored: Uint8Array[] = [];
    const block = new FlatStateManager(maps, { codeStored: (c) => stored.push(c) }, cache);
    const calls = new FlatStateManager(maps, {}, cache);
    const at = new Address(new Uint8Array(20).fill(0xab));
    const code = Uint8Array.from([0x60, 0x01, 0x5b, 0x00]);
    await block.putCode(at, code);
    block.commitToMaps(1);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toEqual(code);
    expect(maps.code.get(keccak256(code))).toEqual(code);
    // the call-side manager reads through the cache: the same array, not a fresh copy from the map
    expect(calls.getCodeSync(at.bytes)).toBe(stored[0]);
    // without a shared cache a manager gets its own copy from the map
    expect(new FlatStateManager(maps).getCodeSync(at.bytes)).not.toBe(stored[0]);
  });
});
