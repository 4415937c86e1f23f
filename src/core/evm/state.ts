// Flat state manager: EthereumJS's StateManagerInterface over three KvMaps (accounts, code, storage),
// with a per-block write-through cache and nested checkpoints kept as an undo journal (DESIGN rule 2).
//
// - Reads go cache -> KvMap and are cached for the rest of the block (clean entries).
// - Writes replace the cached value and push an undo entry; checkpoint() remembers the journal length,
//   revert() undoes back to it, commit() just forgets the mark. No map is ever copied.
// - Nothing reaches the KvMaps until commitBlock(); abortBlock() drops the cache.
// - originalStorageCache (EIP-2200/3529 SSTORE gas) answers "value at the start of the transaction":
//   the first write of a slot in a transaction records the value it replaced; unwritten slots are
//   unchanged since the transaction began, so their current value is the original.
//
// stateRoot (no trie): a hash chain over net state changes,
//   root(block) = H(root(parent) || H(W)) if the block changed state, else root(parent),
//   where W is the concatenation, in ascending key order, of every entry whose value differs from its
//   value at the start of the block: accounts first (0x01 || address || len:2 BE || record, len 0 = key
//   removed), then storage (0x02 || storageKey || len:1 || value, len 0 = slot cleared). The encodings are
//   those of ./encoding.ts. A block's state changes (genesis allocations, development cheats: writes outside
//   any transaction) are chained first, as H(root || H(their encoded list)), see chainStateChanges. H is the
//   chain's commitment version's hash (keccak256 or BLAKE3, ../chain/commitments.ts), passed by the caller.

