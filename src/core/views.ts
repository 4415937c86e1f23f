// Read views: everything an Ethereum JSON-RPC response needs, as plain TS values (bigint, Uint8Array,
// discriminated unions) that the Candid layer maps 1:1. Builders read stores by point gets only.

import type { Address, Bytes32 } from './engine.js';
import type { ErrorCode } from './errors.js';
import type { KvMap } from './host.js';
import { decodeStoredTx, storedFields, type StoredTx, type TxStatus } from './tx/stored.js';
import { TxOrigin, type AccessList } from './tx/types.js';
import {
  EMPTY_OMMERS_HASH,
  EMPTY_REQUESTS_HASH,
  PARENT_BEACON_BLOCK_ROOT,
  WITHDRAWALS_ROOT,
  ZERO_NONCE,
} from './chain/header.js';
import type { ChainStore, StoredBlock, StoredLog, StoredReceipt } from './chain/store.js';
import type { PendingPool } from './mempool/pool.js';
import { BLOCK_RECEIPTS_PAGE_MAX_LOG_BYTES, BLOCK_RECEIPTS_PAGE_MAX_LOGS, BLOCK_RECEIPTS_PAGE_MAX_RECEIPTS } from './constants.js';

export interface EthLogView {
  readonly address: Address;
  readonly topics: readonly Bytes32[];
  readonly data: Uint8Array;
  readonly blockNumber: bigint;
  readonly blockHash: Bytes32;
  readonly transactionHash: Bytes32;
  readonly transactionIndex: number;
  /** Ordinal of the log within the block. */
  readonly logIndex: number;
  readonly removed: false;
}

export interface EthTxView {
  /** eth_tx_hash. */
  readonly hash: Bytes32;
  /** Internal key; not part of Ethereum's shape. */
  readonly txId: Uint8Array;
  readonly origin: 'EthSigned' | 'IcSynthetic' | 'Impersonated';
  readonly type: 0 | 1 | 2;
  readonly chainId: bigint;
  readonly nonce: bigint;
  readonly from: Address;
  readonly to: Address | undefined;
  readonly value: bigint;
  readonly input: Uint8Array;
  readonly gas: bigint;
  /** Types 0/1: the gas price. Type 2: the effective gas price once included, else maxFeePerGas (as geth). */
  readonly gasPrice: bigint;
  /** Type 2 only. */
  readonly maxFeePerGas: bigint | undefined;
  readonly maxPriorityFeePerGas: bigint | undefined;
  /** Types 1 and 2 only. */
  readonly accessList: AccessList | undefined;
  /** IcSynthetic: 0, 0, 0 (no signature). */
  readonly v: bigint;
  readonly r: bigint;
  readonly s: bigint;
  /** Types 1 and 2 only. */
  readonly yParity: 0 | 1 | undefined;
  /** undefined while pending. */
  readonly blockHash: Bytes32 | undefined;
  readonly blockNumber: bigint | undefined;
  readonly transactionIndex: number | undefined;
}

export interface EthReceiptView {
  readonly transactionHash: Bytes32;
  readonly txId: Uint8Array;
  readonly transactionIndex: number;
  readonly blockHash: Bytes32;
  readonly blockNumber: bigint;
  readonly from: Address;
  readonly to: Address | undefined;
  readonly type: 0 | 1 | 2;
  /** 1 success, 0 failure. */
  readonly status: 0 | 1;
  readonly gasUsed: bigint;
  readonly cumulativeGasUsed: bigint;
  readonly effectiveGasPrice: bigint;
  readonly contractAddress: Address | undefined;
  readonly logs: readonly EthLogView[];
  readonly logsBloom: Uint8Array;
  /** Why status is 0 (exec.reverted, exec.halt.*); undefined on success. Not part of Ethereum's shape. */
  readonly failureCode: string | undefined;
}

