// Errors are values with stable codes (SPEC.md "Canister error codes"). The code is the contract;
// the message is for humans and may change. The gateway maps codes to JSON-RPC codes in one place.

export const ErrorCode = {
  AuthAnonymousForbidden: 'auth.anonymous_forbidden',
  AuthNotController: 'auth.not_controller',
  OpsWriteMigration: 'ops.write.migration',
  OpsWriteCycle: 'ops.write.cycle',
  OpsWriteCriticalCorrupt: 'ops.write.critical_corrupt',
  PrincipalDerivationFailed: 'arg.principal_to_evm_derivation_failed',
  ArgInvalid: 'arg.invalid',
  ArgAddressLength: 'arg.address_length',
  DecodeUnsupportedType: 'DecodeError::UnsupportedType',
  DecodeWrongChainId: 'DecodeError::WrongChainId',
  DecodeLegacyChainIdMissing: 'DecodeError::LegacyChainIdMissing',
  DecodeMalformed: 'DecodeError::Malformed',
  DecodeInvalidSignature: 'DecodeError::InvalidSignature',
  SubmitTxTooLarge: 'submit.tx_too_large',
  SubmitInvalidFee: 'submit.invalid_fee',
  SubmitNonceTooLow: 'submit.nonce_too_low',
  SubmitNonceGap: 'submit.nonce_gap',
  SubmitNonceConflict: 'submit.nonce_conflict',
  SubmitPoolFull: 'submit.pool_full',
  SubmitSenderLimit: 'submit.sender_limit',
  /** The sender (or the pool) holds as many not-executable (gapped or underpriced) transactions as allowed. */
  SubmitNotExecutableLimit: 'submit.not_executable_limit',
  SubmitPrincipalLimit: 'submit.principal_limit',
  SubmitInsufficientFunds: 'submit.insufficient_funds',
  SubmitIntrinsicGas: 'submit.intrinsic_gas_too_low',
  SubmitGasLimitExceedsBlock: 'submit.gas_limit_exceeds_block',
  SubmitAlreadyKnown: 'submit.already_known',
  SubmitInitcodeTooLarge: 'submit.initcode_too_large',
  /** rpc_eth_send_raw_transaction_with_key: the signature was not made by the given public key. */
  SubmitSenderKeyMismatch: 'submit.sender_key_mismatch',
  /** Dropped reason: a later submit for the same (sender, nonce) with both fees bumped replaced it. */
  PoolReplaced: 'pool.replaced',
  /** Dropped reason: decoding or running this one transaction failed unexpectedly (a bad record); the block went on without it. */
  PoolDroppedFaulty: 'pool.dropped.faulty',
  /** Dropped reason: the pool was full and a better-paying executable transaction took its place. */
  PoolEvicted: 'pool.evicted',
  /** Dropped reason: not executable for longer than NOT_EXECUTABLE_LIFETIME_NS. */
  PoolExpired: 'pool.expired',
  /** Dropped reason: a controller purged the pool (purge_pool). */
  PoolPurged: 'pool.purged',
  /** Dropped by a development canister's dev_drop_transaction (anvil_dropTransaction). */
  PoolDroppedDev: 'pool.dropped.dev',
  /** A dev_* method on a canister not installed with development = opt true. */
  DevDisabled: 'dev.disabled',
  ExecStateUnavailable: 'exec.state.unavailable',
  ExecReverted: 'exec.reverted',
  ExecHalt: 'exec.halt',
  ExecHaltPrecompileError: 'exec.halt.precompile_error',
  ExecInstructionBudget: 'exec.halt.instruction_budget',
  /** The transaction's receipt would hold more than MAX_LOGS_PER_TX logs: it fails, all gas charged. */
  ExecTooManyLogs: 'exec.halt.too_many_logs',
  /** The transaction's logs would carry more than MAX_LOG_BYTES_PER_TX bytes of data and topics: it fails, all gas charged. */
  ExecTooManyLogBytes: 'exec.halt.too_many_log_bytes',
  /** Execution-time rejection (not included): the sender has code that is not an EIP-7702 delegation (EIP-3607). */
  ExecRejectedSenderNotEoa: 'exec.rejected.sender_not_eoa',
  /** Execution-time rejection (not included) for a reason without a more specific code. */
  ExecRejected: 'exec.rejected',
  InvalidBlockRangeOutOfWindow: 'invalid.block_range.out_of_window',
  NotFound: 'not_found',
  /** The request reaches into pruned history (JSON-RPC -32001 at the gateway). */
  HistoryPruned: 'history.pruned',
  /** A precompile whose curve tables are built by a warm-up step ran before that step finished. */
  ExecHaltPrecompileNotReady: 'exec.halt.precompile_not_ready',
  LogsRangeTooLarge: 'logs.range_too_large',
  LogsTooManyResults: 'logs.too_many_results',
  UnsupportedFilter: 'UnsupportedFilter',
  // Read API (src/core/query). arg.* are invalid params (JSON-RPC -32602 at the gateway).
  /** A callObject value is invalid: address length, a quantity out of range, data of a raw call, ... */
  ArgInvalidCallObject: 'arg.invalid.call_object',
  /** callObject fee fields do not combine: gasPrice with maxFeePerGas/maxPriorityFeePerGas, priority above max fee. */
  ArgInvalidFeeParams: 'arg.invalid.fee_params',
  /** callObject `type` other than 0x0 or 0x2, or fields that the given type cannot carry. */
  ArgInvalidTxType: 'arg.invalid.tx_type',
  /** callObject `chainId` other than this chain's. */
  ArgInvalidChainId: 'arg.invalid.chain_id',
  /** A log filter, cursor, page limit or fee-history argument that is malformed (not merely unsupported). */
  ArgInvalidFilter: 'arg.invalid.filter',
  /** eth_estimateGas: the binary search could not finish within one query's instruction budget. */
  ExecEstimateInstructionBudget: 'exec.estimate.instruction_budget',
  Internal: 'internal',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface CoreError {
  readonly code: ErrorCode;
  readonly message: string;
  /** Extra bytes for the caller, e.g. revert data. */
  readonly data?: Uint8Array;
}

export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: CoreError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const err = <T = never>(code: ErrorCode, message: string, data?: Uint8Array): Result<T> => ({
  ok: false,
  error: data === undefined ? { code, message } : { code, message, data },
});
