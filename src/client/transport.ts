// How a call reaches the canister. A transport carries Candid values, encoded and decoded with the one
// Candid definition (src/canister/idl.ts); CanisterClient gives them their types. Two implementations: the
// in-process Node IC host (./host.ts) and the IC agent over HTTP (./agent.ts).
import type { CallMode, CanisterMethod } from './schema.js';

export interface Transport {
  readonly kind: 'host' | 'agent';
  /** One call; throws CanisterCallError when no reply comes (reject, trap, network). */
  call(mode: CallMode, method: CanisterMethod, args: readonly unknown[]): Promise<unknown>;
}
