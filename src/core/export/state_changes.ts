// A block's state changes: writes to state applied at the start of a block, before its first transaction,
// that no transaction made (block 0: the genesis allocations and code; a later block: the development
// cheats made since the previous block). Pure encoder and decoder; the bytes are the tail of the block
// record, in the store and in export segment 0 (docs/export-format.md):
//
//   u32 n || n * ( address[20] || u8 flags || [flags&1] balance big || [flags&2] nonce u64
//                  || [flags&4] u32 len || code || [flags&8] u32 m || m * (slot[32] || value[32]) )
//
// One entry per address (net per key, last write wins), in the order the addresses were first changed;
// within an entry one value per slot, in the order the slots were first written. Applying an entry: the
// account is created if absent (nonce 0, balance 0, no code); each present field replaces the account's
// (code of length 0 removes the code); each slot is set (a zero value clears it).

import { ByteReader, ByteWriter, bytesEqual, toHex } from '../codec/bytes.js';

export interface AccountChange {
  readonly address: Uint8Array;
  readonly balance?: bigint;
  readonly nonce?: bigint;
  readonly code?: Uint8Array;
  readonly storage: ReadonlyArray<{ readonly slot: Uint8Array; readonly value: Uint8Array }>;
}

export const CHANGE_BALANCE = 1;
export const CHANGE_NONCE = 2;
export const CHANGE_CODE = 4;
export const CHANGE_STORAGE = 8;
const KNOWN_FLAGS = CHANGE_BALANCE | CHANGE_NONCE | CHANGE_CODE | CHANGE_STORAGE;
/** Smallest encoded entry (address and flags): bounds `n` by the bytes present before any allocation. */
const MIN_ENTRY_BYTES = 21;
const SLOT_ENTRY_BYTES = 64;
const MAX_U256 = (1n << 256n) - 1n;
const MAX_U64 = (1n << 64n) - 1n;

/** The encoding of an empty list (what a block without state changes carries in export segment 0). */
export const NO_STATE_CHANGES: Uint8Array = new Uint8Array(4);

export class StateChangesError extends Error {}

/** Throws StateChangesError for a value the format cannot carry (the callers check their arguments first). */
export function encodeStateChanges(changes: readonly AccountChange[]): Uint8Array {
  let size = 4;
  for (const c of changes) size += 21 + 33 + 8 + 4 + (c.code?.length ?? 0) + 4 + SLOT_ENTRY_BYTES * c.storage.length;
  const w = new ByteWriter(size).u32(changes.length);
  for (const c of changes) {
    if (c.address.length !== 20) throw new StateChangesError('address must be 20 bytes');
    const flags = (c.balance !== undefined ? CHANGE_BALANCE : 0) | (c.nonce !== undefined ? CHANGE_NONCE : 0) | (c.code !== undefined ? CHANGE_CODE : 0) | (c.storage.length > 0 ? CHANGE_STORAGE : 0);
    w.fixed(c.address).u8(flags);
    if (c.balance !== undefined) {
      if (c.balance < 0n || c.balance > MAX_U256) throw new StateChangesError('balance out of range');
      w.big(c.balance);
    }
    if (c.nonce !== undefined) {
      if (c.nonce < 0n || c.nonce > MAX_U64) throw new StateChangesError('nonce out of range');
      w.u64(c.nonce);
    }
    if (c.code !== undefined) w.bytes(c.code);
    if (c.storage.length > 0) {
      w.u32(c.storage.length);
      for (const s of c.storage) {
        if (s.slot.length !== 32 || s.value.length !== 32) throw new StateChangesError('storage slot and value must be 32 bytes');
        w.fixed(s.slot).fixed(s.value);
      }
    }
  }
  return w.finish();
}

class Reader extends ByteReader {
  protected override truncated(n: number): Error {
    return new StateChangesError(`state changes truncated: need ${n} bytes at offset ${this.off} of ${this.b.length}`);
  }
}

