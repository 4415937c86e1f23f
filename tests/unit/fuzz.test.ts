// Bounded, seeded fuzzing in `npm test` (docs/hardening.md, "Fuzzing"): Candid argument bytes against the argument check and
// the decoder, raw transactions against the core's submit, JSON-RPC bodies against the gateway's dispatch.
// The property each time: a clean answer for every input (an error code, never a throw, never a 500, never
// a stack trace). `npm run fuzz -- --count N` runs the same generators at scale; the real wasm gets its
// share in tests/wasm/canister-fuzz.test.ts.
import { describe, expect, it } from 'vitest';
import { FakeClient, fakeContext } from '../support/gateway_fake.js';
import { formatTally, fuzzCandid, fuzzRawTx, fuzzRpc, newTally, rawSeeds } from '../support/fuzz.js';
import { common, ETH, key, setup } from '../support/chain_testkit.js';

const SEED = 0x5eed;

describe('fuzz (bounded, seeded)', () => {
  it('Candid argument bytes: the check never throws and bounds what reaches the decoder', () => {
    const t = newTally();
    fuzzCandid(t, SEED, 5000);
    console.log(formatTally('candid', t));
    expect(t.failures).toEqual([]);
    // The generators reach both sides of the check.
    expect(t.codes.get('ok') ?? 0).toBeGreaterThan(0);
    expect(t.codes.get('candid.args_malformed') ?? 0).toBeGreaterThan(0);
  });

  it('raw transactions: submit answers a Result for every input', async () => {
    const k = key(1);
    const { core } = await setup({ genesisAllocations: [{ address: k.address, balance: ETH }] });
    const t = newTally();
    fuzzRawTx(t, core, rawSeeds(common, k.priv), SEED, 1500);
    console.log(formatTally('rawtx', t));
    expect(t.failures).toEqual([]);
    expect(t.codes.size).toBeGreaterThan(3);
  });

  it('JSON-RPC bodies: the gateway answers every body, never a 500, never a stack trace', async () => {
    // A canister double that answers anything with odd shapes or fails, so the formatters meet bad data too.
    const odd = [undefined, null, 7n, { Err: { code: 'internal', message: 'boom\n    at x (y.ts:1:1)' } }, { Ok: 1n }, [], new Uint8Array(3)];
    let i = 0;
    const client = new FakeClient(new Proxy({}, { get: () => () => {
      const v = odd[i++ % (odd.length + 1)];
      if (v === undefined && i % 3 === 0) throw new Error('transport failed\n    at z (w.ts:2:2)');
      return v;
    } }));
    const ctx = fakeContext(client);
    const t = newTally();
    await fuzzRpc(t, ctx, SEED, 3000);
    console.log(formatTally('rpc', t));
    expect(t.failures).toEqual([]);
  });
});
