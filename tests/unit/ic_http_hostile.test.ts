// Hostile bodies for the IC HTTP interface's envelope decoder (src/host/ic_http/cbor.ts, envelope.ts): a
// body at the 4 MiB limit made of small arrays in an unknown content field, in a delegation map or in the
// paths; array headers announcing 2^32 items; deep nesting; `__proto__` and duplicate keys; an expired
// envelope whose signature would be costly. Each is refused with 400, within the time budget, before the
// request id is hashed; the refusal the server gives from a body's first bytes is the whole body's.
import { Cbor } from '@icp-sdk/core/agent';
import { Ed25519KeyIdentity } from '@icp-sdk/core/identity';
import { Principal } from '@icp-sdk/core/principal';
import { describe, expect, it } from 'vitest';
import { decodeCbor, prefixRefusal } from '../../src/host/ic_http/cbor.js';
import { decodeEnvelope, envelopePrefixRefusal, MAX_ENVELOPE_DEPTH, MAX_ENVELOPE_ITEMS } from '../../src/host/ic_http/envelope.js';
import { MAX_BODY_BYTES } from '../../src/host/ic_http/server.js';
import { Rng } from '../support/fuzz.js';
import { icHttpInput, icHttpSeeds } from '../support/fuzz_ic_http.js';
import { smallArraysBody } from '../support/ic_http_attack.js';

const now = BigInt(Date.now()) * 1_000_000n;
const anon = Principal.anonymous().toUint8Array();
const canister = Principal.fromText('rrkah-fqaaa-aaaaa-aaaaq-cai').toUint8Array();
const call = (extra: Record<string, unknown> = {}) => ({ request_type: 'call', canister_id: canister, method_name: 'm', arg: new Uint8Array(), sender: anon, ingress_expiry: now + 60_000_000_000n, ...extra });
const timed = <T>(f: () => T): { value: T; ms: number } => {
  const t = performance.now();
  const value = f();
  return { value, ms: performance.now() - t };
};