export interface EthBlockView {
  readonly number: bigint;
  readonly hash: Bytes32;
  readonly parentHash: Bytes32;
  readonly nonce: Uint8Array; // 8 zero bytes
  readonly sha3Uncles: Bytes32;
  readonly logsBloom: Uint8Array;
  readonly transactionsRoot: Bytes32;
  readonly stateRoot: Bytes32;
  readonly receiptsRoot: Bytes32;
  readonly miner: Address;
  readonly difficulty: bigint;
  readonly totalDifficulty: bigint;
  readonly extraData: Uint8Array;
  readonly size: bigint;
  readonly gasLimit: bigint;
  readonly gasUsed: bigint;
  readonly timestamp: bigint;
  readonly baseFeePerGas: bigint;
  readonly mixHash: Bytes32;
  readonly withdrawalsRoot: Bytes32;
  readonly blobGasUsed: bigint;
  readonly excessBlobGas: bigint;
  readonly parentBeaconBlockRoot: Bytes32;
  readonly requestsHash: Bytes32;
  readonly uncles: readonly Bytes32[];
  readonly withdrawals: readonly never[];
  readonly transactions: { readonly kind: 'Hashes'; readonly hashes: readonly Bytes32[] } | { readonly kind: 'Full'; readonly txs: readonly EthTxView[] };
}

export type PendingStatusView =
  | { readonly kind: 'Queued' }
  | { readonly kind: 'Included'; readonly blockNumber: bigint; readonly txIndex: number }
  | { readonly kind: 'Dropped'; readonly code: ErrorCode }
  | { readonly kind: 'Unknown' };

/** Pruned variants are modelled now; pruning (a later issue) will produce them. */
export type RpcReceiptLookupView =
  | { readonly kind: 'NotFound' }
  | { readonly kind: 'Found'; readonly receipt: EthReceiptView }
  | { readonly kind: 'PossiblyPruned'; readonly prunedBeforeBlock: bigint }
  | { readonly kind: 'Pruned'; readonly prunedBeforeBlock: bigint };

export type RpcBlockLookupView =
  | { readonly kind: 'NotFound' }
  | { readonly kind: 'Found'; readonly block: EthBlockView }
  | { readonly kind: 'Pruned'; readonly prunedBeforeBlock: bigint };

/**
 * One page of a block's receipts (eth_getBlockReceipts), with the block's number and hash so a by-hash caller
 * knows both. `nextIndex` is the transaction index the next page starts at; undefined on the last page.
 */
export interface EthBlockReceiptsPageView {
  readonly blockNumber: bigint;
  readonly blockHash: Bytes32;
  readonly transactionCount: number;
  readonly receipts: readonly EthReceiptView[];
  readonly nextIndex: number | undefined;
}

export type RpcBlockReceiptsLookupView =
  | { readonly kind: 'NotFound' }
  | { readonly kind: 'Found'; readonly page: EthBlockReceiptsPageView }
  | { readonly kind: 'Pruned'; readonly prunedBeforeBlock: bigint };

export interface ViewDeps {
  readonly pool: PendingPool;
  readonly store: ChainStore;
  readonly txs: KvMap;
}

function loadTx(d: ViewDeps, txId: Uint8Array): StoredTx | undefined {
  const b = d.txs.get(txId);
  return b === undefined ? undefined : decodeStoredTx(b);
}

