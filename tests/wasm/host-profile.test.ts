// The profiling build (IcHostOptions.profile, src/host/prepare.ts): on the real probe canister, instruction
// counts equal the normal build's, and the per-function attribution adds up to the counter of each message.
import { IDL } from '@dfinity/candid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IcHost, type CallResult } from '../../src/host/index.js';
import type { Profile } from '../../src/host/profile.js';
import { buildProbe } from '../fixtures/probe/build.js';

const quiet = (): void => {};
const initArg = new Uint8Array(IDL.encode([IDL.Opt(IDL.Text)], [['hello']]));
const kv = (k: string, v: string): Uint8Array => new Uint8Array(IDL.encode([IDL.Text, IDL.Text], [k, v]));
const instr = (r: CallResult): bigint => r.instructions ?? -1n;
const selfSum = (p: Profile): number => p.functions.reduce((s, f) => s + f.self, 0);

describe('profiling build', () => {
  let plain: IcHost;
  let prof: IcHost;
  beforeAll(async () => {
    const wasm = buildProbe();
    plain = await IcHost.create({ wasm, debugPrint: quiet });
    prof = await IcHost.create({ wasm, debugPrint: quiet, profile: true });
    await plain.install(initArg);
    await prof.install(initArg);
  }, 120_000);
  afterAll(() => {
    plain.close();
    prof.close();
  });

  it('is off by default and counts the same instructions as the normal build', async () => {
    expect(plain.profiler).toBeUndefined();
    expect(prof.profiler).toBeDefined();
    for (const [m, arg] of [['inc', undefined], ['put', kv('a', 'b')], ['burn', undefined]] as const) {
      expect(instr(await prof.update(m, arg))).toBe(instr(await plain.update(m, arg)));
    }
    expect(instr(prof.query('get_counter'))).toBe(instr(plain.query('get_counter')));
    const trapped = await prof.update('put_then_trap', kv('t', 'v'));
    expect(trapped.kind).toBe('reject');
    expect(instr(trapped)).toBe(instr(await plain.update('put_then_trap', kv('t', 'v'))));
  });

  it("attributes each message's counter to wasm functions, with their names", async () => {
    const p = prof.profiler!;
    p.reset();
    const r = await prof.update('burn');
    const profile = p.profile();
    expect(profile.messages).toBe(1);
    expect(profile.total).toBe(Number(instr(r)));
    expect(selfSum(profile) + profile.outside).toBe(profile.total);
    // Nearly everything is inside a function (the entry's own metering before its trace call is outside).
    expect(profile.outside).toBeLessThan(profile.total / 1000);
    const names = new Set(profile.functions.map((f) => f.name));
    expect(names.has('JS_CallInternal')).toBe(true);
    expect(profile.functions.some((f) => f.name.startsWith('canister_update'))).toBe(true);
    expect(profile.functions[0]!.self).toBeGreaterThan(0);
    // The exported entry's inclusive count is the whole message but what ran before its trace call.
    const entry = profile.functions.reduce((a, b) => (b.inclusive > a.inclusive ? b : a));
    expect(entry.inclusive + profile.outside).toBe(profile.total);
  });

  it('attributes a trapped message too (frames left open end at the trap)', async () => {
    const p = prof.profiler!;
    p.reset();
    const r = await prof.update('put_then_trap', kv('x', 'y'));
    expect(r.kind).toBe('reject');
    const profile = p.profile();
    expect(profile.total).toBe(Number(instr(r)));
    expect(selfSum(profile) + profile.outside).toBe(profile.total);
    expect(profile.outside).toBeLessThan(profile.total / 1000);
  });
});
