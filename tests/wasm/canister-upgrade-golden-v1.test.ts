// Upgrade over golden image v1: the stable memory of main at 1a7e9d3 (layout 1, before layout versions),
// migrated to the current layout (tests/support/golden.ts); and an image whose layout is newer than the wasm
// knows is refused, the old wasm keeping running.
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { IDL } from '@dfinity/candid';
import { WASM_PATH } from '../../src/devnet/build.js';
import { encodeInitArgs } from '../../src/client/host.js';
import { CanisterInstallError } from '../../src/host/index.js';
import { MemoryKvMap } from '../../src/core/host.js';
import { MemoryId } from '../../src/core/store/memory_ids.js';
import { LAYOUT_VERSION, LayoutStore } from '../../src/core/store/layout.js';
import { buildAzleCanister } from '../fixtures/probe/build.js';
import { describeGoldenUpgrade, hostOver } from '../support/golden.js';

const here = dirname(fileURLToPath(import.meta.url));

describeGoldenUpgrade('v1');

describe('an image of a newer layout than the wasm knows', () => {
  it('is refused by post_upgrade with a message naming both versions; the old wasm keeps running on unchanged memory', async () => {
    const corruptor = buildAzleCanister('corruptor', join(here, '../fixtures/corruptor/index.ts'));
    const host = await hostOver('v1', corruptor);
    try {
      await host.resume();
      // The layout key as a later release would write it (the encoding's one definition).
      const m = new MemoryKvMap();
      new LayoutStore(m).setStored(LAYOUT_VERSION + 1);
      const [[key, value]] = m.items() as [[Uint8Array, Uint8Array]];
      const put = await host.update('insert', new Uint8Array(IDL.encode([IDL.Nat8, IDL.Vec(IDL.Nat8), IDL.Vec(IDL.Nat8)], [MemoryId.Meta, key, value])));
      expect(put.kind).toBe('reply');
      const version = host.canisterVersion;
      const err = await host.upgrade({ wasm: WASM_PATH, arg: encodeInitArgs(undefined) }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(CanisterInstallError);
      expect((err as Error).message).toContain(`upgrade refused: stable memory has layout version ${LAYOUT_VERSION + 1}, but this wasm knows layouts up to ${LAYOUT_VERSION}`);
      expect(host.canisterVersion).toBe(version);
      // Still the corruptor, over the same memory: the key it wrote is there, unchanged.
      const got = await host.update('remove', new Uint8Array(IDL.encode([IDL.Nat8, IDL.Vec(IDL.Nat8)], [MemoryId.Meta, key])));
      expect(got.kind).toBe('reply');
      if (got.kind !== 'reply') return;
      const [old] = IDL.decode([IDL.Opt(IDL.Vec(IDL.Nat8))], got.bytes) as unknown as [[Uint8Array]];
      expect(Buffer.from(old[0]!).equals(Buffer.from(value))).toBe(true);
    } finally {
      host.close();
    }
  });
});
