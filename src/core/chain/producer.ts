// Block production (the mining timer calls this every DEFAULT_MINING_INTERVAL_MS).
//
// Selection: classic per-sender nonce queues + a max-heap over each sender's next executable tx, keyed
// by effective tip (min(priority, maxFee - baseFee)) descending, ties by arrival (tx_id sequence).
// A sender's tx is eligible only when its nonce is the sender's next nonce and maxFee >= base fee.
// Stops at MAX_TXS_PER_BLOCK, or when the instruction counter, read before each tx, has passed the
// soft limit (DESIGN rule 4). A tx whose gasLimit does not fit in the remaining block gas is skipped
// for this block and blocks its sender's later nonces; everything not taken stays queued in order.
// Pending txs with a nonce below the account nonce, and txs the engine rejects, are Dropped with the code.
// No empty blocks: if nothing is pending, or nothing could be included, no block is made.

import { MAX_TXS_PER_BLOCK, NOT_EXECUTABLE_LIFETIME_NS } from '../constants.js';
import { FINALIZE_INSTRUCTIONS_PER_LOG, FINALIZE_INSTRUCTIONS_PER_TX, finalizeInstructionsPerLogByte } from '../ops/limits.js';
import type { BlockEnv, ExecLog, ExecTx, ExecutionEngine, TxOutcome } from '../engine.js';
import { ErrorCode } from '../errors.js';
import type { CoreHost, KvMap } from '../host.js';
import { toHex } from '../codec/bytes.js';
import { rlpListLength, rlpStringLength } from '../codec/rlp.js';
import type { PendingEntry, PendingPool } from '../mempool/pool.js';
import { decodeStoredTx, storedTxFields, type StoredTx } from '../tx/stored.js';
import { TxOrigin, type TxFields } from '../tx/types.js';
import { BLOOM_BYTES, BloomHasher, EMPTY_BLOOM, orInto } from './bloom.js';
import { receiptsRoot, transactionsRoot, type CommitmentVersion } from './commitments.js';
import { computeEffectiveGasPrice, computeNextBaseFee, effectiveTip } from './fees.js';
import { groupTips } from './fee_summary.js';
import { encodeHeader, headerHash } from './header.js';
import type { MetaStore } from './meta.js';
import type { ChainStore, StoredLog, StoredReceipt } from './store.js';
import type { PendingStateChanges } from '../dev/pending_changes.js';

export type ProduceResult =
  | { readonly kind: 'NotInitialized' }
  | { readonly kind: 'Busy' }
  | { readonly kind: 'NoPending' }
  /** Transactions were pending but none could be included now (nonce gaps, base fee, drops). */
  | { readonly kind: 'NoBlock'; readonly dropped: number }
  | {
      readonly kind: 'Produced';
      readonly number: bigint;
      readonly hash: Uint8Array;
      readonly txCount: number;
      readonly gasUsed: bigint;
      readonly dropped: number;
      /** Why selection stopped: 'exhausted' (nothing eligible left), 'max_txs', 'soft_limit'. */
      readonly stop: 'exhausted' | 'max_txs' | 'soft_limit';
      /** Instructions each included transaction spent executing, in block order (the devnet prints them). */
      readonly txInstructions: readonly { readonly ethHash: Uint8Array; readonly instructions: bigint }[];
      /** Finalisation reserved for the included transactions (finalizeCost summed), and what it took: from the end of selection to the return. */
      readonly finalizeReserved: bigint;
      readonly finalizeInstructions: bigint;
    };

export interface ProducerDeps {
  /** Development cheats waiting for the next block (a production canister never has any). */
  readonly stateChanges?: PendingStateChanges;
  readonly host: CoreHost;
  readonly engine: ExecutionEngine;
  readonly pool: PendingPool;
  readonly meta: MetaStore;
  readonly store: ChainStore;
  readonly txs: KvMap;
}

interface Candidate {
  readonly entry: PendingEntry;
  readonly tip: bigint;
  /** Its sender's key in the pool's queues (the hex of 20 bytes is a loop in the canister: made once a sender). */
  readonly key: string;
  /** Its position in that queue, where the sender's next nonce is looked for first. */
  readonly at: number;
}

