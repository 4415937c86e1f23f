// The explorer's HTTP edge and compiler workers: malformed paths, oversized bodies, unknown routes and methods
// answer errors and leave the server serving; a compilation past its time limit ends its worker with
// compile_timeout and the next compilation runs in a fresh one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompilerPool, SHIPPED_COMPILERS } from '../../src/explorer/compilers.js';
import { VerifyError } from '../../src/explorer/errors.js';
import { json, startHttp, type ExplorerHttp } from '../../src/explorer/http.js';
import { fixtureSource } from '../support/explorer.js';

let http: ExplorerHttp;
beforeAll(async () => {
  http = await startHttp({
    host: '127.0.0.1',
    port: 0,
    maxRequestBytes: 1024,
    routes: [
      {
        methods: ['POST'],
        path: /^\/echo\/([^/]+)$/,
        async handle(req, [p]) {
          return json(200, { p, bytes: (await req.body()).length });
        },
      },
    ],
  });
});
afterAll(() => http.close());

describe('explorer HTTP edge', () => {
  it('answers bad requests with codes and keeps serving', async () => {
    const post = (path: string, body: string) => fetch(`${http.url}${path}`, { method: 'POST', body });
    const bad = await post('/echo/%E0%A4%A', '');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    const big = await post('/echo/x', 'y'.repeat(2000));
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { code: string } }).error.code).toBe('request_too_large');
    expect((await fetch(`${http.url}/nowhere`)).status).toBe(404);
    expect((await fetch(`${http.url}/echo/x`)).status).toBe(405);
    const ok = await post('/echo/a%20b', 'hello');
    expect(await ok.json()).toEqual({ p: 'a b', bytes: 5 });
  });
});

describe('compiler workers', () => {
  it('ends a compilation past its time limit, then compiles in a fresh worker', async () => {
    const input = JSON.stringify({
      language: 'Solidity',
      sources: { 'Vault.sol': { content: fixtureSource('Vault.sol') } },
      settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['evm.bytecode.object'] } } },
    });
    const solc = SHIPPED_COMPILERS[0]!;
    const quick = new CompilerPool({ compileTimeoutMs: 1 });
    try {
      const e = await quick.compile(solc, input).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(VerifyError);
      expect((e as VerifyError).code).toBe('compile_timeout');
    } finally {
      await quick.close();
    }
    const pool = new CompilerPool({ compileTimeoutMs: 60_000 });
    try {
      const out = JSON.parse(await pool.compile(solc, input)) as { contracts: Record<string, Record<string, unknown>> };
      expect(Object.keys(out.contracts['Vault.sol']!)).toEqual(['Vault', 'VaultFactory']);
    } finally {
      await pool.close();
    }
  });
});
