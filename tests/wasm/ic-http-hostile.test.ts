// Hostile callers of the devnet's IC HTTP interface, against the real canister wasm (docs/hardening.md, "IC
// HTTP interface"): 4 MiB unsigned bodies of small arrays, sent by another process, are refused while
// eth_blockNumber through the gateway keeps answering; bodies are refused from their headers, slow clients
// are cut off, connections are capped; anonymous callers cannot fill the request statuses; certificates
// (a BLS signature each) are cached and rate-limited per sender; an envelope within its expiry is not run
// twice after a restart or an evm_revert; admin methods are refused by canister_inspect_message for anyone
// but a controller.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { Cbor, lookup_path, type HashTree, type HttpAgentRequest, type Identity } from '@icp-sdk/core/agent';
import { IDL } from '@icp-sdk/core/candid';
import { Ed25519KeyIdentity } from '@icp-sdk/core/identity';
import { Principal } from '@icp-sdk/core/principal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/gateway/config.js';
import { startGateway, type Gateway } from '../../src/gateway/server.js';
import { IcHttpHandler, MAX_BODY_BYTES, startIcHttp, SubnetKeys, type IcHttpServer } from '../../src/host/ic_http/index.js';
import { projectTempDir } from '../../src/host/paths.js';
import { CANISTER_ID, type Evm } from '../support/canister.js';
import { rpc } from '../support/e2e.js';
import { smallArraysBody } from '../support/ic_http_attack.js';
import { startIcHttpEvm, type IcHttpEvm } from '../support/ic_http_evm.js';

const dir = projectTempDir('ic-http-hostile-');
const canister = Principal.fromText(CANISTER_ID);
const CONTROLLER = Ed25519KeyIdentity.generate(new Uint8Array(32).fill(21));
const ed = Ed25519KeyIdentity.generate(new Uint8Array(32).fill(22));
const ed2 = Ed25519KeyIdentity.generate(new Uint8Array(32).fill(23));
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

let evm: Evm;
let keys: SubnetKeys;
let server: IcHttpServer;
let gateway: Gateway;

let net: IcHttpEvm;

beforeAll(async () => {
  net = await startIcHttpEvm(dir, { controllers: [CONTROLLER.getPrincipal().toUint8Array()] });
  ({ evm, server, keys } = net);
  gateway = await startGateway({ config: { ...DEFAULT_CONFIG, port: 0 }, client: evm.client });
});

afterAll(async () => {
  await gateway?.close();
  await net?.close();
});

const post = async (url: string, path: string, body: Uint8Array) => {
  const r = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/cbor' }, body });
  const bytes = new Uint8Array(await r.arrayBuffer());
  return { status: r.status, text: Buffer.from(bytes).toString('utf8'), bytes };
};
const expiry = (ms = 60_000): bigint => BigInt(Date.now() + ms) * 1_000_000n;
const rawTxArg = (tx: Uint8Array): Uint8Array => new Uint8Array(IDL.encode([IDL.Vec(IDL.Nat8)], [tx]));
/** An update content: a raw transaction that passes inspection and runs (the method answers Err). */
const callContent = (sender: Principal, nonce: number, extra: Record<string, unknown> = {}) => ({
  request_type: 'call',
  canister_id: canister.toUint8Array(),
  method_name: 'rpc_eth_send_raw_transaction',
  arg: rawTxArg(Uint8Array.of(0xc0)),
  sender: sender.toUint8Array(),
  ingress_expiry: expiry(),
  nonce: Uint8Array.of(nonce >> 8, nonce & 0xff),
  ...extra,
});
async function signed(identity: Identity | undefined, content: Record<string, unknown>): Promise<Uint8Array> {
  if (identity === undefined) return new Uint8Array(Cbor.encode({ content }));
  const req = (await identity.transformRequest({ request: { method: 'POST', headers: {} }, endpoint: 'call', body: content } as unknown as HttpAgentRequest)) as { body: unknown };
  return new Uint8Array(Cbor.encode(req.body));
}
const CALL = `/api/v4/canister/${CANISTER_ID}/call`;
const READ = `/api/v3/canister/${CANISTER_ID}/read_state`;
/** Ingress updates run (the mining timer's own calls are not counted). */
const updatesRun = (): number => evm.messages.filter((m) => m.kind === 'update' && /^canister_update (rpc_eth_send_raw_transaction|purge_pool)$/.test(m.method)).length;
/** The request status a certificate reports for `id`. */
function statusIn(reply: Uint8Array, id: Uint8Array): string {
  const { certificate } = Cbor.decode(reply) as { certificate: Uint8Array };
  const { tree } = Cbor.decode(certificate) as { tree: HashTree };
  const r = lookup_path([utf8('request_status'), id, utf8('status')], tree) as { value?: Uint8Array };
  return r.value === undefined ? 'absent' : Buffer.from(r.value).toString('utf8');
}
const requestIdOfBody = async (body: Uint8Array): Promise<Uint8Array> => {
  const { requestIdOf } = await import('@icp-sdk/core/agent');
  return new Uint8Array(requestIdOf((Cbor.decode(body) as { content: Record<string, unknown> }).content));
};

