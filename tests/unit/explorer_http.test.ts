// The explorer's HTTP edge and compiler workers: malformed paths, oversized bodies, unknown routes and methods
// answer errors and leave the server serving; a compilation past its time limit ends its worker with
// compile_timeout and the next compilation runs in a fresh one.
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
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

describe('slow and many clients', () => {
  let tight: ExplorerHttp;
  beforeAll(async () => {
    tight = await startHttp({
      host: '127.0.0.1',
      port: 0,
      maxRequestBytes: 1024,
      limits: { headersTimeoutMs: 300, requestTimeoutMs: 600, maxConnectionsPerClient: 3 },
      routes: [{ methods: ['POST'], path: /^\/echo$/, handle: async (req) => json(200, { bytes: (await req.body()).length }) }],
    });
  });
  afterAll(() => tight.close());

  /** A raw connection: what it received, and when it closed (ms after opening; undefined while open). */
  const raw = (): Promise<{ socket: Socket; got: () => string; closedAfter: () => number | undefined }> =>
    new Promise((resolve, reject) => {
      const t0 = Date.now();
      let got = '';
      let closed: number | undefined;
      const socket = connect(Number(new URL(tight.url).port), '127.0.0.1', () => resolve({ socket, got: () => got, closedAfter: () => closed }));
      socket.on('data', (d) => (got += d.toString()));
      socket.on('close', () => (closed = Date.now() - t0));
      socket.on('error', () => {});
      socket.once('error', reject);
    });
  const until = async (f: () => boolean, ms = 5_000): Promise<void> => {
    const end = Date.now() + ms;
    while (!f() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  };

  it('closes a connection whose headers or body do not arrive in time (not after 300 s)', async () => {
    const headers = await raw();
    headers.socket.write('POST /echo HTTP/1.1\r\nHost: x\r\n');
    const body = await raw();
    body.socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n0123456789');
    await until(() => headers.closedAfter() !== undefined && body.closedAfter() !== undefined);
    expect(headers.closedAfter()).toBeLessThan(5_000);
    expect(body.closedAfter()).toBeLessThan(5_000);
    expect(body.got()).not.toContain('200 OK');
  });

  it('answers a streamed body past the limit with 413 and closes, without reading the rest', async () => {
    const c = await raw();
    c.socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
    c.socket.write(`800\r\n${'y'.repeat(0x800)}\r\n`);
    await until(() => c.closedAfter() !== undefined);
    expect(c.got()).toMatch(/^HTTP\/1\.1 413/);
    expect(c.got()).toContain('request_too_large');
    expect(c.closedAfter()).toBeDefined();
  });

  it('one address holds at most maxConnectionsPerClient connections; a freed slot serves again', async () => {
    const held = [await raw(), await raw(), await raw()];
    const extra = await raw();
    await until(() => extra.closedAfter() !== undefined);
    expect(extra.closedAfter()).toBeDefined();
    expect(held.every((h) => h.closedAfter() === undefined)).toBe(true);
    held[0]!.socket.destroy();
    await until(() => held[0]!.closedAfter() !== undefined);
    await new Promise((r) => setTimeout(r, 50));
    const ok = await fetch(`${tight.url}/echo`, { method: 'POST', body: 'abc' });
    expect(await ok.json()).toEqual({ bytes: 3 });
    for (const h of held) h.socket.destroy();
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