export function txView(tx: StoredTx, txId: Uint8Array, status: TxStatus | undefined, receiptPrice?: bigint): EthTxView {
  const { fields: f, sig } = storedFields(tx);
  const included = status?.kind === 'Included' ? status : undefined;
  return {
    hash: tx.ethHash,
    txId,
    origin: tx.origin === TxOrigin.IcSynthetic ? 'IcSynthetic' : tx.origin === TxOrigin.Impersonated ? 'Impersonated' : 'EthSigned',
    type: f.type,
    chainId: f.chainId,
    nonce: f.nonce,
    from: tx.from,
    to: f.to,
    value: f.value,
    input: f.data,
    gas: f.gasLimit,
    gasPrice: f.type === 2 ? (receiptPrice ?? f.maxFeePerGas) : f.maxFeePerGas,
    maxFeePerGas: f.type === 2 ? f.maxFeePerGas : undefined,
    maxPriorityFeePerGas: f.type === 2 ? f.maxPriorityFeePerGas : undefined,
    accessList: f.type === 0 ? undefined : f.accessList,
    v: sig?.v ?? 0n,
    r: sig?.r ?? 0n,
    s: sig?.s ?? 0n,
    yParity: f.type === 0 ? undefined : (sig?.yParity ?? 0),
    blockHash: included?.blockHash,
    blockNumber: included?.blockNumber,
    transactionIndex: included?.txIndex,
  };
}

export function transactionByTxId(d: ViewDeps, txId: Uint8Array): EthTxView | undefined {
  const tx = loadTx(d, txId);
  if (tx === undefined) return undefined;
  const st = d.pool.getStatus(txId);
  const price = st?.kind === 'Included' ? d.store.getReceipt(txId)?.effectiveGasPrice : undefined;
  return txView(tx, txId, st, price);
}

export function transactionByEthHash(d: ViewDeps, hash: Bytes32): EthTxView | undefined {
  const id = d.pool.idByHash(hash);
  return id === undefined ? undefined : transactionByTxId(d, id);
}

function logViews(logs: readonly StoredLog[], first: number, count: number, block: { number: bigint; hash: Bytes32 }, txHash: (i: number) => Bytes32): EthLogView[] {
  const out: EthLogView[] = [];
  for (let i = first; i < first + count && i < logs.length; i++) {
    const l = logs[i]!;
    out.push({
      address: l.address,
      topics: l.topics,
      data: l.data,
      blockNumber: block.number,
      blockHash: block.hash,
      transactionHash: txHash(l.txIndex),
      transactionIndex: l.txIndex,
      logIndex: i,
      removed: false,
    });
  }
  return out;
}

export function receiptByTxId(d: ViewDeps, txId: Uint8Array): EthReceiptView | undefined {
  const st = d.pool.getStatus(txId);
  if (st?.kind !== 'Included') return undefined;
  const r = d.store.getReceipt(txId);
  const tx = loadTx(d, txId);
  if (r === undefined || tx === undefined) return undefined;
  const block = { number: st.blockNumber, hash: st.blockHash };
  const logs = r.logCount === 0 ? [] : d.store.getBlockLogs(st.blockNumber);
  return receiptView(txId, tx, r, block, st.txIndex, logs);
}

function receiptView(
  txId: Uint8Array,
  tx: StoredTx,
  r: StoredReceipt,
  block: { number: bigint; hash: Bytes32 },
  txIndex: number,
  blockLogs: readonly StoredLog[],
): EthReceiptView {
  const { fields } = storedFields(tx);
  const logs = r.logCount === 0 ? [] : logViews(blockLogs, r.firstLogIndex, r.logCount, block, () => tx.ethHash);
  return {
    transactionHash: tx.ethHash,
    txId,
    transactionIndex: txIndex,
    blockHash: block.hash,
    blockNumber: block.number,
    from: tx.from,
    to: fields.to,
    type: fields.type,
    status: r.status,
    gasUsed: r.gasUsed,
    cumulativeGasUsed: r.cumulativeGasUsed,
    effectiveGasPrice: r.effectiveGasPrice,
    contractAddress: r.contractAddress,
    logs,
    logsBloom: r.logsBloom,
    failureCode: r.failureCode === '' ? undefined : r.failureCode,
  };
}

