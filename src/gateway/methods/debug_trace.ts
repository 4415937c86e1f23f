// geth's debug_trace* methods over the archive (docs/traces.md): each transaction re-run with stock EthereumJS on
// the archive's state before its block, after the block's earlier transactions, with geth's tracers.
import { traceBlock, traceCall, traceTransaction, type BlockOverrides, type CallArgs, type CallTraceRequest, type StateOverride, type TraceConfig } from '../../archive/trace/index.js';
import { archiveCommon } from '../../archive/evm_context.js';
import type { ArchiveReader } from '../../archive/reader.js';
import { invalidParams, RpcCode, RpcError } from '../errors.js';
import { toPrefixedHex } from '../hex.js';
import { address, data, hash32, object, positional, quantity, u64 } from '../params.js';
import { fromArchive } from './archive_state.js';
import { archiveOf, blockNumberOf, traceLimits, tracedBlock, tracedTx } from './trace_source.js';
import type { MethodContext, MethodSpec } from './types.js';

const ONLY_WITH_ARCHIVE = 'Only when the gateway has an archive (`npm start` does; RPC_GATEWAY_ARCHIVE_DATABASE_URL), else -32601; a block the archive has not verified is -32000 state unavailable.';
const TRACE_LIMITS = 'Answer at most 64 MiB and at most what the response budget has left (RPC_GATEWAY_MAX_RESPONSE_BYTES), else -32000 naming the options that shrink it; `timeout` default 5s per transaction.';
const TRACERS = 'Tracers: struct logger (`disableStack`, `disableStorage`, `enableMemory`, `enableReturnData`, `limit`), `callTracer` (`onlyTopCall`, `withLog`), `prestateTracer` (`diffMode`, `disableCode`, `disableStorage`, `includeEmpty`), `4byteTracer`, `noopTracer`, `muxTracer`; no JavaScript tracers. A bad config is -32602, a timeout or a refused transaction -32000. Differences from geth: docs/traces.md.';

/** geth's TraceConfig (absent or null: the struct logger); its fields are checked by the tracers (-32602). */
function traceConfig(v: unknown, name = 'traceConfig'): TraceConfig {
  if (v === undefined || v === null) return {};
  return object(v, name) as TraceConfig;
}

const CALL_KEYS = ['from', 'to', 'gas', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'value', 'data', 'input', 'nonce', 'chainId', 'type', 'accessList'];

/** geth's TransactionArgs for debug_traceCall (`input` is `data`'s alias; `chainId`, `type`, `accessList` are accepted and not used). */
export function callArgs(v: unknown): CallArgs {
  const o = object(v, 'callObject');
  for (const k of Object.keys(o)) if (!CALL_KEYS.includes(k)) throw invalidParams(`callObject: unsupported key ${JSON.stringify(k)} (supported: ${CALL_KEYS.join(', ')})`);
  const get = (k: string): unknown => (o[k] === null ? undefined : o[k]);
  const q = (k: string): bigint | undefined => (get(k) === undefined ? undefined : quantity(get(k), `callObject.${k}`));
  if (get('data') !== undefined && get('input') !== undefined && String(get('data')).toLowerCase() !== String(get('input')).toLowerCase()) {
    throw invalidParams('callObject: both "data" and "input" are set and not equal');
  }
  const d = get('input') ?? get('data');
  return {
    ...(get('from') === undefined ? {} : { from: address(get('from'), 'callObject.from') }),
    ...(get('to') === undefined ? {} : { to: address(get('to'), 'callObject.to') }),
    ...(get('gas') === undefined ? {} : { gas: u64(get('gas'), 'callObject.gas') }),
    ...(q('gasPrice') === undefined ? {} : { gasPrice: q('gasPrice')! }),
    ...(q('maxFeePerGas') === undefined ? {} : { maxFeePerGas: q('maxFeePerGas')! }),
    ...(q('maxPriorityFeePerGas') === undefined ? {} : { maxPriorityFeePerGas: q('maxPriorityFeePerGas')! }),
    ...(q('value') === undefined ? {} : { value: q('value')! }),
    ...(d === undefined ? {} : { data: data(d, 'callObject.data') }),
    ...(get('nonce') === undefined ? {} : { nonce: u64(get('nonce'), 'callObject.nonce') }),
  };
}

const MAX_OVERRIDDEN_ACCOUNTS = 1000;
const MAX_OVERRIDDEN_SLOTS = 10_000;

function slots(v: unknown, name: string, count: { n: number }): { slot: Uint8Array; value: Uint8Array }[] {
  return Object.entries(object(v, name)).map(([k, val]) => {
    if (++count.n > MAX_OVERRIDDEN_SLOTS) throw invalidParams(`stateOverrides: at most ${MAX_OVERRIDDEN_SLOTS} slots`);
    return { slot: hash32(k, `${name} key`), value: hash32(val, `${name}[${k}]`) };
  });
}

