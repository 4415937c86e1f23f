// geth's prestateTracer (eth/tracers/native/prestate.go): the accounts and storage slots a transaction
// touched, as they were when first touched (sender, callee and coinbase before the fee is bought); with
// `diffMode`, `pre` and `post` of what changed. Lookups happen when geth makes them: at the start for the
// sender, callee and coinbase, and at each opcode that names an account or a slot.
import type { InterpreterStep } from '@ethereumjs/evm';
import { Address, KECCAK256_NULL, createAddressFromString, equalsBytes, generateAddress2, setLengthLeft } from '@ethereumjs/util';
import { addressHex, bigToBytes, bytesHex, memorySlice, quantity, stackAddress, word } from './hex.js';
import { createdAddress, type Tracer, type TxContext } from './run.js';
import type { PrestateTracerConfig } from './types.js';

interface Acct {
  balance: bigint;
  nonce: bigint;
  code: Uint8Array;
  codeHash: Uint8Array | undefined;
  storage: Map<string, string>;
  /** No nonce, code or balance when first looked up (geth leaves such accounts out unless includeEmpty). */
  empty: boolean;
}

export interface PrestateAccountJson {
  balance?: string;
  code?: string;
  codeHash?: string;
  nonce?: number;
  storage?: Record<string, string>;
}
export type PrestateJson = Record<string, PrestateAccountJson>;

const ZERO_WORD = word(0n);
const DELEGATION = [0xef, 0x01, 0x00];

export class PrestateTracer implements Tracer {
  private readonly pre = new Map<string, Acct>();
  private readonly post = new Map<string, PrestateAccountJson>();
  private readonly created = new Set<string>();
  private readonly deleted = new Set<string>();

  constructor(private readonly config: PrestateTracerConfig) {}

  async txStart(ctx: TxContext): Promise<void> {
    if (ctx.isCreate) this.created.add(addressHex(ctx.to));
    else await this.lookupDelegate(ctx, ctx.to);
    await this.lookup(ctx, ctx.from);
    await this.lookup(ctx, ctx.to);
    await this.lookup(ctx, ctx.block.coinbase);
    const auths = (ctx.tx as { authorizationList?: unknown[] }).authorizationList;
    if (auths !== undefined && auths.length > 0) {
      const authorities = (ctx.tx as unknown as { authorities?: () => Address[] }).authorities;
      for (const a of authorities?.call(ctx.tx) ?? []) await this.lookup(ctx, a.bytes);
    }
  }

  async step(s: InterpreterStep, ctx: TxContext): Promise<void> {
    const op = s.opcode.name;
    const st = s.stack;
    const n = st.length;
    const me = s.address.bytes;
    if (n >= 1 && (op === 'SLOAD' || op === 'SSTORE')) {
      await this.lookupStorage(ctx, me, st[n - 1]!);
    } else if (n >= 1 && (op === 'EXTCODECOPY' || op === 'EXTCODEHASH' || op === 'EXTCODESIZE' || op === 'BALANCE' || op === 'SELFDESTRUCT')) {
      await this.lookup(ctx, stackAddress(st[n - 1]!));
      if (op === 'SELFDESTRUCT' && this.created.has(addressHex(me))) this.deleted.add(addressHex(me));
    } else if (n >= 5 && (op === 'DELEGATECALL' || op === 'CALL' || op === 'STATICCALL' || op === 'CALLCODE')) {
      const target = stackAddress(st[n - 2]!);
      await this.lookup(ctx, target);
      await this.lookupDelegate(ctx, target);
    } else if (op === 'CREATE') {
      const nonce = (await ctx.sm.getAccount(new Address(me)))?.nonce ?? 0n;
      const addr = createdAddress(me, nonce);
      await this.lookup(ctx, addr);
      this.created.add(addressHex(addr));
    } else if (n >= 4 && op === 'CREATE2') {
      const init = memorySlice(s.memory, st[n - 2]!, st[n - 3]!);
      const addr = generateAddress2(me, setLengthLeft(bigToBytes(st[n - 4]!, 32), 32), init);
      await this.lookup(ctx, addr);
      this.created.add(addressHex(addr));
    }
  }

  async txEnd(_r: unknown, ctx: TxContext): Promise<void> {
    if (this.config.diffMode === true) await this.diff(ctx);
  }

