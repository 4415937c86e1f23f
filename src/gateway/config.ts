// The gateway's configuration, parsed once from the environment at the edge (SPEC "Limits / Gateway").
// Names and defaults are SPEC's; an invalid value fails at start with a message naming the variable.

import { ConfigError } from '../client/errors.js';
import { envReaders, type Env } from '../client/env.js';

export const SERVICE_NAME = 'icp-evm';
export const DEFAULT_CLIENT_VERSION = `${SERVICE_NAME}/phase2-gateway/v0.1.0`;
/** SPEC's {ic_host} placeholder: the IC's public boundary nodes. */
export const DEFAULT_IC_HOST = 'https://icp-api.io';

export interface GatewayConfig {
  readonly maxHttpBodySize: number;
  readonly maxBatchLen: number;
  readonly maxJsonDepth: number;
  readonly host: string;
  readonly port: number;
  readonly icHost: string;
  readonly fetchRootKey: boolean;
  readonly identityPemPath: string | undefined;
  readonly clientVersion: string;
  readonly corsOrigin: string;
  /** Required for the IC agent client; the in-process devnet host does not need it. */
  readonly canisterId: string | undefined;
  /** A filter not polled for this long is dropped (geth: 5 minutes). */
  readonly filterTimeoutMs: number;
  /** Live filters at most (all clients together). */
  readonly maxFilters: number;
  /** Live filters of one client at most (a remote address over HTTP, a connection over WebSocket). */
  readonly maxFiltersPerClient: number;
  /** Open WebSocket connections at most. */
  readonly maxWsConnections: number;
  /** eth_subscribe subscriptions per WebSocket connection at most. */
  readonly maxSubscriptions: number;
  /** eth_subscribe subscriptions of all connections together at most. */
  readonly maxTotalSubscriptions: number;
  /** A WebSocket client that lets this many bytes of answers and notifications queue up is disconnected. */
  readonly wsMaxBufferedBytes: number;
  /** How often the gateway reads the head for its WebSocket subscriptions. */
  readonly headPollMs: number;
  /** Bytes of JSON one HTTP response or WebSocket answer holds at most, shared by a batch's items. */
  readonly maxResponseBytes: number;
  /** Bytes of formatted blocks, transactions and receipts the gateway's cache holds at most. */
  readonly cacheBytes: number;
  /** Canister queries in flight at once, all clients together. */
  readonly maxConcurrentQueries: number;
  /** Canister queries waiting for a slot, all clients together; more is -32005. */
  readonly maxQueuedQueries: number;
  /** Canister queries of one client waiting for a slot; more is -32005. */
  readonly maxQueuedQueriesPerClient: number;
  /** The archive's PostgreSQL database (src/archive): reads below the head come from it; undefined = head state only. */
  readonly archiveDatabaseUrl: string | undefined;
}

export { ConfigError };

export const DEFAULT_CONFIG: GatewayConfig = {
  maxHttpBodySize: 262144,
  maxBatchLen: 20,
  maxJsonDepth: 20,
  host: '127.0.0.1',
  port: 8545,
  icHost: DEFAULT_IC_HOST,
  fetchRootKey: false,
  identityPemPath: undefined,
  clientVersion: DEFAULT_CLIENT_VERSION,
  corsOrigin: '*',
  canisterId: undefined,
  filterTimeoutMs: 300_000,
  maxFilters: 1024,
  maxFiltersPerClient: 64,
  maxWsConnections: 256,
  maxSubscriptions: 64,
  maxTotalSubscriptions: 1024,
  wsMaxBufferedBytes: 4 * 1024 * 1024,
  headPollMs: 250,
  maxResponseBytes: 48 * 1024 * 1024,
  cacheBytes: 64 * 1024 * 1024,
  maxConcurrentQueries: 16,
  maxQueuedQueries: 256,
  maxQueuedQueriesPerClient: 64,
  archiveDatabaseUrl: undefined,
};

const { present, int, bool, url, canisterId: canisterIdOf } = envReaders((variable, message) => new ConfigError(variable, message));




/**
 * Parses the environment. `requireCanisterId` is true for the IC agent mode (EVM_CANISTER_ID is required there,
 * SPEC: "required, no default"); the devnet serves its in-process canister and ignores it.
 */