/** geth's state overrides: `{ address: { balance, nonce, code, state | stateDiff } }`. */
export function stateOverrides(v: unknown): StateOverride[] {
  if (v === undefined || v === null) return [];
  const entries = Object.entries(object(v, 'stateOverrides'));
  if (entries.length > MAX_OVERRIDDEN_ACCOUNTS) throw invalidParams(`stateOverrides: at most ${MAX_OVERRIDDEN_ACCOUNTS} accounts`);
  const count = { n: 0 };
  return entries.map(([a, ov]) => {
    const name = `stateOverrides[${a}]`;
    const o = object(ov, name);
    for (const k of Object.keys(o)) if (!['balance', 'nonce', 'code', 'state', 'stateDiff'].includes(k)) throw invalidParams(`${name}: unsupported key ${JSON.stringify(k)}`);
    if (o.state != null && o.stateDiff != null) throw invalidParams(`${name}: has both 'state' and 'stateDiff'`);
    return {
      address: address(a, `${name} address`),
      ...(o.balance == null ? {} : { balance: quantity(o.balance, `${name}.balance`) }),
      ...(o.nonce == null ? {} : { nonce: u64(o.nonce, `${name}.nonce`) }),
      ...(o.code == null ? {} : { code: data(o.code, `${name}.code`) }),
      ...(o.state == null ? {} : { state: slots(o.state, `${name}.state`, count) }),
      ...(o.stateDiff == null ? {} : { stateDiff: slots(o.stateDiff, `${name}.stateDiff`, count) }),
    };
  });
}

/** geth's block overrides, under today's names (`feeRecipient`, `prevRandao`, `baseFeePerGas`) and the older ones. */
export function blockOverrides(v: unknown): BlockOverrides | undefined {
  if (v === undefined || v === null) return undefined;
  const o = object(v, 'blockOverrides');
  const known = ['number', 'time', 'gasLimit', 'feeRecipient', 'coinbase', 'prevRandao', 'random', 'baseFeePerGas', 'baseFee'];
  for (const k of Object.keys(o)) if (!known.includes(k)) throw invalidParams(`blockOverrides: unsupported key ${JSON.stringify(k)} (supported: ${known.join(', ')})`);
  const pick = (a: string, b?: string): unknown => o[a] ?? (b === undefined ? undefined : o[b]) ?? undefined;
  const coinbase = pick('feeRecipient', 'coinbase');
  const random = pick('prevRandao', 'random');
  const baseFee = pick('baseFeePerGas', 'baseFee');
  return {
    ...(pick('number') == null ? {} : { number: u64(pick('number'), 'blockOverrides.number') }),
    ...(pick('time') == null ? {} : { time: u64(pick('time'), 'blockOverrides.time') }),
    ...(pick('gasLimit') == null ? {} : { gasLimit: u64(pick('gasLimit'), 'blockOverrides.gasLimit') }),
    ...(coinbase == null ? {} : { coinbase: address(coinbase, 'blockOverrides.feeRecipient') }),
    ...(random == null ? {} : { random: hash32(random, 'blockOverrides.prevRandao') }),
    ...(baseFee == null ? {} : { baseFee: quantity(baseFee, 'blockOverrides.baseFeePerGas') }),
  };
}

export const debug_traceTransaction: MethodSpec = {
  name: 'debug_traceTransaction',
  canister: ['rpc_eth_get_transaction_receipt_with_status_by_eth_hash', 'export_blocks'],
  blockTags: '-',
  limits: TRACE_LIMITS,
  differences: `${ONLY_WITH_ARCHIVE} ${TRACERS} An unknown transaction is \`null\`.`,
  async handler(params, ctx) {
    const archive = archiveOf(ctx, 'debug_traceTransaction');
    const [h, c] = positional(params, 'debug_traceTransaction', 1, 2);
    const config = traceConfig(c);
    const t = await tracedTx(ctx, archive, h);
    if (t === null) return null;
    return traceTransaction(t.req, config, traceLimits(ctx));
  },
};

async function traceBlockAt(ctx: Parameters<MethodSpec['handler']>[1], n: bigint, c: unknown): Promise<unknown> {
  const config = traceConfig(c);
  const b = await tracedBlock(ctx, ctx.archive!, n);
  return traceBlock(b.req, config, traceLimits(ctx));
}

export const debug_traceBlockByNumber: MethodSpec = {
  name: 'debug_traceBlockByNumber',
  canister: ['rpc_eth_block_number', 'export_blocks'],
  blockTags: '`latest`, `pending`, `safe`, `finalized` (= head), `earliest`, numbers',
  limits: TRACE_LIMITS,
  differences: `${ONLY_WITH_ARCHIVE} ${TRACERS} \`[{ txHash, result }]\` in block order.`,
  async handler(params, ctx) {
    const archive = archiveOf(ctx, 'debug_traceBlockByNumber');
    const [b, c] = positional(params, 'debug_traceBlockByNumber', 1, 2);
    if (typeof b !== 'string') throw invalidParams('block: expected a block number or a tag');
    return traceBlockAt(ctx, await blockNumberOf(ctx, archive, b), c);
  },
};