  result(): PrestateJson | { post: PrestateJson; pre: PrestateJson } {
    const pre: PrestateJson = {};
    for (const [a, acct] of this.pre) {
      if (this.config.includeEmpty !== true && acct.empty) continue;
      pre[a] = this.accountJson(acct);
    }
    if (this.config.diffMode !== true) return pre;
    return { post: Object.fromEntries(this.post), pre };
  }

  private accountJson(a: Acct): PrestateAccountJson {
    const out: PrestateAccountJson = { balance: quantity(a.balance) };
    if (this.config.disableCode !== true && a.code.length > 0) out.code = bytesHex(a.code);
    if (a.codeHash !== undefined) out.codeHash = bytesHex(a.codeHash);
    if (a.nonce !== 0n) out.nonce = Number(a.nonce);
    if (this.config.disableStorage !== true && a.storage.size > 0) out.storage = Object.fromEntries(a.storage);
    return out;
  }

  private async lookup(ctx: TxContext, address: Uint8Array): Promise<void> {
    const key = addressHex(address);
    if (this.pre.has(key)) return;
    const addr = new Address(address);
    const acct = await ctx.sm.getAccount(addr);
    const code = acct === undefined ? new Uint8Array(0) : await ctx.sm.getCode(addr);
    const hash = acct?.codeHash;
    this.pre.set(key, {
      balance: acct?.balance ?? 0n,
      nonce: acct?.nonce ?? 0n,
      code,
      codeHash: hash !== undefined && !equalsBytes(hash, KECCAK256_NULL) ? hash : undefined,
      storage: new Map(),
      empty: (acct?.nonce ?? 0n) === 0n && code.length === 0 && (acct?.balance ?? 0n) === 0n,
    });
  }

  /** An EIP-7702 delegated account's target is looked up too. */
  private async lookupDelegate(ctx: TxContext, address: Uint8Array): Promise<void> {
    const code = await ctx.sm.getCode(new Address(address));
    if (code.length === 23 && DELEGATION.every((b, i) => code[i] === b)) await this.lookup(ctx, code.subarray(3));
  }

  private async lookupStorage(ctx: TxContext, address: Uint8Array, slot: bigint): Promise<void> {
    if (this.config.disableStorage === true) return;
    const a = this.pre.get(addressHex(address));
    if (a === undefined) return;
    const k = word(slot);
    if (a.storage.has(k)) return;
    const v = await ctx.sm.getStorage(new Address(address), bigToBytes(slot, 32));
    a.storage.set(k, bytesHex(setLengthLeft(v, 32)));
  }

  private async diff(ctx: TxContext): Promise<void> {
    for (const [key, pre] of [...this.pre]) {
      if (this.deleted.has(key)) continue;
      const addr = createAddressFromString(key);
      const acct = await ctx.sm.getAccount(addr);
      const post: PrestateAccountJson = {};
      let modified = false;
      const balance = acct?.balance ?? 0n;
      const nonce = acct?.nonce ?? 0n;
      if (balance !== pre.balance) {
        modified = true;
        post.balance = quantity(balance);
      }
      if (nonce !== pre.nonce) {
        modified = true;
        post.nonce = Number(nonce);
      }
      const newHash = acct?.codeHash ?? KECCAK256_NULL;
      if (!equalsBytes(newHash, pre.codeHash ?? KECCAK256_NULL)) {
        modified = true;
        post.codeHash = bytesHex(newHash);
      }
      if (this.config.disableCode !== true) {
        const code = acct === undefined ? new Uint8Array(0) : await ctx.sm.getCode(addr);
        if (!equalsBytes(code, pre.code)) {
          modified = true;
          post.code = bytesHex(code);
        }
      }
      if (this.config.disableStorage !== true) {
        const changed: Record<string, string> = {};
        for (const [slot, val] of [...pre.storage]) {
          if (val === ZERO_WORD) pre.storage.delete(slot);
          const now = bytesHex(setLengthLeft(await ctx.sm.getStorage(addr, hexBytes(slot)), 32));
          if (now === val) pre.storage.delete(slot);
          else {
            modified = true;
            if (now !== ZERO_WORD) changed[slot] = now;
          }
        }
        if (Object.keys(changed).length > 0) post.storage = changed;
      }
      if (modified) this.post.set(key, post);
      else this.pre.delete(key);
    }
  }
}

const hexBytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
