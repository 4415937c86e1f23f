// The transport to the canister wasm running in the Node IC host, in this process (`npm start`, the wasm
// tests): calls run in-process; queries through IcHost.queryAsync (in the host's query replica when it has
// one, otherwise synchronously on this thread).
import type { CallOptions } from '../host/index.js';
import type { EvmClient } from '../host/evm_client.js';
import { CallRejectedError } from '../host/errors.js';
import { CanisterClient } from './client.js';
import { CanisterCallError } from './errors.js';
import type { CallMode, CanisterMethod } from './schema.js';
import type { Transport } from './transport.js';

export class HostTransport implements Transport {
  readonly kind = 'host' as const;
  /** `opts` applies to every call (for example the caller principal). */
  constructor(
    readonly evm: EvmClient,
    private readonly opts: CallOptions = {},
  ) {}

  async call(mode: CallMode, method: CanisterMethod, args: readonly unknown[]): Promise<unknown> {
    try {
      if (mode === 'query') return (await this.evm.queryAsync(method, [...args], this.opts)).value;
      return (await this.evm.update(method, [...args], this.opts)).value;
    } catch (e) {
      if (e instanceof CallRejectedError) throw new CanisterCallError(method, `rejected (code ${e.code}): ${e.rejectMessage}`, e, e.code);
      throw new CanisterCallError(method, e instanceof Error ? e.message : String(e), e);
    }
  }
}

export const hostClient = (evm: EvmClient, opts: CallOptions = {}): CanisterClient => new CanisterClient(new HostTransport(evm, opts));
