// The replay-and-verify engine: re-executes each exported block's transactions with stock EthereumJS
// (@ethereumjs/vm runTx, Prague, the block's own context) on the archive's head state, and checks every
// result the canister exported: each receipt (status, gas used, cumulative gas, effective gas price, contract
// address, logs), the block's gas used, transactionsRoot, receiptsRoot, PREVRANDAO and the stateRoot (the hash
// chain of net state changes), each by the block's own commitment version (core/chain/commitments.ts, carried
// in the export). The first difference is returned as a Mismatch; after one the replayer's state
// is unusable (the follower stops).
//
// Two halts are the canister's own and cannot be re-derived by a reference EVM: a transaction that ran out of
// its instruction budget (exec.halt.instruction_budget) or reached a precompile before its warm-up
// (exec.halt.precompile_not_ready). For those the replay applies the documented outcome (docs/execution.md:
// every effect undone, nonce bumped, all gas charged) on the canister's word; the stateRoot still checks the
// result. The log limits (exec.halt.too_many_logs / too_many_log_bytes) are re-derived.
//
// Each transaction's call tree is captured as it runs (./call_capture.ts, message-level hooks only) and turned
// into its internal transactions and contract creators, stored with the block (./store.ts, ./internal_rows.ts).
import { type RunTxResult, type VM, runTx } from '@ethereumjs/vm';
// The same keccak as core's, about nine times faster in Node (core's is written for the canister's QuickJS).
import { keccak_256 } from '@noble/hashes/sha3.js';
import { KECCAK256_NULL, bigIntToBytes, generateAddress } from '@ethereumjs/util';
import type { ExportedBlock } from '../core/export/decode.js';
import { FlatStateManager, STATE_ROOT_KEY, chainStateChanges, readHeadAccount } from '../core/evm/state.js';
import { applyAccountChangeToMaps } from '../core/evm/account_change.js';
import { encodeAccount } from '../core/evm/encoding.js';
import { receiptsRoot, transactionsRoot } from '../core/chain/commitments.js';
import { MAX_LOG_BYTES_PER_TX, MAX_LOGS_PER_TX } from '../core/constants.js';
import { ErrorCode } from '../core/errors.js';
import { keccak256 } from '../core/crypto.js';
import { bytesEqual, concatBytes } from '../core/codec/bytes.js';
import { TxOrigin } from '../core/tx/types.js';
import type { ExecLog } from '../core/engine.js';
import type { KvMap } from '../core/host.js';
import { archiveTxCommon, createArchiveVm, ethBlockOf, type BlockContext } from './evm_context.js';
import { HeadState, type StateWrites } from './head_state.js';
import { hex, type Mismatch } from './mismatch.js';
import { replayTxOf } from './replay_tx.js';
import { CallCapture } from './call_capture.js';
import { internalTransactions } from './trace/internal_txs.js';
import type { Frame } from './trace/frames.js';
import type { ContractCreatorRow, InternalTxRow } from './internal_rows.js';

/** Halts decided by the canister's instruction counter or warm-up state: replayed on the canister's word. */
const UNREPRODUCIBLE_HALTS = new Set<string>([ErrorCode.ExecInstructionBudget, ErrorCode.ExecHaltPrecompileNotReady]);

export interface ReplayedBlock {
  readonly context: BlockContext;
  readonly writes: StateWrites;
  readonly stateRoot: Uint8Array;
  readonly txCount: number;
  /** Every frame below each transaction's top call (./internal_rows.ts), in transaction and depth-first order. */
  readonly internalTxs: readonly InternalTxRow[];
  /** Every creation of the block that lasted: the transactions' own and those made by contracts. */
  readonly creators: readonly ContractCreatorRow[];
}

export type ReplayResult = { readonly ok: true; readonly block: ReplayedBlock } | { readonly ok: false; readonly mismatch: Mismatch };

/** A genesis allocation or genesis code entry, in the order the canister applied them. */
export type GenesisEntry = { readonly address: Uint8Array; readonly balance: bigint } | { readonly address: Uint8Array; readonly code: Uint8Array };

interface Outcome {
  status: 0 | 1;
  gasUsed: bigint;
  logs: ExecLog[];
  contractAddress: Uint8Array | undefined;
}

/**
 * Watches the replay's EVM (the devnet's console.log printer): `attach` once with the VM's EVM, `afterTx` after
 * each executed transaction. It observes only; what it sees changes nothing of the replay.
 */
