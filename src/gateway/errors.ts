// JSON-RPC errors, and the one mapping from the canister's stable error codes (src/core/errors.ts) to them
// (SPEC "Errors"). Messages shown to clients are the canister's human messages for known codes, prefixed
// with the phrase geth uses for the same condition where one exists (ethers and viem classify submit errors
// by those phrases: "nonce too low", "insufficient funds", ...). Internal failures are logged server-side
// and answered with a fixed message: never a stack trace or an internal detail.
import { ErrorCode } from '../core/errors.js';
import { OtsErrorCode } from '../archive/ots_queries.js';
import { TraceErrorCode } from '../archive/trace/types.js';
import type { CandidError } from '../client/schema.js';
import { toPrefixedHex } from './hex.js';

export const RpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  Internal: -32603,
  /** State unavailable / execution failed / submit rejected (SPEC). */
  Server: -32000,
  /** Resource not found: pruned range or boundary, missing target (SPEC). */
  NotFound: -32001,
  /** Limit exceeded: log range or results (SPEC). */
  LimitExceeded: -32005,
} as const;
export type RpcCode = (typeof RpcCode)[keyof typeof RpcCode];

export class RpcError extends Error {
  override name = 'RpcError';
  constructor(
    readonly code: number,
    message: string,
    /** JSON-RPC `data`: revert bytes as a hex string for reverts. */
    readonly data?: string,
  ) {
    super(message);
  }
  toJSON(): { code: number; message: string; data?: string } {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}

export const invalidParams = (message: string): RpcError => new RpcError(RpcCode.InvalidParams, message);
export const INTERNAL_MESSAGE = 'internal error';

/**
 * The mapping. `prefix` is prepended to the canister's message (geth's wording for the condition).
 * Codes not listed here (including `internal` and any new code) answer -32603 with a fixed message.
 */
export const ERROR_MAP: Readonly<Record<string, { readonly rpc: RpcCode; readonly prefix?: string }>> = {
  // Invalid params: wrong format, wrong lengths, callObject rules, unsupported filter forms.
  [ErrorCode.ArgInvalid]: { rpc: RpcCode.InvalidParams },
  [ErrorCode.ArgAddressLength]: { rpc: RpcCode.InvalidParams },
  [ErrorCode.ArgInvalidCallObject]: { rpc: RpcCode.InvalidParams },
  [ErrorCode.ArgInvalidFeeParams]: { rpc: RpcCode.InvalidParams },
  [ErrorCode.ArgInvalidTxType]: { rpc: RpcCode.InvalidParams },
  [ErrorCode.ArgInvalidChainId]: { rpc: RpcCode.InvalidParams, prefix: 'invalid chain id' },
  [ErrorCode.ArgInvalidFilter]: { rpc: RpcCode.InvalidParams },
  [ErrorCode.UnsupportedFilter]: { rpc: RpcCode.InvalidParams, prefix: 'unsupported filter' },
  [ErrorCode.PrincipalDerivationFailed]: { rpc: RpcCode.InvalidParams },
  // A raw transaction that does not decode is a malformed argument.
  [ErrorCode.DecodeMalformed]: { rpc: RpcCode.InvalidParams, prefix: 'invalid transaction' },
  [ErrorCode.DecodeInvalidSignature]: { rpc: RpcCode.InvalidParams, prefix: 'invalid sender' },
  [ErrorCode.DecodeUnsupportedType]: { rpc: RpcCode.InvalidParams, prefix: 'transaction type not supported' },
  [ErrorCode.DecodeWrongChainId]: { rpc: RpcCode.InvalidParams, prefix: 'invalid chain id' },
  [ErrorCode.DecodeLegacyChainIdMissing]: { rpc: RpcCode.InvalidParams, prefix: 'only replay-protected (EIP-155) transactions allowed over RPC' },
  // Submit rejections (the transaction is well formed; the chain refuses it now): -32000 as geth's txpool.
  [ErrorCode.SubmitTxTooLarge]: { rpc: RpcCode.Server, prefix: 'oversized data' },
  [ErrorCode.SubmitInvalidFee]: { rpc: RpcCode.Server, prefix: 'transaction underpriced' },
  [ErrorCode.SubmitNonceTooLow]: { rpc: RpcCode.Server, prefix: 'nonce too low' },
  [ErrorCode.SubmitNonceGap]: { rpc: RpcCode.Server, prefix: 'nonce too high' },
  [ErrorCode.SubmitNonceConflict]: { rpc: RpcCode.Server, prefix: 'replacement transaction underpriced' },
  [ErrorCode.SubmitPoolFull]: { rpc: RpcCode.Server, prefix: 'txpool is full' },
  [ErrorCode.SubmitSenderLimit]: { rpc: RpcCode.Server, prefix: 'account limit exceeded' },
  [ErrorCode.SubmitNotExecutableLimit]: { rpc: RpcCode.Server, prefix: 'account limit exceeded' },
  [ErrorCode.SubmitPrincipalLimit]: { rpc: RpcCode.Server, prefix: 'account limit exceeded' },
  [ErrorCode.SubmitInsufficientFunds]: { rpc: RpcCode.Server, prefix: 'insufficient funds for gas * price + value' },
  [ErrorCode.SubmitIntrinsicGas]: { rpc: RpcCode.Server, prefix: 'intrinsic gas too low' },
  [ErrorCode.SubmitGasLimitExceedsBlock]: { rpc: RpcCode.Server, prefix: 'exceeds block gas limit' },
  [ErrorCode.SubmitAlreadyKnown]: { rpc: RpcCode.Server, prefix: 'already known' },
  [ErrorCode.SubmitInitcodeTooLarge]: { rpc: RpcCode.Server, prefix: 'max initcode size exceeded' },
  // The gateway hints the key it recovered itself, so for its callers this is a signature that does not recover.
  [ErrorCode.SubmitSenderKeyMismatch]: { rpc: RpcCode.InvalidParams, prefix: 'invalid sender' },
  [ErrorCode.AuthAnonymousForbidden]: { rpc: RpcCode.Server },
  [ErrorCode.AuthNotController]: { rpc: RpcCode.Server },
  // Operational states: writes refused, reads unavailable.
  [ErrorCode.OpsWriteMigration]: { rpc: RpcCode.Server, prefix: 'service unavailable (migration)' },
  [ErrorCode.OpsWriteCycle]: { rpc: RpcCode.Server, prefix: 'service unavailable (cycles)' },
  [ErrorCode.OpsWriteCriticalCorrupt]: { rpc: RpcCode.Server, prefix: 'service unavailable (critical_corrupt)' },
  // Execution and state.
  [ErrorCode.ExecStateUnavailable]: { rpc: RpcCode.Server, prefix: 'state unavailable' },
  [ErrorCode.ExecHalt]: { rpc: RpcCode.Server, prefix: 'execution failed' },
  [ErrorCode.ExecHaltPrecompileError]: { rpc: RpcCode.Server, prefix: 'execution failed (precompile error)' },
  [ErrorCode.ExecHaltPrecompileNotReady]: { rpc: RpcCode.Server, prefix: 'execution failed (precompile not ready yet)' },
  [ErrorCode.ExecInstructionBudget]: { rpc: RpcCode.Server, prefix: 'execution failed (instruction budget exhausted)' },
  [ErrorCode.ExecTooManyLogs]: { rpc: RpcCode.Server, prefix: 'execution failed (too many logs)' },
  [ErrorCode.ExecTooManyLogBytes]: { rpc: RpcCode.Server, prefix: 'execution failed (too many log bytes)' },
  [ErrorCode.ExecRejectedSenderNotEoa]: { rpc: RpcCode.Server, prefix: 'sender not an eoa' },
  [ErrorCode.ExecRejected]: { rpc: RpcCode.Server, prefix: 'execution rejected' },
  [ErrorCode.ExecEstimateInstructionBudget]: { rpc: RpcCode.Server, prefix: 'gas estimation did not finish within the instruction budget' },
  // Missing targets and pruned history.
  [ErrorCode.InvalidBlockRangeOutOfWindow]: { rpc: RpcCode.NotFound, prefix: 'block not found' },
  [ErrorCode.NotFound]: { rpc: RpcCode.NotFound, prefix: 'not found' },
  [ErrorCode.HistoryPruned]: { rpc: RpcCode.NotFound, prefix: 'history pruned' },
  // Limits.
  [ErrorCode.LogsRangeTooLarge]: { rpc: RpcCode.LimitExceeded, prefix: 'block range too large' },
  [ErrorCode.LogsTooManyResults]: { rpc: RpcCode.LimitExceeded, prefix: 'too many results' },
  // Tracing (src/archive/trace, TraceError): a bad config is a bad argument; the message is geth's words.
  [TraceErrorCode.BadConfig]: { rpc: RpcCode.InvalidParams },
  [TraceErrorCode.Timeout]: { rpc: RpcCode.Server },
  [TraceErrorCode.TooLarge]: { rpc: RpcCode.Server },
  [TraceErrorCode.Rejected]: { rpc: RpcCode.Server },
  // Otterscan's searches (src/archive/ots_queries.ts) on an archive database the indexer does not fill.
  [OtsErrorCode.IndexerMissing]: { rpc: RpcCode.Server, prefix: 'indexer unavailable' },
};

/** Log sink for internals (the server wires it to stderr); tests may replace it. */
export type InternalLog = (message: string) => void;

/**
 * The canister's Err record as a JSON-RPC error. A revert (`exec.reverted`) is -32000 with the message
 * exactly "execution reverted" and the revert bytes as hex in `data`: ethers v6 decodes any error whose
 * message mentions "revert" and carries hex data; viem decodes -32000 only when the message is exactly
 * "execution reverted" (and codes 3 / -32603 regardless). See docs/gateway.md.
 */
export function fromCanisterError(e: CandidError, log: InternalLog): RpcError {
  if (e.code === ErrorCode.ExecReverted) {
    return new RpcError(RpcCode.Server, 'execution reverted', toPrefixedHex(e.data[0] ?? new Uint8Array()));
  }
  const m = ERROR_MAP[e.code];
  if (m === undefined) {
    log(`canister error ${e.code}: ${e.message}`);
    return new RpcError(RpcCode.Internal, INTERNAL_MESSAGE);
  }
  const text = m.prefix === undefined ? e.message : e.message === '' ? m.prefix : `${m.prefix}: ${e.message}`;
  return new RpcError(m.rpc, text);
}

/** Unwraps a canister Result or throws its mapped RpcError. */
export function unwrapResult<T>(r: { Ok: T } | { Err: CandidError }, log: InternalLog): T {
  if ('Err' in r) throw fromCanisterError(r.Err, log);
  return r.Ok;
}
