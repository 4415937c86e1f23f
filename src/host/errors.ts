// Typed errors of the Node IC host. Results of calls are values (reply / reject), never thrown stacks;
// these are thrown only for misuse of the host or for failures of install / upgrade.

/** IC reject codes (interface spec). */
export const RejectCode = {
  SysFatal: 1,
  SysTransient: 2,
  DestinationInvalid: 3,
  CanisterReject: 4,
  CanisterError: 5,
} as const;
export type RejectCode = (typeof RejectCode)[keyof typeof RejectCode];

export class HostError extends Error {
  override name = 'HostError';
}

/** The wasm or the tooling to prepare it is unusable. */
export class HostSetupError extends HostError {
  override name = 'HostSetupError';
}

/** The host was used in a way it does not allow (e.g. install twice, call before install, after close). */
export class HostStateError extends HostError {
  override name = 'HostStateError';
}

/** canister_init / canister_post_upgrade / canister_pre_upgrade trapped; the operation was rolled back. */
export class CanisterInstallError extends HostError {
  override name = 'CanisterInstallError';
  constructor(
    readonly phase: 'init' | 'pre_upgrade' | 'post_upgrade',
    readonly trapMessage: string,
  ) {
    super(`canister_${phase} trapped: ${trapMessage}`);
  }
}

/** Thrown inside an ic0 import to abort the running message (caught by the host, never escapes). */
export class Trap extends Error {
  override name = 'Trap';
  constructor(
    message: string,
    readonly kind: 'trap' | 'limit' | 'runtime' = 'trap',
  ) {
    super(message);
  }
}
