// Seeded fuzz inputs for the devnet's IC HTTP interface (src/host/ic_http): mutated valid envelopes (anonymous
// and Ed25519-signed query, call and read_state), random CBOR in every field, hand-made bombs (small arrays
// up to the 4 MiB limit, long headers, deep nesting, `__proto__` keys) and random bytes, POSTed over HTTP
// to the real server in front of the real wasm. The property: every input is answered, none with a 5xx or a
// stack trace, none slower than SLOW_MS. Shared by `npm run fuzz -- --target ic-http` (scripts/fuzz.ts) and
// the bounded sample in tests/wasm/ic-http-hostile.test.ts.
import { Cbor, type HttpAgentRequest } from '@icp-sdk/core/agent';
import { IDL } from '@icp-sdk/core/candid';
import { Ed25519KeyIdentity } from '@icp-sdk/core/identity';
import { Principal } from '@icp-sdk/core/principal';
import { mutate, Rng, type Tally } from './fuzz.js';
import { smallArraysBody } from './ic_http_attack.js';

export const SLOW_MS = 100;
const CANISTER = 'rrkah-fqaaa-aaaaa-aaaaq-cai';
const STACK = /\n\s+at |node:internal|\.ts:\d+:\d+/;
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

export interface IcHttpFuzzStats {
  /** Inputs answered after more than SLOW_MS. */
  slow: number;
  maxMs: number;
}

const PATHS = [
  `/api/v3/canister/${CANISTER}/query`,
  `/api/v2/canister/${CANISTER}/query`,
  `/api/v4/canister/${CANISTER}/call`,
  `/api/v3/canister/${CANISTER}/call`,
  `/api/v2/canister/${CANISTER}/call`,
  `/api/v3/canister/${CANISTER}/read_state`,
];

/** Random CBOR-encodable values: what a hostile field may hold. */
function randomValue(r: Rng, depth: number): unknown {
  switch (depth > 3 ? r.int(4) : r.int(7)) {
    case 0:
      return r.bytes(r.int(40));
    case 1:
      return 'x'.repeat(r.int(20));
    case 2:
      return r.int(2) === 0 ? r.next() : BigInt(r.next()) << BigInt(r.int(33));
    case 3:
      return r.pick([true, false, null, -1, 1.5]);
    case 4:
      return Array.from({ length: r.int(5) }, () => randomValue(r, depth + 1));
    case 5:
      return Object.fromEntries(Array.from({ length: r.int(4) }, (_, i) => [r.pick(['sender', 'arg', 'paths', 'nonce', 'k' + i, 'targets', 'pubkey']), randomValue(r, depth + 1)]));
    default:
      return new Uint8Array(0);
  }
}

/** Valid envelopes for the current time (signed ones are signed once per chunk): the seeds for mutation. */
export async function icHttpSeeds(nowMs: number): Promise<{ path: string; body: Uint8Array }[]> {
  const ed = Ed25519KeyIdentity.generate(new Uint8Array(32).fill(0x5e));
  const exp = BigInt(nowMs + 240_000) * 1_000_000n;
  const canister = Principal.fromText(CANISTER).toUint8Array();
  const call = (type: string, method: string, arg: Uint8Array, sender: Principal) => ({ request_type: type, canister_id: canister, method_name: method, arg, sender: sender.toUint8Array(), ingress_expiry: exp, nonce: Uint8Array.of(1) });
  const read = (sender: Principal) => ({ request_type: 'read_state', paths: [[utf8('time')], [utf8('request_status'), new Uint8Array(32)]], sender: sender.toUint8Array(), ingress_expiry: exp });
  const sign = async (content: Record<string, unknown>): Promise<Uint8Array> => {
    const req = (await ed.transformRequest({ request: { method: 'POST', headers: {} }, endpoint: 'call', body: content } as unknown as HttpAgentRequest)) as { body: unknown };
    return new Uint8Array(Cbor.encode(req.body));
  };
  const noArgs = new Uint8Array(IDL.encode([], []));
  const rawTx = new Uint8Array(IDL.encode([IDL.Vec(IDL.Nat8)], [Uint8Array.of(0xc0)]));
  const anon = Principal.anonymous();
  return [
    { path: PATHS[0]!, body: new Uint8Array(Cbor.encode({ content: call('query', 'rpc_eth_chain_id', noArgs, anon) })) },
    { path: PATHS[0]!, body: await sign(call('query', 'rpc_eth_block_number', noArgs, ed.getPrincipal())) },
    { path: PATHS[2]!, body: new Uint8Array(Cbor.encode({ content: call('call', 'rpc_eth_send_raw_transaction', rawTx, anon) })) },
    { path: PATHS[4]!, body: await sign(call('call', 'rpc_eth_send_raw_transaction', rawTx, ed.getPrincipal())) },
    { path: PATHS[5]!, body: new Uint8Array(Cbor.encode({ content: read(anon) })) },
    { path: PATHS[5]!, body: await sign(read(ed.getPrincipal())) },
  ];
}