import type { Address } from '@ethereumjs/util';
import { Account, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util';
import type { KvMap } from '../host.js';
import { keccak256 } from '../crypto.js';
import { chainedRoot, type CommitmentVersion } from '../chain/commitments.js';
import { bytesEqual, latin1Key } from '../codec/bytes.js';
import type { GasWatch } from './gas_left.js';
import {
  type AccountRecord,
  decodeAccount,
  encodeAccount,
  storageKey,
  fromHex,
  toHex,
  unpad,
} from './encoding.js';

/** Reported as Account.storageRoot when an account may hold storage (EIP-7610 collision checks only test non-emptiness). */
export const STORAGE_PRESENT_ROOT = new Uint8Array(32).fill(0x5a);
/** Where the head state root lives: a key no address can equal (addresses are 20 bytes). */
export const STATE_ROOT_KEY = new TextEncoder().encode('stateRoot');
const ZERO_ROOT = new Uint8Array(32);
const EMPTY = new Uint8Array(0);

interface AccountSlot {
  readonly address: Uint8Array;
  /** null: no account and no tombstone. */
  rec: AccountRecord | null;
  /** Encoded value at the start of the block (undefined = absent), to skip no-op writes at commit. */
  readonly base: Uint8Array | undefined;
  dirty: boolean;
}

/**
 * A storage slot resolved by storageRefSync. Outside this module only read: the interpreter's SLOAD/SSTORE read
 * `a.rec` (is the account's generation still the one the slot belongs to) and `s.value` (the current value,
 * an array this module never writes into: a write or an undo replaces it).
 */
export interface StorageRef {
  readonly a: AccountSlot;
  readonly s: StorageSlot;
}

interface StorageSlot {
  readonly key: Uint8Array; // address || gen || slot
  value: Uint8Array; // unpadded, EMPTY = zero
  readonly base: Uint8Array;
  dirty: boolean;
  /** Value before the first write of transaction number `origTx` (see originalStorageCache). */
  orig: Uint8Array;
  origTx: number;
}

type UndoEntry =
  | { readonly a: AccountSlot; readonly rec: AccountRecord | null; readonly dirty: boolean }
  | { readonly s: StorageSlot; readonly value: Uint8Array; readonly dirty: boolean };

export interface FlatStateMaps {
  readonly accounts: KvMap;
  readonly code: KvMap;
  readonly storage: KvMap;
}

export interface FlatStateHooks {
  /** Called before hashing `length` bytes of new code, so the instruction budget can stop the transaction first. */
  beforeCodeHash?(length: number): void;
  /** Called by commitToMaps for each new code array it stores and caches. */
  codeStored?(code: Uint8Array): void;
  /** Called for each code array read from the stable map into the code cache. */
  codeLoaded?(code: Uint8Array): void;
}

/** A position in the undo journal, for rolling a whole transaction back from outside EthereumJS. */
export interface StateMark {
  readonly journalLength: number;
  readonly depth: number;
}

/**
 * The block cache's key of an account: its 20 bytes as a latin1 string, built by one native call (a hex
 * string costs a JavaScript loop over the bytes in the canister, and an account is looked up many times a
 * transaction). Code units 0-255 sort like the bytes, so the keys sort in
 * address order, as the hex keys did (commitToMaps relies on that order).
 */
/** Code by the identity of a record's code-hash array (see codeByHash). */
const codeOfHashArray = new WeakMap<Uint8Array, Uint8Array>();

/** A storage generation as the 8 hex digits of its big-endian u32, for the usual small ones (see storageSlotHex). */
const GEN_HEX: readonly string[] = Array.from({ length: 16 }, (_, g) => g.toString(16).padStart(8, '0'));

const accountKey = latin1Key;

const WORD_SCRATCH = new Uint8Array(32);
const WORD_VIEW = new DataView(WORD_SCRATCH.buffer);
/** A word < 2^256 as 32 big-endian bytes, in a fresh array (four native 64-bit stores, no loop over bytes). */
function wordBytes(v: bigint): Uint8Array {
  WORD_VIEW.setBigUint64(24, v);
  WORD_VIEW.setBigUint64(16, v >> 64n);
  WORD_VIEW.setBigUint64(8, v >> 128n);
  WORD_VIEW.setBigUint64(0, v >> 192n);
  return WORD_SCRATCH.slice();
}

export class FlatStateManager {
  private accounts = new Map<string, AccountSlot>();
  private storage = new Map<string, StorageSlot>();
  private newCode = new Map<string, Uint8Array>();
  private journal: UndoEntry[] = [];
  private marks: number[] = [];
  /** Transaction counter: a slot's `orig` is valid only while its origTx equals this. */
  private txSeq = 1;
  /** Code is content-addressed and immutable, so this cache survives blocks (and is shared, see the constructor). */
  private static readonly CODE_CACHE_MAX = 256;

  readonly originalStorageCache: { get(address: Address, key: Uint8Array): Promise<Uint8Array>; clear(): void };

  /**
   * Set by the engine around a call whose estimate may stop after one run (EvmEngine.execute, gas_left.ts):
   * what the storage writes tell about EIP-2200's stipend check, and the run's other gas readers.
   * undefined otherwise (one field read a write).
   */
  storeWatch: GasWatch | undefined = undefined;

  /**
   * `codeCache` (code by hex hash) may be shared: the engine gives its block and eth_call state managers one
   * cache, so calls, whose own reads are discarded with the query's heap, get the code arrays blocks loaded
   * or stored, together with what the interpreter keeps per array (hooks.codeStored).
   */
  constructor(
    readonly maps: FlatStateMaps,
    private readonly hooks: FlatStateHooks = {},
    private readonly codeCache: Map<string, Uint8Array> = new Map(),
  ) {
    this.originalStorageCache = {
      get: async (address: Address, key: Uint8Array): Promise<Uint8Array> => this.originalStorageSync(address.bytes, key),
      clear: (): void => {
        this.txSeq++;
      },
    };
  }

  // ---- accounts ----

  private accountSlot(address: Uint8Array): AccountSlot {
    const k = accountKey(address);
    let slot = this.accounts.get(k);
    if (slot === undefined) {
      const raw = this.maps.accounts.get(address);
      slot = { address: address.slice(), rec: raw === undefined ? null : decodeAccount(raw), base: raw, dirty: false };
      this.accounts.set(k, slot);
    }
    return slot;
  }

  private writeAccount(slot: AccountSlot, rec: AccountRecord | null): void {
    this.journal.push({ a: slot, rec: slot.rec, dirty: slot.dirty });
    slot.rec = rec;
    slot.dirty = true;
  }

  getAccountRecord(address: Uint8Array): AccountRecord | undefined {
    const rec = this.accountSlot(address).rec;
    return rec !== null && rec.exists ? rec : undefined;
  }

  async getAccount(address: Address): Promise<Account | undefined> {
    return this.getAccountSync(address.bytes);
  }

  getAccountSync(address: Uint8Array): Account | undefined {
    const rec = this.getAccountRecord(address);
    if (rec === undefined) return undefined;
    return new Account(
      rec.nonce,
      rec.balance,
      rec.hasStorage ? STORAGE_PRESENT_ROOT : KECCAK256_RLP,
      rec.codeHash ?? KECCAK256_NULL,
      rec.codeSize,
    );
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    if (account === undefined) return this.deleteAccount(address);
    this.putAccountSync(address.bytes, account.nonce, account.balance, account.codeHash);
  }

  /** nonce/balance/codeHash come from EthereumJS; generation and storage presence are ours and always kept. */
  putAccountSync(address: Uint8Array, nonce: bigint, balance: bigint, codeHash: Uint8Array): void {
    const slot = this.accountSlot(address);
    const prev = slot.rec;
    // Identity first: the Accounts this manager hands out carry KECCAK256_NULL itself or the record's own
    // hash array, so most writes are decided without comparing 32 bytes in a JavaScript loop.
    const noCode = codeHash === KECCAK256_NULL || codeHash.length === 0 || bytesEqual(codeHash, KECCAK256_NULL);
    let newHash: Uint8Array | undefined;
    let codeSize = 0;
    if (!noCode) {
      if (prev !== null && prev.codeHash !== undefined && (prev.codeHash === codeHash || bytesEqual(prev.codeHash, codeHash))) {
        newHash = prev.codeHash;
        codeSize = prev.codeSize;
      } else {
        newHash = codeHash.slice();
        codeSize = this.codeByHash(newHash).length;
      }
    }
    this.writeAccount(slot, {
      exists: true,
      nonce,
      balance,
      codeHash: newHash,
      codeSize,
      gen: prev?.gen ?? 0,
      hasStorage: prev !== null && prev.exists && prev.hasStorage,
    });
  }

  /**
   * putAccountSync(address, nonce + nonceDelta, balance + balanceDelta, its code hash) over the account as
   * getAccountRecord reads it (absent: nonce 0, balance 0, no code), with one lookup of its slot where the two
   * calls make two (run_tx.ts: the sender's and the coinbase's fee writes); the record written.
   */
  addToAccountSync(address: Uint8Array, nonceDelta: bigint, balanceDelta: bigint): AccountRecord {
    const slot = this.accountSlot(address);
    const prev = slot.rec;
    const live = prev !== null && prev.exists ? prev : undefined;
    const nonce = (live?.nonce ?? 0n) + nonceDelta;
    const balance = (live?.balance ?? 0n) + balanceDelta;
    const h = live?.codeHash;
    if (h !== undefined && (h.length === 0 || bytesEqual(h, KECCAK256_NULL))) {
      // a record holding the empty code's hash: putAccountSync's own handling
      this.putAccountSync(address, nonce, balance, h);
      return slot.rec!;
    }
    const rec: AccountRecord = {
      exists: true,
      nonce,
      balance,
      codeHash: h,
      codeSize: h === undefined ? 0 : live!.codeSize,
      gen: prev?.gen ?? 0,
      hasStorage: live !== undefined && live.hasStorage,
    };
    this.writeAccount(slot, rec);
    return rec;
  }

  async deleteAccount(address: Address): Promise<void> {
    this.deleteAccountSync(address.bytes);
  }

  deleteAccountSync(address: Uint8Array): void {
    const slot = this.accountSlot(address);
    const prev = slot.rec;
    if (prev === null || !prev.exists) return;
    // Deleting an account deletes its storage: move to a fresh generation if any slot may be set.
    const gen = prev.hasStorage ? prev.gen + 1 : prev.gen;
    this.writeAccount(
      slot,
      gen === 0 ? null : { exists: false, nonce: 0n, balance: 0n, codeHash: undefined, codeSize: 0, gen, hasStorage: false },
    );
  }

  async modifyAccountFields(
    address: Address,
    fields: { nonce?: bigint; balance?: bigint; codeHash?: Uint8Array; storageRoot?: Uint8Array; codeSize?: number },
  ): Promise<void> {
    const rec = this.getAccountRecord(address.bytes);
    this.putAccountSync(
      address.bytes,
      fields.nonce ?? rec?.nonce ?? 0n,
      fields.balance ?? rec?.balance ?? 0n,
      fields.codeHash ?? rec?.codeHash ?? KECCAK256_NULL,
    );
  }

  // ---- code ----

  private codeByHash(hash: Uint8Array): Uint8Array {
    // Records keep their hash array for life, and code is content-addressed: the array found for a hash
    // object stays right, and skips the 32-byte hex key (a JavaScript loop; about two reads a call frame).
    const known = codeOfHashArray.get(hash);
    if (known !== undefined) return known;
    const code = this.codeByHashKey(hash);
    if (code.length > 0) codeOfHashArray.set(hash, code);
    return code;
  }

  private codeByHashKey(hash: Uint8Array): Uint8Array {
    const k = toHex(hash);
    const fresh = this.newCode.get(k) ?? this.codeCache.get(k);
    if (fresh !== undefined) return fresh;
    const code = this.maps.code.get(hash);
    if (code === undefined) return EMPTY;
    if (this.codeCache.size >= FlatStateManager.CODE_CACHE_MAX) {
      const oldest = this.codeCache.keys().next().value;
      if (oldest !== undefined) this.codeCache.delete(oldest);
    }
    this.codeCache.set(k, code);
    this.hooks.codeLoaded?.(code);
    return code;
  }

  async putCode(address: Address, code: Uint8Array): Promise<void> {
    const slot = this.accountSlot(address.bytes);
    const prev = slot.rec !== null && slot.rec.exists ? slot.rec : undefined;
    let codeHash: Uint8Array | undefined;
    if (code.length > 0) {
      this.hooks.beforeCodeHash?.(code.length);
      codeHash = keccak256(code);
      const k = toHex(codeHash);
      if (!this.newCode.has(k) && !this.codeCache.has(k)) this.newCode.set(k, code.slice());
    }
    this.writeAccount(slot, {
      exists: true,
      nonce: prev?.nonce ?? 0n,
      balance: prev?.balance ?? 0n,
      codeHash,
      codeSize: code.length,
      gen: slot.rec?.gen ?? 0,
      hasStorage: prev?.hasStorage ?? false,
    });
  }

  async getCode(address: Address): Promise<Uint8Array> {
    return this.getCodeSync(address.bytes);
  }

  getCodeSync(address: Uint8Array): Uint8Array {
    const rec = this.getAccountRecord(address);
    if (rec === undefined || rec.codeHash === undefined) return EMPTY;
    return this.codeByHash(rec.codeHash);
  }

  async getCodeSize(address: Address): Promise<number> {
    return this.getAccountRecord(address.bytes)?.codeSize ?? 0;
  }

  // ---- storage ----

  private storageSlot(address: Uint8Array, gen: number, slotKey: Uint8Array): StorageSlot {
    return this.storageSlotHex(address, toHex(address), gen, toHex(slotKey), slotKey);
  }

  private storageSlotHex(address: Uint8Array, addrHex: string, gen: number, slotHex: string, slotKey?: Uint8Array | bigint): StorageSlot {
    // Fixed widths (40 + 8 + 64 lower-case hex digits): the keys sort like the stable-map keys they stand
    // for (address || gen BE || slot), so commitToMaps orders them with the native string sort.
    const k = addrHex + (gen < 16 ? GEN_HEX[gen]! : gen.toString(16).padStart(8, '0')) + slotHex;
    let s = this.storage.get(k);
    if (s === undefined) {
      // the slot's 32 bytes from its word when the interpreter has it: fromHex's loop over 64 digits cost about
      // as much as the rest of a cold SLOAD together (docs/performance.md, "Stepped storage, logs and keccak")
      const key = storageKey(address, gen, slotKey === undefined ? fromHex(slotHex) : typeof slotKey === 'bigint' ? wordBytes(slotKey) : slotKey);
      const v = this.maps.storage.get(key) ?? EMPTY;
      s = { key, value: v, base: v, dirty: false, orig: v, origTx: 0 };
      this.storage.set(k, s);
    }
    return s;
  }

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    return this.getStorageSync(address.bytes, key);
  }

  getStorageSync(address: Uint8Array, key: Uint8Array): Uint8Array {
    if (key.length !== 32) throw new Error('Storage key must be 32 bytes long');
    const rec = this.getAccountRecord(address);
    if (rec === undefined) return EMPTY;
    return this.storageSlot(address, rec.gen, key).value;
  }

  private originalStorageSync(address: Uint8Array, key: Uint8Array): Uint8Array {
    const rec = this.getAccountRecord(address);
    if (rec === undefined) return EMPTY;
    const s = this.storageSlot(address, rec.gen, key);
    return s.origTx === this.txSeq ? s.orig : s.value;
  }

  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    // EthereumJS's own SSTORE (the stock loop): its gas left is not known here
    if (this.storeWatch !== undefined) this.storeWatch.unknownStore = true;
    if (key.length !== 32) throw new Error('Storage key must be 32 bytes long');
    if (value.length > 32) throw new Error('Storage value cannot be longer than 32 bytes');
    const a = this.accountSlot(address.bytes);
    const rec = a.rec;
    if (rec === null || !rec.exists) throw new Error('putStorage() called on a non-existing account');
    this.writeStorage(a, rec, this.storageSlot(address.bytes, rec.gen, key), value);
  }

  /**
   * Synchronous slot access for the interpreter's SLOAD/SSTORE path, keyed by the unprefixed hex of the
   * address and of the 32-byte slot (the strings EthereumJS's warm-slot journal uses too, so they are
   * built once). undefined when the account does not exist: the caller then takes EthereumJS's path.
   */
  /** `slot` is the key as a word, `slotHex` the same as 64 hex digits (the journal's key, built by the caller anyway). */
  storageRefSync(address: Uint8Array, addrHex: string, slotHex: string, slot: bigint): StorageRef | undefined {
    const a = this.accountSlot(address);
    const rec = a.rec;
    if (rec === null || !rec.exists) return undefined;
    return { a, s: this.storageSlotHex(address, addrHex, rec.gen, slotHex, slot) };
  }

  currentStorageOf(ref: StorageRef): Uint8Array {
    return ref.s.value;
  }

  /** Value at the start of the transaction (what originalStorageCache.get answers). */
  originalStorageOf(ref: StorageRef): Uint8Array {
    return ref.s.origTx === this.txSeq ? ref.s.orig : ref.s.value;
  }

  /**
   * putStorage for a ref from storageRefSync; valid only until the next state change. True when the account's
   * record changed too (its storage presence): only then does a re-read of the account differ.
   */
  putStorageSync(ref: StorageRef, value: Uint8Array, owned = false): boolean {
    const rec = ref.a.rec;
    if (rec === null || !rec.exists) throw new Error('putStorage() called on a non-existing account');
    const w = this.storeWatch;
    if (w !== undefined) {
      // original = current != new: the slot's first change in the transaction
      const cur = unpad(ref.s.value);
      w.lastIsFirstChange = bytesEqual(unpad(this.originalStorageOf(ref)), cur) && !bytesEqual(cur, unpad(value));
    }
    return this.writeStorage(ref.a, rec, ref.s, value, owned);
  }

  /** `owned`: `value` is a fresh array without leading zeros that nothing else keeps (kept as it is, not copied). */
  private writeStorage(a: AccountSlot, rec: AccountRecord, s: StorageSlot, value: Uint8Array, owned = false): boolean {
    if (s.origTx !== this.txSeq) {
      s.orig = s.value;
      s.origTx = this.txSeq;
    }
    const v = owned ? value : unpad(value);
    this.journal.push({ s, value: s.value, dirty: s.dirty });
    s.value = v.length === 0 ? EMPTY : owned ? v : v.slice();
    s.dirty = true;
    if (v.length === 0 || rec.hasStorage) return false;
    this.writeAccount(a, { ...rec, hasStorage: true });
    return true;
  }

  async clearStorage(address: Address): Promise<void> {
    const a = this.accountSlot(address.bytes);
    const rec = a.rec;
    if (rec === null || !rec.exists || !rec.hasStorage) return;
    this.writeAccount(a, { ...rec, gen: rec.gen + 1, hasStorage: false });
  }

  // ---- checkpoints ----

  async checkpoint(): Promise<void> {
    this.checkpointSync();
  }

  async commit(): Promise<void> {
    this.commitSync();
  }

  async revert(): Promise<void> {
    this.revertSync();
  }

  // Synchronous forms, for the engine's own call frames (call_frame.ts), which avoid a promise per step.
  checkpointSync(): void {
    this.marks.push(this.journal.length);
  }

  commitSync(): void {
    this.marks.pop();
  }

  revertSync(): void {
    const m = this.marks.pop();
    this.undoTo(m ?? 0);
  }

  private undoTo(length: number): void {
    const j = this.journal;
    for (let i = j.length - 1; i >= length; i--) {
      const e = j[i]!;
      if ('a' in e) {
        e.a.rec = e.rec;
        e.a.dirty = e.dirty;
      } else {
        e.s.value = e.value;
        e.s.dirty = e.dirty;
      }
    }
    j.length = length;
  }

  mark(): StateMark {
    // At depth 0 nothing can revert past this point, so the journal so far is no longer needed.
    if (this.marks.length === 0) this.journal.length = 0;
    return { journalLength: this.journal.length, depth: this.marks.length };
  }

  /** Undo everything since `mark`, including checkpoints EthereumJS left open when execution was aborted. */
  rollbackTo(mark: StateMark): void {
    this.undoTo(mark.journalLength);
    this.marks.length = mark.depth;
    this.txSeq++;
  }

  // ---- block lifecycle ----

  hasPendingWrites(): boolean {
    for (const a of this.accounts.values()) if (a.dirty) return true;
    for (const s of this.storage.values()) if (s.dirty) return true;
    return false;
  }

  /** Drops every uncommitted write (abortBlock, or after eth_call). */
  discard(): void {
    this.accounts = new Map();
    this.storage = new Map();
    this.newCode = new Map();
    this.journal = [];
    this.marks = [];
    this.txSeq++;
  }

  headStateRoot(): Uint8Array {
    return headStateRootOf(this.maps.accounts);
  }

  /** Writes the block's net changes to the KvMaps and advances the state root (see the header comment). */
  commitToMaps(commitment: CommitmentVersion): Uint8Array {
    // W is sized first and written once (no part arrays), and both key sets are ordered by the native string
    // sort of the cache's keys, which sort like the map keys (block.finalize.instructions_per_storage_write).
    let total = 0;
    const accounts: AccountSlot[] = [];
    const encoded: (Uint8Array | undefined)[] = [];
    const referencedCode: Uint8Array[] = [];
    for (const k of [...this.accounts.keys()].sort()) {
      const a = this.accounts.get(k)!;
      if (!a.dirty) continue;
      const enc = a.rec === null ? undefined : encodeAccount(a.rec);
      if (enc === undefined ? a.base === undefined : a.base !== undefined && bytesEqual(enc, a.base)) continue;
      if (enc === undefined) this.maps.accounts.remove(a.address);
      else this.maps.accounts.insert(a.address, enc);
      if (a.rec?.codeHash !== undefined) referencedCode.push(a.rec.codeHash);
      accounts.push(a);
      encoded.push(enc);
      total += 23 + (enc?.length ?? 0);
    }
    for (const h of referencedCode) {
      const k = toHex(h);
      const code = this.newCode.get(k);
      if (code === undefined) continue;
      if (!this.maps.code.containsKey(h)) this.maps.code.insert(h, code);
      this.codeCache.set(k, code);
      this.hooks.codeStored?.(code);
    }
    const storageKeys: string[] = [];
    for (const [k, s] of this.storage) if (s.dirty && s.value !== s.base && !bytesEqual(s.value, s.base)) storageKeys.push(k);
    storageKeys.sort();
    const slots: StorageSlot[] = [];
    for (const k of storageKeys) {
      const s = this.storage.get(k)!;
      if (s.value.length === 0) this.maps.storage.remove(s.key);
      else this.maps.storage.insert(s.key, s.value);
      slots.push(s);
      total += 58 + s.value.length;
    }
    this.discard();
    const parent = this.headStateRoot();
    if (total === 0) return parent;
    const w = new Uint8Array(total);
    let o = 0;
    for (let i = 0; i < accounts.length; i++) {
      const enc = encoded[i];
      const len = enc?.length ?? 0;
      w[o] = 0x01;
      w.set(accounts[i]!.address, o + 1);
      w[o + 21] = len >> 8;
      w[o + 22] = len & 0xff;
      if (enc !== undefined) w.set(enc, o + 23);
      o += 23 + len;
    }
    for (const s of slots) {
      w[o] = 0x02;
      w.set(s.key, o + 1);
      w[o + 57] = s.value.length;
      w.set(s.value, o + 58);
      o += 58 + s.value.length;
    }
    const root = chainedRoot(parent, w, commitment);
    this.maps.accounts.insert(STATE_ROOT_KEY, root);
    headRoots.set(this.maps.accounts, root);
    return root;
  }

  // ---- StateManagerInterface odds and ends ----

  async getStateRoot(): Promise<Uint8Array> {
    return this.headStateRoot();
  }
  async setStateRoot(root: Uint8Array): Promise<void> {
    if (!bytesEqual(root, this.headStateRoot())) throw new Error('flat state keeps only the head state');
  }
  async hasStateRoot(root: Uint8Array): Promise<boolean> {
    return bytesEqual(root, this.headStateRoot());
  }
  async flush(): Promise<void> {}
  clearCaches(): void {}
  shallowCopy(): FlatStateManager {
    return new FlatStateManager(this.maps, this.hooks, this.codeCache);
  }
}