export function loadConfig(env: Env = process.env, opts: { requireCanisterId?: boolean } = {}): GatewayConfig {
  const canisterId = canisterIdOf(env, 'EVM_CANISTER_ID');
  if (opts.requireCanisterId === true && canisterId === undefined) {
    throw new ConfigError('EVM_CANISTER_ID', 'required: the id of the evm canister the gateway talks to');
  }
  const host = present(env, 'RPC_GATEWAY_HOST') ?? DEFAULT_CONFIG.host;
  if (/\s/.test(host)) throw new ConfigError('RPC_GATEWAY_HOST', `not a host name or address: ${JSON.stringify(host)}`);
  const cors = present(env, 'RPC_GATEWAY_CORS_ORIGIN') ?? DEFAULT_CONFIG.corsOrigin;
  if (/[\r\n]/.test(cors)) throw new ConfigError('RPC_GATEWAY_CORS_ORIGIN', 'must be one line');
  const clientVersion = env.RPC_GATEWAY_CLIENT_VERSION ?? DEFAULT_CONFIG.clientVersion;
  if (clientVersion.trim() === '') throw new ConfigError('RPC_GATEWAY_CLIENT_VERSION', 'must not be empty');
  return {
    maxHttpBodySize: int(env, 'RPC_GATEWAY_MAX_HTTP_BODY_SIZE', DEFAULT_CONFIG.maxHttpBodySize, 64, 64 * 1024 * 1024),
    maxBatchLen: int(env, 'RPC_GATEWAY_MAX_BATCH_LEN', DEFAULT_CONFIG.maxBatchLen, 1, 10_000),
    maxJsonDepth: int(env, 'RPC_GATEWAY_MAX_JSON_DEPTH', DEFAULT_CONFIG.maxJsonDepth, 2, 1000),
    host,
    port: int(env, 'RPC_GATEWAY_PORT', DEFAULT_CONFIG.port, 0, 65535),
    icHost: url(env, 'RPC_GATEWAY_IC_HOST', ['http:', 'https:']) ?? DEFAULT_CONFIG.icHost,
    fetchRootKey: bool(env, 'RPC_GATEWAY_FETCH_ROOT_KEY', DEFAULT_CONFIG.fetchRootKey),
    identityPemPath: present(env, 'RPC_GATEWAY_IDENTITY_PEM_PATH'),
    clientVersion,
    corsOrigin: cors,
    canisterId,
    filterTimeoutMs: int(env, 'RPC_GATEWAY_FILTER_TIMEOUT_MS', DEFAULT_CONFIG.filterTimeoutMs, 1000, 24 * 3600 * 1000),
    maxFilters: int(env, 'RPC_GATEWAY_MAX_FILTERS', DEFAULT_CONFIG.maxFilters, 1, 1_000_000),
    maxFiltersPerClient: int(env, 'RPC_GATEWAY_MAX_FILTERS_PER_CLIENT', DEFAULT_CONFIG.maxFiltersPerClient, 1, 1_000_000),
    maxWsConnections: int(env, 'RPC_GATEWAY_MAX_WS_CONNECTIONS', DEFAULT_CONFIG.maxWsConnections, 0, 100_000),
    maxSubscriptions: int(env, 'RPC_GATEWAY_MAX_SUBSCRIPTIONS', DEFAULT_CONFIG.maxSubscriptions, 1, 10_000),
    maxTotalSubscriptions: int(env, 'RPC_GATEWAY_MAX_TOTAL_SUBSCRIPTIONS', DEFAULT_CONFIG.maxTotalSubscriptions, 1, 1_000_000),
    wsMaxBufferedBytes: int(env, 'RPC_GATEWAY_WS_MAX_BUFFERED_BYTES', DEFAULT_CONFIG.wsMaxBufferedBytes, 64 * 1024, 1024 * 1024 * 1024),
    headPollMs: int(env, 'RPC_GATEWAY_HEAD_POLL_MS', DEFAULT_CONFIG.headPollMs, 10, 60_000),
    maxResponseBytes: int(env, 'RPC_GATEWAY_MAX_RESPONSE_BYTES', DEFAULT_CONFIG.maxResponseBytes, 64 * 1024, 256 * 1024 * 1024),
    cacheBytes: int(env, 'RPC_GATEWAY_CACHE_BYTES', DEFAULT_CONFIG.cacheBytes, 0, 16 * 1024 * 1024 * 1024),
    maxConcurrentQueries: int(env, 'RPC_GATEWAY_MAX_CONCURRENT_QUERIES', DEFAULT_CONFIG.maxConcurrentQueries, 1, 10_000),
    maxQueuedQueries: int(env, 'RPC_GATEWAY_MAX_QUEUED_QUERIES', DEFAULT_CONFIG.maxQueuedQueries, 0, 1_000_000),
    maxQueuedQueriesPerClient: int(env, 'RPC_GATEWAY_MAX_QUEUED_QUERIES_PER_CLIENT', DEFAULT_CONFIG.maxQueuedQueriesPerClient, 0, 1_000_000),
    archiveDatabaseUrl: url(env, 'RPC_GATEWAY_ARCHIVE_DATABASE_URL', ['postgres:', 'postgresql:']),
  };
}
