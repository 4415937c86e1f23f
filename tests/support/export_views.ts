// The canister's views of an exported block (rpc_eth_get_block_by_number with full transactions, transactions
// by tx_id, receipts with logs), rebuilt from the decoded records by the canister's own view code over an
// in-memory pool and chain store: tests compare them with what the canister answers.
import { ChainStore, encodeReceipt, type StoredLog } from '../../src/core/chain/store.js';
import type { ExportedBlock } from '../../src/core/export/decode.js';
import { MemoryKvMap } from '../../src/core/host.js';
import { PendingPool } from '../../src/core/mempool/pool.js';
import { encodeStoredTx, encodeTxStatus } from '../../src/core/tx/stored.js';
import { blockView, receiptByTxId, transactionByTxId, type EthBlockView, type EthReceiptView, type EthTxView, type ViewDeps } from '../../src/core/views.js';

export function exportedBlockViews(b: ExportedBlock): { block: EthBlockView; txs: EthTxView[]; receipts: EthReceiptView[] } {
  const m = () => new MemoryKvMap();
  const txs = m();
  const pool = new PendingPool({ pending: m(), bySenderNonce: m(), byPrincipal: m(), status: m(), txs, hashToId: m() });
  const store = new ChainStore({ blocks: m(), blockHashToNumber: m(), receipts: m(), blockLogs: m() });
  const logs: StoredLog[] = [];
  b.receipts.forEach((r) => logs.push(...r.logs));
  store.putBlock(b.block, logs);
  b.txs.forEach((t, i) => {
    txs.insert(t.txId, encodeStoredTx(t));
    pool.maps.hashToId.insert(t.ethHash, t.txId);
    pool.maps.status.insert(t.txId, encodeTxStatus({ kind: 'Included', blockNumber: b.block.number, txIndex: i, blockHash: b.block.hash }));
  });
  for (const r of b.receipts) store.maps.receipts.insert(r.txId, encodeReceipt(r));
  const d: ViewDeps = { pool, store, txs };
  return {
    block: blockView(d, b.block, true),
    txs: b.txs.map((t) => transactionByTxId(d, t.txId)!),
    receipts: b.receipts.map((r) => receiptByTxId(d, r.txId)!),
  };
}
