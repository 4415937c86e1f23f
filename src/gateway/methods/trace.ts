// Parity's trace_* methods (the `trace` shape only; docs/traces.md): call trees of transactions re-run over the
// archive, one entry per call, create and self-destruct, depth first.
import { blockCallTrees, callTree, parityLocatedTraces, parityReplay } from '../../archive/trace/index.js';
import { invalidParams } from '../errors.js';
import { positional } from '../params.js';
import { archiveOf, blockNumberOf, traceLimits, tracedBlock, tracedTx } from './trace_source.js';
import type { MethodContext, MethodSpec } from './types.js';

const ONLY_WITH_ARCHIVE = 'Only when the gateway has an archive (`npm start` does; RPC_GATEWAY_ARCHIVE_DATABASE_URL), else -32601.';
const LIMITS = 'Each transaction re-run within 5s (else -32000 execution timeout); a block the archive has not verified is -32000 state unavailable.';
const SHAPE = 'OpenEthereum\'s shapes as anvil serves them; no block reward entries; `stateDiff` and `vmTrace` are `null`.';
const BLOCK_TAGS = '`latest`, `pending`, `safe`, `finalized` (= head), `earliest`, numbers';

async function blockTrees(ctx: MethodContext, method: string, b: unknown) {
  const archive = archiveOf(ctx, method);
  if (typeof b !== 'string') throw invalidParams('block: expected a block number or a tag');
  const block = await tracedBlock(ctx, archive, await blockNumberOf(ctx, archive, b));
  return { block, roots: await blockCallTrees(block.req, traceLimits(ctx).defaultTimeoutMs) };
}

export const trace_transaction: MethodSpec = {
  name: 'trace_transaction',
  canister: ['rpc_eth_get_transaction_receipt_with_status_by_eth_hash', 'export_blocks'],
  blockTags: '-',
  limits: LIMITS,
  differences: `${ONLY_WITH_ARCHIVE} ${SHAPE} An unknown transaction is \`null\`.`,
  async handler(params, ctx) {
    const archive = archiveOf(ctx, 'trace_transaction');
    const [h] = positional(params, 'trace_transaction', 1, 1);
    const t = await tracedTx(ctx, archive, h);
    if (t === null) return null;
    const root = await callTree(t.req, traceLimits(ctx).defaultTimeoutMs);
    return parityLocatedTraces(root, { blockHash: t.block.hash, blockNumber: t.block.number, transactionHash: t.block.hashes[t.index]!, transactionPosition: t.index });
  },
};

export const trace_block: MethodSpec = {
  name: 'trace_block',
  canister: ['rpc_eth_block_number', 'export_blocks'],
  blockTags: BLOCK_TAGS,
  limits: LIMITS,
  differences: `${ONLY_WITH_ARCHIVE} ${SHAPE}`,
  async handler(params, ctx) {
    archiveOf(ctx, 'trace_block');
    const [b] = positional(params, 'trace_block', 1, 1);
    const { block, roots } = await blockTrees(ctx, 'trace_block', b);
    return roots.flatMap((r, i) => parityLocatedTraces(r, { blockHash: block.hash, blockNumber: block.number, transactionHash: block.hashes[i]!, transactionPosition: i }));
  },
};

export const trace_replayBlockTransactions: MethodSpec = {
  name: 'trace_replayBlockTransactions',
  canister: ['rpc_eth_block_number', 'export_blocks'],
  blockTags: BLOCK_TAGS,
  limits: LIMITS,
  differences: `${ONLY_WITH_ARCHIVE} ${SHAPE} Trace types: \`trace\` only (\`stateDiff\`, \`vmTrace\` are -32602).`,
  async handler(params, ctx) {
    archiveOf(ctx, 'trace_replayBlockTransactions');
    const [b, types] = positional(params, 'trace_replayBlockTransactions', 2, 2);
    if (!Array.isArray(types) || types.some((t) => typeof t !== 'string')) throw invalidParams('traceTypes: expected an array of strings');
    const other = types.find((t) => t !== 'trace');
    if (other !== undefined) throw invalidParams(`traceTypes: ${JSON.stringify(other)} is not supported (only "trace")`);
    const { block, roots } = await blockTrees(ctx, 'trace_replayBlockTransactions', b);
    return roots.map((r, i) => parityReplay(r, block.hashes[i]!));
  },
};
