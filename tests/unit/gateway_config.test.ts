// The gateway's configuration (SPEC's env table, defaults, failures naming the variable) and the IC agent
// client's construction: identity from dfx-style PEM files (Ed25519 and secp256k1), root key fetch.
import { generateKeyPairSync } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ed25519KeyIdentity } from '@icp-sdk/core/identity';
import { Secp256k1KeyIdentity } from '@icp-sdk/core/identity/secp256k1';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentTransport, identityFromPem, loadIdentity as loadIdentityFor } from '../../src/client/index.js';
import { createAgentClient } from '../../src/gateway/agent.js';
import { ConfigError, DEFAULT_CONFIG, loadConfig } from '../../src/gateway/config.js';
import { projectTempDir } from '../../src/host/paths.js';

const dir = projectTempDir('gateway-config-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CANISTER = 'rrkah-fqaaa-aaaaa-aaaaq-cai';
const loadIdentity = (path: string) => loadIdentityFor(path, 'RPC_GATEWAY_IDENTITY_PEM_PATH');

describe('loadConfig', () => {
  it('has SPEC’s defaults', () => {
    expect(loadConfig({})).toEqual({
      maxHttpBodySize: 262144,
      maxBatchLen: 20,
      maxJsonDepth: 20,
      host: '127.0.0.1',
      port: 8545,
      icHost: 'https://icp-api.io',
      fetchRootKey: false,
      identityPemPath: undefined,
      clientVersion: 'icp-evm/phase2-gateway/v0.1.0',
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
    });
    expect(loadConfig({})).toEqual(DEFAULT_CONFIG);
  });

  it('reads every variable', () => {
    const c = loadConfig({
      RPC_GATEWAY_MAX_HTTP_BODY_SIZE: '1000',
      RPC_GATEWAY_MAX_BATCH_LEN: '5',
      RPC_GATEWAY_MAX_JSON_DEPTH: '8',
      RPC_GATEWAY_HOST: '0.0.0.0',
      RPC_GATEWAY_PORT: '9000',
      RPC_GATEWAY_IC_HOST: 'http://127.0.0.1:4943',
      RPC_GATEWAY_FETCH_ROOT_KEY: 'true',
      RPC_GATEWAY_IDENTITY_PEM_PATH: '/x/id.pem',
      RPC_GATEWAY_CLIENT_VERSION: 'mine/1',
      RPC_GATEWAY_CORS_ORIGIN: 'https://app.example',
      EVM_CANISTER_ID: CANISTER,
      RPC_GATEWAY_FILTER_TIMEOUT_MS: '2000',
      RPC_GATEWAY_MAX_FILTERS: '3',
      RPC_GATEWAY_MAX_WS_CONNECTIONS: '4',
      RPC_GATEWAY_MAX_SUBSCRIPTIONS: '5',
      RPC_GATEWAY_WS_MAX_BUFFERED_BYTES: '100000',
      RPC_GATEWAY_HEAD_POLL_MS: '50',
      RPC_GATEWAY_MAX_FILTERS_PER_CLIENT: '2',
      RPC_GATEWAY_MAX_TOTAL_SUBSCRIPTIONS: '6',
      RPC_GATEWAY_MAX_RESPONSE_BYTES: '100000',
      RPC_GATEWAY_CACHE_BYTES: '0',
      RPC_GATEWAY_MAX_CONCURRENT_QUERIES: '3',
      RPC_GATEWAY_MAX_QUEUED_QUERIES: '7',
      RPC_GATEWAY_MAX_QUEUED_QUERIES_PER_CLIENT: '1',
    });
    expect(c).toEqual({
      maxHttpBodySize: 1000,
      maxBatchLen: 5,
      maxJsonDepth: 8,
      host: '0.0.0.0',
      port: 9000,
      icHost: 'http://127.0.0.1:4943',
      fetchRootKey: true,
      identityPemPath: '/x/id.pem',
      clientVersion: 'mine/1',
      corsOrigin: 'https://app.example',
      canisterId: CANISTER,
      filterTimeoutMs: 2000,
      maxFilters: 3,
      maxFiltersPerClient: 2,
      maxWsConnections: 4,
      maxSubscriptions: 5,
      maxTotalSubscriptions: 6,
      wsMaxBufferedBytes: 100000,
      headPollMs: 50,
      maxResponseBytes: 100000,
      cacheBytes: 0,
      maxConcurrentQueries: 3,
      maxQueuedQueries: 7,
      maxQueuedQueriesPerClient: 1,
    });
  });

  it('fails at start with a message naming the variable', () => {
    const bad: [Record<string, string>, string][] = [
      [{ RPC_GATEWAY_PORT: 'http' }, 'RPC_GATEWAY_PORT'],
      [{ RPC_GATEWAY_PORT: '70000' }, 'RPC_GATEWAY_PORT'],
      [{ RPC_GATEWAY_MAX_BATCH_LEN: '0' }, 'RPC_GATEWAY_MAX_BATCH_LEN'],
      [{ RPC_GATEWAY_MAX_HTTP_BODY_SIZE: '-5' }, 'RPC_GATEWAY_MAX_HTTP_BODY_SIZE'],
      [{ RPC_GATEWAY_MAX_JSON_DEPTH: '1.5' }, 'RPC_GATEWAY_MAX_JSON_DEPTH'],
      [{ RPC_GATEWAY_FETCH_ROOT_KEY: 'maybe' }, 'RPC_GATEWAY_FETCH_ROOT_KEY'],
      [{ RPC_GATEWAY_IC_HOST: 'icp-api.io' }, 'RPC_GATEWAY_IC_HOST'],
      [{ RPC_GATEWAY_CLIENT_VERSION: ' ' }, 'RPC_GATEWAY_CLIENT_VERSION'],
      [{ EVM_CANISTER_ID: 'not a principal' }, 'EVM_CANISTER_ID'],
      [{ RPC_GATEWAY_FILTER_TIMEOUT_MS: '10' }, 'RPC_GATEWAY_FILTER_TIMEOUT_MS'],
      [{ RPC_GATEWAY_MAX_FILTERS: '0' }, 'RPC_GATEWAY_MAX_FILTERS'],
      [{ RPC_GATEWAY_MAX_SUBSCRIPTIONS: 'many' }, 'RPC_GATEWAY_MAX_SUBSCRIPTIONS'],
      [{ RPC_GATEWAY_WS_MAX_BUFFERED_BYTES: '1' }, 'RPC_GATEWAY_WS_MAX_BUFFERED_BYTES'],
      [{ RPC_GATEWAY_HEAD_POLL_MS: '0' }, 'RPC_GATEWAY_HEAD_POLL_MS'],
      [{ RPC_GATEWAY_MAX_RESPONSE_BYTES: '1000' }, 'RPC_GATEWAY_MAX_RESPONSE_BYTES'],
      [{ RPC_GATEWAY_MAX_CONCURRENT_QUERIES: '0' }, 'RPC_GATEWAY_MAX_CONCURRENT_QUERIES'],
      [{ RPC_GATEWAY_MAX_FILTERS_PER_CLIENT: '0' }, 'RPC_GATEWAY_MAX_FILTERS_PER_CLIENT'],
    ];
    for (const [env, name] of bad) {
      expect(() => loadConfig(env), name).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(new RegExp(`^${name}: `));
    }
    expect(() => loadConfig({}, { requireCanisterId: true })).toThrow(/^EVM_CANISTER_ID: required/);
  });
});

describe('identities from PEM files', () => {
  it('loads an Ed25519 key (dfx identity new) as the same principal as its raw secret', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const seed = new Uint8Array(Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url'));
    expect(identityFromPem(pem).getPrincipal().toText()).toBe(Ed25519KeyIdentity.fromSecretKey(seed).getPrincipal().toText());
  });

  it('loads a secp256k1 key (SEC1 "EC PRIVATE KEY", as dfx imports) as the same principal', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
    const pem = privateKey.export({ format: 'pem', type: 'sec1' }).toString();
    expect(pem).toMatch(/BEGIN EC PRIVATE KEY/);
    const d = new Uint8Array(Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url'));
    expect(identityFromPem(pem).getPrincipal().toText()).toBe(Secp256k1KeyIdentity.fromSecretKey(d).getPrincipal().toText());
  });

  it('refuses other keys and unreadable files, naming RPC_GATEWAY_IDENTITY_PEM_PATH', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const p = join(dir, 'p256.pem');
    writeFileSync(p, privateKey.export({ format: 'pem', type: 'pkcs8' }));
    expect(() => loadIdentity(p)).toThrow(/RPC_GATEWAY_IDENTITY_PEM_PATH: .*unsupported key type/);
    expect(() => loadIdentity(join(dir, 'missing.pem'))).toThrow(/RPC_GATEWAY_IDENTITY_PEM_PATH: cannot read/);
    const junk = join(dir, 'junk.pem');
    writeFileSync(junk, 'hello');
    expect(() => loadIdentity(junk)).toThrow(/RPC_GATEWAY_IDENTITY_PEM_PATH: .*not a private key PEM/);
  });
});

