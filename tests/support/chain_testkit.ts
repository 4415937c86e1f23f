// Shared helpers for the chain/tx/mempool unit tests: a deterministic test double of ExecutionEngine,
// signing helpers over @ethereumjs/tx, and a core factory.

import type { AccountChange } from '../../src/core/export/state_changes.js';
import { createCustomCommon, Mainnet } from '@ethereumjs/common';
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../../src/core/crypto.js';
import { CHAIN_ID, DEFAULT_MIN_GAS_PRICE } from '../../src/core/constants.js';
import type { BlockEnv, ExecLog, ExecTx, ExecutionEngine, IncludedOutcome, TxOutcome } from '../../src/core/engine.js';
import { ErrorCode } from '../../src/core/errors.js';
import { MemoryCoreHost } from '../../src/core/host.js';
import { EvmCore, type ChainInitArgs, type EvmCoreOptions } from '../../src/core/index.js';
import { bigintToMinBytes, toHex } from '../../src/core/codec/bytes.js';
import { intrinsicGas } from '../../src/core/tx/intrinsic.js';

export const common = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, { hardfork: 'prague' });
export const otherCommon = createCustomCommon({ chainId: 1 }, Mainnet, { hardfork: 'prague' });

export const GWEI = 1_000_000_000n;
export const PRICE = DEFAULT_MIN_GAS_PRICE; // 250 gwei
export const ETH = 10n ** 18n;

export interface Key {
  readonly priv: Uint8Array;
  readonly address: Uint8Array;
}

export function key(seed: number): Key {
  const priv = keccak256(new TextEncoder().encode(`test-key-${seed}`));
  const pub = secp256k1.getPublicKey(priv, false).subarray(1);
  return { priv, address: keccak256(pub).slice(12) };
}

export const addr = (n: number): Uint8Array => {
  const a = new Uint8Array(20);
  a[0] = 0xaa;
  a[19] = n;
  return a;
};

export interface TxOpts {
  nonce?: bigint;
  to?: Uint8Array | null;
  value?: bigint;
  gasLimit?: bigint;
  data?: Uint8Array;
  maxFee?: bigint;
  tip?: bigint;
  gasPrice?: bigint;
  accessList?: [Uint8Array, Uint8Array[]][];
}

export function sign1559(k: Key, o: TxOpts = {}, c = common): Uint8Array {
  return createFeeMarket1559Tx(
    {
      nonce: o.nonce ?? 0n,
      to: o.to === null ? undefined : (o.to ?? addr(1)),
      value: o.value ?? 1n,
      gasLimit: o.gasLimit ?? 21000n,
      data: o.data ?? new Uint8Array(0),
      maxFeePerGas: o.maxFee ?? 2n * PRICE,
      maxPriorityFeePerGas: o.tip ?? PRICE,
      accessList: o.accessList ?? [],
    },
    { common: c, allowUnlimitedInitCodeSize: true },
  )
    .sign(k.priv)
    .serialize();
}

export function sign2930(k: Key, o: TxOpts = {}, c = common): Uint8Array {
  return createAccessList2930Tx(
    {
      nonce: o.nonce ?? 0n,
      to: o.to === null ? undefined : (o.to ?? addr(1)),
      value: o.value ?? 1n,
      gasLimit: o.gasLimit ?? 21000n,
      data: o.data ?? new Uint8Array(0),
      gasPrice: o.gasPrice ?? PRICE,
      accessList: o.accessList ?? [],
    },
    { common: c },
  )
    .sign(k.priv)
    .serialize();
}

export function signLegacy(k: Key, o: TxOpts = {}, c = common): Uint8Array {
  return createLegacyTx(
    {
      nonce: o.nonce ?? 0n,
      to: o.to === null ? undefined : (o.to ?? addr(1)),
      value: o.value ?? 1n,
      gasLimit: o.gasLimit ?? 21000n,
      data: o.data ?? new Uint8Array(0),
      gasPrice: o.gasPrice ?? PRICE,
    },
    { common: c },
  )
    .sign(k.priv)
    .serialize();
}

