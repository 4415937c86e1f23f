// The query replica (IcHostOptions.queryReplica, src/host/replica.ts): queries made with queryAsync run in a
// worker thread on a copy of the committed state, so a query running to the 5 B limit leaves the host's
// thread free for updates and timers. The IC's semantics hold: a query sees every update answered before it
// was made, its writes are discarded, a restore or an upgrade is followed, and a failed worker is replaced.
import { IDL } from '@dfinity/candid';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IcHost, RejectCode, type CallResult } from '../../src/host/index.js';
import { buildProbe } from '../fixtures/probe/build.js';

const initArg = new Uint8Array(IDL.encode([IDL.Opt(IDL.Text)], [[]]));
const enc = (types: IDL.Type[], values: unknown[]): Uint8Array => new Uint8Array(IDL.encode(types, values));
const nat64 = (r: CallResult): bigint => {
  if (r.kind !== 'reply') throw new Error(`rejected: ${r.message}`);
  return IDL.decode([IDL.Nat64], r.bytes)[0] as bigint;
};
const optText = (r: CallResult): [] | [string] => {
  if (r.kind !== 'reply') throw new Error(`rejected: ${r.message}`);
  return IDL.decode([IDL.Opt(IDL.Text)], r.bytes)[0] as [] | [string];
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

let wasm: string;
let host: IcHost | undefined;
const logs: string[] = [];
beforeAll(() => {
  wasm = buildProbe();
});
afterEach(() => {
  host?.close();
  host = undefined;
  logs.length = 0;
});

async function withReplica(opts: Partial<Parameters<typeof IcHost.create>[0]> = {}): Promise<IcHost> {
  host = await IcHost.create({ wasm, queryReplica: true, debugPrint: (m) => logs.push(m), ...opts });
  await host.install(initArg);
  await until(() => host!.queryReplica!.ready, 'the replica to start');
  return host;
}

async function until(cond: () => boolean, what: string, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('query replica', () => {
  it('answers queryAsync in the worker with what query() answers, and discards the query writes', async () => {
    const h = await withReplica();
    await h.update('put', enc([IDL.Text, IDL.Text], ['k', 'v']));
    const served = h.queryReplica!.served;
    expect(optText(await h.queryAsync('get', enc([IDL.Text], ['k'])))).toEqual(['v']);
    expect(optText(await h.queryAsync('get', enc([IDL.Text], ['k'])))).toEqual(optText(h.query('get', enc([IDL.Text], ['k']))));
    // query_write writes heap and stable memory and answers counter + 100: twice the same, nothing kept.
    const c = nat64(h.query('get_counter'));
    expect(nat64(await h.queryAsync('query_write', enc([IDL.Text, IDL.Text], ['q', 'x'])))).toBe(c + 100n);
    expect(nat64(await h.queryAsync('query_write', enc([IDL.Text, IDL.Text], ['q', 'x'])))).toBe(c + 100n);
    expect(optText(await h.queryAsync('get', enc([IDL.Text], ['q'])))).toEqual([]);
    expect(optText(h.query('get', enc([IDL.Text], ['q'])))).toEqual([]);
    expect(h.queryReplica!.served).toBe(served + 5);
    expect((await h.queryAsync('no_such_method')).kind).toBe('reject');
  });

  it('runs identical queries made while one is in flight once, and remembers the reply', async () => {
    const h = await withReplica({ queryCache: 64 });
    await h.update('inc');
    const served = h.queryReplica!.served;
    const hits = h.queryCacheHits;
    const answers = await Promise.all(Array.from({ length: 8 }, () => h.queryAsync('get_counter')));
    expect(answers.map(nat64)).toEqual(Array(8).fill(1n));
    expect(h.queryReplica!.served).toBe(served + 1);
    expect(h.queryCacheHits).toBe(hits + 7);
    expect(nat64(await h.queryAsync('get_counter'))).toBe(1n); // remembered
    expect(h.queryReplica!.served).toBe(served + 1);
    // A commit makes the next one run again, on the new state.
    await h.update('inc');
    expect(nat64(await h.queryAsync('get_counter'))).toBe(2n);
    expect(h.queryReplica!.served).toBe(served + 2);
  });

  it('runs updates and timers while a query runs to the instruction limit, and orders queries after updates', async () => {
    const h = await withReplica({ clock: 'wall', wallTickMs: 10 });
    // spin_query loops until the query limit (5 B instructions: seconds): the host's thread must stay free.
    let spinDone = false;
    const spin = h.queryAsync('spin_query').then((r) => ((spinDone = true), r));
    let updatesDuringSpin = 0;
    let last = 0n;
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    try {
      while (!spinDone && updatesDuringSpin < 5) {
        last = nat64(await h.update('inc'));
        if (!spinDone) updatesDuringSpin++;
        await sleep(10);
      }
      // The host's own wall-clock timer (the global timer) fires too: a canister timer set now runs.
      await h.update('set_timer', enc([IDL.Nat32], [0]));
      const fired = (): bigint => (IDL.decode([IDL.Tuple(IDL.Nat64, IDL.Nat64)], (h.query('timer_state') as { bytes: Uint8Array }).bytes)[0] as [bigint, bigint])[0];
      await until(() => fired() > 0n, 'the timer');
      const timerFiredDuringSpin = !spinDone;
      // A query made right after an update's answer sees it; it does not wait for the long query either: a
      // cheap method runs on this thread under a small limit while the replica is busy (the fast lane).
      const after = nat64(await h.update('inc'));
      const fast = h.fastLaneQueries;
      expect(nat64(await h.queryAsync('get_counter'))).toBe(after);
      const answeredDuringSpin = !spinDone;
      expect(h.fastLaneQueries).toBe(fast + 1);
      // A second long query tries the fast lane once, passes its limit and queues in the replica.
      const spin2 = h.queryAsync('spin_query');
      expect(h.fastLaneQueries).toBe(fast + 1);
      const r = await spin;
      expect(r.kind).toBe('reject');
      if (r.kind === 'reject') {
        expect(r.code).toBe(RejectCode.CanisterError);
        expect(r.message).toMatch(/exceeded the limit of 5000000000 instructions/);
      }
      expect(updatesDuringSpin).toBeGreaterThan(0);
      expect(timerFiredDuringSpin).toBe(true);
      expect(answeredDuringSpin).toBe(true);
      const r2 = await spin2;
      expect(r2.kind === 'reject' && r2.message).toMatch(/exceeded the limit of 5000000000 instructions/); // the replica's limit, not the fast lane's
      expect(ticks).toBeGreaterThan(0);
      expect(last).toBeGreaterThan(0n);
    } finally {
      clearInterval(ticker);
    }
  });

  it('follows a whole-state restore and an upgrade', async () => {
    const h = await withReplica();
    await h.update('put', enc([IDL.Text, IDL.Text], ['kept', '1']));
    const snap = h.snapshotState();
    await h.update('put', enc([IDL.Text, IDL.Text], ['later', '2']));
    expect(optText(await h.queryAsync('get', enc([IDL.Text], ['later'])))).toEqual(['2']);
    const counter = nat64(h.query('get_counter'));
    h.restoreState(snap);
    expect(optText(await h.queryAsync('get', enc([IDL.Text], ['later'])))).toEqual([]);
    expect(optText(await h.queryAsync('get', enc([IDL.Text], ['kept'])))).toEqual(['1']);
    expect(nat64(await h.queryAsync('get_counter'))).toBe(counter - 1n);
    // An upgrade: a new instance (the heap starts anew: counter 0), stable memory kept.
    await h.upgrade({ arg: enc([IDL.Opt(IDL.Text)], [['again']]) });
    const served = h.queryReplica!.served;
    expect(IDL.decode([IDL.Text], (await h.queryAsync('get_init_arg') as { bytes: Uint8Array }).bytes)[0]).toBe('post_upgrade:again');
    expect(nat64(await h.queryAsync('get_counter'))).toBe(0n);
    expect(optText(await h.queryAsync('get', enc([IDL.Text], ['kept'])))).toEqual(['1']);
    expect(h.queryReplica!.served).toBe(served + 3);
  });

  it('replaces a failed worker: queries go on (on the host thread meanwhile), with a log line', async () => {
    const h = await withReplica();
    const r = h.queryReplica!;
    await h.update('inc');
    await r.terminateWorker();
    expect(logs.some((l) => /query replica failed \(exited with code 1\): queries run on the main thread/.test(l))).toBe(true);
    expect(r.ready).toBe(false);
    const served = r.served;
    expect(nat64(await h.queryAsync('get_counter'))).toBe(1n); // answered here, not by a worker
    expect(r.served).toBe(served);
    await until(() => r.ready, 'the new worker');
    expect(r.restarts).toBe(1);
    await h.update('inc');
    expect(nat64(await h.queryAsync('get_counter'))).toBe(2n);
    expect(r.served).toBe(served + 1);
  });

  it('close() fails the queries still waiting and ends the worker (nothing keeps the process alive)', async () => {
    const h = await withReplica();
    const pending = h.queryAsync('spin_query');
    await sleep(50);
    h.close();
    host = undefined;
    await expect(pending).rejects.toThrow(/host is closed/);
  });
});
