// Transaction tracing over stock EthereumJS, for the archive: geth's debug_trace* tracers, Otterscan's ots_*
// shapes and Parity's trace_* shapes, each computed by re-running transactions on the state before their
// block plus the block's earlier transactions. Pure: no I/O besides the state manager the caller passes,
// which is left as it was. docs/traces.md describes the API and every known difference from geth and anvil.
import type { Common, StateManagerInterface } from '@ethereumjs/common';
import { getActivePrecompiles } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import { callBlock, callTx, overrideChanges, type BlockOverrides, type CallArgs, type StateOverride } from './call.js';
import { CallTracer } from './call_tracer.js';
import { booleans, parseDuration } from './config.js';
import { FourByteTracer } from './four_byte_tracer.js';
import { FrameRecorder, type Frame } from './frames.js';
import { bytesHex } from './hex.js';
import { MuxTracer, type Named } from './mux_tracer.js';
import { NoopTracer } from './noop_tracer.js';
import { PrestateTracer } from './prestate_tracer.js';
import { runTraced, type BlockStart, type BlockStateChange, type TraceTx } from './run.js';
import { StructLogger } from './struct_logger.js';
import { DEFAULT_TRACE_LIMITS, TraceError, TraceErrorCode, type TraceBlockContext, type TraceConfig, type TraceLimits } from './types.js';

export { TraceError, TraceErrorCode, DEFAULT_TRACE_LIMITS } from './types.js';
export type { TraceBlockContext, TraceConfig, TraceLimits, StructLoggerConfig, CallTracerConfig, PrestateTracerConfig } from './types.js';
export type { TraceTx, BlockStateChange } from './run.js';
export type { Frame, FrameLog } from './frames.js';
export type { CallFrameJson } from './call_tracer.js';
export type { StructLoggerResult, StructLogJson } from './struct_logger.js';
export type { PrestateJson } from './prestate_tracer.js';
export { otsInternalOperations, otsTraceTransaction, otsTransactionError, OtsOperation } from './ots.js';
export type { OtsInternalOperation, OtsTraceEntry } from './ots.js';
export { parityTraces, parityLocatedTraces, parityReplay } from './parity.js';
export type { ParityTrace, LocatedParityTrace, ParityTxMeta } from './parity.js';
export { parseDuration } from './config.js';
export { internalTransactions } from './internal_txs.js';
export type { InternalTx } from './internal_txs.js';
export { CALL_GAS_CAP } from './call.js';
export type { CallArgs, StateOverride, BlockOverrides } from './call.js';

/** What a gateway method hands over to trace one transaction. */
export interface TraceRequest extends BlockStart {
  /** The block's transactions before the traced one, in order. */
  readonly priorTxs: readonly TraceTx[];
  readonly tx: TraceTx;
}

/** What a gateway method hands over to trace every transaction of a block. */
export interface BlockTraceRequest extends BlockStart {
  readonly txs: readonly TraceTx[];
}

/** The tracer names geth knows and this module implements (absent or "" is the struct logger). */
export const TRACERS = ['callTracer', 'prestateTracer', '4byteTracer', 'noopTracer', 'muxTracer'] as const;

function precompileCheck(common: Common): (a: Uint8Array) => boolean {
  const keys = new Set([...getActivePrecompiles(common).keys()].map((k) => String(k).replace(/^0x/, '').toLowerCase().padStart(40, '0')));
  return (a) => keys.has(bytesHex(a).slice(2));
}

