// The transport to a canister through the IC's HTTP interface (@icp-sdk/core HttpAgent): query calls for
// query methods, certified update calls for the rest; the IC, a local replica, or the devnet's interface.
// Also the identity (PEM) and root-key options every agent user shares: the gateway's RPC_GATEWAY_* and the
// indexer's INDEXER_* variables map onto AgentOptions.
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Actor, HttpAgent, type Identity } from '@icp-sdk/core/agent';
import { Ed25519KeyIdentity } from '@icp-sdk/core/identity';
import { Secp256k1KeyIdentity } from '@icp-sdk/core/identity/secp256k1';
import { idlFactory } from '../canister/idl.js';
import { CanisterClient } from './client.js';
import { CanisterCallError, ConfigError } from './errors.js';
import type { CallMode, CanisterMethod } from './schema.js';
import type { Transport } from './transport.js';

/**
 * An identity from a PEM file as dfx and icp-cli write them: Ed25519 (PKCS#8 "PRIVATE KEY") or secp256k1
 * (SEC1 "EC PRIVATE KEY" or PKCS#8). Node's crypto parses the container; the raw secret goes to
 * @icp-sdk/core's identity classes.
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

/** Reads an identity PEM; errors name `variable`, the setting the path came from. */
export function loadIdentity(path: string, variable: string): Identity {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(variable, `cannot read ${path}: ${(e as Error).message}`);
  }
  try {
    return identityFromPem(pem, path);
  } catch (e) {
    throw new ConfigError(variable, (e as Error).message);
  }
}

type ActorLike = Record<string, (...args: unknown[]) => Promise<unknown>>;

export class AgentTransport implements Transport {
  readonly kind = 'agent' as const;
  private readonly actor: ActorLike;

  constructor(
    readonly agent: HttpAgent,
    readonly canisterId: string,
  ) {
    this.actor = Actor.createActor(idlFactory as never, { agent, canisterId }) as unknown as ActorLike;
  }

  async call(_mode: CallMode, method: CanisterMethod, args: readonly unknown[]): Promise<unknown> {
    // The actor calls query methods as queries and the others as updates, from the same idlFactory.
    const f = this.actor[method];
    if (f === undefined) throw new CanisterCallError(method, 'unknown method');
    try {
      return await f(...args);
    } catch (e) {
      throw new CanisterCallError(method, e instanceof Error ? e.message : String(e), e);
    }
  }
}

export interface AgentOptions {
  /** The IC HTTP interface, e.g. https://icp-api.io or http://127.0.0.1:4943. */
  readonly icHost: string;
  readonly canisterId: string;
  /** Fetch the root key from icHost (a local replica or devnet; never on mainnet). */
  readonly fetchRootKey?: boolean;
  /** A PEM identity file; default the anonymous identity. */
  readonly identityPemPath?: string | undefined;
  /** Variable names for error messages, e.g. { identityPemPath: 'RPC_GATEWAY_IDENTITY_PEM_PATH' }. */
  readonly variables?: { readonly identityPemPath?: string; readonly icHost?: string };
  readonly fetch?: typeof fetch;
}

export async function createAgentTransport(o: AgentOptions): Promise<AgentTransport> {
  const identity = o.identityPemPath === undefined ? undefined : loadIdentity(o.identityPemPath, o.variables?.identityPemPath ?? 'identity PEM path');
  const agent = HttpAgent.createSync({
    host: o.icHost,
    ...(identity === undefined ? {} : { identity }),
    ...(o.fetch === undefined ? {} : { fetch: o.fetch }),
  });
  if (o.fetchRootKey === true) {
    try {
      await agent.fetchRootKey();
    } catch (e) {
      throw new ConfigError(o.variables?.icHost ?? 'IC host', `cannot fetch the root key from ${o.icHost}: ${(e as Error).message}`);
    }
  }
  return new AgentTransport(agent, o.canisterId);
}

export const agentClient = async (o: AgentOptions): Promise<CanisterClient> => new CanisterClient(await createAgentTransport(o));
