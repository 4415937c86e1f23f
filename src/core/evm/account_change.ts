// Writes one state change (export/state_changes.ts: a genesis allocation or code, a development cheat)
// straight into the committed flat maps, between blocks: no transaction, no journal, and no state root
// update (the caller chains the block's whole list once, state.ts chainStateChanges).

import type { AccountChange } from '../export/state_changes.js';
import { keccak256 } from '../crypto.js';
import { decodeAccount, encodeAccount, storageKey, unpad } from './encoding.js';
import type { FlatStateMaps } from './state.js';

export function applyAccountChangeToMaps(maps: FlatStateMaps, c: AccountChange): void {
  const raw = maps.accounts.get(c.address);
  const prev = raw === undefined ? undefined : decodeAccount(raw);
  const live = prev?.exists === true ? prev : undefined;
  let codeHash = live?.codeHash;
  let codeSize = live?.codeSize ?? 0;
  if (c.code !== undefined) {
    if (c.code.length === 0) {
      codeHash = undefined;
      codeSize = 0;
    } else {
      codeHash = keccak256(c.code);
      if (!maps.code.containsKey(codeHash)) maps.code.insert(codeHash, c.code.slice());
      codeSize = c.code.length;
    }
  }
  // A tombstone's generation is kept: the slots of the deleted account stay unreachable.
  const gen = prev?.gen ?? 0;
  let hasStorage = live?.hasStorage ?? false;
  for (const s of c.storage) {
    const key = storageKey(c.address, gen, s.slot);
    const v = unpad(s.value);
    if (v.length === 0) maps.storage.remove(key);
    else {
      maps.storage.insert(key, v.slice());
      hasStorage = true;
    }
  }
  maps.accounts.insert(
    c.address,
    encodeAccount({ exists: true, nonce: c.nonce ?? live?.nonce ?? 0n, balance: c.balance ?? live?.balance ?? 0n, codeHash, codeSize, gen, hasStorage }),
  );
}