/**
 * Decodes a whole list (the bytes must hold exactly one). Refuses, with StateChangesError, truncation, trailing
 * bytes, unknown flags, a non-minimal or over-256-bit balance, an address or slot given twice, a count the
 * bytes cannot hold; allocates only in proportion to the bytes given.
 */
export function decodeStateChanges(bytes: Uint8Array): AccountChange[] {
  const r = new Reader(bytes);
  const n = r.u32();
  if (n > r.remaining / MIN_ENTRY_BYTES) throw new StateChangesError(`${n} state changes cannot fit in ${r.remaining} bytes`);
  const out: AccountChange[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) {
    const address = r.fixed(20);
    const key = toHex(address);
    if (seen.has(key)) throw new StateChangesError(`address 0x${key} changed twice in one list`);
    seen.add(key);
    const flags = r.u8();
    if ((flags & ~KNOWN_FLAGS) !== 0) throw new StateChangesError(`unknown state change flags 0x${flags.toString(16)}`);
    let balance: bigint | undefined;
    if ((flags & CHANGE_BALANCE) !== 0) {
      const len = r.u8();
      if (len > 32) throw new StateChangesError(`balance of ${len} bytes (at most 32)`);
      const b = r.fixed(len);
      if (len > 0 && b[0] === 0) throw new StateChangesError('balance not minimal');
      balance = len === 0 ? 0n : BigInt('0x' + toHex(b));
    }
    const nonce = (flags & CHANGE_NONCE) !== 0 ? r.u64() : undefined;
    const code = (flags & CHANGE_CODE) !== 0 ? r.bytes().slice() : undefined;
    const storage: { slot: Uint8Array; value: Uint8Array }[] = [];
    if ((flags & CHANGE_STORAGE) !== 0) {
      const m = r.u32();
      if (m === 0) throw new StateChangesError('storage flag with no slots');
      if (m > r.remaining / SLOT_ENTRY_BYTES) throw new StateChangesError(`${m} storage slots cannot fit in ${r.remaining} bytes`);
      const slots = new Set<string>();
      for (let j = 0; j < m; j++) {
        const slot = r.fixed(32).slice();
        const sk = toHex(slot);
        if (slots.has(sk)) throw new StateChangesError(`slot 0x${sk} of 0x${key} set twice in one list`);
        slots.add(sk);
        storage.push({ slot, value: r.fixed(32).slice() });
      }
    }
    out.push({
      address: address.slice(),
      ...(balance !== undefined ? { balance } : {}),
      ...(nonce !== undefined ? { nonce } : {}),
      ...(code !== undefined ? { code } : {}),
      storage,
    });
  }
  if (r.remaining !== 0) throw new StateChangesError(`${r.remaining} trailing bytes after the state changes`);
  return out;
}

/**
 * Merges `change` into `list` (net per key, last write wins): a new address is appended; an address already
 * present takes the new fields and slot values over its earlier ones, keeping its place and its slot order.
 */
export function mergeStateChange(list: readonly AccountChange[], change: AccountChange): AccountChange[] {
  const i = list.findIndex((c) => bytesEqual(c.address, change.address));
  if (i < 0) return [...list, change];
  const prev = list[i]!;
  const storage = prev.storage.map((s) => {
    const w = change.storage.find((x) => bytesEqual(x.slot, s.slot));
    return w ?? s;
  });
  for (const s of change.storage) if (!prev.storage.some((x) => bytesEqual(x.slot, s.slot))) storage.push(s);
  const balance = change.balance ?? prev.balance;
  const nonce = change.nonce ?? prev.nonce;
  const code = change.code ?? prev.code;
  const merged: AccountChange = {
    address: prev.address,
    ...(balance !== undefined ? { balance } : {}),
    ...(nonce !== undefined ? { nonce } : {}),
    ...(code !== undefined ? { code } : {}),
    storage,
  };
  const out = [...list];
  out[i] = merged;
  return out;
}
