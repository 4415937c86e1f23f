// The state commitment of a block (docs/execution.md "State and its commitment") against a reference built
// here from its definition: W = every changed entry in ascending stable-map key order, accounts first
// (0x01 || address || len:2 || record), then storage (0x02 || address || gen:4 || slot || len:1 || value),
// root = H(parent || H(W)), H the chain's commitment hash (keccak256 for version 1, BLAKE3 for version 2).
// commitToMaps orders and encodes W its own way (the native sort of its cache keys, one buffer); this pins
// its bytes to the definition, including generations of any width, addresses above 0x7f, clears, tombstones
// and writes that end where they started.
import { Address } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { compareBytes, concatBytes } from '../../src/core/codec/bytes.js';
import { commitHash, type CommitmentVersion } from '../../src/core/chain/commitments.js';
import { decodeAccount, encodeAccount, storageKey, type AccountRecord } from '../../src/core/evm/encoding.js';
import { FlatStateManager, STATE_ROOT_KEY } from '../../src/core/evm/state.js';
import { MemoryCoreHost } from '../../src/core/host.js';
import { MemoryId } from '../../src/core/store/memory_ids.js';

const addr = (first: number, last: number): Uint8Array => {
  const a = new Uint8Array(20).fill(0x11);
  a[0] = first;
  a[19] = last;
  return a;
};
const word = (v: bigint): Uint8Array => {
  const b = new Uint8Array(32);
  for (let i = 31; i >= 0 && v > 0n; i--, v >>= 8n) b[i] = Number(v & 0xffn);
  return b;
};
const rec = (over: Partial<AccountRecord>): AccountRecord => ({ exists: true, nonce: 1n, balance: 10n ** 21n, codeHash: undefined, codeSize: 0, gen: 0, hasStorage: true, ...over });

describe('state commitment W', () => {
  it.each([1, 2] as CommitmentVersion[])('commits the bytes and map writes its definition gives (commitment version %i)', async (version) => {
    const hash = commitHash(version);
    const host = new MemoryCoreHost();
    const maps = { accounts: host.openMap(MemoryId.Accounts), code: host.openMap(MemoryId.Code), storage: host.openMap(MemoryId.Storage) };
    // Accounts with storage generations of every width the cache key pads: 0, 15, 16, 0x12345, and one below the u32
    // maximum (deleted below, it leaves a tombstone of the maximum).
    const gens = [0, 15, 16, 0x12345, 0xffff_fffe];
    const owners = [addr(0x80, 1), addr(0x01, 2), addr(0xff, 3), addr(0x7f, 4), addr(0x80, 0)];
    owners.forEach((a, i) => maps.accounts.insert(a, encodeAccount(rec({ gen: gens[i]! }))));
    // Slots already set: one to clear, one rewritten to its own value, one changed and changed back.
    maps.storage.insert(storageKey(owners[0]!, 0, word(5n)), Uint8Array.of(9));
    maps.storage.insert(storageKey(owners[1]!, 15, word(5n)), Uint8Array.of(7));
    maps.storage.insert(storageKey(owners[2]!, 16, word(1n)), Uint8Array.of(3));
    const parent = new Uint8Array(32).fill(0x42);
    maps.accounts.insert(STATE_ROOT_KEY, parent);

    const sm = new FlatStateManager(maps);
    const slots = [word(1n), word(0x100n), word(2n ** 255n), word(0xabn << 200n), word(5n)];
    for (const [i, a] of owners.entries()) {
      for (const [j, s] of slots.entries()) await sm.putStorage(new Address(a), s, word(BigInt(1 + i * 10 + j)));
    }
    await sm.putStorage(new Address(owners[0]!), word(5n), word(0n)); // cleared
    await sm.putStorage(new Address(owners[1]!), word(5n), word(7n)); // back to its stored value: no change
    await sm.putStorage(new Address(owners[2]!), word(1n), word(3n)); // idem
    sm.putAccountSync(owners[3]!, 2n, 12345678901234567890123n, new Uint8Array(0)); // account changed
    sm.putAccountSync(addr(0x00, 9), 0n, 1n, new Uint8Array(0)); // new account
    await sm.deleteAccount(new Address(owners[4]!)); // tombstone: it had storage

    // The reference, from the maps before the commit and the definition.
    const before = new Map<string, Uint8Array>();
    for (const [k, v] of maps.storage.items()) before.set(Buffer.from(k).toString('hex'), v);
    const expectStorage: [Uint8Array, Uint8Array][] = [];
    for (const [i, a] of owners.entries()) {
      // (owners[4] is deleted after its writes: they are still written, under the generation it leaves.)
      for (const [j, s] of slots.entries()) {
        const key = storageKey(a, gens[i]!, s);
        let v = Uint8Array.of(1 + i * 10 + j);
        if (i === 0 && j === 4) v = new Uint8Array(0);
        if ((i === 1 || i === 2) && j === 4) v = i === 1 ? Uint8Array.of(7) : Uint8Array.of(1 + i * 10 + j);
        const old = before.get(Buffer.from(key).toString('hex')) ?? new Uint8Array(0);
        if (Buffer.from(old).equals(Buffer.from(v))) continue;
        expectStorage.push([key, v]);
      }
    }
    // owners[2]'s slot 1 was set back to 3 after the loop wrote 21: its net value is 3, as stored.
    const s21 = expectStorage.findIndex(([k]) => Buffer.from(k).equals(Buffer.from(storageKey(owners[2]!, 16, word(1n)))));
    expectStorage.splice(s21, 1);
    expectStorage.sort((x, y) => compareBytes(x[0], y[0]));
    const expectAccounts: [Uint8Array, Uint8Array | undefined][] = [
      [owners[3]!, encodeAccount(rec({ nonce: 2n, balance: 12345678901234567890123n, gen: gens[3]! }))],
      [addr(0x00, 9), encodeAccount(rec({ nonce: 0n, balance: 1n, hasStorage: false }))],
      [owners[4]!, encodeAccount({ exists: false, nonce: 0n, balance: 0n, codeHash: undefined, codeSize: 0, gen: 0xffff_ffff, hasStorage: false })],
    ];
    expectAccounts.sort((x, y) => compareBytes(x[0], y[0]));
    const parts: Uint8Array[] = [];
    for (const [a, enc] of expectAccounts) parts.push(Uint8Array.of(1), a, Uint8Array.of(0, enc!.length), enc!);
    for (const [k, v] of expectStorage) parts.push(Uint8Array.of(2), k, Uint8Array.of(v.length), v);
    const w = concatBytes(...parts);

    const root = sm.commitToMaps(version);
    expect(Buffer.from(root).toString('hex')).toBe(Buffer.from(hash(concatBytes(parent, hash(w)))).toString('hex'));
    for (const [k, v] of expectStorage) expect(maps.storage.get(k) ?? new Uint8Array(0)).toEqual(v);
    expect(maps.storage.get(storageKey(owners[0]!, 0, word(5n)))).toBeUndefined();
    for (const [a, enc] of expectAccounts) expect(maps.accounts.get(a)).toEqual(enc);
    expect(decodeAccount(maps.accounts.get(owners[3]!)!).balance).toBe(12345678901234567890123n);
  });
});
