// An EthereumJS state manager over the archived state after block N: reads come from a StateSource (the
// history tables), writes stay in memory with an undo journal for checkpoints, and are discarded with the
// manager. Historical eth_call / eth_estimateGas run stock EthereumJS on it; tracers can too (shared interface C:
// stateAt(N - 1), then the block's earlier transactions).
import type { AccountFields, StateManagerInterface } from '@ethereumjs/common';
import { OriginalStorageCache } from '@ethereumjs/statemanager';
import { Account, type Address, KECCAK256_NULL, KECCAK256_RLP, bytesToHex } from '@ethereumjs/util';
import { keccak256 } from '../core/crypto.js';
import { unpad } from '../core/evm/encoding.js';
import type { StateSource } from './history_source.js';

/** Reported as an account's storageRoot when it may hold storage (EIP-7610 only tests non-emptiness). */
const STORAGE_PRESENT_ROOT = new Uint8Array(32).fill(0x5a);
const EMPTY = new Uint8Array(0);

interface AccountEntry {
  account: Account | undefined;
  /** The archived storage generation (undefined: no archived storage is visible, e.g. after clearStorage). */
  gen: number | undefined;
}

export class HistoryStateManager implements StateManagerInterface {
  private readonly accounts = new Map<string, AccountEntry>();
  private readonly slots = new Map<string, Uint8Array>();
  /** Code by hash (hex). */
  private readonly codes = new Map<string, Uint8Array>();
  private journal: (() => void)[] = [];
  private marks: number[] = [];
  readonly originalStorageCache: OriginalStorageCache;

  constructor(private readonly source: StateSource) {
    this.originalStorageCache = new OriginalStorageCache(this.getStorage.bind(this));
  }

  private async entry(address: Address): Promise<AccountEntry> {
    const k = address.toString();
    let e = this.accounts.get(k);
    if (e === undefined) {
      const rec = await this.source.account(address.bytes);
      e = rec === undefined
        ? { account: undefined, gen: undefined }
        : { account: new Account(rec.nonce, rec.balance, rec.hasStorage ? STORAGE_PRESENT_ROOT : KECCAK256_RLP, rec.codeHash ?? KECCAK256_NULL, rec.codeSize), gen: rec.hasStorage ? rec.gen : undefined };
      this.accounts.set(k, e);
    }
    return e;
  }

  private setEntry(address: Address, next: AccountEntry): void {
    const k = address.toString();
    const prev = this.accounts.get(k);
    this.journal.push(() => (prev === undefined ? this.accounts.delete(k) : this.accounts.set(k, prev)));
    this.accounts.set(k, next);
  }

  async getAccount(address: Address): Promise<Account | undefined> {
    const a = (await this.entry(address)).account;
    return a === undefined ? undefined : new Account(a.nonce, a.balance, a.storageRoot, a.codeHash, a.codeSize);
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    const e = await this.entry(address);
    this.setEntry(address, { account: account === undefined ? undefined : new Account(account.nonce, account.balance, account.storageRoot, account.codeHash, account.codeSize), gen: account === undefined ? undefined : e.gen });
  }

  async deleteAccount(address: Address): Promise<void> {
    await this.entry(address);
    this.setEntry(address, { account: undefined, gen: undefined });
    this.dropSlots(address);
  }

  async modifyAccountFields(address: Address, f: AccountFields): Promise<void> {
    const a = (await this.getAccount(address)) ?? new Account();
    a.nonce = f.nonce ?? a.nonce;
    a.balance = f.balance ?? a.balance;
    a.codeHash = f.codeHash ?? a.codeHash;
    a.codeSize = f.codeSize ?? a.codeSize;
    a.storageRoot = f.storageRoot ?? a.storageRoot;
    await this.putAccount(address, a);
  }

  async getCode(address: Address): Promise<Uint8Array> {
    const a = (await this.entry(address)).account;
    if (a === undefined || a.codeHash.length === 0 || equal(a.codeHash, KECCAK256_NULL)) return EMPTY;
    // Code is content-addressed: cached by hash, so an account's code always follows its current code hash.
    const k = bytesToHex(a.codeHash);
    let code = this.codes.get(k);
    if (code === undefined) {
      code = await this.source.code(a.codeHash);
      this.codes.set(k, code);
    }
    return code;
  }

  async putCode(address: Address, code: Uint8Array): Promise<void> {
    const hash = code.length === 0 ? KECCAK256_NULL : keccak256(code);
    if (code.length > 0) this.codes.set(bytesToHex(hash), code);
    const a = (await this.getAccount(address)) ?? new Account();
    a.codeHash = hash;
    a.codeSize = code.length;
    await this.putAccount(address, a);
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const sk = `${address.toString()}_${bytesToHex(key)}`;
    const own = this.slots.get(sk);
    if (own !== undefined) return own;
    const e = await this.entry(address);
    const v = e.account === undefined || e.gen === undefined ? EMPTY : await this.source.storage(address.bytes, e.gen, key);
    this.slots.set(sk, v);
    return v;
  }

  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    const sk = `${address.toString()}_${bytesToHex(key)}`;
    await this.getStorage(address, key);
    const prev = this.slots.get(sk);
    this.journal.push(() => (prev === undefined ? this.slots.delete(sk) : this.slots.set(sk, prev)));
    this.slots.set(sk, unpad(value).slice());
  }

  async clearStorage(address: Address): Promise<void> {
    const e = await this.entry(address);
    this.setEntry(address, { account: e.account, gen: undefined });
    this.dropSlots(address);
  }

  /** Every slot of this address reads zero from now on (the generation is gone; cached values are dropped). */
  private dropSlots(address: Address): void {
    const prefix = `${address.toString()}_`;
    for (const [k, v] of [...this.slots]) {
      if (!k.startsWith(prefix)) continue;
      this.journal.push(() => this.slots.set(k, v));
      this.slots.set(k, EMPTY);
    }
  }

  async checkpoint(): Promise<void> {
    this.marks.push(this.journal.length);
  }
  async commit(): Promise<void> {
    this.marks.pop();
  }
  async revert(): Promise<void> {
    const to = this.marks.pop() ?? 0;
    while (this.journal.length > to) this.journal.pop()!();
  }

  async flush(): Promise<void> {}
  clearCaches(): void {}
  async getStateRoot(): Promise<Uint8Array> {
    throw new Error('the archive keeps no state trie');
  }
  async setStateRoot(): Promise<void> {
    throw new Error('the archive keeps no state trie');
  }
  async hasStateRoot(): Promise<boolean> {
    return false;
  }
  shallowCopy(): StateManagerInterface {
    return new HistoryStateManager(this.source);
  }
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

