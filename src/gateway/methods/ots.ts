// Otterscan's ots_* API as anvil serves it (docs/traces.md): the call tree of a transaction re-run over the
// archive, in Otterscan's shapes. Its block methods are in ots_blocks.ts, its address searches in ots_search.ts.
import { callTree, otsInternalOperations, otsTraceTransaction, otsTransactionError } from '../../archive/trace/index.js';
import { positional } from '../params.js';
import { eth_getCode } from './eth_getCode.js';
import { ONLY_WITH_ARCHIVE } from './ots_blocks.js';
import { archiveOf, traceLimits, tracedTx } from './trace_source.js';
import { STATE_TAGS, type MethodContext, type MethodSpec } from './types.js';

const TX_LIMITS = 'Each transaction re-run within 5s (else -32000 execution timeout); a block the archive has not verified is -32000 state unavailable.';

/** Otterscan's API level (the one anvil reports). */
export const OTS_API_LEVEL = 8;

async function tree(ctx: MethodContext, method: string, params: unknown) {
  const archive = archiveOf(ctx, method);
  const [h] = positional(params, method, 1, 1);
  const t = await tracedTx(ctx, archive, h);
  return t === null ? null : callTree(t.req, traceLimits(ctx).defaultTimeoutMs);
}

export const ots_getApiLevel: MethodSpec = {
  name: 'ots_getApiLevel',
  canister: [],
  blockTags: '-',
  limits: '-',
  differences: `${ONLY_WITH_ARCHIVE} ${OTS_API_LEVEL}, as anvil.`,
  async handler(params, ctx) {
    archiveOf(ctx, 'ots_getApiLevel');
    positional(params, 'ots_getApiLevel', 0, 0);
    return OTS_API_LEVEL;
  },
};

export const ots_hasCode: MethodSpec = {
  name: 'ots_hasCode',
  canister: ['rpc_eth_get_code'],
  blockTags: STATE_TAGS,
  limits: '-',
  differences: `${ONLY_WITH_ARCHIVE} Whether eth_getCode at that block is not empty.`,
  async handler(params, ctx) {
    archiveOf(ctx, 'ots_hasCode');
    const [a, b] = positional(params, 'ots_hasCode', 2, 2);
    return (await eth_getCode.handler([a, b], ctx)) !== '0x';
  },
};

export const ots_getInternalOperations: MethodSpec = {
  name: 'ots_getInternalOperations',
  canister: ['rpc_eth_get_transaction_receipt_with_status_by_eth_hash', 'export_blocks'],
  blockTags: '-',
  limits: TX_LIMITS,
  differences: `${ONLY_WITH_ARCHIVE} Value sent by calls (the top call included), CREATE (type 2), CREATE2 (type 3), self-destructs (type 1), in execution order, as anvil; an unknown transaction is \`null\`.`,
  async handler(params, ctx) {
    const f = await tree(ctx, 'ots_getInternalOperations', params);
    return f === null ? null : otsInternalOperations(f);
  },
};

export const ots_getTransactionError: MethodSpec = {
  name: 'ots_getTransactionError',
  canister: ['rpc_eth_get_transaction_receipt_with_status_by_eth_hash', 'export_blocks'],
  blockTags: '-',
  limits: TX_LIMITS,
  differences: `${ONLY_WITH_ARCHIVE} The top call's revert data, else \`0x\`, as anvil; an unknown transaction is \`null\`.`,
  async handler(params, ctx) {
    const f = await tree(ctx, 'ots_getTransactionError', params);
    return f === null ? null : otsTransactionError(f);
  },
};

export const ots_traceTransaction: MethodSpec = {
  name: 'ots_traceTransaction',
  canister: ['rpc_eth_get_transaction_receipt_with_status_by_eth_hash', 'export_blocks'],
  blockTags: '-',
  limits: TX_LIMITS,
  differences: `${ONLY_WITH_ARCHIVE} Every CALL, CALLCODE, DELEGATECALL, STATICCALL with its depth (0 at the top), as anvil (creates and self-destructs not listed); an unknown transaction is \`null\`.`,
  async handler(params, ctx) {
    const f = await tree(ctx, 'ots_traceTransaction', params);
    return f === null ? null : otsTraceTransaction(f);
  },
};