describe('IC HTTP envelope under hostile bodies', () => {
  it('a 4 MiB anonymous body of small arrays in an unknown content field is refused with 400 within 100 ms', () => {
    for (const where of ['content', 'delegation', 'paths'] as const) {
      const body = smallArraysBody(where, MAX_BODY_BYTES);
      expect(body.length).toBeGreaterThan(MAX_BODY_BYTES - 64);
      expect(body.length).toBeLessThanOrEqual(MAX_BODY_BYTES);
      const { value: r, ms } = timed(() => decodeEnvelope(body, where === 'paths' ? 'read_state' : 'call', now));
      expect(r.ok, where).toBe(false);
      if (!r.ok) {
        expect(r.error.status).toBe(400);
        expect(r.error.message).toMatch(new RegExp(`more than ${MAX_ENVELOPE_ITEMS} data items`));
      }
      expect(ms, where).toBeLessThan(100);
    }
  });

  it('refuses a 4 MiB body of small arrays from its first 64 KiB with the whole body\'s answer', () => {
    for (const where of ['content', 'delegation', 'paths'] as const) {
      const body = smallArraysBody(where, MAX_BODY_BYTES);
      const whole = decodeEnvelope(body, where === 'paths' ? 'read_state' : 'call', now);
      const { value: early, ms } = timed(() => envelopePrefixRefusal(body.subarray(0, 64 * 1024), body.length));
      expect(early, where).toEqual(whole.ok ? undefined : whole.error);
      expect(ms, where).toBeLessThan(100);
      // Without Content-Length the outer array's count could still be longer than the body: the whole body's
      // answer, so no early one.
      expect(envelopePrefixRefusal(body.subarray(0, 64 * 1024), undefined), where).toBeUndefined();
    }
  });

  it('a prefix refuses only what the whole body is refused for, with the same message (fuzz inputs, every cut)', async () => {
    const nowMs = Date.now();
    const seeds = await icHttpSeeds(nowMs);
    const r = new Rng(2611);
    const limits = { maxItems: MAX_ENVELOPE_ITEMS, maxDepth: MAX_ENVELOPE_DEPTH };
    let decided = 0;
    for (let i = 0; i < 400; i++) {
      const { body } = icHttpInput(r, seeds, nowMs);
      const whole = decodeCbor(body, limits);
      const cuts = new Set([0, 1, 2, 3, 5, 8, 13, 64, 200, 1024, 4096, 65_536, body.length].map((c) => Math.min(c, body.length)));
      for (let k = 0; k < 8; k++) cuts.add(r.int(body.length + 1));
      for (const cut of cuts) {
        for (const total of [body.length, undefined]) {
          const early = prefixRefusal(body.subarray(0, cut), total, limits);
          if (early === undefined) continue;
          decided++;
          expect(whole.ok ? 'decoded' : whole.message, `input ${i}, cut ${cut} of ${body.length}, total ${total}`).toBe(early);
        }
      }
    }
    expect(decided).toBeGreaterThan(100);
  });

  it('refuses a header announcing 2^32 items, deep nesting, a run of tags and trailing bytes without allocating', () => {
    const cases: [Uint8Array, RegExp][] = [
      [Uint8Array.of(0x9b, 0, 0, 0, 1, 0, 0, 0, 0), /longer than the body/], // array of 2^32
      [Uint8Array.of(0xbb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), /longer than the body/], // map of 2^64-1
      [Uint8Array.of(0x5a, 0xff, 0xff, 0xff, 0xff, 1), /longer than the body/], // byte string of 4 GiB
      [new Uint8Array(100_000).fill(0x81), /nested deeper than/], // [[[[...]]]]
      [Uint8Array.from([...new Array(50_000).fill([0xd9, 0xd9, 0xf7]).flat(), 0]), /nested deeper than/],
      [Uint8Array.of(0xa0, 0), /1 bytes after the envelope/],
      [Uint8Array.of(0x20), /negative integer/],
      [Uint8Array.of(0xf9, 0, 0), /float or simple value/],
      [Uint8Array.of(0xc2, 0x40), /tag 2/],
      [Uint8Array.of(0x5f, 0x40, 0xff), /chunked string/],
      [Uint8Array.of(0x62, 0xc3, 0x28), /not UTF-8/],
      [Uint8Array.of(0xa1, 0x01, 0x01), /not a text string/],
    ];
    for (const [bytes, message] of cases) {
      const { value: r, ms } = timed(() => decodeCbor(bytes, { maxItems: MAX_ENVELOPE_ITEMS, maxDepth: 8 }));
      expect(r.ok ? 'decoded' : r.message).toMatch(message);
      expect(ms).toBeLessThan(100);
    }
  });

  it('refuses `__proto__` and duplicate map keys (they would set a prototype or hide a signed field)', () => {
    // {"content": {"__proto__": {"method_name": "x"}}} written by hand: encoders drop __proto__.
    const proto = Uint8Array.from([0xa1, 0x67, ...Buffer.from('content'), 0xa1, 0x69, ...Buffer.from('__proto__'), 0xa1, 0x6b, ...Buffer.from('method_name'), 0x61, 0x78]);
    const p = decodeEnvelope(proto, 'call', now);
    expect(p.ok ? '' : p.error.message).toMatch(/map key "__proto__" is not allowed/);
    expect(({} as Record<string, unknown>).method_name).toBeUndefined();
    const dup = Uint8Array.from([0xa2, 0x61, 0x61, 0x01, 0x61, 0x61, 0x02]);
    const d = decodeCbor(dup, { maxItems: 10, maxDepth: 2 });
    expect(d.ok ? '' : d.message).toMatch(/duplicate map key "a"/);
  });

  it('checks the expiry before the signature and delegation expirations before any delegation signature', () => {
    const id = Ed25519KeyIdentity.generate();
    const pub = new Uint8Array(id.getPublicKey().toDer());
    const sender = id.getPrincipal().toUint8Array();
    // An expired request with a signature that would not verify: the expiry answers, nothing is verified.
    const expired = Cbor.encode({ content: call({ sender, ingress_expiry: now - 1n }), sender_pubkey: pub, sender_sig: new Uint8Array(64) });
    const e = decodeEnvelope(new Uint8Array(expired), 'call', now);
    expect(e.ok ? '' : e.error.message).toMatch(/^Invalid request expiry/);
    // Twenty delegations, the last expired, none with a valid signature: refused for the expiry.
    const delegation = (exp: bigint) => ({ delegation: { pubkey: pub, expiration: exp }, signature: new Uint8Array(64) });
    const chain = [...Array.from({ length: 19 }, () => delegation(now + 10n ** 12n)), delegation(now - 1n)];
    const d = decodeEnvelope(new Uint8Array(Cbor.encode({ content: call({ sender }), sender_pubkey: pub, sender_sig: new Uint8Array(64), sender_delegation: chain })), 'call', now);
    expect(d.ok ? '' : d.error.message).toMatch(/Invalid delegation expiry: delegation 19/);
    // An unknown field in a delegation is refused before anything is hashed.
    const odd = [{ delegation: { pubkey: pub, expiration: now + 10n ** 12n, padding: [[1], [2]] }, signature: new Uint8Array(64) }];
    const o = decodeEnvelope(new Uint8Array(Cbor.encode({ content: call({ sender }), sender_pubkey: pub, sender_sig: new Uint8Array(64), sender_delegation: odd })), 'call', now);
    expect(o.ok ? '' : o.error.message).toMatch(/has a field other than pubkey/);
  });

  it('the largest expiry is a 400 with its date, not a throw', () => {
    const r = decodeEnvelope(new Uint8Array(Cbor.encode({ content: call({ ingress_expiry: 2n ** 64n - 1n }) })), 'call', now);
    expect(r.ok ? '' : r.error.message).toMatch(/^Invalid request expiry.*Provided expiry: 2554-07-21/);
  });
});
