// The explorer's verification errors: values with stable codes, mapped to HTTP statuses and to each API's
// answer shape in one place (here), so the three APIs refuse the same input the same way.

export type VerifyErrorCode =
  | 'verification_disabled'
  | 'invalid_request'
  | 'invalid_json'
  | 'request_too_large'
  | 'too_many_files'
  | 'file_too_large'
  | 'invalid_address'
  | 'wrong_chain_id'
  | 'compiler_not_allowed'
  | 'invalid_compiler_version'
  | 'no_code'
  | 'compilation_failed'
  | 'compile_timeout'
  | 'compile_memory'
  | 'contract_not_found'
  | 'unlinked_libraries'
  | 'bytecode_mismatch'
  | 'constructor_args_mismatch'
  | 'already_verified'
  | 'queue_full'
  | 'job_not_found'
  | 'not_verified'
  | 'rpc_unavailable'
  | 'internal_error';

const HTTP_STATUS: Record<VerifyErrorCode, number> = {
  verification_disabled: 403,
  invalid_request: 400,
  invalid_json: 400,
  request_too_large: 413,
  too_many_files: 413,
  file_too_large: 413,
  invalid_address: 400,
  wrong_chain_id: 400,
  compiler_not_allowed: 400,
  invalid_compiler_version: 400,
  no_code: 400,
  compilation_failed: 400,
  compile_timeout: 400,
  compile_memory: 400,
  contract_not_found: 400,
  unlinked_libraries: 400,
  bytecode_mismatch: 400,
  constructor_args_mismatch: 400,
  already_verified: 409,
  queue_full: 503,
  job_not_found: 404,
  not_verified: 404,
  rpc_unavailable: 502,
  internal_error: 500,
};

export class VerifyError extends Error {
  override name = 'VerifyError';
  constructor(
    readonly code: VerifyErrorCode,
    message: string,
  ) {
    super(message);
  }

  get httpStatus(): number {
    return HTTP_STATUS[this.code];
  }
}

/** Any thrown value as a VerifyError; unknown failures become internal_error without their stack. */
export function asVerifyError(e: unknown): VerifyError {
  if (e instanceof VerifyError) return e;
  return new VerifyError('internal_error', `internal error: ${e instanceof Error ? e.message : String(e)}`);
}