function buildNative(name: string, cfg: unknown, common: Common): Named {
  switch (name) {
    case 'callTracer': {
      const t = new CallTracer(booleans(name, cfg, ['onlyTopCall', 'withLog']));
      return { name, tracer: t, result: () => t.result() };
    }
    case 'prestateTracer': {
      const c = booleans(name, cfg, ['diffMode', 'disableCode', 'disableStorage', 'includeEmpty']);
      if (c.diffMode === true && c.includeEmpty === true) throw new TraceError(TraceErrorCode.BadConfig, 'cannot use diffMode with includeEmpty');
      const t = new PrestateTracer(c);
      return { name, tracer: t, result: () => t.result() };
    }
    case '4byteTracer': {
      const t = new FourByteTracer(precompileCheck(common));
      return { name, tracer: t, result: () => t.result() };
    }
    case 'noopTracer': {
      const t = new NoopTracer();
      return { name, tracer: t, result: () => t.result() };
    }
    case 'muxTracer': {
      if (cfg === null || typeof cfg !== 'object' || Array.isArray(cfg)) {
        throw new TraceError(TraceErrorCode.BadConfig, 'muxTracer: tracerConfig must map tracer names to their configs');
      }
      const parts = Object.entries(cfg).map(([n, c]) => {
        if (n === 'muxTracer') throw new TraceError(TraceErrorCode.BadConfig, 'muxTracer: cannot nest muxTracer');
        return buildNative(n, c, common);
      });
      const t = new MuxTracer(parts);
      return { name, tracer: t, result: () => t.result() };
    }
    default:
      throw new TraceError(TraceErrorCode.BadConfig, `tracer not found: ${name}`);
  }
}

/** A TraceConfig as JSON-RPC hands it over, checked field by field (a wrong type is refused, never coerced). */
function checkConfig(config: TraceConfig): void {
  const c = config as Record<string, unknown>;
  if (typeof c !== 'object' || c === null || Array.isArray(c)) throw new TraceError(TraceErrorCode.BadConfig, 'the trace config must be an object');
  for (const k of ['disableStack', 'disableStorage', 'enableMemory', 'enableReturnData'] as const) {
    if (c[k] !== undefined && c[k] !== null && typeof c[k] !== 'boolean') throw new TraceError(TraceErrorCode.BadConfig, `${k} must be a boolean`);
  }
  for (const k of ['tracer', 'timeout'] as const) {
    if (c[k] !== undefined && c[k] !== null && typeof c[k] !== 'string') throw new TraceError(TraceErrorCode.BadConfig, `${k} must be a string`);
  }
  if (c.limit !== undefined && c.limit !== null && (typeof c.limit !== 'number' || !Number.isSafeInteger(c.limit) || c.limit < 0)) {
    throw new TraceError(TraceErrorCode.BadConfig, 'limit must be a non-negative integer');
  }
}

/** The tracer a TraceConfig names: the struct logger when none is named. */
function build(config: TraceConfig, common: Common, limits: TraceLimits): Named {
  checkConfig(config);
  if (config.tracer !== undefined && config.tracer !== '') return buildNative(config.tracer, config.tracerConfig, common);
  const t = new StructLogger(config, limits.maxResultBytes);
  return { name: 'structLogger', tracer: t, result: () => t.result() };
}

function timeoutOf(config: TraceConfig, limits: TraceLimits): number {
  checkConfig(config);
  return config.timeout === undefined || config.timeout === null ? limits.defaultTimeoutMs : parseDuration(config.timeout);
}

/**
 * debug_traceTransaction's answer for `req.tx` under geth's TraceConfig: the struct logger when no tracer is
 * named, else the named native tracer. Throws TraceError (BadConfig, Timeout, TooLarge, Rejected).
 */
export async function traceTransaction(req: TraceRequest, config: TraceConfig = {}, limits: TraceLimits = DEFAULT_TRACE_LIMITS): Promise<unknown> {
  const timeoutMs = timeoutOf(config, limits);
  const t = build(config, req.common, limits);
  const txs = [...req.priorTxs.map((tx) => ({ tx })), { tx: req.tx, tracers: [t.tracer] }];
  await runTraced({ stateManager: req.stateManager, common: req.common, block: req.block, stateChanges: req.stateChanges, txs, timeoutMs });
  return t.result();
}

/**
 * debug_traceBlockByNumber/ByHash's answer: `{ txHash, result }` per transaction, in order (a fresh tracer
 * for each; `timeout` applies to each). The answer bound applies to the struct logs of the whole block.
 */
