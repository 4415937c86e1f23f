// Rows of the indexer's tables (schema.ts) from one exported block: blocks, txs, receipts, logs and token
// transfers. Transaction fields are parsed from the exported raw bytes with the canister's own parser.
import { Principal } from '@dfinity/principal';
import { storedFields } from '../core/tx/stored.js';
import { TxOrigin } from '../core/tx/types.js';
import type { ExportedBlock } from '../core/export/decode.js';

/** keccak256("Transfer(address,address,uint256)"): ERC-20 and ERC-721 share it. */
export const TRANSFER_TOPIC = Uint8Array.from(Buffer.from('ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', 'hex'));

type Value = bigint | number | string | boolean | Uint8Array | null;
export type Row = readonly Value[];

export const BLOCK_COLUMNS = ['number', 'hash', 'parent_hash', 'timestamp', 'gas_used', 'gas_limit', 'base_fee', 'tx_count', 'miner', 'state_root', 'transactions_root', 'receipts_root', 'logs_bloom', 'size'] as const;
export const TX_COLUMNS = [
  'eth_tx_hash', 'tx_id', 'block_number', 'tx_index', 'type', 'origin', 'caller_principal', 'from_address', 'to_address', 'value', 'nonce',
  'gas_limit', 'gas_price', 'max_fee_per_gas', 'max_priority_fee_per_gas', 'input', 'receipt_status',
] as const;
export const RECEIPT_COLUMNS = ['tx_hash', 'block_number', 'status', 'gas_used', 'cumulative_gas_used', 'effective_gas_price', 'contract_address', 'failure_code'] as const;
export const LOG_COLUMNS = ['block_number', 'log_index', 'tx_hash', 'tx_index', 'address', 'topic0', 'topic1', 'topic2', 'topic3', 'data'] as const;
export const TRANSFER_COLUMNS = ['tx_hash', 'block_number', 'log_index', 'token_address', 'from_address', 'to_address', 'amount', 'token_id'] as const;
export const SKIPPED_COLUMNS = ['block_number', 'log_index', 'reason'] as const;

export interface BlockRows {
  readonly number: bigint;
  readonly timestamp: bigint;
  readonly block: Row;
  readonly txs: Row[];
  readonly receipts: Row[];
  readonly logs: Row[];
  readonly transfers: Row[];
  /** Transfer-shaped logs that are neither a valid ERC-20 nor ERC-721 transfer: (block, log index, reason). */
  readonly skipped: Row[];
}

const dec = (n: bigint): string => n.toString();

function principalText(p: Uint8Array): string | null {
  if (p.length === 0) return null;
  try {
    return Principal.fromUint8Array(p).toText();
  } catch {
    return null;
  }
}

const isTransferTopic = (t: Uint8Array | undefined): boolean => t !== undefined && t.length === 32 && Buffer.compare(t, TRANSFER_TOPIC) === 0;
/** An indexed address topic: 12 zero bytes and the address. */
const topicAddress = (t: Uint8Array): Uint8Array | undefined => (t.subarray(0, 12).every((b) => b === 0) ? t.subarray(12) : undefined);
const uint256 = (b: Uint8Array): bigint => (b.length === 0 ? 0n : BigInt(`0x${Buffer.from(b).toString('hex')}`));

export type TransferClass =
  | { readonly kind: 'none' }
  | { readonly kind: 'erc20' | 'erc721'; readonly from: Uint8Array; readonly to: Uint8Array; readonly amount: bigint; readonly tokenId: bigint | null }
  | { readonly kind: 'malformed'; readonly reason: string };

/**
 * ERC-20 Transfer: exactly three topics and 32 bytes of data (the amount). ERC-721 Transfer: four topics (the
 * token id is the third indexed value) and empty data. Anything else with the Transfer signature is malformed.
 */
export function classifyTransfer(topics: readonly Uint8Array[], data: Uint8Array): TransferClass {
  if (!isTransferTopic(topics[0])) return { kind: 'none' };
  if (topics.length !== 3 && topics.length !== 4) return { kind: 'malformed', reason: `${topics.length} topics (ERC-20 has 3, ERC-721 4)` };
  const from = topicAddress(topics[1]!);
  const to = topicAddress(topics[2]!);
  if (from === undefined || to === undefined) return { kind: 'malformed', reason: 'an address topic has nonzero high bytes' };
  if (topics.length === 3) {
    if (data.length !== 32) return { kind: 'malformed', reason: `ERC-20 Transfer with ${data.length} data bytes (expected 32)` };
    return { kind: 'erc20', from, to, amount: uint256(data), tokenId: null };
  }
  if (data.length !== 0) return { kind: 'malformed', reason: `ERC-721 Transfer with ${data.length} data bytes (expected none)` };
  return { kind: 'erc721', from, to, amount: 1n, tokenId: uint256(topics[3]!) };
}

export function blockRows(e: ExportedBlock): BlockRows {
  const b = e.block;
  const n = b.number;
  const block: Row = [n, b.hash, b.parentHash, b.timestamp, b.gasUsed, b.gasLimit, dec(b.baseFeePerGas), b.txs.length, b.coinbase, b.stateRoot, b.transactionsRoot, b.receiptsRoot, b.logsBloom, b.size];
  const txs: Row[] = [];
  const receipts: Row[] = [];
  const logs: Row[] = [];
  const transfers: Row[] = [];
  const skipped: Row[] = [];
  e.txs.forEach((t, i) => {
    const r = e.receipts[i]!;
    const { fields: f } = storedFields(t);
    const typed2 = f.type === 2;
    txs.push([
      t.ethHash, t.txId, n, i, f.type, t.origin === TxOrigin.IcSynthetic ? 'IcSynthetic' : t.origin === TxOrigin.Impersonated ? 'Impersonated' : 'EthSigned', principalText(t.principal), t.from, f.to ?? null,
      dec(f.value), f.nonce, f.gasLimit,
      // gas_price: what the sender paid per gas (the receipt's effective price), as eth_getTransactionByHash shows.
      dec(r.effectiveGasPrice), typed2 ? dec(f.maxFeePerGas) : null, typed2 ? dec(f.maxPriorityFeePerGas) : null, f.data, r.status,
    ]);
    receipts.push([t.ethHash, n, r.status, r.gasUsed, r.cumulativeGasUsed, dec(r.effectiveGasPrice), r.contractAddress ?? null, r.failureCode === '' ? null : r.failureCode]);
    r.logs.forEach((l, j) => {
      const logIndex = r.firstLogIndex + j;
      logs.push([n, logIndex, t.ethHash, i, l.address, l.topics[0] ?? null, l.topics[1] ?? null, l.topics[2] ?? null, l.topics[3] ?? null, l.data]);
      const c = classifyTransfer(l.topics, l.data);
      if (c.kind === 'malformed') skipped.push([n, logIndex, c.reason]);
      else if (c.kind !== 'none') transfers.push([t.ethHash, n, logIndex, l.address, c.from, c.to, dec(c.amount), c.tokenId === null ? null : dec(c.tokenId)]);
    });
  });
  return { number: n, timestamp: b.timestamp, block, txs, receipts, logs, transfers, skipped };
}