export const debug_traceBlockByHash: MethodSpec = {
  name: 'debug_traceBlockByHash',
  canister: ['rpc_eth_get_block_number_by_hash', 'export_blocks'],
  blockTags: '-',
  limits: TRACE_LIMITS,
  differences: `${ONLY_WITH_ARCHIVE} ${TRACERS} \`[{ txHash, result }]\` in block order; an unknown hash is -32001.`,
  async handler(params, ctx) {
    const archive = archiveOf(ctx, 'debug_traceBlockByHash');
    const [h, c] = positional(params, 'debug_traceBlockByHash', 1, 2);
    hash32(h, 'blockHash');
    return traceBlockAt(ctx, await blockNumberOf(ctx, archive, { blockHash: h }, 'blockHash'), c);
  },
};

/**
 * debug_traceCall with geth's `txIndex`: the call on the state after block n's first txIndex transactions,
 * in n's context (geth's StateAtTransaction: the parent's state, the block's transactions replayed up to the
 * index; an index past the last transaction, or any block 0, is geth's error).
 */
async function atTxIndex(ctx: MethodContext, archive: ArchiveReader, n: bigint, txIndex: bigint, call: CallArgs, common: ReturnType<typeof archiveCommon>, ov: Pick<CallTraceRequest, 'stateOverrides' | 'blockOverrides'>): Promise<CallTraceRequest> {
  if (n === 0n) throw new RpcError(RpcCode.Server, 'no transaction in genesis');
  const b = await tracedBlock(ctx, archive, n);
  const { txs, stateChanges } = b.req;
  // geth accepts index 0 of an empty block (the parent's state) and nothing past the last transaction.
  if (txIndex >= BigInt(Math.max(txs.length, 1))) throw new RpcError(RpcCode.Server, `transaction index ${txIndex} out of range for block ${toPrefixedHex(b.hash)}`);
  return { stateManager: b.req.stateManager, common, block: b.req.block, call, ...ov, prefix: { stateChanges, txs: txs.slice(0, Number(txIndex)) } };
}

export const debug_traceCall: MethodSpec = {
  name: 'debug_traceCall',
  canister: ['rpc_eth_block_number'],
  blockTags: 'every block the archive holds: `latest`, `pending`, `safe`, `finalized` (= head), `earliest`, numbers, EIP-1898 `{blockNumber}`/`{blockHash}`',
  limits: `${TRACE_LIMITS} stateOverrides: at most ${MAX_OVERRIDDEN_ACCOUNTS} accounts and ${MAX_OVERRIDDEN_SLOTS} slots.`,
  differences: `${ONLY_WITH_ARCHIVE} ${TRACERS} Runs on the block's end state with its header, as geth; \`stateOverrides\` (\`balance\`, \`nonce\`, \`code\`, \`state\`, \`stateDiff\`) and \`blockOverrides\` (\`number\`, \`time\`, \`gasLimit\`, \`feeRecipient\`, \`prevRandao\`, \`baseFeePerGas\`) in the third parameter; \`txIndex\` (hex) runs it after the block's first txIndex transactions, as geth (past the last: -32000 \`transaction index N out of range for block 0x..\`; block 0: \`no transaction in genesis\`). Gas defaults to 50M; a call paying no fee runs with base fee 0; the nonce is not checked and a short balance is topped up.`,
  async handler(params, ctx) {
    const archive = archiveOf(ctx, 'debug_traceCall');
    const [a, b, c] = positional(params, 'debug_traceCall', 1, 3);
    const call = callArgs(a);
    const { stateOverrides: so, blockOverrides: bo, txIndex: ti, ...rest } = traceConfig(c) as TraceConfig & { stateOverrides?: unknown; blockOverrides?: unknown; txIndex?: unknown };
    const overrides = stateOverrides(so);
    const blockOv = blockOverrides(bo);
    // geth's hexutil.Uint: a hex string, never a JSON number.
    const txIndex = ti == null ? undefined : u64(ti, 'txIndex');
    const n = await blockNumberOf(ctx, archive, b);
    const common = archiveCommon();
    const ov = { stateOverrides: overrides, ...(blockOv === undefined ? {} : { blockOverrides: blockOv }) };
    if (txIndex !== undefined) return traceCall(await atTxIndex(ctx, archive, n, txIndex, call, common, ov), rest, traceLimits(ctx));
    if (!(await archive.holds(n))) fromArchive(ctx, await archive.account(new Uint8Array(20), n));
    const block = (await archive.blockContext(n))!;
    return traceCall({ stateManager: archive.stateAt(n), common, block, call, ...ov }, rest, traceLimits(ctx));
  },
};
