// The gateway's one view of the canister, with two implementations: the in-process Node IC host (the devnet
// and the wasm tests) and the IC agent (@icp-sdk/core HttpAgent, for a canister on a replica or mainnet).
// Both encode and decode with the one Candid definition (src/canister/idl.ts), so values have the same shapes.
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Actor, HttpAgent, type Identity } from '@icp-sdk/core/agent';
import { IDL as AgentIDL } from '@icp-sdk/core/candid';
import { Ed25519KeyIdentity } from '@icp-sdk/core/identity';
import { Secp256k1KeyIdentity } from '@icp-sdk/core/identity/secp256k1';
import { idlFactory, methodSignatures } from '../canister/idl.js';
import type { EvmClient, EvmMethod } from '../host/evm_client.js';
import { CallRejectedError } from '../host/errors.js';
import { ConfigError, type GatewayConfig } from './config.js';

export type CanisterMethod = EvmMethod;

/** A call that did not produce a reply: a reject, a trap, a transport failure. Logged, never shown to clients. */
export class CanisterCallError extends Error {
  override name = 'CanisterCallError';
  constructor(
    readonly method: string,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(`${method}: ${message}`);
  }
}

export interface CanisterClient {
  readonly kind: 'host' | 'agent';
  /** A query method (the canister refuses query methods called as updates). */
  query<T>(method: CanisterMethod, args: unknown[]): Promise<T>;
  /** An update method (submits). */
  update<T>(method: CanisterMethod, args: unknown[]): Promise<T>;
}

/** The canister in the Node IC host (`npm start`, wasm tests): calls run in-process, queries synchronously. */
export class HostCanisterClient implements CanisterClient {
  readonly kind = 'host' as const;
  constructor(private readonly evm: EvmClient) {}

  async query<T>(method: CanisterMethod, args: unknown[]): Promise<T> {
    try {
      return this.evm.query<T>(method, args).value;
    } catch (e) {
      throw wrap(method, e);
    }
  }

  async update<T>(method: CanisterMethod, args: unknown[]): Promise<T> {
    try {
      return (await this.evm.update<T>(method, args)).value;
    } catch (e) {
      throw wrap(method, e);
    }
  }
}

function wrap(method: string, e: unknown): CanisterCallError {
  if (e instanceof CallRejectedError) return new CanisterCallError(method, `rejected (code ${e.code}): ${e.rejectMessage}`, e);
  return new CanisterCallError(method, e instanceof Error ? e.message : String(e), e);
}

/**
 * An identity from a PEM file as dfx writes them: Ed25519 (`dfx identity new`, PKCS#8 "PRIVATE KEY") or
 * secp256k1 (`--storage-mode plaintext` imports, SEC1 "EC PRIVATE KEY" or PKCS#8). Node's crypto parses the
 * container; the raw secret goes to @icp-sdk/core's identity classes.
 */
export function identityFromPem(pem: string, source = 'PEM'): Identity {
  let key;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch (e) {
    throw new Error(`${source}: not a private key PEM (${(e as Error).message})`);
  }
  const jwk = key.export({ format: 'jwk' });
  if (typeof jwk.d !== 'string') throw new Error(`${source}: the PEM holds no private key`);
  const secret = new Uint8Array(Buffer.from(jwk.d, 'base64url'));
  if (key.asymmetricKeyType === 'ed25519') return Ed25519KeyIdentity.fromSecretKey(secret);
  if (key.asymmetricKeyType === 'ec' && jwk.crv === 'secp256k1') return Secp256k1KeyIdentity.fromSecretKey(secret);
  throw new Error(`${source}: unsupported key type ${key.asymmetricKeyType ?? '?'}${jwk.crv === undefined ? '' : ` (${jwk.crv})`}; use an Ed25519 or secp256k1 key`);
}

export function loadIdentity(path: string): Identity {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError('RPC_GATEWAY_IDENTITY_PEM_PATH', `cannot read ${path}: ${(e as Error).message}`);
  }
  try {
    return identityFromPem(pem, path);
  } catch (e) {
    throw new ConfigError('RPC_GATEWAY_IDENTITY_PEM_PATH', (e as Error).message);
  }
}

type ActorLike = Record<string, (...args: unknown[]) => Promise<unknown>>;

/** The canister through the IC's HTTP interface (query calls for query methods, certified updates for submits). */
export class AgentCanisterClient implements CanisterClient {
  readonly kind = 'agent' as const;
  private readonly modes: Record<string, 'query' | 'update'>;

  constructor(
    readonly agent: HttpAgent,
    readonly canisterId: string,
    private readonly actor: ActorLike = Actor.createActor(idlFactory as never, { agent, canisterId }) as unknown as ActorLike,
  ) {
    this.modes = Object.fromEntries(Object.entries(methodSignatures(AgentIDL as never)).map(([k, v]) => [k, v.mode]));
  }

  private async call<T>(mode: 'query' | 'update', method: CanisterMethod, args: unknown[]): Promise<T> {
    if (this.modes[method] !== mode) throw new CanisterCallError(method, `is not a ${mode} method`);
    const f = this.actor[method];
    if (f === undefined) throw new CanisterCallError(method, 'unknown method');
    try {
      return (await f(...args)) as T;
    } catch (e) {
      throw new CanisterCallError(method, e instanceof Error ? e.message : String(e), e);
    }
  }

  query<T>(method: CanisterMethod, args: unknown[]): Promise<T> {
    return this.call<T>('query', method, args);
  }
  update<T>(method: CanisterMethod, args: unknown[]): Promise<T> {
    return this.call<T>('update', method, args);
  }
}

/** Builds the agent client from the configuration: identity from the PEM path (default anonymous), root key fetch. */
export async function createAgentClient(config: GatewayConfig, opts: { fetch?: typeof fetch } = {}): Promise<AgentCanisterClient> {
  if (config.canisterId === undefined) throw new ConfigError('EVM_CANISTER_ID', 'required: the id of the evm canister the gateway talks to');
  const identity = config.identityPemPath === undefined ? undefined : loadIdentity(config.identityPemPath);
  const agent = HttpAgent.createSync({
    host: config.icHost,
    ...(identity === undefined ? {} : { identity }),
    ...(opts.fetch === undefined ? {} : { fetch: opts.fetch }),
  });
  if (config.fetchRootKey) await agent.fetchRootKey();
  return new AgentCanisterClient(agent, config.canisterId);
}