export interface TxObserver {
  attach(evm: VM['evm']): void;
  afterTx(blockNumber: bigint, txHash: Uint8Array): void;
}

export class Replayer {
  /** Set before the first replay (the follower passes its option on). */
  observer: TxObserver | undefined;
  private readonly sm: FlatStateManager;
  private vm: VM | undefined;
  private readonly capture = new CallCapture();
  private current: BlockContext | undefined;
  /** Hashes of the last 256 blocks replayed (BLOCKHASH). */
  private readonly hashes = new Map<bigint, Uint8Array>();

  constructor(readonly state: HeadState = new HeadState()) {
    this.sm = new FlatStateManager({ accounts: state.accounts, code: state.code, storage: state.storage });
  }

  /** Hashes of blocks already replayed (after a restart: the 256 below the next block). */
  rememberHash(n: bigint, hash: Uint8Array): void {
    this.hashes.set(n, hash);
    this.hashes.delete(n - 257n);
  }

  private blockHash = (n: bigint): Uint8Array | undefined => this.hashes.get(n);

  private fallbackGenesis: readonly GenesisEntry[] = [];

  /**
   * Genesis state for a stream whose block 0 lists no state changes (format 1, or a chain installed before
   * format 2): applied before block 0 only if it lists none, each entry chained into the state root one at a
   * time as such a canister's init did.
   */
  setFallbackGenesis(entries: readonly GenesisEntry[]): void {
    this.fallbackGenesis = entries;
  }

  applyGenesis(entries: readonly GenesisEntry[]): void {
    const accounts = this.state.accounts;
    for (const e of entries) {
      const prev = readHeadAccount(accounts, e.address);
      let enc: Uint8Array;
      if ('balance' in e) {
        enc = encodeAccount(prev !== undefined ? { ...prev, balance: e.balance } : { exists: true, nonce: 0n, balance: e.balance, codeHash: undefined, codeSize: 0, gen: 0, hasStorage: false });
      } else {
        const codeHash = keccak256(e.code);
        if (!this.state.code.containsKey(codeHash)) this.state.code.insert(codeHash, e.code.slice());
        enc = encodeAccount({ exists: true, nonce: prev !== undefined && prev.nonce > 1n ? prev.nonce : 1n, balance: prev?.balance ?? 0n, codeHash, codeSize: e.code.length, gen: prev?.gen ?? 0, hasStorage: prev?.hasStorage ?? false });
      }
      accounts.insert(e.address, enc);
      chainOneWrite(accounts, e.address, enc);
    }
  }

  contextOf(b: ExportedBlock['block']): BlockContext {
    return { number: b.number, hash: b.hash, parentHash: b.parentHash, timestamp: b.timestamp, baseFeePerGas: b.baseFeePerGas, gasLimit: b.gasLimit, coinbase: b.coinbase, prevRandao: b.parentHash, blockHash: this.blockHash };
  }

