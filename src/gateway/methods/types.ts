// What every method module exports: its handler and the facts the compatibility matrix prints.
import type { Lru } from '../cache.js';
import type { CanisterClient, CanisterMethod } from '../../client/index.js';
import type { GatewayConfig } from '../config.js';
import type { InternalLog } from '../errors.js';
import type { DevControl } from './dev.js';
import type { Signer } from '../signer.js';
import type { FilterStore } from '../filters.js';
import type { PendingFeed } from '../pending.js';
import type { ResponseBudget } from '../budget.js';
import type { QueryGate } from '../query_gate.js';
import type { CallObjectView, LogFilterView } from '../../client/schema.js';
import type { ArchiveReader } from '../../archive/reader.js';

export type SubscriptionKind = 'newHeads' | 'logs' | 'newPendingTransactions';

/** A WebSocket connection's subscriptions (src/gateway/ws.ts); absent over HTTP. */
export interface SubscriptionSession {
  /** Starts a subscription after the current head; returns its id. Bounded per connection (-32005). */
  subscribe(kind: SubscriptionKind, criteria: Pick<LogFilterView, 'address' | 'topics'> | undefined): Promise<string>;
  unsubscribe(id: string): boolean;
}

export interface MethodContext {
  readonly client: CanisterClient;
  readonly config: GatewayConfig;
  /** Immutable answers (final blocks, included transactions, receipts). */
  readonly cache: Lru<unknown>;
  readonly log: InternalLog;
  /** The devnet's development methods (evm_*); absent in front of a real canister. */
  readonly dev?: DevControl;
  /** The devnet's development accounts (eth_accounts, eth_sendTransaction, eth_sign*); absent in front of a real canister. */
  readonly signer?: Signer;
  /** Filters held for their clients (eth_newFilter and friends). */
  readonly filters: FilterStore;
  /** Hashes of transactions this gateway accepted (pending filters and subscriptions). */
  readonly pending: PendingFeed;
  /** Set for requests that came over a WebSocket. */
  readonly session?: SubscriptionSession;
  /**
   * Who asked, for per-client quotas (filters, queued queries): the remote address over HTTP (an IPv6 address
   * by its /64), the connection over WebSocket. Absent for in-process callers.
   */
  readonly clientKey?: string;
  /** The gate every client's canister queries pass (bounded, fair queue); absent for in-process callers. */
  readonly queries?: QueryGate;
  /** Historical state (src/archive): reads below the head; absent = only the head state (-32000 below it). */
  readonly archive?: ArchiveReader;
  /** The devnet's watcher of eth_call / eth_estimateGas (it prints their console.log); absent in front of a real canister. */
  readonly calls?: CallWatcher;
  /** The byte budget of the response being built (shared by a batch's items); absent outside a response. */
  readonly budget?: ResponseBudget;
}

/**
 * Told of each eth_call / eth_estimateGas the gateway ran (answered or failed), at the block it ran on (undefined:
 * the head). It must return at once: the client's answer never waits for what it does.
 */
export interface CallWatcher {
  called(method: 'eth_call' | 'eth_estimateGas', call: CallObjectView, block: bigint | undefined): void;
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
  /** Devnet-only methods: the anvil handler or Hardhat method whose parameters, answers and errors it follows. */
  readonly reference?: string;
  handler(params: unknown, ctx: MethodContext): Promise<unknown>;
}

/** For the matrix: every block tag the state reads accept, and what they mean here. */
export const STATE_TAGS = '`latest`, `pending`, `safe`, `finalized` (= head); head number; `earliest`/older numbers -> the archive\'s state at that block when the gateway has one (`npm start` does; RPC_GATEWAY_ARCHIVE_DATABASE_URL), else -32000 state unavailable; above head -> -32001; EIP-1898 `{blockNumber}`/`{blockHash}`';

/** How state reads below the head are answered (the differences column). */
export const ARCHIVE_READS = 'Below the head: from the archive (every block re-executed and verified off-chain, docs/archive.md) when the gateway has one; a block it does not hold (or without an archive) is -32000 state unavailable.';