export async function traceBlock(req: BlockTraceRequest, config: TraceConfig = {}, limits: TraceLimits = DEFAULT_TRACE_LIMITS): Promise<{ txHash: string; result: unknown }[]> {
  const timeoutMs = timeoutOf(config, limits);
  const built = req.txs.map(() => build(config, req.common, limits));
  await runTraced({ stateManager: req.stateManager, common: req.common, block: req.block, stateChanges: req.stateChanges, txs: req.txs.map((tx, i) => ({ tx, tracers: [built[i]!.tracer] })), timeoutMs });
  const out = req.txs.map((tx, i) => ({ txHash: bytesHex(tx.hash ?? tx.tx.hash()), result: built[i]!.result() }));
  // Each struct logger keeps to the bound alone; the block's answer as a whole must too.
  if (JSON.stringify(out).length > limits.maxResultBytes) {
    throw new TraceError(TraceErrorCode.TooLarge, `block trace larger than ${limits.maxResultBytes} bytes; trace its transactions one by one`);
  }
  return out;
}

/** The call tree of `req.tx` (for the Otterscan and Parity shapes, and the indexer's internal transactions). */
export async function callTree(req: TraceRequest, timeoutMs = DEFAULT_TRACE_LIMITS.defaultTimeoutMs): Promise<Frame> {
  const rec = new FrameRecorder();
  const txs = [...req.priorTxs.map((tx) => ({ tx })), { tx: req.tx, tracers: [rec] }];
  await runTraced({ stateManager: req.stateManager, common: req.common, block: req.block, stateChanges: req.stateChanges, txs, timeoutMs });
  return rec.root!;
}

/** The call tree of every transaction of a block, in order (trace_block, trace_replayBlockTransactions). */
export async function blockCallTrees(req: BlockTraceRequest, timeoutMs = DEFAULT_TRACE_LIMITS.defaultTimeoutMs): Promise<Frame[]> {
  const recs = req.txs.map(() => new FrameRecorder());
  await runTraced({ stateManager: req.stateManager, common: req.common, block: req.block, stateChanges: req.stateChanges, txs: req.txs.map((tx, i) => ({ tx, tracers: [recs[i]!] })), timeoutMs });
  return recs.map((r) => r.root!);
}

/** What a gateway method hands over for debug_traceCall. */
export interface CallTraceRequest {
  /**
   * The state AFTER the block the call runs at (geth runs calls on a block's end state), or, with `prefix`,
   * the state BEFORE it.
   */
  readonly stateManager: StateManagerInterface;
  readonly common: Common;
  /** That block's own context (geth uses its header). */
  readonly block: TraceBlockContext;
  readonly call: CallArgs;
  readonly stateOverrides?: readonly StateOverride[];
  readonly blockOverrides?: BlockOverrides;
  /**
   * geth's `txIndex`: the block's changes outside transactions and its first txIndex transactions, applied
   * untraced in the block's own context before the overrides and the call.
   */
  readonly prefix?: { readonly stateChanges?: readonly BlockStateChange[]; readonly txs: readonly TraceTx[] };
}

/** debug_traceCall's answer: the call traced as a transaction of its sender, after the overrides. */
export async function traceCall(req: CallTraceRequest, config: TraceConfig = {}, limits: TraceLimits = DEFAULT_TRACE_LIMITS): Promise<unknown> {
  const timeoutMs = timeoutOf(config, limits);
  const t = build(config, req.common, limits);
  const changes = overrideChanges(req.stateOverrides ?? []);
  const from = req.call.from ?? new Uint8Array(20);
  // The sender's nonce as the overrides leave it. It only fills the transaction's field: nonce checks are
  // skipped, and a created contract's address comes from the state's nonce (after a prefix too).
  const own = changes.find((c) => bytesHex(c.address) === bytesHex(from))?.nonce;
  const nonce = own ?? (await req.stateManager.getAccount(new Address(from)))?.nonce ?? 0n;
  const { tx } = callTx(req.call, req.common, nonce);
  const block = callBlock(req.block, req.blockOverrides, req.call);
  const call = { tx: { tx, from, isCall: true }, tracers: [t.tracer], stateChanges: changes, block };
  const prefix = req.prefix?.txs ?? [];
  await runTraced({ stateManager: req.stateManager, common: req.common, block: req.block, stateChanges: req.prefix?.stateChanges, txs: [...prefix.map((tx) => ({ tx })), call], timeoutMs });
  return t.result();
}
