// The devnet's stable-memory file (docs/hardening.md) on the real wasm: when the stable-memory file cannot be written (here the journal's path is
// taken by a directory, as a full disk or an I/O error would fail it), the host does not clear its dirty pages
// and go on as if written: every later write (update, timer) is refused with a clear error while queries go on,
// and once the flush succeeds everything, including what ran before the failure, is on disk.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WASM_PATH } from '../../src/devnet/build.js';
import { projectTempDir } from '../../src/host/paths.js';
import { IcHost } from '../../src/host/index.js';
import { HostClient } from '../../src/client/host.js';
import { CANISTER_ID, Evm, unwrap, type CandidResult } from '../support/canister.js';
import { ETH, account, plainAddress, transfer } from '../support/eth.js';

const dir = projectTempDir('harden-stable-');
const file = join(dir, 'stable.bin');
const A = account(91);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a stable-memory flush that fails', () => {
  it('refuses writes with a clear error until a flush succeeds, and loses nothing', async () => {
    const evm = await Evm.start({ genesis: [{ address: A.address, balance: ETH }] }, { stableMemoryFile: file, fsync: true });
    let before: Uint8Array, during: Uint8Array;
    try {
      before = await evm.submit(transfer(A, 0n, plainAddress(1), 1n));
      mkdirSync(`${file}.journal`);
      // This update runs (in memory); its flush fails.
      during = await evm.submit(transfer(A, 1n, plainAddress(1), 1n));
      // Every later write is refused, with the reason; reads go on.
      await expect(evm.host.update('rpc_eth_send_raw_transaction', new Uint8Array())).rejects.toThrow(/stable memory file cannot be written/);
      await expect(evm.host.advanceTime(2000)).rejects.toThrow(/stable memory file cannot be written/);
      expect(evm.pending(during)).toEqual({ Queued: null });
      // The disk is back: the next write flushes everything first.
      rmSync(`${file}.journal`, { recursive: true });
      await evm.submit(transfer(A, 2n, plainAddress(1), 1n));
    } finally {
      evm.close();
    }
    // A new process on the same file sees every transaction, the one whose flush failed included.
    const host = await IcHost.create({ wasm: WASM_PATH, canisterId: CANISTER_ID, stableMemoryFile: file, debugPrint: () => {} });
    try {
      await host.resume();
      const client = new HostClient(host);
      // Queued, or already Included if the resumed process mined; never Unknown.
      for (const id of [before, during]) expect(Object.keys(client.querySync('get_pending', [id]))[0]).toMatch(/^(Queued|Included)$/);
      expect(unwrap(client.querySync('expected_nonce_by_address', [A.address]))).toBe(3n);
    } finally {
      host.close();
    }
  });
});
