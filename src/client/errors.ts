// The client's errors: values with a stable name and the method they concern.
import { parseRefusal } from '../canister/refusal.js';

/** A call that did not produce a reply: a reject, a trap, a transport failure. Logged, never shown to clients. */
export class CanisterCallError extends Error {
  override name = 'CanisterCallError';
  constructor(
    readonly method: string,
    message: string,
    override readonly cause?: unknown,
    /** The IC reject code when the canister or the platform rejected the call. */
    readonly rejectCode?: number,
  ) {
    super(`${method}: ${message}`);
    this.refusal = parseRefusal(message);
  }
  /**
   * Set when canister_inspect_message refused the call with one of the service's error codes
   * (src/canister/refusal.ts): the answer the method itself would have given, so callers map it as such.
   */
  readonly refusal: { readonly code: string; readonly message: string } | undefined;
}

/** A configuration value that cannot be used; the message names the environment variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
  }
}