  async replay(eb: ExportedBlock): Promise<ReplayResult> {
    if (this.vm === undefined) {
      this.vm = await createArchiveVm(this.sm as never, () => this.current);
      this.capture.attach(this.vm.evm);
      this.observer?.attach(this.vm.evm);
    }
    const vm = this.vm;
    const b = eb.block;
    const ctx = this.contextOf(b);
    this.current = ctx;
    const bad = (field: string, exported: unknown, replayed: unknown, txIndex?: number): ReplayResult => ({
      ok: false,
      mismatch: { block: b.number, txIndex, txHash: txIndex === undefined ? undefined : hex(eb.txs[txIndex]!.ethHash), field, exported: String(exported), replayed: String(replayed) },
    });
    // State changes (genesis in block 0, development cheats later) apply before the first transaction; the root
    // commits to their exact encoded bytes (docs/execution.md "State and its commitment").
    const maps = { accounts: this.state.accounts, code: this.state.code, storage: this.state.storage };
    if (eb.stateChanges.length > 0) {
      for (const c of eb.stateChanges) applyAccountChangeToMaps(maps, c);
      chainStateChanges(this.state.accounts, b.stateChanges!, b.commitment);
    } else if (b.number === 0n && this.fallbackGenesis.length > 0) this.applyGenesis(this.fallbackGenesis);
    if (!bytesEqual(b.mixHash, ctx.prevRandao)) return bad('block.mixHash (PREVRANDAO = parent hash)', hex(b.mixHash), hex(ctx.prevRandao));
    const ethBlock = ethBlockOf(ctx);
    const common = archiveTxCommon();
    const outcomes: Outcome[] = [];
    const internalTxs: InternalTxRow[] = [];
    const creators: ContractCreatorRow[] = [];
    let cumulative = 0n;
    for (let i = 0; i < eb.txs.length; i++) {
      const et = eb.txs[i]!;
      const rc = eb.receipts[i]!;
      if (et.origin === TxOrigin.EthSigned && !bytesEqual(keccak_256(et.raw), et.ethHash)) return bad('tx.ethHash', hex(et.ethHash), hex(keccak_256(et.raw)), i);
      let rt;
      try {
        rt = replayTxOf(et, common);
      } catch (e) {
        return bad('tx (does not parse)', 'a transaction', (e as Error).message, i);
      }
      const f = rt.fields;
      const price = f.type === 2 ? min(f.maxFeePerGas, b.baseFeePerGas + f.maxPriorityFeePerGas) : f.maxFeePerGas;
      const mark = this.sm.mark();
      this.sm.originalStorageCache.clear();
      let out: Outcome;
      const creation = f.to === undefined ? generateAddress(rt.from, bigIntToBytes(f.nonce)) : undefined;
      if (rc.status === 0 && UNREPRODUCIBLE_HALTS.has(rc.failureCode)) {
        out = this.settleHalted(rt.from, f.gasLimit, price, ctx, creation);
      } else {
        let res: RunTxResult;
        let root;
        this.capture.begin();
        try {
          res = await runTx(vm, { tx: rt.tx, block: ethBlock, skipHardForkValidation: true, blockGasUsed: cumulative });
          this.observer?.afterTx(b.number, et.ethHash);
        } catch (e) {
          this.sm.rollbackTo(mark);
          return bad('execution', `included (status ${rc.status})`, `rejected: ${(e as Error).message.split('\n')[0]}`, i);
        } finally {
          root = this.capture.end();
        }
        const logs: ExecLog[] = (res.execResult.logs ?? []).map(([address, topics, data]) => ({ address, topics, data }));
        if (logs.length > MAX_LOGS_PER_TX || logBytes(logs) > MAX_LOG_BYTES_PER_TX) {
          this.sm.rollbackTo(mark);
          out = this.settleHalted(rt.from, f.gasLimit, price, ctx, creation);
        } else {
          out = { status: res.execResult.exceptionError === undefined ? 1 : 0, gasUsed: res.totalGasSpent, logs, contractAddress: creation };
          if (root !== undefined) rowsOf(root, b.number, i, et.ethHash, rt.from, out.status === 1 ? creation : undefined, internalTxs, creators);
        }
      }
      cumulative += out.gasUsed;
      outcomes.push(out);
      const m = compareReceipt(rc, out, cumulative, price);
      if (m !== undefined) return bad(m[0], m[1], m[2], i);
    }
    if (b.gasUsed !== cumulative) return bad('block.gasUsed', b.gasUsed, cumulative);
    const txRoot = transactionsRoot(eb.txs.map((t) => t.ethHash), b.commitment);
    if (!bytesEqual(txRoot, b.transactionsRoot)) return bad('block.transactionsRoot', hex(b.transactionsRoot), hex(txRoot));
    const rRoot = receiptsRoot(outcomes.map((o, i) => ({ status: o.status, cumulativeGasUsed: eb.receipts[i]!.cumulativeGasUsed, logs: o.logs })), b.commitment);
    if (!bytesEqual(rRoot, b.receiptsRoot)) return bad('block.receiptsRoot', hex(b.receiptsRoot), hex(rRoot));
    const stateRoot = this.sm.commitToMaps(b.commitment);
    const writes = this.state.takeWrites();
    if (!bytesEqual(stateRoot, b.stateRoot)) return bad('block.stateRoot', hex(b.stateRoot), hex(stateRoot));
    this.rememberHash(b.number, b.hash);
    return { ok: true, block: { context: ctx, writes, stateRoot, txCount: eb.txs.length, internalTxs, creators } };
  }