/** Max-heap: higher tip first, then lower arrival sequence. */
class CandidateHeap {
  private readonly a: Candidate[] = [];
  private static before(x: Candidate, y: Candidate): boolean {
    return x.tip !== y.tip ? x.tip > y.tip : x.entry.seq < y.entry.seq;
  }
  get size(): number {
    return this.a.length;
  }
  push(c: Candidate): void {
    const a = this.a;
    a.push(c);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!CandidateHeap.before(a[i]!, a[p]!)) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }
  pop(): Candidate | undefined {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && CandidateHeap.before(a[l]!, a[m]!)) m = l;
        if (r < a.length && CandidateHeap.before(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}

interface Included {
  readonly entry: PendingEntry;
  readonly key: string;
  readonly raw: Uint8Array;
  readonly origin: TxOrigin;
  readonly type: 0 | 1 | 2;
  readonly receipt: StoredReceipt;
  readonly logs: readonly ExecLog[];
  readonly instructions: bigint;
}


/** Instructions finalising one included transaction with these logs will take on a chain of this commitment version (ops/limits.ts). */
export function finalizeCost(logs: readonly ExecLog[], v: CommitmentVersion): bigint {
  if (logs.length === 0) return FINALIZE_INSTRUCTIONS_PER_TX;
  let bytes = 0;
  for (let i = 0; i < logs.length; i++) bytes += logs[i]!.data.length + 32 * logs[i]!.topics.length;
  return FINALIZE_INSTRUCTIONS_PER_TX + FINALIZE_INSTRUCTIONS_PER_LOG * BigInt(logs.length) + finalizeInstructionsPerLogByte(v) * BigInt(bytes);
}

/** One bloom memo for every block (bloom.ts): a pure function's, so sharing it changes no bloom. */
const bloomHasher = new BloomHasher();

/** Chains (by their Meta store) with a production in flight: overlapping timer callbacks must not interleave. */
const producing = new WeakSet<MetaStore>();

/** `allowEmpty`: produce a block even with nothing to include (the devnet's evm_mine; the timer never does). */
export async function produceBlock(d: ProducerDeps, opts: { readonly allowEmpty?: boolean } = {}): Promise<ProduceResult> {
  if (producing.has(d.meta)) return { kind: 'Busy' };
  producing.add(d.meta);
  try {
    return await produce(d, opts.allowEmpty === true);
  } finally {
    producing.delete(d.meta);
  }
}

async function produce(d: ProducerDeps, allowEmpty: boolean): Promise<ProduceResult> {
  const { host, engine, pool, meta, store } = d;
  const head = meta.getHead();
  if (head === undefined) return { kind: 'NotInitialized' };
  // The pool's sender queues mirror its Pending map in the heap (no stable-memory call to count it).
  const queues = pool.senderQueues();
  if (queues.size === 0 && !allowEmpty) return { kind: 'NoPending' };

  const cfg = meta.getConfig();
  const baseFee = meta.getNextBaseFee();
  const nowS = host.timeNs() / 1_000_000_000n;
  const env: BlockEnv = {
    number: head.number + 1n,
    timestamp: nowS > head.timestamp ? nowS : head.timestamp + 1n,
    baseFeePerGas: baseFee,
    gasLimit: cfg.blockGasLimit,
    coinbase: cfg.coinbase,
    prevRandao: head.hash,
    parentHash: head.hash,
  };

  // Seed the heap with each sender's next executable tx. On the way (docs/execution.md "Pool rules"): drop
  // stale nonces, transactions that can never be included (gas limit above the block gas limit, max fee
  // below the minimum gas price) and not-executable ones past their lifetime; mark the not-executable rest.
  let dropped = 0;
  const heap = new CandidateHeap();
  const nowNs = host.timeNs();
  pool.notExecutable.clear();
  for (const [k, q] of [...queues.entries()]) {
    let n: bigint;
    try {
      n = engine.getNonce(q[0]!.sender);
    } catch {
      // An unreadable account record: its sender's transactions cannot be ordered; they go, mining goes on.
      for (const e of [...q]) pool.drop(e, ErrorCode.PoolDroppedFaulty);
      dropped += q.length;
      continue;
    }
    let expected = n;
    let runnable = true;
    for (const e of [...q]) {
      const code =
        e.nonce < n ? ErrorCode.SubmitNonceTooLow
        : e.gasLimit > cfg.blockGasLimit ? ErrorCode.SubmitGasLimitExceedsBlock
        : e.maxFeePerGas < cfg.minGasPrice ? ErrorCode.SubmitInvalidFee
        : undefined;
      if (code !== undefined) {
        pool.drop(e, code);
        dropped++;
        continue;
      }
      runnable = runnable && e.nonce === expected && e.maxFeePerGas >= baseFee;
      expected = e.nonce + 1n;
      if (runnable) continue;
      if (nowNs - e.arrivalNs > NOT_EXECUTABLE_LIFETIME_NS) {
        pool.drop(e, ErrorCode.PoolExpired);
        dropped++;
      } else pool.notExecutable.set(toHex(e.txId), e);
    }
    const first = queues.get(k)?.[0];
    if (first !== undefined && first.nonce === n && first.maxFeePerGas >= baseFee) {
      heap.push({ entry: first, tip: effectiveTip(first.maxFeePerGas, first.maxPriorityFeePerGas, baseFee), key: k, at: 0 });
    }
  }
  if (heap.size === 0 && !allowEmpty) return { kind: 'NoBlock', dropped };

  // Fixed at install: the receipts commitment's hash, and so what a log byte reserves.
  const commitment = d.meta.getCommitmentVersion();
  engine.beginBlock(env);
  const included: Included[] = [];
  let gasUsed = 0n;
  let logCount = 0;
  let finalizeReserve = 0n;
  let stop: 'exhausted' | 'max_txs' | 'soft_limit' = 'exhausted';
  const hasher = bloomHasher;
  try {
    for (;;) {
      if (included.length >= MAX_TXS_PER_BLOCK) {
        stop = 'max_txs';
        break;
      }
      // The finalisation work of the transactions taken so far is reserved inside the soft limit.
      if (host.instructionCounter() + finalizeReserve >= cfg.instructionSoftLimit) {
        stop = 'soft_limit';
        break;
      }
      const c = heap.pop();
      if (c === undefined) break;
      const e = c.entry;
      if (e.gasLimit > cfg.blockGasLimit - gasUsed) continue; // waits for the next block, with its sender's later nonces
      const stored = d.txs.get(e.txId);
      if (stored === undefined) {
        pool.drop(e, ErrorCode.Internal);
        dropped++;
        continue;
      }
      let tx: StoredTx, fields: TxFields, out: TxOutcome;
      try {
        tx = decodeStoredTx(stored);
        fields = storedTxFields(tx);
        const exec: ExecTx = {
          type: fields.type,
          from: tx.from,
          to: fields.to,
          nonce: fields.nonce,
          value: fields.value,
          data: fields.data,
          gasLimit: fields.gasLimit,
          maxFeePerGas: fields.maxFeePerGas,
          maxPriorityFeePerGas: fields.maxPriorityFeePerGas,
          accessList: fields.accessList,
        };
        out = await engine.runTx(exec);
      } catch {
        // One bad record (or an engine fault on one transaction) must not halt mining: otherwise the same
        // transaction comes first again on every tick. The engine rolls EVM effects back itself; what throws
        // here is decoding or a check before execution, which changes nothing.
        pool.drop(e, ErrorCode.PoolDroppedFaulty);
        dropped++;
        continue;
      }
      if (out.kind === 'rejected') {
        pool.drop(e, out.code);
        dropped++;
        continue;
      }
      gasUsed += out.gasUsed;
      // The engine returns the bloom EthereumJS computed anyway; recompute only if it did not.
      const bloom = out.logs.length === 0 ? EMPTY_BLOOM : (out.logsBloom ?? hasher.logsBloom(out.logs));
      included.push({
        entry: e,
        key: c.key,
        raw: tx.raw,
        origin: tx.origin,
        type: fields.type,
        logs: out.logs,
        instructions: out.instructions,
        receipt: {
          status: out.status,
          gasUsed: out.gasUsed,
          cumulativeGasUsed: gasUsed,
          effectiveGasPrice: computeEffectiveGasPrice(fields.maxFeePerGas, fields.maxPriorityFeePerGas, baseFee)!,
          contractAddress: out.contractAddress,
          firstLogIndex: logCount,
          logCount: out.logs.length,
          logsBloom: bloom,
          failureCode: out.status === 1 ? '' : (out.failure?.code ?? ErrorCode.ExecReverted),
        },
      });
      logCount += out.logs.length;
      finalizeReserve += finalizeCost(out.logs, commitment);
      const nn = e.nonce + 1n;
      const q = queues.get(c.key);
      // The included entries stay in their queue until the pool is updated after commit: the queue is in nonce
      // order, so the next nonce is right after this entry (a search from the head made a sender's k-th
      // transaction of a block cost k steps); anything else takes the search.
      let at = c.at + 1;
      let next = q?.[c.at] === e ? q[at] : undefined;
      if (next === undefined || next.nonce !== nn) {
        at = q === undefined ? -1 : q.findIndex((x) => x.nonce === nn);
        next = at < 0 ? undefined : q![at];
      }
      if (next !== undefined && next.maxFeePerGas >= baseFee) {
        heap.push({ entry: next, tip: effectiveTip(next.maxFeePerGas, next.maxPriorityFeePerGas, baseFee), key: c.key, at });
      }
    }
  } catch (e) {
    engine.abortBlock();
    throw e;
  }
  if (included.length === 0 && !allowEmpty) {
    engine.abortBlock();
    return { kind: 'NoBlock', dropped };
  }
  const finalizeStart = host.instructionCounter();
  // Cheats since the last block are this block's state changes: chained into the root before its transactions' writes.
  const stateChanges = d.stateChanges?.pending();
  if (stateChanges !== undefined) engine.chainStateChanges(stateChanges);
  const { stateRoot } = await engine.commitBlock();

  // Header, roots and bloom.
  // A block without logs keeps the shared empty bloom (encodeHeader skips copying it).
  let blockBloom = EMPTY_BLOOM;
  const logs: StoredLog[] = [];
  let txBytes = 0;
  included.forEach((inc, i) => {
    if (inc.logs.length > 0) orInto(blockBloom === EMPTY_BLOOM ? (blockBloom = new Uint8Array(BLOOM_BYTES)) : blockBloom, inc.receipt.logsBloom);
    for (const l of inc.logs) logs.push({ address: l.address, topics: l.topics, data: l.data, txIndex: i });
    // Legacy txs embed as RLP lists; typed envelopes and IcSynthetic canonical bytes as byte strings.
    txBytes += inc.origin === TxOrigin.EthSigned && inc.type === 0 ? inc.raw.length : rlpStringLength(inc.raw.length, inc.raw[0]);
  });
  const header = {
    parentHash: head.hash,
    coinbase: cfg.coinbase,
    stateRoot,
    transactionsRoot: transactionsRoot(included.map((x) => x.entry.ethHash), commitment),
    receiptsRoot: receiptsRoot(included.map((x) => ({ status: x.receipt.status, cumulativeGasUsed: x.receipt.cumulativeGasUsed, logs: x.logs })), commitment),
    logsBloom: blockBloom,
    number: env.number,
    gasLimit: cfg.blockGasLimit,
    gasUsed,
    timestamp: env.timestamp,
    mixHash: env.prevRandao,
    baseFeePerGas: baseFee,
  };
  const encodedHeader = encodeHeader(header);
  const hash = headerHash(encodedHeader);
  // [header, transactions, ommers = [], withdrawals = []]
  const size = rlpListLength(encodedHeader.length + rlpListLength(txBytes) + 1 + 1);

  store.putBlock(
    { ...header, hash, size, txs: included.map((x) => ({ txId: x.entry.txId, ethHash: x.entry.ethHash })), ...(stateChanges !== undefined ? { stateChanges } : {}) },
    logs,
  );
  if (stateChanges !== undefined) d.stateChanges!.clear();
  store.putFeeSummary(env.number, {
    baseFeePerGas: baseFee,
    gasUsed,
    gasLimit: cfg.blockGasLimit,
    tips: groupTips(included.map((x) => ({ tip: x.receipt.effectiveGasPrice - baseFee, gasUsed: x.receipt.gasUsed }))),
  });
  for (const inc of included) store.putReceipt(inc.entry.txId, inc.receipt);
  pool.removeIncluded(included.map((x) => x.entry), env.number, hash, included.map((x) => x.key));
  meta.setHead({ number: env.number, hash, timestamp: env.timestamp });
  meta.setNextBaseFee(computeNextBaseFee(baseFee, gasUsed, cfg.blockGasLimit, cfg.minGasPrice));
  const txInstructions = included.map((x) => ({ ethHash: x.entry.ethHash, instructions: x.instructions }));
  const finalizeInstructions = host.instructionCounter() - finalizeStart;
  return { kind: 'Produced', number: env.number, hash, txCount: included.length, gasUsed, dropped, stop, txInstructions, finalizeReserved: finalizeReserve, finalizeInstructions };
}
