// The client's errors: values with a stable name and the method they concern.

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
  }
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
