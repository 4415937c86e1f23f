// The method table: it drives dispatch (src/gateway/rpc.ts) and generates the compatibility matrix
// (docs/compatibility.md, `npx tsx scripts/gen-compat.ts`). Adding or changing a method here and not
// regenerating the doc fails tests/unit/gateway_compat.test.ts.
import { eth_accounts } from './eth_accounts.js';
import { eth_blockNumber } from './eth_blockNumber.js';
import { eth_call } from './eth_call.js';
import { eth_chainId } from './eth_chainId.js';
import { eth_estimateGas } from './eth_estimateGas.js';
import { eth_feeHistory } from './eth_feeHistory.js';
import { eth_gasPrice } from './eth_gasPrice.js';
import { eth_getBalance } from './eth_getBalance.js';
import { eth_getBlockByNumber } from './eth_getBlockByNumber.js';
import { eth_getCode } from './eth_getCode.js';
import { eth_getLogs } from './eth_getLogs.js';
import { eth_getStorageAt } from './eth_getStorageAt.js';
import { eth_getTransactionByHash } from './eth_getTransactionByHash.js';
import { eth_getTransactionCount } from './eth_getTransactionCount.js';
import { eth_getTransactionReceipt } from './eth_getTransactionReceipt.js';
import { eth_maxPriorityFeePerGas } from './eth_maxPriorityFeePerGas.js';
import { eth_sendRawTransaction } from './eth_sendRawTransaction.js';
import { eth_syncing } from './eth_syncing.js';
import { net_listening } from './net_listening.js';
import { net_version } from './net_version.js';
import { web3_clientVersion } from './web3_clientVersion.js';
import {
  eth_getBlockByHash,
  eth_getBlockReceipts,
  eth_getBlockTransactionCountByHash,
  eth_getBlockTransactionCountByNumber,
  eth_getTransactionByBlockHashAndIndex,
  eth_getTransactionByBlockNumberAndIndex,
} from './blocks.js';
import {
  eth_getFilterChanges,
  eth_getFilterLogs,
  eth_newBlockFilter,
  eth_newFilter,
  eth_newPendingTransactionFilter,
  eth_uninstallFilter,
} from './filters.js';
import { eth_subscribe, eth_unsubscribe } from './subscribe.js';
import { SIGNING_METHODS } from './signing.js';
import { debug_traceBlockByHash, debug_traceBlockByNumber, debug_traceCall, debug_traceTransaction } from './debug_trace.js';
import { ots_getApiLevel, ots_getInternalOperations, ots_getTransactionError, ots_hasCode, ots_traceTransaction } from './ots.js';
import { ots_getBlockDetails, ots_getBlockDetailsByHash, ots_getBlockTransactions } from './ots_blocks.js';
import { ots_getContractCreator, ots_getTransactionBySenderAndNonce, ots_searchTransactionsAfter, ots_searchTransactionsBefore } from './ots_search.js';
import { trace_block, trace_replayBlockTransactions, trace_transaction } from './trace.js';
import type { MethodSpec } from './types.js';

export type { MethodContext, MethodSpec } from './types.js';

/** SPEC's method table, in SPEC's order, then the two extras clients call, then blocks, filters and subscriptions, then the development accounts' methods, then tracing (only with an archive). */
export const METHODS: readonly MethodSpec[] = [
  web3_clientVersion,
  net_version,
  eth_chainId,
  eth_blockNumber,
  eth_gasPrice,
  eth_maxPriorityFeePerGas,
  eth_feeHistory,
  eth_syncing,
  eth_getBlockByNumber,
  eth_getTransactionByHash,
  eth_getTransactionReceipt,
  eth_getBalance,
  eth_getTransactionCount,
  eth_getCode,
  eth_getStorageAt,
  eth_getLogs,
  eth_call,
  eth_estimateGas,
  eth_sendRawTransaction,
  eth_accounts,
  net_listening,
  eth_getBlockByHash,
  eth_getTransactionByBlockHashAndIndex,
  eth_getTransactionByBlockNumberAndIndex,
  eth_getBlockTransactionCountByHash,
  eth_getBlockTransactionCountByNumber,
  eth_getBlockReceipts,
  eth_newFilter,
  eth_newBlockFilter,
  eth_newPendingTransactionFilter,
  eth_getFilterChanges,
  eth_getFilterLogs,
  eth_uninstallFilter,
  eth_subscribe,
  eth_unsubscribe,
  ...SIGNING_METHODS,
  debug_traceTransaction,
  debug_traceBlockByNumber,
  debug_traceBlockByHash,
  debug_traceCall,
  ots_getApiLevel,
  ots_hasCode,
  ots_getInternalOperations,
  ots_getTransactionError,
  ots_traceTransaction,
  ots_getBlockDetails,
  ots_getBlockDetailsByHash,
  ots_getBlockTransactions,
  ots_searchTransactionsBefore,
  ots_searchTransactionsAfter,
  ots_getTransactionBySenderAndNonce,
  ots_getContractCreator,
  trace_transaction,
  trace_block,
  trace_replayBlockTransactions,
];

/** SPEC's unsupported methods still unsupported (and the other common ones): -32601 with a message saying so. */
export const UNSUPPORTED: Readonly<Record<string, string>> = {
  eth_pendingTransactions: 'the pending pool is not exposed',
  eth_getProof: 'state is not a Merkle-Patricia trie (docs/execution.md)',
  eth_createAccessList: 'not implemented',
  eth_getUncleByBlockNumberAndIndex: 'there are no uncles',
  eth_getUncleCountByBlockNumber: 'there are no uncles',
  eth_blobBaseFee: 'blob transactions are not accepted',
};

export const METHOD_TABLE: ReadonlyMap<string, MethodSpec> = new Map(METHODS.map((m) => [m.name, m]));