/** Data prefix understood by FakeEngine: emit data[1] logs. */
export const LOG_MARK = 0x1e;
/** Data prefix understood by FakeEngine: fail (status 0, all gas used). */
export const FAIL_MARK = 0xee;
export const TOPIC_A = keccak256(new TextEncoder().encode('Transfer(address,address,uint256)'));

/**
 * Deterministic ExecutionEngine double: balances and nonces in heap maps, value transfers, EIP-1559
 * fee charging, logs and failures driven by marker bytes, a fixed instruction cost per tx.
 */
export class FakeEngine implements ExecutionEngine {
  balances = new Map<string, bigint>();
  nonces = new Map<string, bigint>();
  env: BlockEnv | undefined;
  snapshot: [Map<string, bigint>, Map<string, bigint>] | undefined;
  root: Uint8Array = new Uint8Array(32);
  executed: ExecTx[] = [];
  rejectNext: string | undefined;

  constructor(
    readonly host: MemoryCoreHost,
    public instructionsPerTx = 0n,
  ) {}

  beginBlock(env: BlockEnv): void {
    this.env = env;
    this.snapshot = [new Map(this.balances), new Map(this.nonces)];
  }

  async runTx(tx: ExecTx): Promise<TxOutcome> {
    const env = this.env!;
    this.host.instructions += this.instructionsPerTx;
    const from = toHex(tx.from);
    if (this.rejectNext !== undefined) {
      this.rejectNext = undefined;
      return { kind: 'rejected', code: ErrorCode.SubmitInsufficientFunds, message: 'forced rejection' };
    }
    const nonce = this.nonces.get(from) ?? 0n;
    if (tx.nonce !== nonce) return { kind: 'rejected', code: ErrorCode.SubmitNonceTooLow, message: 'nonce mismatch' };
    if (tx.maxFeePerGas < env.baseFeePerGas) return { kind: 'rejected', code: ErrorCode.SubmitInvalidFee, message: 'fee below base' };
    const price = tx.maxFeePerGas < env.baseFeePerGas + tx.maxPriorityFeePerGas ? tx.maxFeePerGas : env.baseFeePerGas + tx.maxPriorityFeePerGas;
    const bal = this.balances.get(from) ?? 0n;
    if (bal < tx.gasLimit * price + tx.value) return { kind: 'rejected', code: ErrorCode.SubmitInsufficientFunds, message: 'balance' };
    this.executed.push(tx);
    const fail = tx.data[0] === FAIL_MARK;
    const gasUsed = fail ? tx.gasLimit : intrinsicGas({ ...tx, chainId: CHAIN_ID });
    this.nonces.set(from, nonce + 1n);
    this.balances.set(from, bal - gasUsed * price - (fail ? 0n : tx.value));
    const cb = toHex(env.coinbase);
    this.balances.set(cb, (this.balances.get(cb) ?? 0n) + gasUsed * (price - env.baseFeePerGas));
    let contractAddress: Uint8Array | undefined;
    const logs: ExecLog[] = [];
    if (!fail) {
      const to = tx.to ?? (contractAddress = keccak256(RLP.encode([tx.from, bigintToMinBytes(nonce)])).slice(12));
      this.balances.set(toHex(to), (this.balances.get(toHex(to)) ?? 0n) + tx.value);
      if (tx.data[0] === LOG_MARK) {
        for (let i = 0; i < (tx.data[1] ?? 0); i++) {
          logs.push({ address: to, topics: [TOPIC_A, new Uint8Array(32).fill(i)], data: Uint8Array.of(i, 1, 2) });
        }
      }
    }
    const out: IncludedOutcome = {
      kind: 'included',
      status: fail ? 0 : 1,
      gasUsed,
      logs,
      contractAddress,
      returnData: new Uint8Array(0),
      failure: fail ? { code: ErrorCode.ExecReverted, message: 'reverted' } : undefined,
      instructions: this.instructionsPerTx,
    };
    return out;
  }

