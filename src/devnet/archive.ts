// The devnet's archive (docs/archive.md): `npm start` runs it beside the indexer, in the same database (PGlite
// under the data folder, or INDEXER_DATABASE_URL's server), following the in-process canister, re-executing and
// verifying every block, and the gateway answers state reads below the head from it. `--no-archive` turns it
// off. An evm_revert rewinds it as it rewinds the indexer.
import { hexToBytes } from '@ethereumjs/util';
import type { HostClient } from '../client/host.js';
import { CHAIN_ID } from '../core/constants.js';
import type { Db } from '../indexer/db.js';
import { ArchiveFollower } from '../archive/follower.js';
import { ArchiveReader } from '../archive/reader.js';
import type { GenesisEntry } from '../archive/replay.js';
import { DEV_ACCOUNT_BALANCE, devAccounts } from './accounts.js';
import type { DevnetControl } from './dev.js';
import { PREDEPLOYS } from './predeploys.js';

/** The devnet's genesis as its install applies it: the development accounts' balances, then the predeploys' code. */
export function devnetGenesis(): GenesisEntry[] {
  return [
    ...devAccounts().map((a) => ({ address: hexToBytes(a.address), balance: DEV_ACCOUNT_BALANCE })),
    ...PREDEPLOYS.map((p) => ({ address: hexToBytes(p.address), code: hexToBytes(p.code) })),
  ];
}

export interface DevnetArchive {
  readonly follower: ArchiveFollower;
  readonly reader: ArchiveReader;
  stop(): Promise<void>;
}

/** The reader the gateway gets (before the follower starts: reads answer what is archived so far). */
export const devnetArchiveReader = (db: Db): ArchiveReader => new ArchiveReader(db);

export function startDevnetArchive(o: { evm: HostClient; db: Db; reader: ArchiveReader; log: (line: string) => void; dev?: DevnetControl }): DevnetArchive {
  const follower = new ArchiveFollower({ client: o.evm, db: o.db, chainId: BigInt(CHAIN_ID), genesis: devnetGenesis(), log: o.log });
  const onRevert = (): void => void follower.requestRewind(o.evm.querySync('rpc_eth_block_number', []));
  o.dev?.onRevert.push(onRevert);
  // Runs in the background; an alarm or a condition retrying cannot fix stops the archive, never the devnet.
  const running = follower.run().catch((e: unknown) => o.log(`archive stopped: ${(e as Error).message}`));
  return {
    follower,
    reader: o.reader,
    async stop() {
      const at = o.dev?.onRevert.indexOf(onRevert) ?? -1;
      if (at >= 0) o.dev!.onRevert.splice(at, 1);
      follower.stop();
      await running;
    },
  };
}
