// `npm run fuzz -- --count N [--seed S] [--target NAME[,NAME...]]`: the generators of `npm test`'s fuzz tests
// (tests/support/fuzz.ts) at scale. Prints, per target, the inputs tried, the outcomes by code, and the traps
// and crashes counted; exits non-zero if any input broke the property (a throw, a trap, a 500, a dropped
// connection, a stack trace), listing its seed and index. Targets:
//   candid-wasm  Candid argument bytes to every method of the real canister wasm in the IC host (queries,
//                updates as ingress through canister_inspect_message and as calls from a canister)
//   rawtx-wasm   raw transactions to the real wasm's rpc_eth_send_raw_transaction
//   rpc-http     JSON-RPC bodies POSTed to the real gateway over HTTP, in front of the real wasm
//   ic-http      IC HTTP interface bodies (envelopes, mutated, random CBOR, size bombs) POSTed to the devnet's
//                IC HTTP server in front of the real wasm; also prints the inputs slower than 100 ms
//   candid, rawtx, rpc   the same in Node, much faster: the argument check and decoder, the core's submit over
//                the in-memory host, the gateway's dispatch over a canister double answering odd shapes
// Default: all seven.
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { CHAIN_ID } from '../src/core/constants.js';
import { MemoryCoreHost } from '../src/core/host.js';
import { EvmCore } from '../src/core/index.js';
import { keccak256 } from '../src/core/crypto.js';
import { FakeEngine } from '../tests/support/chain_testkit.js';
import { FakeClient, fakeContext } from '../tests/support/gateway_fake.js';
import { Evm } from '../tests/support/canister.js';
import { startGatewayHarness } from '../tests/support/gateway.js';
import { formatTally, isFailureTrap, fuzzCandid, fuzzCandidWasm, fuzzRawTx, fuzzRawTxWasm, fuzzRpc, fuzzRpcHttp, newTally, rawSeeds, type Tally } from '../tests/support/fuzz.js';
import { fuzzIcHttp, SLOW_MS } from '../tests/support/fuzz_ic_http.js';
import { startIcHttp, SubnetKeys } from '../src/host/ic_http/index.js';
import { build, isStale } from '../src/devnet/build.js';

const TARGETS = ['candid-wasm', 'rawtx-wasm', 'rpc-http', 'ic-http', 'candid', 'rawtx', 'rpc'] as const;

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
};
const total = Number(arg('count') ?? 100_000);
const seed = Number(arg('seed') ?? 1);
const only = arg('target')?.split(',');
if (!Number.isSafeInteger(total) || total < 1 || !Number.isSafeInteger(seed) || (only ?? []).some((x) => !(TARGETS as readonly string[]).includes(x))) {
  console.error(`usage: npm run fuzz -- [--count N >= 1] [--seed S] [--target ${TARGETS.join('|')}[,...]]`);
  process.exit(2);
}
const CHUNK = 10_000;
let failures = 0;
const wanted = (name: string): boolean => only === undefined || only.includes(name);

async function run(name: string, body: (t: Tally, s: number, n: number) => Promise<void> | void, afterChunk?: (t: Tally) => void): Promise<void> {
  const t = newTally();
  const started = Date.now();
  // Chunks with their own seeds: a failure names the chunk seed and the index in it.
  for (let done = 0, s = seed; done < total; done += CHUNK, s++) {
    await body(t, s * 7919, Math.min(CHUNK, total - done));
    afterChunk?.(t);
    if (total > CHUNK) console.error(`fuzz: ${name} ${Math.min(done + CHUNK, total)}/${total}`);
  }
  console.log(`${formatTally(name, t)} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  for (const f of t.failures.slice(0, 20)) console.log(`  FAIL ${f}`);
  failures += t.failures.length;
}

const priv = keccak256(new TextEncoder().encode('fuzz-key'));
const address = keccak256(secp256k1.getPublicKey(priv, false).subarray(1)).slice(12);
const common = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, { hardfork: Hardfork.Prague });

if (wanted('candid-wasm') || wanted('rawtx-wasm') || wanted('rpc-http') || wanted('ic-http')) {
  if (isStale()) build();
}
if (wanted('candid-wasm') || wanted('rawtx-wasm')) {
  const evm = await Evm.start({ genesis: [{ address, balance: 10n ** 24n }] });
  // The message log is only read for the inputs of the current chunk: keep it from growing with the run.
  const trim = (): void => void (evm.messages.length = 0);
  try {
    if (wanted('candid-wasm')) await run('candid-wasm', (t, s, n) => fuzzCandidWasm(t, evm, s, n), trim);
    if (wanted('rawtx-wasm')) await run('rawtx-wasm', (t, s, n) => fuzzRawTxWasm(t, evm, rawSeeds(common, priv), s, n), trim);
  } finally {
    evm.close();
  }
}
if (wanted('rpc-http')) {
  const h = await startGatewayHarness({ autoMineMs: 0 });
  try {
    // The gateway's queries and updates reach the wasm: a trap there breaks the property too.
    const countTraps = (t: Tally): void => {
      const trapped = h.evm.messages.filter(isFailureTrap);
      t.traps += trapped.length;
      for (const m of trapped) t.failures.push(`rpc-http: canister message ${m.kind} ${m.method} trapped`);
      h.evm.messages.length = 0;
    };
    await run('rpc-http', (t, s, n) => fuzzRpcHttp(t, h.url, s, n), countTraps);
  } finally {
    await h.close();
  }
}

if (wanted('ic-http')) {
  const evm = await Evm.start({}, { clock: 'wall' });
  const server = await startIcHttp({ host: evm.host, keys: SubnetKeys.generate(), port: 0 });
  const stats = { slow: 0, maxMs: 0 };
  try {
    const countTraps = (t: Tally): void => {
      const trapped = evm.messages.filter(isFailureTrap);
      t.traps += trapped.length;
      for (const m of trapped) t.failures.push(`ic-http: canister message ${m.kind} ${m.method} trapped`);
      evm.messages.length = 0;
    };
    await run('ic-http', (t, s, n) => fuzzIcHttp(t, stats, server.url, s, n), countTraps);
    console.log(`ic-http: ${stats.slow} inputs slower than ${SLOW_MS} ms (slowest ${stats.maxMs.toFixed(1)} ms)`);
  } finally {
    await server.close();
    evm.close();
  }
}

if (wanted('candid')) await run('candid', (t, s, n) => fuzzCandid(t, s, n));

if (wanted('rawtx')) {
  const host = new MemoryCoreHost();
  const core = new EvmCore(host, new FakeEngine(host));
  await core.init({ genesisAllocations: [{ address, balance: 10n ** 24n }] });
  await run('rawtx', (t, s, n) => fuzzRawTx(t, core, rawSeeds(common, priv), s, n));
}

const odd = [null, 7n, { Err: { code: 'internal', message: 'boom' } }, { Ok: 1n }, [], new Uint8Array(3)];
let i = 0;
const client = new FakeClient(new Proxy({}, { get: () => () => {
  i++;
  if (i % 7 === 0) throw new Error('transport failed');
  return odd[i % odd.length];
} }));
if (wanted('rpc')) await run('rpc', (t, s, n) => fuzzRpc(t, fakeContext(client), s, n));

if (failures > 0) {
  console.error(`fuzz: ${failures} inputs broke the property`);
  process.exit(1);
}
