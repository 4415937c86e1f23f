// Types shared by the tracers: the block a transaction runs in, the tracer options as geth's debug_trace*
// takes them, and the error values the tracers return (stable codes, as everywhere in this project).

/** The block a traced transaction runs in, as the archive's replay uses it. */
export interface TraceBlockContext {
  readonly number: bigint;
  readonly timestamp: bigint;
  readonly baseFeePerGas: bigint;
  readonly coinbase: Uint8Array;
  readonly prevRandao: Uint8Array;
  readonly gasLimit: bigint;
  /** BLOCKHASH answers (a block's hash by number); undefined answers zero. */
  readonly blockHash?: (n: bigint) => Uint8Array | undefined;
}

export interface StructLoggerConfig {
  readonly disableStack?: boolean;
  readonly disableStorage?: boolean;
  readonly enableMemory?: boolean;
  readonly enableReturnData?: boolean;
  /** geth's `limit`: the struct log stops growing after this many entries' bytes (0: no limit). */
  readonly limit?: number;
}

export interface CallTracerConfig {
  readonly onlyTopCall?: boolean;
  readonly withLog?: boolean;
}

export interface PrestateTracerConfig {
  readonly diffMode?: boolean;
  readonly disableCode?: boolean;
  readonly disableStorage?: boolean;
  readonly includeEmpty?: boolean;
}

/** geth's TraceConfig: `tracer` absent means the struct logger (its options at the top level). */
export interface TraceConfig extends StructLoggerConfig {
  readonly tracer?: string;
  readonly tracerConfig?: unknown;
  /** geth's duration syntax ("5s", "300ms", "1m30s"); default 5 s. */
  readonly timeout?: string;
}

export const TraceErrorCode = {
  /** An option geth would refuse (unknown tracer, bad config, bad timeout). */
  BadConfig: 'trace_bad_config',
  /** The run passed its `timeout`. */
  Timeout: 'trace_timeout',
  /** The answer would pass the size bound (the struct log's entries, or any tracer's result). */
  TooLarge: 'trace_too_large',
  /** A transaction before the traced one, or the traced one, could not be applied (nonce, balance, gas). */
  Rejected: 'trace_rejected',
} as const;
export type TraceErrorCode = (typeof TraceErrorCode)[keyof typeof TraceErrorCode];

export class TraceError extends Error {
  constructor(
    readonly code: TraceErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'TraceError';
  }
}

/** Bounds on one trace answer (bytes of JSON the tracers build). */
export interface TraceLimits {
  /** Largest JSON answer in bytes; a struct log that would pass it fails with TraceErrorCode.TooLarge. */
  readonly maxResultBytes: number;
  /** Used when the config gives no timeout. */
  readonly defaultTimeoutMs: number;
}

export const DEFAULT_TRACE_LIMITS: TraceLimits = { maxResultBytes: 64 * 1024 * 1024, defaultTimeoutMs: 5_000 };
