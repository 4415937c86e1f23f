// The gateway's JSON-RPC envelope and HTTP edge with a fake canister: requests, notifications, batches and
// their limits, the JSON depth check before parsing, body size, CORS, and that internals never leak.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CanisterCallError } from '../../src/client/errors.js';
import { DEFAULT_CONFIG } from '../../src/gateway/config.js';
import { handleBody, jsonDepthExceeds } from '../../src/gateway/rpc.js';
import { startGateway, type Gateway } from '../../src/gateway/server.js';
import { FakeClient, fakeContext } from '../support/gateway_fake.js';

const req = (method: string, params?: unknown[], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const client = () => new FakeClient({ rpc_eth_chain_id: () => 4801360n, rpc_eth_block_number: () => 7n });

describe('envelopes', () => {
  it('answers a single request with its id', async () => {
    const ctx = fakeContext(client());
    expect(await handleBody(JSON.stringify(req('eth_chainId', [], 'a')), ctx)).toEqual({ jsonrpc: '2.0', id: 'a', result: '0x494350' });
    expect(await handleBody(JSON.stringify(req('eth_blockNumber', undefined, null)), ctx)).toEqual({ jsonrpc: '2.0', id: null, result: '0x7' });
  });

  it('rejects malformed JSON (-32700) and malformed requests (-32600)', async () => {
    const ctx = fakeContext(client());
    expect(await handleBody('{"jsonrpc":', ctx)).toMatchObject({ id: null, error: { code: -32700 } });
    expect(await handleBody('42', ctx)).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await handleBody(JSON.stringify({ id: 3, method: 'eth_chainId' }), ctx)).toMatchObject({ id: 3, error: { code: -32600 } });
    expect(await handleBody(JSON.stringify({ jsonrpc: '1.0', id: 3, method: 'eth_chainId' }), ctx)).toMatchObject({ id: 3, error: { code: -32600 } });
    expect(await handleBody(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 7 }), ctx)).toMatchObject({ id: 3, error: { code: -32600 } });
    expect(await handleBody(JSON.stringify({ jsonrpc: '2.0', id: { x: 1 }, method: 'eth_chainId' }), ctx)).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await handleBody(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'eth_chainId', params: 'x' }), ctx)).toMatchObject({ id: 3, error: { code: -32600 } });
    // by-name params are not supported: positional only
    expect(await handleBody(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'eth_chainId', params: { a: 1 } }), ctx)).toMatchObject({ id: 3, error: { code: -32602 } });
    expect(await handleBody(JSON.stringify(req('eth_chainId', [1])), ctx)).toMatchObject({ error: { code: -32602 } });
  });

  it('answers unknown and unsupported methods with -32601, saying which', async () => {
    const ctx = fakeContext(client());
    const r1 = (await handleBody(JSON.stringify(req('eth_pendingTransactions', [])), ctx)) as { error: { code: number; message: string } };
    expect(r1.error.code).toBe(-32601);
    expect(r1.error.message).toMatch(/not supported by this service/);
    // eth_subscribe exists but needs a WebSocket: over HTTP it is geth's "notifications not supported".
    for (const m of ['eth_subscribe', 'eth_unsubscribe', 'eth_sign', 'eth_getProof']) {
      expect(await handleBody(JSON.stringify(req(m, [])), ctx)).toMatchObject({ error: { code: -32601 } });
    }
    expect(await handleBody(JSON.stringify(req('foo_bar', [])), ctx)).toMatchObject({ error: { code: -32601, message: 'the method foo_bar does not exist/is not available' } });
  });

  it('runs notifications without answering them', async () => {
    const c = client();
    const ctx = fakeContext(c);
    expect(await handleBody(JSON.stringify({ jsonrpc: '2.0', method: 'eth_blockNumber' }), ctx)).toBeUndefined();
    expect(c.count('rpc_eth_block_number')).toBe(1);
    // a failing notification is not answered either
    expect(await handleBody(JSON.stringify({ jsonrpc: '2.0', method: 'nope' }), ctx)).toBeUndefined();
  });

  it('answers batches element by element, leaving out notifications', async () => {
    const ctx = fakeContext(client());
    const out = await handleBody(JSON.stringify([req('eth_chainId', [], 1), { jsonrpc: '2.0', method: 'eth_chainId' }, 5, req('nope', [], 2)]), ctx);
    expect(out).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x494350' },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: expect.any(String) } },
    ]);
    expect(await handleBody(JSON.stringify([{ jsonrpc: '2.0', method: 'eth_chainId' }]), ctx)).toBeUndefined();
    expect(await handleBody('[]', ctx)).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('refuses a batch longer than RPC_GATEWAY_MAX_BATCH_LEN without running any of it', async () => {
    const c = client();
    const ctx = fakeContext(c, { maxBatchLen: 3 });
    const four = JSON.stringify([1, 2, 3, 4].map((i) => req('eth_blockNumber', [], i)));
    expect(await handleBody(four, ctx)).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/at most 3/) } });
    expect(c.calls).toEqual([]);
    expect(await handleBody(JSON.stringify([1, 2, 3].map((i) => req('eth_blockNumber', [], i))), ctx)).toHaveLength(3);
  });

  it('checks JSON depth on the raw text before parsing', async () => {
    expect(jsonDepthExceeds('[[[]]]', 3)).toBe(false);
    expect(jsonDepthExceeds('[[[[]]]]', 3)).toBe(true);
    expect(jsonDepthExceeds('{"a":{"b":[1]}}', 3)).toBe(false);
    // brackets inside strings (and escaped quotes) do not count
    expect(jsonDepthExceeds('["[[[[[[", "\\"[[[[[[["]', 2)).toBe(false);
    const ctx = fakeContext(client(), { maxJsonDepth: 20 });
    const parse = vi.spyOn(JSON, 'parse');
    const deep = `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    try {
      expect(await handleBody(deep, ctx)).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/deeper than 20/) } });
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
    // depth 20 passes: the request object (1) + params (2) + 18 nested arrays
    const ok = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }).replace('[]', `[${'['.repeat(18)}${']'.repeat(18)}]`);
    expect(await handleBody(ok, ctx)).toMatchObject({ error: { code: -32602 } });
  });

  it('never shows internals: canister rejects, traps and bugs are -32603 "internal error", logged server-side', async () => {
    const c = new FakeClient({
      rpc_eth_block_number: () => {
        throw new CanisterCallError('rpc_eth_block_number', 'rejected (code 5): Canister trapped: secret detail at foo.js:12');
      },
      rpc_eth_chain_id: () => {
        throw new TypeError('cannot read properties of undefined (reading x)');
      },
    });
    const ctx = fakeContext(c);
    const r1 = await handleBody(JSON.stringify(req('eth_blockNumber', [])), ctx);
    const r2 = await handleBody(JSON.stringify(req('eth_chainId', [])), ctx);
    expect(r1).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'internal error' } });
    expect(r2).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'internal error' } });
    expect(ctx.logged.join('\n')).toMatch(/secret detail/);
    expect(ctx.logged.join('\n')).toMatch(/TypeError/);
  });
});

describe('HTTP', () => {
  let gw: Gateway;
  let gwCors: Gateway;
  const logged: string[] = [];
  beforeAll(async () => {
    gw = await startGateway({ config: { ...DEFAULT_CONFIG, port: 0, maxHttpBodySize: 1000 }, client: client(), log: (m) => logged.push(m) });
    gwCors = await startGateway({ config: { ...DEFAULT_CONFIG, port: 0, corsOrigin: 'https://app.example' }, client: client(), log: (m) => logged.push(m) });
  });
  afterAll(async () => {
    await gw?.close();
    await gwCors?.close();
  });
  const post = (url: string, body: string, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  it('serves POST with JSON and the CORS origin', async () => {
    const r = await post(gw.url, JSON.stringify(req('eth_chainId', [])));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(await r.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x494350' });
    const c = await post(gwCors.url, JSON.stringify(req('eth_chainId', [])));
    expect(c.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });

  it('answers the OPTIONS preflight', async () => {
    const r = await fetch(gwCors.url, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-custom' },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(r.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    expect(r.headers.get('access-control-allow-headers')).toBe('content-type, x-custom');
  });

  it('refuses bodies above RPC_GATEWAY_MAX_HTTP_BODY_SIZE with 413', async () => {
    const big = JSON.stringify(req('eth_chainId', ['x'.repeat(2000)]));
    const r = await post(gw.url, big);
    expect(r.status).toBe(413);
    expect(await r.json()).toMatchObject({ error: { code: -32600, message: expect.stringMatching(/larger than 1000 bytes/) } });
    // exactly at the limit is fine (an error about params, not about size)
    const base = JSON.stringify(req('eth_chainId', ['']));
    const atLimit = JSON.stringify(req('eth_chainId', ['x'.repeat(1000 - base.length)]));
    expect(atLimit.length).toBe(1000);
    const ok = await post(gw.url, atLimit);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ error: { code: -32602 } });
  });

  it('answers 204 for notifications only and 405 for other HTTP methods', async () => {
    const n = await post(gw.url, JSON.stringify({ jsonrpc: '2.0', method: 'eth_chainId' }));
    expect(n.status).toBe(204);
    const g = await fetch(gw.url);
    expect(g.status).toBe(405);
    expect(g.headers.get('allow')).toBe('POST, OPTIONS');
  });
});
