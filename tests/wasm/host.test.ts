// The Node IC host running the real probe canister wasm (tests/fixtures/probe/index.ts, built with azle).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { IDL } from '@dfinity/candid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IC_QUERY_INSTRUCTION_LIMIT } from '../../src/core/constants.js';
import { probeQuery, probeUpdate } from '../support/probe_calls.js';
import { IcHost, Principal, RejectCode, type CallResult } from '../../src/host/index.js';
import { buildProbe } from '../fixtures/probe/build.js';
import { projectTempDir } from '../../src/host/paths.js';

const initArg = (s?: string): Uint8Array => new Uint8Array(IDL.encode([IDL.Opt(IDL.Text)], [s === undefined ? [] : [s]]));
const kv = (k: string, v: string): Uint8Array => new Uint8Array(IDL.encode([IDL.Text, IDL.Text], [k, v]));
const quiet = (): void => {};

let wasm: string;
beforeAll(() => {
  wasm = buildProbe();
});

async function fresh(extra: Partial<Parameters<typeof IcHost.create>[0]> = {}, arg = initArg()): Promise<IcHost> {
  const host = await IcHost.create({ wasm, debugPrint: quiet, ...extra });
  await host.install(arg);
  return host;
}

const get = (h: IcHost, k: string): [] | [string] => probeQuery(h, 'get', [IDL.Text], [k], [IDL.Opt(IDL.Text)]);
const counter = (h: IcHost): bigint => probeQuery(h, 'get_counter', [], [], [IDL.Nat64]);

function expectReject(r: CallResult, code: number, text: string): void {
  expect(r.kind).toBe('reject');
  if (r.kind !== 'reject') return;
  expect(r.code).toBe(code);
  expect(r.message).toContain(text);
  expect(r.message).not.toMatch(/\n\s+at /); // no host stack trace in results
}

describe('probe canister in the Node IC host', () => {
  let host: IcHost;
  beforeAll(async () => {
    host = await fresh({}, initArg('hello'));
  });
  afterAll(() => host.close());

  it('installs with init args and counts instructions of every call', async () => {
    expect(probeQuery(host, 'get_init_arg', [], [], [IDL.Text])).toBe('init:hello');
    const q = host.query('get_counter');
    expect(q.kind).toBe('reply');
    expect(q.instructions).toBeGreaterThan(0n);
    const u = await host.update('inc');
    expect(u.kind).toBe('reply');
    expect(u.instructions).toBeGreaterThan(0n);
    expect(IDL.decode([IDL.Nat64], u.kind === 'reply' ? u.bytes : new Uint8Array())[0]).toBe(1n);
  });

  it('passes the caller: anonymous by default, or a self-authenticating principal', () => {
    expect(probeQuery(host, 'whoami', [], [], [IDL.Text])).toBe('2vxsx-fae');
    const user = Principal.selfAuthenticating(new Uint8Array(44).fill(7));
    expect(probeQuery(host, 'whoami', [], [], [IDL.Text], { caller: user })).toBe(user.toText());
  });

  it('rolls back heap and stable memory of a trapping update, and keeps serving', async () => {
    const before = counter(host);
    const r = await host.update('put_then_trap', kv('trap-key', 'v'));
    expectReject(r, RejectCode.CanisterError, 'probe trap after writing trap-key');
    expect(r.instructions).toBeGreaterThan(0n);
    expect(get(host, 'trap-key')).toEqual([]);
    expect(counter(host)).toBe(before);
    expect(await probeUpdate(host, 'put', [IDL.Text, IDL.Text], ['after-trap', 'ok'], [IDL.Nat64])).toBe(before + 1n);
    expect(get(host, 'after-trap')).toEqual(['ok']);
  });

  it('discards the heap and stable writes of a query', () => {
    const before = counter(host);
    const len = probeQuery(host, 'len', [], [], [IDL.Nat64]);
    expect(probeQuery(host, 'query_write', [IDL.Text, IDL.Text], ['q-key', 'v'], [IDL.Nat64])).toBe(before + 100n);
    expect(get(host, 'q-key')).toEqual([]);
    expect(counter(host)).toBe(before);
    expect(probeQuery(host, 'len', [], [], [IDL.Nat64])).toBe(len);
  });

  it('treats a query method called as an update as a replicated query, and an update method as a query is not found', async () => {
    const before = counter(host);
    const r = await host.update('query_write', kv('rq-key', 'v'));
    expect(r.kind).toBe('reply');
    expect(get(host, 'rq-key')).toEqual([]); // a query's changes are discarded even in replicated mode
    expect(counter(host)).toBe(before);
    expectReject(host.query('inc'), RejectCode.DestinationInvalid, "has no query method 'inc'");
    expect(counter(host)).toBe(before);
    expectReject(await host.update('no_such_method'), RejectCode.DestinationInvalid, "has no update method 'no_such_method'");
  });

  it('answers raw_rand, so Azle seeds crypto.getRandomValues', async () => {
    const a = await probeUpdate<Uint8Array>(host, 'random_bytes', [], [], [IDL.Vec(IDL.Nat8)]);
    const b = await probeUpdate<Uint8Array>(host, 'random_bytes', [], [], [IDL.Vec(IDL.Nat8)]);
    expect(a.length).toBe(32);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
  });

  it('returns the real instruction count from performance_counter', async () => {
    const [msgCount, ctxCount] = probeQuery<[bigint, bigint]>(host, 'perf', [], [], [IDL.Tuple(IDL.Nat64, IDL.Nat64)]);
    expect(msgCount).toBeGreaterThan(0n);
    expect(ctxCount).toBeGreaterThanOrEqual(msgCount);
    const r = await host.update('burn');
    const seenInside = r.kind === 'reply' ? (IDL.decode([IDL.Nat64], r.bytes)[0] as bigint) : 0n;
    expect(seenInside).toBeGreaterThan(1_000_000n); // a 20k-step JS loop
    expect(r.instructions).toBeGreaterThan(seenInside);
  });

  it('fires a timer when the clock passes its deadline and not before', async () => {
    await probeUpdate(host, 'set_timer', [IDL.Nat32], [5], [IDL.Nat64]);
    const armedAt = host.now();
    expect(host.globalTimer).toBe(armedAt + 5_000_000_000n);
    await host.advanceTime(4_999);
    expect(probeQuery(host, 'timer_state', [], [], [IDL.Tuple(IDL.Nat64, IDL.Nat64)])).toEqual([0n, 0n]);
    await host.advanceTime(1);
    expect(probeQuery(host, 'timer_state', [], [], [IDL.Tuple(IDL.Nat64, IDL.Nat64)])).toEqual([1n, armedAt + 5_000_000_000n]);
    expect(host.globalTimer).toBe(0n);
  });

  it('upgrades: stable entries kept, heap re-initialised, post_upgrade gets its argument', async () => {
    await probeUpdate(host, 'put', [IDL.Text, IDL.Text], ['kept', 'yes'], [IDL.Nat64]);
    expect(counter(host)).toBeGreaterThan(0n);
    const version = host.canisterVersion;
    await host.upgrade({ arg: initArg('v2') });
    expect(get(host, 'kept')).toEqual(['yes']);
    expect(counter(host)).toBe(0n);
    expect(probeQuery(host, 'get_init_arg', [], [], [IDL.Text])).toBe('post_upgrade:v2');
    expect(host.canisterVersion).toBe(version + 1n);
  });
});