/**
 * An attacker in a child Node process: the bodies are written to files first, so the child needs nothing but
 * Node. `ready` resolves once the child runs (spawning a process holds this event loop, so it is not done
 * while latencies are measured); `go()` then posts each body one after another and resolves with each
 * answer's status, text and round trip.
 */
async function attackerProcess(url: string, posts: { where: string; path: string; body: Uint8Array }[]) {
  const files = posts.map((p, i) => {
    const f = join(dir, `attack-${i}.cbor`);
    writeFileSync(f, p.body);
    return { where: p.where, url: `${url}${p.path}`, file: f };
  });
  const script = `
    const { readFileSync } = require('node:fs');
    const posts = JSON.parse(process.argv[1]).map((p) => ({ ...p, body: readFileSync(p.file) }));
    process.stdout.write('ready\\n');
    process.stdin.once('data', async () => {
      const out = [];
      for (const p of posts) {
        const t = performance.now();
        const r = await fetch(p.url, { method: 'POST', headers: { 'content-type': 'application/cbor' }, body: p.body });
        const text = await r.text();
        out.push({ where: p.where, status: r.status, ms: performance.now() - t, text });
      }
      process.stdout.write(JSON.stringify(out) + '\\n');
      process.exit(0);
    });`;
  const child = spawn(process.execPath, ['-e', script, JSON.stringify(files)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let rest = '';
  const waiters: (() => void)[] = [];
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    const parts = (rest + d).split('\n');
    rest = parts.pop()!;
    lines.push(...parts);
    for (const w of waiters.splice(0)) w();
  });
  const line = (n: number): Promise<string> =>
    new Promise((resolve, reject) => {
      const check = () => (lines.length > n ? resolve(lines[n]!) : waiters.push(check));
      child.once('exit', (code) => lines.length <= n && reject(new Error(`attacker process exited with ${code}`)));
      check();
    });
  await line(0);
  return {
    go: async (): Promise<{ where: string; status: number; ms: number; text: string }[]> => {
      child.stdin.write('go\n');
      return JSON.parse(await line(1)) as { where: string; status: number; ms: number; text: string }[];
    },
  };
}

