// Transaction tracing over stock EthereumJS, for the archive: geth's debug_trace* tracers, Otterscan's ots_*
// shapes and Parity's trace_* shapes, each computed by re-running a transaction on the state before its
// block plus the block's earlier transactions. Pure: no I/O besides the state manager the caller passes.
// docs/traces.md describes the API and every known difference from geth and anvil.
import type { Common, StateManagerInterface } from '@ethereumjs/common';
import { getActivePrecompiles } from '@ethereumjs/evm';
import { CallTracer } from './call_tracer.js';
import { booleans, parseDuration } from './config.js';
import { FourByteTracer } from './four_byte_tracer.js';
import { bytesHex } from './hex.js';
import { MuxTracer, type Named } from './mux_tracer.js';
import { NoopTracer } from './noop_tracer.js';
import { PrestateTracer } from './prestate_tracer.js';
import { runTraced, type TraceTx, type Tracer } from './run.js';
import { StructLogger } from './struct_logger.js';
import { DEFAULT_TRACE_LIMITS, TraceError, TraceErrorCode, type TraceBlockContext, type TraceConfig, type TraceLimits } from './types.js';

export { TraceError, TraceErrorCode, DEFAULT_TRACE_LIMITS } from './types.js';
export type { TraceBlockContext, TraceConfig, TraceLimits, StructLoggerConfig, CallTracerConfig, PrestateTracerConfig } from './types.js';
export type { TraceTx } from './run.js';
export type { CallFrameJson } from './call_tracer.js';
export type { StructLoggerResult, StructLogJson } from './struct_logger.js';
export type { PrestateJson } from './prestate_tracer.js';

/** What a gateway method hands over to trace one transaction. */
export interface TraceRequest {
  /** The state before the block (e.g. the archive's stateAt(N - 1)); left as it was. */
  readonly stateManager: StateManagerInterface;
  /** The chain's Common (chain id, hardfork) for the VM. */
  readonly common: Common;
  readonly block: TraceBlockContext;
  /** The block's transactions before the traced one, in order. */
  readonly priorTxs: readonly TraceTx[];
  readonly tx: TraceTx;
}

/** The tracer names geth knows and this module implements. */
export const TRACERS = ['callTracer', 'prestateTracer', '4byteTracer', 'noopTracer', 'muxTracer'] as const;

interface Built extends Named {}

function precompileCheck(common: Common): (a: Uint8Array) => boolean {
  const keys = new Set([...getActivePrecompiles(common).keys()].map((k) => String(k).replace(/^0x/, '').toLowerCase().padStart(40, '0')));
  return (a) => keys.has(bytesHex(a).slice(2));
}

function build(name: string, cfg: unknown, common: Common, limits: TraceLimits): Built {
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
      if (cfg === null || typeof cfg !== 'object' || Array.isArray(cfg)) throw new TraceError(TraceErrorCode.BadConfig, 'muxTracer: tracerConfig must map tracer names to their configs');
      const parts = Object.entries(cfg).map(([n, c]) => {
        if (n === 'muxTracer') throw new TraceError(TraceErrorCode.BadConfig, 'muxTracer: cannot nest muxTracer');
        return build(n, c, common, limits);
      });
      const t = new MuxTracer(parts);
      return { name, tracer: t, result: () => t.result() };
    }
    default:
      throw new TraceError(TraceErrorCode.BadConfig, `tracer not found: ${name}`);
  }
}

/**
 * debug_traceTransaction's answer for `req.tx` with geth's TraceConfig: the struct logger when no tracer is
 * named, else the named native tracer. Throws TraceError (BadConfig, Timeout, TooLarge, Rejected).
 */
export async function traceTransaction(req: TraceRequest, config: TraceConfig = {}, limits: TraceLimits = DEFAULT_TRACE_LIMITS): Promise<unknown> {
  const timeoutMs = config.timeout === undefined ? limits.defaultTimeoutMs : parseDuration(config.timeout);
  let tracer: Tracer;
  let result: () => unknown;
  if (config.tracer === undefined || config.tracer === '') {
    const limit = config.limit ?? 0;
    if (!Number.isSafeInteger(limit) || limit < 0) throw new TraceError(TraceErrorCode.BadConfig, 'limit must be a non-negative integer');
    const t = new StructLogger(config, limits.maxResultBytes);
    tracer = t;
    result = () => t.result();
  } else {
    const b = build(config.tracer, config.tracerConfig, req.common, limits);
    tracer = b.tracer;
    result = b.result;
  }
  await runTraced({ ...req, tracers: [tracer], deadline: Date.now() + timeoutMs });
  return result();
}
