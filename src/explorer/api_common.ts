// What the three verification APIs share: the request context, the submit path (every bound checked and the
// address's code present before a job is queued) and how a job's outcome reads.
import { VerifyError } from './errors.js';
import type { Verifier } from './jobs.js';
import { requireEnabled, type RequestContext, type VerifyRequest } from './request.js';
import type { ExplorerStore } from './store.js';

export interface ApiDeps {
  readonly ctx: RequestContext;
  readonly store: ExplorerStore;
  /** undefined when verification is switched off (the read endpoints still answer). */
  readonly verifier: Verifier | undefined;
  readonly getCode: (address: string) => Promise<string>;
}

/** Bytes of a request body read while verification is switched off (the read actions' fields fit). */
export const DISABLED_BODY_BYTES = 64 * 1024;

/** Checks the address holds code, then queues for `client` (its per-client quota); answers the job id. */
export async function submitJob(deps: ApiDeps, req: VerifyRequest, client: string): Promise<string> {
  requireEnabled(deps.ctx);
  if (deps.verifier === undefined) throw new VerifyError('verification_disabled', 'contract verification is switched off on this explorer');
  const existing = await deps.store.getContract(req.address);
  if (existing !== undefined && existing.runtimeMatch === 'full') {
    throw new VerifyError('already_verified', `the contract at ${req.address} is already verified (full match)`);
  }
  if ((await deps.getCode(req.address)) === '') throw new VerifyError('no_code', `no contract code at ${req.address} (not deployed yet, or not a contract)`);
  return deps.verifier.submit(req, client);
}