  async commitBlock(): Promise<{ stateRoot: Uint8Array }> {
    this.snapshot = undefined;
    this.root = keccak256(Uint8Array.of(...this.root, Number(this.env!.number & 0xffn)));
    return { stateRoot: this.root };
  }

  abortBlock(): void {
    if (this.snapshot !== undefined) [this.balances, this.nonces] = this.snapshot;
    this.snapshot = undefined;
  }

  async call(): Promise<IncludedOutcome> {
    throw new Error('not used');
  }

  getBalance(a: Uint8Array): bigint {
    return this.balances.get(toHex(a)) ?? 0n;
  }
  getNonce(a: Uint8Array): bigint {
    return this.nonces.get(toHex(a)) ?? 0n;
  }
  readonly codes = new Map<string, Uint8Array>();
  getCode(a: Uint8Array): Uint8Array {
    return this.codes.get(toHex(a)) ?? new Uint8Array(0);
  }
  getStorage(): Uint8Array {
    return new Uint8Array(32);
  }
  setGenesisBalance(a: Uint8Array, b: bigint): void {
    this.balances.set(toHex(a), b);
  }
  setGenesisCode(a: Uint8Array, code: Uint8Array): void {
    this.codes.set(toHex(a), code);
  }
  /** Balance, nonce and code only (this double keeps no storage). */
  applyStateChange(c: AccountChange): void {
    const k = toHex(c.address);
    if (c.balance !== undefined) this.balances.set(k, c.balance);
    if (c.nonce !== undefined) this.nonces.set(k, c.nonce);
    if (c.code !== undefined) this.codes.set(k, c.code);
  }
  chainStateChanges(encoded: Uint8Array): Uint8Array {
    this.root = keccak256(Uint8Array.of(...this.root, ...keccak256(encoded)));
    return this.root;
  }
}

export interface Setup {
  host: MemoryCoreHost;
  engine: FakeEngine;
  core: EvmCore;
}

export async function setup(init: ChainInitArgs = {}, opts: EvmCoreOptions = {}): Promise<Setup> {
  const host = new MemoryCoreHost();
  const engine = new FakeEngine(host);
  const core = new EvmCore(host, engine, opts);
  const r = await core.init(init);
  if (!r.ok) throw new Error(r.error.message);
  return { host, engine, core };
}

export function okValue<T>(r: { ok: true; value: T } | { ok: false; error: { code: string; message: string } }): T {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}

export function errCode(r: { ok: boolean; error?: { code: string } }): string | undefined {
  return r.ok ? undefined : r.error!.code;
}

export const principal = (n: number): Uint8Array => Uint8Array.of(0x0a, 0, 0, 0, 0, 0, n >> 8, n & 255, 1, 1);
export const CANISTER = Uint8Array.of(0, 0, 0, 0, 0, 0x10, 0, 1, 1, 1);

/**
 * Signs a type-2 transaction by hand (RLP + noble), for field combinations EthereumJS refuses to build
 * (priority fee above max fee), so the core's own fee rule is what rejects them.
 */
export function signRaw1559(k: Key, f: { nonce: bigint; maxFee: bigint; tip: bigint; gasLimit: bigint; to: Uint8Array; value: bigint }): Uint8Array {
  const n = bigintToMinBytes;
  const fields = [n(CHAIN_ID), n(f.nonce), n(f.tip), n(f.maxFee), n(f.gasLimit), f.to, n(f.value), new Uint8Array(0), []];
  const hash = keccak256(Uint8Array.of(2, ...RLP.encode(fields)));
  const sig = secp256k1.Signature.fromBytes(secp256k1.sign(hash, k.priv, { prehash: false, format: 'recovered' }), 'recovered');
  return Uint8Array.of(2, ...RLP.encode([...fields, n(BigInt(sig.recovery!)), n(sig.r), n(sig.s)]));
}
