// Every key of the shared Meta map is registered in src/core/store/meta_keys.ts. A chain is
// driven through everything that writes Meta (init, submit, a block, pruning, the ops checks, metrics) and
// every key found in the map must be a registered one.
import { describe, expect, it } from 'vitest';
import { MemoryId } from '../../src/core/store/memory_ids.js';
import { MetaKey } from '../../src/core/store/meta_keys.js';
import { ETH, key, okValue, setup, sign1559 } from '../support/chain_testkit.js';

describe('Meta key registry', () => {
  it('registers distinct keys', () => {
    const keys = Object.values(MetaKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('every key the core writes to Meta is registered', async () => {
    const k = key(1);
    const { core, host } = await setup({ genesisAllocations: [{ address: k.address, balance: ETH }] });
    okValue(core.submitRawTx(sign1559(k, { nonce: 0n })));
    await core.produceBlock();
    okValue(core.configurePruning({ keepRecentBlocks: 256n, maxHistoryBytes: 1n, timerIntervalMs: 1000n, maxOpsPerTick: 10 }, true));
    core.pruneTick();
    core.observeCycles(10n ** 12n);
    core.runIntegrityCheck();
    core.metrics();
    const registered = new Set<string>(Object.values(MetaKey));
    const found = [...host.openMap(MemoryId.Meta).items()].map(([kk]) => new TextDecoder().decode(kk));
    expect(found.length).toBeGreaterThan(4);
    for (const f of found) expect(registered.has(f), f).toBe(true);
  });
});
