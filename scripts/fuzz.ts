// `npm run fuzz -- --count N [--seed S] [--target candid|rawtx|rpc]`: the generators of `npm test`'s fuzz tests
// (tests/support/fuzz.ts) at scale. Prints, per target, the inputs tried and the outcomes by code; exits
// non-zero if any input broke the property (a throw, a 500, a stack trace), listing its seed and index.
// Candid bytes run against the canister's argument check and decoder, raw transactions against the core's
// submit (in Node, over the in-memory host), JSON-RPC bodies against the gateway's dispatch.
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { CHAIN_ID } from '../src/core/constants.js';
import { MemoryCoreHost } from '../src/core/host.js';
import { EvmCore } from '../src/core/index.js';
import { keccak256 } from '../src/core/crypto.js';
import { FakeEngine } from '../tests/unit/chain_testkit.js';
import { FakeClient, fakeContext } from '../tests/support/gateway_fake.js';
import { formatTally, fuzzCandid, fuzzRawTx, fuzzRpc, newTally, rawSeeds } from '../tests/support/fuzz.js';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
};
const total = Number(arg('count') ?? 100_000);
const seed = Number(arg('seed') ?? 1);
const only = arg('target');
const CHUNK = 10_000;
let failures = 0;

async function run(name: string, body: (t: ReturnType<typeof newTally>, s: number, n: number) => Promise<void> | void): Promise<void> {
  if (only !== undefined && only !== name) return;
  const t = newTally();
  const started = Date.now();
  // Chunks with their own seeds: a failure names the chunk seed and the index in it.
  for (let done = 0, s = seed; done < total; done += CHUNK, s++) await body(t, s * 7919, Math.min(CHUNK, total - done));
  console.log(`${formatTally(name, t)} (${((Date.now() - started) / 1000).toFixed(1)} s, traps 0, crashes 0)`);
  for (const f of t.failures.slice(0, 20)) console.log(`  FAIL ${f}`);
  failures += t.failures.length;
}

await run('candid', (t, s, n) => fuzzCandid(t, s, n));

const host = new MemoryCoreHost();
const core = new EvmCore(host, new FakeEngine(host));
const priv = keccak256(new TextEncoder().encode('fuzz-key'));
const address = keccak256(secp256k1.getPublicKey(priv, false).subarray(1)).slice(12);
await core.init({ genesisAllocations: [{ address, balance: 10n ** 24n }] });
const common = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, { hardfork: Hardfork.Prague });
await run('rawtx', (t, s, n) => fuzzRawTx(t, core, rawSeeds(common, priv), s, n));

const odd = [null, 7n, { Err: { code: 'internal', message: 'boom' } }, { Ok: 1n }, [], new Uint8Array(3)];
let i = 0;
const client = new FakeClient(new Proxy({}, { get: () => () => {
  i++;
  if (i % 7 === 0) throw new Error('transport failed');
  return odd[i % odd.length];
} }));
await run('rpc', (t, s, n) => fuzzRpc(t, fakeContext(client), s, n));

if (failures > 0) {
  console.error(`fuzz: ${failures} inputs broke the property`);
  process.exit(1);
}