describe('an unsigned body at the size limit', () => {
  it('is refused with 400 at once while eth_blockNumber through the gateway keeps answering', async () => {
    await rpc(gateway.url, 'eth_blockNumber'); // warm
    // The attacker's bodies are made before the clock starts: this process is also the attacker.
    const wheres = ['content', 'delegation', 'paths', 'content', 'delegation', 'paths'] as const;
    const bodies = wheres.map((where) => ({ where, body: smallArraysBody(where, MAX_BODY_BYTES) }));
    // One refusal first, untimed: the decoder's first run compiles it.
    expect((await post(server.url, CALL, smallArraysBody('content', MAX_BODY_BYTES))).status).toBe(400);
    const attacker = await attackerProcess(
      server.url,
      bodies.map(({ where, body }) => ({ where, path: where === 'paths' ? READ : CALL, body })),
    );
    const latencies: number[] = [];
    let attacking = true;
    const reader = (async () => {
      while (attacking) {
        const t = performance.now();
        await rpc(gateway.url, 'eth_blockNumber');
        latencies.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    // The server's time on each body (the event loop is the devnet's): its refusal is decided from the first
    // bytes received, while the rest still arrives (it is dropped, not kept). The round trip, which also
    // carries 4 MiB through the loopback on a shared machine, is logged.
    const handler = server.handler;
    const run = handler.run.bind(handler);
    const early = handler.prefixRefusal.bind(handler);
    const handled: number[] = [];
    const ranWhole: number[] = [];
    handler.prefixRefusal = (route, prefix, total) => {
      const t = performance.now();
      const reply = early(route, prefix, total);
      if (reply !== undefined) handled.push(performance.now() - t);
      return reply;
    };
    handler.run = async (route, body) => {
      ranWhole.push(body.length);
      return run(route, body);
    };
    // The attacker is another process, as it would be: this event loop carries only the devnet's side.
    const refusals = await attacker.go().finally(async () => {
      handler.run = run;
      handler.prefixRefusal = early;
      attacking = false;
      await reader;
    });
    console.log(`ic_http attack: handled in ${handled.map((ms) => ms.toFixed(1)).join(', ')} ms (round trips ${refusals.map((r) => r.ms.toFixed(1)).join(', ')} ms); eth_blockNumber max ${Math.max(...latencies).toFixed(1)} ms over ${latencies.length}`);
    for (const r of refusals) {
      expect(r.status, r.where).toBe(400);
      expect(r.text, r.where).toMatch(/^Failed to deserialize cbor request: more than 4096 data items/);
      expect(r.ms, r.where).toBeLessThan(1_000);
    }
    // Each body was refused from its beginning; none was kept whole and decoded.
    expect(handled).toHaveLength(6);
    expect(ranWhole).toEqual([]);
    // Bounds with room for a loaded two-core CI machine running other tests beside this one (npm test runs the
    // e2e lane beside the wasm pool): before the bounded decoder one such body held the loop for 1.3 s on a
    // quiet machine. The quiet-machine figures (the 50 ms target) are the bench's
    // (ic_http.refuse_items_body_ms) and docs/hardening.md's, not a timed test's.
    for (const ms of handled) expect(ms).toBeLessThan(250);
    expect(latencies.length).toBeGreaterThan(3);
    const sorted = [...latencies].sort((x, y) => x - y);
    expect(sorted[Math.floor(sorted.length / 2)]!).toBeLessThan(250);
    expect(sorted[sorted.length - 1]!).toBeLessThan(1_000);
  });
});

/**
 * A raw HTTP exchange: writes `head` (and `body`), resolves with what came back when the socket closed, or
 * (`untilAnswer`) as soon as a response head arrived.
 */
function raw(port: number, head: string, body?: Buffer, waitMs = 2_000, untilAnswer = false): Promise<{ text: string; ms: number; closed: boolean }> {
  return new Promise((resolve) => {
    const t = performance.now();
    const s: Socket = connect(port, '127.0.0.1');
    let text = '';
    let settled = false;
    const done = (closed: boolean) => {
      if (settled) return;
      settled = true;
      resolve({ text, ms: performance.now() - t, closed });
    };
    s.on('data', (d) => {
      text += d.toString('latin1');
      if (untilAnswer && text.includes('\r\n\r\n')) {
        done(false);
        s.destroy();
      }
    });
    const timer = setTimeout(() => {
      s.destroy();
      done(false);
    }, waitMs);
    s.on('close', () => {
      clearTimeout(timer);
      done(true);
    });
    s.on('error', () => {});
    s.write(head);
    if (body !== undefined) s.write(body);
  });
}

describe('the server bounds connections, time and bodies', () => {
  it('refuses a body from its headers: an oversized Content-Length (413) or a wrong path (404), without waiting for it', async () => {
    const big = await raw(server.port, `POST ${CALL} HTTP/1.1\r\nHost: x\r\nContent-Type: application/cbor\r\nContent-Length: ${MAX_BODY_BYTES + 1}\r\n\r\n`, undefined, 2_000, true);
    expect(big.text).toMatch(/^HTTP\/1\.1 413/);
    expect(big.ms).toBeLessThan(1_000);
    const wrong = await raw(server.port, `POST /api/v9/nothing HTTP/1.1\r\nHost: x\r\nContent-Type: application/cbor\r\nContent-Length: 1000000\r\n\r\n`, undefined, 2_000, true);
    expect(wrong.text).toMatch(/^HTTP\/1\.1 404/);
    expect(wrong.ms).toBeLessThan(1_000);
  });

  it('cuts off a client that sends its headers or body too slowly, and caps open connections and bodies in flight', async () => {
    const small = await startIcHttp({ host: evm.host, keys, port: 0, limits: { requestTimeoutMs: 400, headersTimeoutMs: 300, maxConnections: 2, maxInflightBodyBytes: 1_000_000 } });
    try {
      // Headers never finished: the server closes the connection (Node: 408) instead of waiting 300 s.
      const slow = await raw(small.port, `POST ${CALL} HTTP/1.1\r\nHost: x\r\n`, undefined, 5_000);
      expect(slow.closed).toBe(true);
      expect(slow.ms).toBeLessThan(3_000);
      // A body that never arrives holds the budget until the request timeout; meanwhile a second one is 503.
      // (Its first bytes are the start of an envelope: bytes the decoder already refuses would be answered.)
      const held = raw(small.port, `POST ${CALL} HTTP/1.1\r\nHost: x\r\nContent-Type: application/cbor\r\nContent-Length: 800000\r\n\r\n`, Buffer.from([0xd9, 0xd9, 0xf7, 0xa1]), 5_000);
      await new Promise((r) => setTimeout(r, 100));
      const second = await raw(small.port, `POST ${CALL} HTTP/1.1\r\nHost: x\r\nContent-Type: application/cbor\r\nContent-Length: 800000\r\n\r\n`, undefined, 2_000, true);
      expect(second.text).toMatch(/^HTTP\/1\.1 503/);
      expect((await held).closed).toBe(true);
      // Two idle connections held open: a third is closed by the server at once.
      const a = connect(small.port, '127.0.0.1');
      const b = connect(small.port, '127.0.0.1');
      await new Promise((r) => setTimeout(r, 100));
      const third = await raw(small.port, `GET /api/v2/status HTTP/1.1\r\nHost: x\r\n\r\n`, undefined, 2_000);
      expect(third.closed).toBe(true);
      expect(third.text).toBe('');
      a.destroy();
      b.destroy();
      await new Promise((r) => setTimeout(r, 100));
      const after = await fetch(`${small.url}/api/v2/status`);
      expect(after.status).toBe(200);
    } finally {
      await small.close();
    }
  });
});

describe('per-sender quotas', () => {
  it('anonymous calls fill only their own class of request statuses; signed senders have their own quota', async () => {
    const h = new IcHttpHandler(evm.host, keys, { limits: { maxAnonymousStatuses: 3, maxStatusesPerSender: 2 } });
    const bodies = new Map<number, Uint8Array>();
    const call = async (id: Identity | undefined, n: number) => {
      const body = bodies.get(n) ?? (await signed(id, callContent(id?.getPrincipal() ?? Principal.anonymous(), n)));
      bodies.set(n, body);
      return h.handle('POST', CALL, body, 'application/cbor');
    };
    for (let i = 0; i < 3; i++) expect((await call(undefined, 100 + i)).status).toBe(200);
    const full = await call(undefined, 103);
    expect(full.status).toBe(429);
    expect(full.body).toMatch(/Anonymous callers hold 3 request statuses/);
    // Everyone else still gets through, up to their own quota.
    expect((await call(ed, 200)).status).toBe(200);
    expect((await call(ed, 201)).status).toBe(200);
    const mine = await call(ed, 202);
    expect(mine.status).toBe(429);
    expect(mine.body).toMatch(/holds 2 request statuses, the most one sender may/);
    expect((await call(ed2, 300)).status).toBe(200);
    // A retry of a request already held (the same body) is answered from its status, not counted again.
    expect((await call(undefined, 100)).status).toBe(200);
    expect(h.heldStatuses).toBe(6);
  });

  it('read_state certificates are cached, and beyond the cache rate-limited per sender (429), not signed without bound', async () => {
    const h = new IcHttpHandler(evm.host, keys, { limits: { certBurstPerSender: 3, certsPerSecondPerSender: 0.01 } });
    const read = async (id: Identity | undefined, paths: Uint8Array[][]) =>
      h.handle('POST', READ, await signed(id, { request_type: 'read_state', paths, sender: (id?.getPrincipal() ?? Principal.anonymous()).toUint8Array(), ingress_expiry: expiry() }), 'application/cbor');
    const c = canister.toUint8Array();
    const distinct = [[[utf8('time')]], [[utf8('subnet')]], [[utf8('canister'), c, utf8('controllers')]], [[utf8('canister'), c, utf8('module_hash')]]];
    const answers = [];
    for (const paths of distinct) answers.push(await read(undefined, paths));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers[3]!.body).toMatch(/Too many certificates for anonymous callers/);
    expect(h.signatures).toBe(3);
    // The same answer again within a second: the cached certificate, no signature, no budget.
    const again = await read(undefined, distinct[0]!);
    expect(again.status).toBe(200);
    expect(h.signatures).toBe(3);
    // Another sender has its own budget.
    expect((await read(ed, distinct[3]!)).status).toBe(200);
  });
});

describe('controller-only methods in canister_inspect_message', () => {
  it('refuses ingress of every admin method from anyone but a controller before the method runs', async () => {
    const stranger = ed.getPrincipal();
    const args: [string, Uint8Array][] = [
      ['set_block_gas_limit', new Uint8Array(IDL.encode([IDL.Nat64], [4_000_000n]))],
      ['purge_pool', new Uint8Array(IDL.encode([], []))],
      ['mine_block', new Uint8Array(IDL.encode([IDL.Bool], [true]))],
      ['set_mining_interval', new Uint8Array(IDL.encode([IDL.Nat64], [0n]))],
    ];
    for (const [method, arg] of args) {
      for (const caller of [stranger, Principal.anonymous()]) {
        const before = evm.messages.length;
        const r = await evm.host.update(method, arg, { caller: caller.toUint8Array() });
        expect(r.kind, method).toBe('reject');
        if (r.kind === 'reject') expect(r.message, method).toContain('evm.refused[auth.not_controller]');
        expect(evm.messages.slice(before).map((m) => m.kind), method).toEqual(['inspect']);
      }
    }
    // Over the IC HTTP interface: refused by the ingress filter (no status recorded), not run.
    const before = updatesRun();
    const body = await signed(ed, { ...callContent(ed.getPrincipal(), 1), method_name: 'purge_pool', arg: new Uint8Array(IDL.encode([], [])) });
    const r = await post(server.url, CALL, body);
    expect(Cbor.decode(r.bytes)).toMatchObject({ status: 'non_replicated_rejection', reject_code: 4, error_code: 'IC0406' });
    expect(updatesRun()).toBe(before);
    // A controller's call runs.
    const ok = await evm.host.update('purge_pool', new Uint8Array(IDL.encode([], [])), { caller: CONTROLLER.getPrincipal().toUint8Array() });
    expect(ok.kind).toBe('reply');
  });
});

describe('the replay window survives a restart and an evm_revert', () => {
  it('after a restart of the interface on the same data folder, the same envelope is answered "done" and not run again', async () => {
    const data = join(dir, 'data');
    mkdirSync(data, { recursive: true });
    const body = await signed(ed, callContent(ed.getPrincipal(), 500));
    const id = await requestIdOfBody(body);
    const first = new IcHttpHandler(evm.host, keys, { dataDir: data });
    const before = updatesRun();
    const r1 = await first.handle('POST', CALL, body, 'application/cbor');
    expect(r1.status).toBe(200);
    expect(statusIn(r1.body as Uint8Array, id)).toBe('replied');
    expect(updatesRun()).toBe(before + 1);
    first.close();
    const second = new IcHttpHandler(evm.host, keys, { dataDir: data });
    const r2 = await second.handle('POST', CALL, body, 'application/cbor');
    expect(r2.status).toBe(200);
    expect(statusIn(r2.body as Uint8Array, id)).toBe('done');
    expect(updatesRun()).toBe(before + 1);
    second.close();
  });

  it('after evm_revert moves IC time back, an envelope that ran is not run again', async () => {
    const h = new IcHttpHandler(evm.host, keys);
    const snap = evm.host.snapshotState();
    const body = await signed(ed2, callContent(ed2.getPrincipal(), 600));
    const id = await requestIdOfBody(body);
    const before = updatesRun();
    expect((await h.handle('POST', CALL, body, 'application/cbor')).status).toBe(200);
    // evm_increaseTime: IC time moves ten minutes past the envelope's window, and the sweeper runs.
    evm.host.shiftClock(600n * 1_000_000_000n);
    h.sweep();
    expect((await h.handle('POST', CALL, body, 'application/cbor')).status).toBe(400); // expired by IC time
    // evm_revert: IC time is back within the envelope's window; the envelope is still known.
    evm.host.restoreState(snap);
    const again = await h.handle('POST', CALL, body, 'application/cbor');
    expect(again.status).toBe(200);
    expect(statusIn(again.body as Uint8Array, id)).toBe('replied');
    expect(updatesRun()).toBe(before + 1);
  });
});
