// Reads of the archived state at a block from the history tables (./schema.ts): the account record, a storage
// slot (under the account's storage generation at that block) and code by hash. Each read is one backward
// index scan of a primary key (the row with the highest block <= N).
import type { Queryable } from '../indexer/db.js';
import { decodeAccount, storageKey, type AccountRecord } from '../core/evm/encoding.js';

export interface StateSource {
  account(address: Uint8Array): Promise<AccountRecord | undefined>;
  /** The slot's value without leading zeros (empty = zero); `gen` is the account's storage generation. */
  storage(address: Uint8Array, gen: number, slot: Uint8Array): Promise<Uint8Array>;
  code(hash: Uint8Array): Promise<Uint8Array>;
}

const EMPTY = new Uint8Array(0);

export function historySource(db: Queryable, block: bigint): StateSource {
  return {
    async account(address) {
      const r = await db.query<{ record: Uint8Array | null }>('SELECT record FROM archive_accounts WHERE address = $1 AND block <= $2 ORDER BY block DESC LIMIT 1', [address, block]);
      const rec = r.rows[0]?.record;
      if (rec === undefined || rec === null) return undefined;
      const a = decodeAccount(rec);
      return a.exists ? a : undefined;
    },
    async storage(address, gen, slot) {
      const r = await db.query<{ value: Uint8Array | null }>('SELECT value FROM archive_storage WHERE skey = $1 AND block <= $2 ORDER BY block DESC LIMIT 1', [storageKey(address, gen, slot), block]);
      return r.rows[0]?.value ?? EMPTY;
    },
    async code(hash) {
      const r = await db.query<{ code: Uint8Array }>('SELECT code FROM archive_code WHERE hash = $1', [hash]);
      return r.rows[0]?.code ?? EMPTY;
    },
  };
}