/**
 * A page of a block's receipts from transaction index `first` (eth_getBlockReceipts): the block's logs are
 * read once, not once per receipt. A page stops before it would pass the receipt, log or log-byte bounds
 * (BLOCK_RECEIPTS_PAGE_*: encoding a log into the reply is the expensive part of a query), but always holds
 * at least one receipt, so paging always advances. A transaction whose records are missing (its block is
 * being pruned) ends the list there with no next page: the caller compares the count with the block's.
 */
export function blockReceiptsPage(d: ViewDeps, b: StoredBlock, first: number): EthBlockReceiptsPageView {
  const receipts: EthReceiptView[] = [];
  const logs = d.store.getBlockLogs(b.number);
  const block = { number: b.number, hash: b.hash };
  let logCount = 0;
  let logBytes = 0;
  let nextIndex: number | undefined;
  for (let i = Math.max(0, first); i < b.txs.length; i++) {
    const t = b.txs[i]!;
    const r = d.store.getReceipt(t.txId);
    const tx = loadTx(d, t.txId);
    if (r === undefined || tx === undefined) break;
    let bytes = 0;
    for (let j = r.firstLogIndex; j < r.firstLogIndex + r.logCount && j < logs.length; j++) bytes += logs[j]!.data.length + 32 * logs[j]!.topics.length;
    if (
      receipts.length > 0 &&
      (receipts.length >= BLOCK_RECEIPTS_PAGE_MAX_RECEIPTS || logCount + r.logCount > BLOCK_RECEIPTS_PAGE_MAX_LOGS || logBytes + bytes > BLOCK_RECEIPTS_PAGE_MAX_LOG_BYTES)
    ) {
      nextIndex = i;
      break;
    }
    receipts.push(receiptView(t.txId, tx, r, block, i, logs));
    logCount += r.logCount;
    logBytes += bytes;
  }
  return { blockNumber: b.number, blockHash: b.hash, transactionCount: b.txs.length, receipts, nextIndex };
}

export function pendingStatus(d: ViewDeps, txId: Uint8Array): PendingStatusView {
  const st = d.pool.getStatus(txId);
  if (st === undefined) return { kind: 'Unknown' };
  if (st.kind === 'Included') return { kind: 'Included', blockNumber: st.blockNumber, txIndex: st.txIndex };
  return st;
}

export function blockView(d: ViewDeps, b: StoredBlock, fullTxs: boolean): EthBlockView {
  let transactions: EthBlockView['transactions'];
  if (!fullTxs) transactions = { kind: 'Hashes', hashes: b.txs.map((t) => t.ethHash) };
  else {
    const txs: EthTxView[] = [];
    b.txs.forEach((t, i) => {
      const tx = loadTx(d, t.txId);
      if (tx === undefined) return;
      const price = d.store.getReceipt(t.txId)?.effectiveGasPrice;
      txs.push(txView(tx, t.txId, { kind: 'Included', blockNumber: b.number, txIndex: i, blockHash: b.hash }, price));
    });
    transactions = { kind: 'Full', txs };
  }
  return {
    number: b.number,
    hash: b.hash,
    parentHash: b.parentHash,
    nonce: ZERO_NONCE,
    sha3Uncles: EMPTY_OMMERS_HASH,
    logsBloom: b.logsBloom,
    transactionsRoot: b.transactionsRoot,
    stateRoot: b.stateRoot,
    receiptsRoot: b.receiptsRoot,
    miner: b.coinbase,
    difficulty: 0n,
    totalDifficulty: 0n,
    extraData: new Uint8Array(0),
    size: BigInt(b.size),
    gasLimit: b.gasLimit,
    gasUsed: b.gasUsed,
    timestamp: b.timestamp,
    baseFeePerGas: b.baseFeePerGas,
    mixHash: b.mixHash,
    withdrawalsRoot: WITHDRAWALS_ROOT,
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    parentBeaconBlockRoot: PARENT_BEACON_BLOCK_ROOT,
    requestsHash: EMPTY_REQUESTS_HASH,
    uncles: [],
    withdrawals: [],
    transactions,
  };
}