describe('the IC agent client', () => {
  it('builds an actor for the canister with the configured identity, without network unless the root key is fetched', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = join(dir, 'id.pem');
    writeFileSync(pem, privateKey.export({ format: 'pem', type: 'pkcs8' }));
    const calls: string[] = [];
    const fetchStub = (async (input: string | URL | Request) => {
      calls.push(String(input));
      throw new Error('no network in this test');
    }) as typeof fetch;
    const client = await createAgentClient({ ...DEFAULT_CONFIG, canisterId: CANISTER, identityPemPath: pem, icHost: 'http://127.0.0.1:1' }, { fetch: fetchStub });
    const transport = client.transport as AgentTransport;
    expect(transport).toBeInstanceOf(AgentTransport);
    expect(transport.canisterId).toBe(CANISTER);
    expect((await transport.agent.getPrincipal()).toText()).toBe(loadIdentity(pem).getPrincipal().toText());
    expect(calls).toEqual([]);
    // a query goes to the configured host; a failure there is a CanisterCallError (logged, -32603 to clients)
    await expect(client.query('rpc_eth_chain_id', [])).rejects.toMatchObject({ name: 'CanisterCallError', method: 'rpc_eth_chain_id' });
    expect(calls.some((u) => u.startsWith(`http://127.0.0.1:1/api/`) && u.includes(CANISTER))).toBe(true);
    // query and update methods are not interchangeable
    // (the types forbid both; the client also refuses them at run time, for casts and JavaScript callers)
    await expect(client.update('rpc_eth_chain_id' as never, [] as never)).rejects.toThrow(/not a update method/);
    await expect(client.query('rpc_eth_send_raw_transaction' as never, [new Uint8Array()] as never)).rejects.toThrow(/not a query method/);
    // fetchRootKey: true asks the host for its root key at construction
    await expect(createAgentClient({ ...DEFAULT_CONFIG, canisterId: CANISTER, fetchRootKey: true, icHost: 'http://127.0.0.1:1' }, { fetch: fetchStub })).rejects.toThrow();
    expect(calls.some((u) => u.endsWith('/api/v2/status'))).toBe(true);
    await expect(createAgentClient({ ...DEFAULT_CONFIG })).rejects.toThrow(/^EVM_CANISTER_ID/);
  });
});
