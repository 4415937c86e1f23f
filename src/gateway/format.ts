// Canister views -> Ethereum JSON-RPC objects, with Ethereum's field names and hex encodings, in the shapes
// geth returns for Prague blocks, so ethers v6 and viem parse them unchanged.
import type { AccessListItemView, BlockView, LogView, ReceiptView, TxView } from '../client/schema.js';
import { toPrefixedHex, qty } from './hex.js';

const opt = <T>(v: [] | [T]): T | undefined => v[0];

export function formatLog(l: LogView): Record<string, unknown> {
  return {
    address: toPrefixedHex(l.address),
    topics: l.topics.map(toPrefixedHex),
    data: toPrefixedHex(l.data),
    blockNumber: qty(l.block_number),
    blockHash: toPrefixedHex(l.block_hash),
    transactionHash: toPrefixedHex(l.transaction_hash),
    transactionIndex: qty(l.transaction_index),
    logIndex: qty(l.log_index),
    removed: false,
  };
}

const accessList = (a: AccessListItemView[]) => a.map((x) => ({ address: toPrefixedHex(x.address), storageKeys: x.storage_keys.map(toPrefixedHex) }));

/**
 * A transaction by type: legacy (0x0) carries gasPrice, chainId (EIP-155) and v; EIP-2930 (0x1) adds
 * accessList and yParity; EIP-1559 (0x2) adds maxFeePerGas and maxPriorityFeePerGas. `gasPrice` of an
 * included transaction is its effective gas price (as geth). IcSynthetic transactions show type 0x2 with
 * v = r = s = 0 (docs/execution.md).
 */
export function formatTx(t: TxView): Record<string, unknown> {
  const blockHash = opt(t.block_hash);
  const blockNumber = opt(t.block_number);
  const index = opt(t.transaction_index);
  const to = opt(t.to);
  const out: Record<string, unknown> = {
    blockHash: blockHash === undefined ? null : toPrefixedHex(blockHash),
    blockNumber: blockNumber === undefined ? null : qty(blockNumber),
    from: toPrefixedHex(t.from),
    gas: qty(t.gas),
    gasPrice: qty(t.gas_price),
    hash: toPrefixedHex(t.hash),
    input: toPrefixedHex(t.input),
    nonce: qty(t.nonce),
    to: to === undefined ? null : toPrefixedHex(to),
    transactionIndex: index === undefined ? null : qty(index),
    value: qty(t.value),
    type: qty(t.tx_type),
    chainId: qty(t.chain_id),
    v: qty(t.v),
    r: qty(t.r),
    s: qty(t.s),
  };
  if (t.tx_type === 2) {
    const maxFee = opt(t.max_fee_per_gas);
    const prio = opt(t.max_priority_fee_per_gas);
    out.maxFeePerGas = qty(maxFee ?? t.gas_price);
    out.maxPriorityFeePerGas = qty(prio ?? 0n);
  }
  if (t.tx_type === 1 || t.tx_type === 2) {
    out.accessList = accessList(opt(t.access_list) ?? []);
    const yParity = opt(t.y_parity);
    out.yParity = qty(yParity ?? Number(t.v & 1n));
  }
  return out;
}

export function formatReceipt(r: ReceiptView): Record<string, unknown> {
  const to = opt(r.to);
  const created = opt(r.contract_address);
  return {
    transactionHash: toPrefixedHex(r.transaction_hash),
    transactionIndex: qty(r.transaction_index),
    blockHash: toPrefixedHex(r.block_hash),
    blockNumber: qty(r.block_number),
    from: toPrefixedHex(r.from),
    to: to === undefined ? null : toPrefixedHex(to),
    cumulativeGasUsed: qty(r.cumulative_gas_used),
    gasUsed: qty(r.gas_used),
    contractAddress: created === undefined ? null : toPrefixedHex(created),
    logs: r.logs.map(formatLog),
    logsBloom: toPrefixedHex(r.logs_bloom),
    type: qty(r.tx_type),
    status: qty(r.status),
    effectiveGasPrice: qty(r.effective_gas_price),
  };
}

export function formatBlock(b: BlockView): Record<string, unknown> {
  const txs = 'Full' in b.transactions ? b.transactions.Full.map(formatTx) : b.transactions.Hashes.map(toPrefixedHex);
  return {
    number: qty(b.number),
    hash: toPrefixedHex(b.hash),
    parentHash: toPrefixedHex(b.parent_hash),
    nonce: toPrefixedHex(b.nonce),
    sha3Uncles: toPrefixedHex(b.sha3_uncles),
    logsBloom: toPrefixedHex(b.logs_bloom),
    transactionsRoot: toPrefixedHex(b.transactions_root),
    stateRoot: toPrefixedHex(b.state_root),
    receiptsRoot: toPrefixedHex(b.receipts_root),
    miner: toPrefixedHex(b.miner),
    difficulty: qty(b.difficulty),
    totalDifficulty: qty(b.total_difficulty),
    extraData: toPrefixedHex(b.extra_data),
    size: qty(b.size),
    gasLimit: qty(b.gas_limit),
    gasUsed: qty(b.gas_used),
    timestamp: qty(b.timestamp),
    transactions: txs,
    uncles: [],
    baseFeePerGas: qty(b.base_fee_per_gas),
    mixHash: toPrefixedHex(b.mix_hash),
    withdrawals: [],
    withdrawalsRoot: toPrefixedHex(b.withdrawals_root),
    blobGasUsed: qty(b.blob_gas_used),
    excessBlobGas: qty(b.excess_blob_gas),
    parentBeaconBlockRoot: toPrefixedHex(b.parent_beacon_block_root),
    requestsHash: toPrefixedHex(b.requests_hash),
  };
}