  /** The canister's halt: effects undone (by the caller), nonce bumped, the whole gas limit charged, the tip paid. */
  private settleHalted(from: Uint8Array, gasLimit: bigint, price: bigint, ctx: BlockContext, creation: Uint8Array | undefined): Outcome {
    const sender = this.sm.getAccountRecord(from);
    const fee = gasLimit * price;
    const balance = (sender?.balance ?? 0n) - fee;
    this.sm.putAccountSync(from, (sender?.nonce ?? 0n) + 1n, balance < 0n ? 0n : balance, sender?.codeHash ?? KECCAK256_NULL);
    const tip = gasLimit * (price - ctx.baseFeePerGas);
    if (tip > 0n) {
      const cb = this.sm.getAccountRecord(ctx.coinbase);
      this.sm.putAccountSync(ctx.coinbase, cb?.nonce ?? 0n, (cb?.balance ?? 0n) + tip, cb?.codeHash ?? KECCAK256_NULL);
    }
    this.sm.originalStorageCache.clear();
    return { status: 0, gasUsed: gasLimit, logs: [], contractAddress: creation };
  }
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/**
 * A transaction's rows: one per frame below its top call, and a creator row for each creation that lasted (its
 * own, with an empty trace address and the sender as creator, and each CREATE/CREATE2 not undone, created by
 * the contract that ran it). A halted transaction (every effect undone by the canister's rule) has none.
 */
function rowsOf(root: Frame, block: bigint, txIndex: number, txHash: Uint8Array, sender: Uint8Array, created: Uint8Array | undefined, internal: InternalTxRow[], creators: ContractCreatorRow[]): void {
  if (created !== undefined) creators.push({ address: created, block, txIndex, txHash, traceAddress: [], creator: sender });
  if (root.calls.length === 0) return;
  for (const t of internalTransactions(root)) {
    internal.push({ block, txIndex, txHash, ...t });
    if ((t.type === 'CREATE' || t.type === 'CREATE2') && !t.reverted && t.to !== undefined) {
      creators.push({ address: t.to, block, txIndex, txHash, traceAddress: t.traceAddress, creator: t.from });
    }
  }
}

function logBytes(logs: readonly ExecLog[]): number {
  let n = 0;
  for (const l of logs) n += l.data.length + 32 * l.topics.length;
  return n;
}

type Diff = [field: string, exported: string, replayed: string];

function compareReceipt(rc: ExportedBlock['receipts'][number], o: Outcome, cumulative: bigint, price: bigint): Diff | undefined {
  if (rc.status !== o.status) return ['receipt.status', String(rc.status), String(o.status)];
  if (rc.gasUsed !== o.gasUsed) return ['receipt.gasUsed', String(rc.gasUsed), String(o.gasUsed)];
  if (rc.cumulativeGasUsed !== cumulative) return ['receipt.cumulativeGasUsed', String(rc.cumulativeGasUsed), String(cumulative)];
  if (rc.effectiveGasPrice !== price) return ['receipt.effectiveGasPrice', String(rc.effectiveGasPrice), String(price)];
  const ca = rc.contractAddress;
  if (ca === undefined ? o.contractAddress !== undefined : o.contractAddress === undefined || !bytesEqual(ca, o.contractAddress)) {
    return ['receipt.contractAddress', hex(ca), hex(o.contractAddress)];
  }
  if (rc.logs.length !== o.logs.length) return ['receipt.logs.length', String(rc.logs.length), String(o.logs.length)];
  for (let j = 0; j < o.logs.length; j++) {
    const a = rc.logs[j]!;
    const r = o.logs[j]!;
    if (!bytesEqual(a.address, r.address)) return [`receipt.logs[${j}].address`, hex(a.address), hex(r.address)];
    if (a.topics.length !== r.topics.length) return [`receipt.logs[${j}].topics.length`, String(a.topics.length), String(r.topics.length)];
    for (let k = 0; k < r.topics.length; k++) if (!bytesEqual(a.topics[k]!, r.topics[k]!)) return [`receipt.logs[${j}].topics[${k}]`, hex(a.topics[k]), hex(r.topics[k])];
    if (!bytesEqual(a.data, r.data)) return [`receipt.logs[${j}].data`, hex(a.data), hex(r.data)];
  }
  return undefined;
}

/** One out-of-block write chained into the root as a one-entry block (how genesis was chained before format 2). */
function chainOneWrite(accounts: KvMap, address: Uint8Array, enc: Uint8Array): void {
  const parent = accounts.get(STATE_ROOT_KEY) ?? new Uint8Array(32);
  const w = concatBytes(Uint8Array.of(0x01), address, Uint8Array.of(enc.length >> 8, enc.length & 0xff), enc);
  // Nothing has read the root yet when genesis is applied, so the state manager's cached root cannot be stale.
  accounts.insert(STATE_ROOT_KEY, keccak256(concatBytes(parent, keccak256(w))));
}
