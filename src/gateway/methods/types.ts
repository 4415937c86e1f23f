// What every method module exports: its handler and the facts the compatibility matrix prints.
import type { Lru } from '../cache.js';
import type { CanisterClient, CanisterMethod } from '../../client/index.js';
import type { GatewayConfig } from '../config.js';
import type { InternalLog } from '../errors.js';
import type { DevControl } from './dev.js';

export interface MethodContext {
  readonly client: CanisterClient;
  readonly config: GatewayConfig;
  /** Immutable answers (final blocks, included transactions, receipts). */
  readonly cache: Lru<unknown>;
  readonly log: InternalLog;
  /** The devnet's development methods (evm_*); absent in front of a real canister. */
  readonly dev?: DevControl;
}

export interface MethodSpec {
  readonly name: string;
  /** Canister methods it calls, in order ("-" for none). */
  readonly canister: readonly CanisterMethod[];
  /** Block parameters it accepts ("-" when it takes none). */
  readonly blockTags: string;
  readonly limits: string;
  /** How the answer differs from geth's. */
  readonly differences: string;
  handler(params: unknown, ctx: MethodContext): Promise<unknown>;
}

/** For the matrix: every block tag the state reads accept, and what they mean here. */
export const STATE_TAGS = '`latest`, `pending`, `safe`, `finalized` (= head); head number; `earliest`/older numbers -> -32000 state unavailable; above head -> -32001; EIP-1898 `{blockNumber}`/`{blockHash}`';