/**
 * The head state root by accounts map, kept in the heap: commitToMaps and chainStateChanges are its only writers (a
 * trap or a devnet state restore rolls the heap back with the map), and a block reads it once.
 */
const headRoots = new WeakMap<KvMap, Uint8Array>();

function headStateRootOf(accounts: KvMap): Uint8Array {
  let root = headRoots.get(accounts);
  if (root === undefined) {
    root = accounts.get(STATE_ROOT_KEY) ?? ZERO_ROOT;
    headRoots.set(accounts, root);
  }
  return root;
}

/** Reads an account record from the committed maps, bypassing any block cache (head queries). */
export function readHeadAccount(accounts: KvMap, address: Uint8Array): AccountRecord | undefined {
  const raw = accounts.get(address);
  if (raw === undefined) return undefined;
  const rec = decodeAccount(raw);
  return rec.exists ? rec : undefined;
}

/**
 * Chains a block's state changes (export/state_changes.ts: writes made outside any transaction, already in the
 * maps) into the state root: root = H(root || H(encoded list)). Their block's commitToMaps then chains its
 * transactions' writes on top.
 */
export function chainStateChanges(accounts: KvMap, encoded: Uint8Array, commitment: CommitmentVersion): Uint8Array {
  const root = chainedRoot(headStateRootOf(accounts), encoded, commitment);
  accounts.insert(STATE_ROOT_KEY, root);
  headRoots.set(accounts, root);
  return root;
}