describe('instruction limits', () => {
  it('stops and rolls back an update looping without system calls', async () => {
    const host = await fresh({ updateInstructionLimit: 1_000_000_000n });
    try {
      const r = await host.update('put_then_spin', kv('spin', 'v'));
      expectReject(r, RejectCode.CanisterError, 'exceeded the limit of 1000000000 instructions');
      expect(r.instructions).toBeGreaterThan(1_000_000_000n);
      expect(get(host, 'spin')).toEqual([]);
      expect(counter(host)).toBe(0n);
      expect(await probeUpdate(host, 'inc', [], [], [IDL.Nat64])).toBe(1n);
    } finally {
      host.close();
    }
  });

  it('stops a query at the IC query limit (5 B)', async () => {
    const host = await fresh();
    try {
      const r = host.query('spin_query');
      expectReject(r, RejectCode.CanisterError, `exceeded the limit of ${IC_QUERY_INSTRUCTION_LIMIT} instructions`);
      expect(r.instructions).toBeGreaterThan(IC_QUERY_INSTRUCTION_LIMIT);
      expect(counter(host)).toBe(0n);
    } finally {
      host.close();
    }
  });
});

describe('without instrumentation', () => {
  it('runs the plain wasm and reports counts as unavailable', async () => {
    const host = await fresh({ instrument: false });
    try {
      const r = await host.update('inc');
      expect(r.kind).toBe('reply');
      expect(r.instructions).toBeUndefined();
      expect(probeQuery(host, 'get_init_arg', [], [], [IDL.Text])).toBe('<none>');
    } finally {
      host.close();
    }
  });
});

describe('stable memory file', () => {
  it('survives a new host process: state reloaded, post_upgrade run, heap fresh', async () => {
    const dir = projectTempDir('ic-host-test-');
    const file = join(dir, 'stable.bin');
    try {
      const a = await fresh({ stableMemoryFile: file, canisterId: 'ryjl3-tyaaa-aaaaa-aaaba-cai', controllers: ['2vxsx-fae'] });
      await probeUpdate(a, 'put', [IDL.Text, IDL.Text], ['persisted', 'on disk'], [IDL.Nat64]);
      await a.update('put_then_trap', kv('not-persisted', 'x'));
      a.close();

      const b = await IcHost.create({ wasm, stableMemoryFile: file, debugPrint: quiet });
      expect(b.hasPersistedState).toBe(true);
      expect(b.canisterId.toText()).toBe('ryjl3-tyaaa-aaaaa-aaaba-cai');
      await expect(b.install(initArg())).rejects.toThrow(/use resume/);
      await b.resume(initArg('restart'));
      expect(get(b, 'persisted')).toEqual(['on disk']);
      expect(get(b, 'not-persisted')).toEqual([]);
      expect(counter(b)).toBe(0n);
      expect(probeQuery(b, 'get_init_arg', [], [], [IDL.Text])).toBe('post_upgrade:restart');
      b.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('wall clock', () => {
  it('fires timers by itself in wall-clock mode', async () => {
    const host = await fresh({ clock: 'wall', wallTickMs: 10 });
    try {
      const before = host.now();
      await probeUpdate(host, 'set_timer', [IDL.Nat32], [1], [IDL.Nat64]);
      expect(probeQuery(host, 'timer_state', [], [], [IDL.Tuple(IDL.Nat64, IDL.Nat64)])).toEqual([0n, 0n]);
      await new Promise((r) => setTimeout(r, 1300));
      const [fired, at] = probeQuery<[bigint, bigint]>(host, 'timer_state', [], [], [IDL.Tuple(IDL.Nat64, IDL.Nat64)]);
      expect(fired).toBe(1n);
      expect(at).toBeGreaterThanOrEqual(before + 1_000_000_000n);
    } finally {
      host.close();
    }
  });
});