/** One input: a path and a body. */
export function icHttpInput(r: Rng, seeds: { path: string; body: Uint8Array }[], nowMs: number): { path: string; body: Uint8Array } {
  const seed = r.pick(seeds);
  const path = r.int(10) === 0 ? r.pick(PATHS) : seed.path;
  switch (r.int(8)) {
    case 0:
    case 1:
    case 2:
      return { path, body: mutate(r, seed.body) };
    case 3: {
      // A field replaced or added with random CBOR.
      const env = Cbor.decode(seed.body) as Record<string, Record<string, unknown>>;
      const target = r.int(3) === 0 ? env : env.content!;
      target[r.pick(['sender', 'arg', 'paths', 'nonce', 'ingress_expiry', 'method_name', 'canister_id', 'request_type', 'sender_delegation', 'sender_pubkey', 'sender_sig', 'extra'])] = randomValue(r, 0);
      return { path, body: new Uint8Array(Cbor.encode(env)) };
    }
    case 4: {
      // Small arrays up to the limit (one input in 50 at full size: each is 4 MiB on the wire).
      const size = r.int(50) === 0 ? 4 * 1024 * 1024 : 256 + r.int(64 * 1024);
      return { path, body: smallArraysBody(r.pick(['content', 'delegation', 'paths'] as const), size, BigInt(nowMs + 60_000) * 1_000_000n) };
    }
    case 5: {
      // Hand-made heads: huge counts, deep nesting, tags, a __proto__ key.
      const kinds = [
        () => Uint8Array.of(0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
        () => new Uint8Array(1 + r.int(20_000)).fill(r.pick([0x81, 0xa1, 0xd9])),
        () => Uint8Array.from([0xa1, 0x67, ...utf8('content'), 0xa1, 0x69, ...utf8('__proto__'), 0xa0]),
        () => Uint8Array.from([0xd9, 0xd9, 0xf7, ...r.bytes(r.int(100))]),
      ];
      return { path, body: r.pick(kinds)() };
    }
    case 6:
      return { path, body: r.bytes(r.int(300)) };
    default:
      return { path, body: mutate(r, mutate(r, seed.body)) };
  }
}

/** POSTs `n` inputs from `seed` to the IC HTTP server at `url`. */
export async function fuzzIcHttp(t: Tally, stats: IcHttpFuzzStats, url: string, seed: number, n: number): Promise<void> {
  const r = new Rng(seed);
  const nowMs = Date.now();
  const seeds = await icHttpSeeds(nowMs);
  // Each seed once, untimed: the signature libraries build their tables on first use.
  for (const s of seeds) await fetch(`${url}${s.path}`, { method: 'POST', headers: { 'content-type': 'application/cbor' }, body: s.body }).then((res) => res.arrayBuffer());
  for (let i = 0; i < n; i++) {
    const { path, body } = icHttpInput(r, seeds, nowMs);
    const contentType = r.int(50) === 0 ? 'application/json' : 'application/cbor';
    t.inputs++;
    const started = performance.now();
    let status: number;
    let text: string;
    try {
      const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
      status = res.status;
      text = res.headers.get('content-type')?.startsWith('text/') === true ? await res.text() : (await res.arrayBuffer(), '');
    } catch (e) {
      t.crashes++;
      t.failures.push(`ic-http seed ${seed} input ${i}: no answer (${String(e)})`);
      continue;
    }
    const ms = performance.now() - started;
    stats.maxMs = Math.max(stats.maxMs, ms);
    if (ms > SLOW_MS) {
      stats.slow++;
      t.failures.push(`ic-http seed ${seed} input ${i}: answered after ${ms.toFixed(0)} ms (${path}, ${body.length} bytes, HTTP ${status})`);
    }
    if (status >= 500) {
      t.crashes++;
      t.failures.push(`ic-http seed ${seed} input ${i}: HTTP ${status} ${text.slice(0, 200)}`);
    }
    if (STACK.test(text)) t.failures.push(`ic-http seed ${seed} input ${i}: stack trace in ${text.slice(0, 300)}`);
    t.codes.set(`http ${status}`, (t.codes.get(`http ${status}`) ?? 0) + 1);
  }
}
