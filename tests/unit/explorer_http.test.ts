// The explorer's HTTP edge and compiler workers: malformed paths, oversized bodies, unknown routes and methods
// answer errors and leave the server serving; a compilation past its time limit ends its worker with
// compile_timeout and the next compilation runs in a fresh one.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explorerRoutes } from '../../src/explorer/index.js';
import { DEFAULT_LIMITS } from '../../src/explorer/config.js';
import type { ExplorerStore } from '../../src/explorer/store.js';
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

describe('compiler memory', () => {
  it("ends a compilation past the budget of soljson's WebAssembly memory (not covered by the V8 heap limit)", async () => {
    let body = '';
    for (let i = 0; i < 300; i++) body += `function f${i}(uint a, uint b) external pure returns (uint) { return a * ${i} + b / (a + ${i + 1}) + uint(keccak256(abi.encode(a, b, ${i}))); }\n`;
    const input = JSON.stringify({
      language: 'Solidity',
      sources: { 'Big.sol': { content: `// SPDX-License-Identifier: MIT\npragma solidity ^0.8.0;\ncontract Big {\n${body}}` } },
      settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['evm.bytecode.object'] } } },
    });
    const solc = SHIPPED_COMPILERS[0]!;
    // soljson starts with 32 MiB; this contract needs more.
    const small = new CompilerPool({ compileTimeoutMs: 120_000, memoryMb: 33 });
    try {
      const e = await small.compile(solc, input).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(VerifyError);
      expect((e as VerifyError).code).toBe('compile_memory');
      // The pool goes on, in a fresh worker.
      const ok = JSON.parse(await small.compile(solc, JSON.stringify({ language: 'Solidity', sources: { 'A.sol': { content: 'contract A {}' } }, settings: { outputSelection: { '*': { '*': ['evm.bytecode.object'] } } } })));
      expect(Object.keys(ok.contracts['A.sol'])).toEqual(['A']);
    } finally {
      await small.close();
    }
  }, 180_000);
});

describe('verification switched off', () => {
  it('refuses a submission before reading its body; the Etherscan /api reads at most 64 KiB', async () => {
    const deps = { ctx: { enabled: false, compilers: [], limits: DEFAULT_LIMITS }, store: {} as ExplorerStore, verifier: undefined, getCode: async () => '' };
    const off = await startHttp({ host: '127.0.0.1', port: 0, routes: explorerRoutes(deps), maxRequestBytes: DEFAULT_LIMITS.maxRequestBytes });
    try {
      // A 16 MiB body announced, 1 KiB sent and the rest held back: the answer comes without waiting for it.
      for (const path of ['/api/verify/submit', `/v2/verify/4801360/0x${'11'.repeat(20)}`]) {
        const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = httpRequest(`${off.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(16 * 1024 * 1024) } }, (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode!, body }));
          });
          req.on('error', reject);
          req.write('{"x":"' + 'a'.repeat(1024));
          setTimeout(() => reject(new Error(`no answer from ${path} before the body ended`)), 5_000).unref();
        });
        expect(answer.status).toBe(403);
        expect(answer.body).toMatch(/verification_disabled|switched off/);
      }
      const big = await fetch(`${off.url}/api`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `module=contract&action=verifysourcecode&sourceCode=${'x'.repeat(100 * 1024)}` });
      expect(((await big.json()) as { result: string }).result).toMatch(/larger than 65536 bytes/);
      const read = await fetch(`${off.url}/api`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'module=contract&action=nope' });
      expect(await read.json()).toEqual({ status: '0', message: 'Unknown action nope', result: null });
    } finally {
      await off.close();
    }
  });
});
