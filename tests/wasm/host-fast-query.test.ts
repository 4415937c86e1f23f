// The host's remembered query replies (IcHostOptions.queryCache) and whole-state snapshots keep the IC's
// semantics: a query's writes are still discarded, traps still roll back, a committed message makes every
// remembered reply stale, and a restored snapshot is the state it copied, byte for byte.
import { IDL } from '@dfinity/candid';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { probeQuery, probeUpdate } from '../support/probe_calls.js';
import { IcHost, RejectCode } from '../../src/host/index.js';
import { buildProbe } from '../fixtures/probe/build.js';

const initArg = new Uint8Array(IDL.encode([IDL.Opt(IDL.Text)], [[]]));
const kv = (k: string, v: string): Uint8Array => new Uint8Array(IDL.encode([IDL.Text, IDL.Text], [k, v]));
const get = (h: IcHost, k: string): [] | [string] => probeQuery(h, 'get', [IDL.Text], [k], [IDL.Opt(IDL.Text)]);
const counter = (h: IcHost): bigint => probeQuery(h, 'get_counter', [], [], [IDL.Nat64]);
const queryWrite = (h: IcHost, k: string): bigint => probeQuery(h, 'query_write', [IDL.Text, IDL.Text], [k, 'v'], [IDL.Nat64]);

let wasm: string;
let host: IcHost | undefined;
beforeAll(() => {
  wasm = buildProbe();
});
afterEach(() => host?.close());

async function fresh(opts: Partial<Parameters<typeof IcHost.create>[0]> = {}): Promise<IcHost> {
  host = await IcHost.create({ wasm, debugPrint: () => {}, queryCache: 64, ...opts });
  await host.install(initArg);
  return host;
}

describe('remembered query replies', () => {
  it('answers a repeated query without running it, and its writes stay discarded', async () => {
    const h = await fresh();
    const before = counter(h);
    const hits = h.queryCacheHits;
    expect(queryWrite(h, 'q')).toBe(before + 100n);
    expect(queryWrite(h, 'q')).toBe(before + 100n);
    expect(h.queryCacheHits).toBe(hits + 1);
    // Another argument is another reply.
    expect(queryWrite(h, 'other')).toBe(before + 100n);
    expect(h.queryCacheHits).toBe(hits + 1);
    expect(get(h, 'q')).toEqual([]);
    expect(counter(h)).toBe(before);
  });

  it('forgets every reply when a message commits, not when one traps', async () => {
    const h = await fresh();
    const c0 = counter(h);
    expect(counter(h)).toBe(c0);
    const r = await h.update('put_then_trap', kv('t', 'v'));
    expect(r.kind).toBe('reject');
    const hits = h.queryCacheHits;
    expect(counter(h)).toBe(c0); // the trap changed nothing: still remembered
    expect(h.queryCacheHits).toBe(hits + 1);
    expect(await probeUpdate(h, 'inc', [], [], [IDL.Nat64])).toBe(c0 + 1n);
    expect(counter(h)).toBe(c0 + 1n); // ran again
    expect(h.queryCacheHits).toBe(hits + 1);
    expect(get(h, 't')).toEqual([]);
  });

  it('never remembers a trapping query', async () => {
    const h = await fresh({ queryInstructionLimit: 50_000_000n });
    const hits = h.queryCacheHits;
    for (let i = 0; i < 2; i++) {
      const r = h.query('spin_query');
      expect(r.kind).toBe('reject');
      if (r.kind === 'reject') expect(r.code).toBe(RejectCode.CanisterError);
    }
    expect(h.queryCacheHits).toBe(hits);
    expect(await probeUpdate(h, 'inc', [], [], [IDL.Nat64])).toBeGreaterThan(0n); // still serving
  });

  it('is off by default', async () => {
    const h = await fresh({ queryCache: undefined });
    counter(h);
    counter(h);
    expect(h.queryCacheHits).toBe(0);
  });
});

describe('whole-state snapshots', () => {
  it('restores heap, globals and stable memory exactly (on a fresh instance), and keeps serving', async () => {
    const h = await fresh();
    await probeUpdate(h, 'put', [IDL.Text, IDL.Text], ['kept', '1'], [IDL.Nat64]);
    const snap = h.snapshotState();
    const c0 = counter(h);
    await probeUpdate(h, 'put', [IDL.Text, IDL.Text], ['later', '2'], [IDL.Nat64]);
    await probeUpdate(h, 'put', [IDL.Text, IDL.Text], ['big3', 'x'.repeat(1000)], [IDL.Nat64]);
    expect(counter(h)).toBeGreaterThan(c0);
    h.restoreState(snap);
    expect(counter(h)).toBe(c0);
    expect(get(h, 'kept')).toEqual(['1']);
    expect(get(h, 'later')).toEqual([]);
    expect(get(h, 'big3')).toEqual([]);
    const again = h.snapshotState();
    expect(again.heap.equals(snap.heap)).toBe(true);
    expect(again.globals).toEqual(snap.globals);
    expect(again.stable.size).toBe(snap.stable.size);
    expect([...again.stable.pages.keys()].sort()).toEqual([...snap.stable.pages.keys()].sort());
    for (const [i, p] of snap.stable.pages) expect(again.stable.pages.get(i)!.equals(p)).toBe(true);
    expect(again.timerDeadline).toBe(snap.timerDeadline);
    // And it keeps working from there.
    expect(await probeUpdate(h, 'inc', [], [], [IDL.Nat64])).toBe(c0 + 1n);
  });
});
