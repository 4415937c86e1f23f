// A bounded sample of the ic-http fuzz target (tests/support/fuzz_ic_http.ts) at the envelope decoder, in
// Node: every input is decoded to an envelope or refused with 400, never thrown, each within 100 ms of CPU time.
import { describe, expect, it } from 'vitest';
import { decodeEnvelope } from '../../src/host/ic_http/envelope.js';
import { Rng } from '../support/fuzz.js';
import { icHttpInput, icHttpSeeds, SLOW_MS } from '../support/fuzz_ic_http.js';

describe('ic-http envelope fuzz sample', () => {
  it('3,000 inputs: a 400 or an envelope, no throw, none slower than 100 ms', async () => {
    const nowMs = Date.now();
    const now = BigInt(nowMs) * 1_000_000n;
    const seeds = await icHttpSeeds(nowMs);
    // One decode of each seed first: the signature libraries build their tables on first use.
    for (const s of seeds) decodeEnvelope(s.body, s.path.endsWith('/query') ? 'query' : s.path.endsWith('/call') ? 'call' : 'read_state', now);
    const r = new Rng(26);
    const outcomes = new Map<string, number>();
    let slowest = 0;
    for (let i = 0; i < 3_000; i++) {
      const { path, body } = icHttpInput(r, seeds, nowMs);
      const kind = path.endsWith('/query') ? 'query' : path.endsWith('/call') ? 'call' : 'read_state';
      // CPU time of this process, not wall time: the shared machine's load would otherwise decide the figure.
      const before = process.cpuUsage();
      const d = decodeEnvelope(body, kind, now);
      const used = process.cpuUsage(before);
      slowest = Math.max(slowest, (used.user + used.system) / 1000);
      const key = d.ok ? 'ok' : `${d.error.status} ${d.error.message.split(':')[0]}`;
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      if (!d.ok) expect(d.error.status, `input ${i}`).toBe(400);
    }
    expect(slowest).toBeLessThan(SLOW_MS);
    // The sample reaches past the decoder: some envelopes are whole, some refused for their signature or expiry.
    expect(outcomes.get('ok') ?? 0).toBeGreaterThan(0);
    expect([...outcomes.keys()].some((k) => k.startsWith('400 Failed to authenticate'))).toBe(true);
    expect([...outcomes.keys()].some((k) => k.startsWith('400 Failed to deserialize cbor request'))).toBe(true);
  });
});
