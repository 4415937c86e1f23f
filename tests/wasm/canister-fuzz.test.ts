// Bounded, seeded fuzzing against the real wasm (docs/hardening.md, "Fuzzing"), with the runners `npm run fuzz` uses at scale
// (tests/support/fuzz.ts): random and mutated Candid argument bytes to every method (queries as queries;
// updates both as ingress, through canister_inspect_message, and as calls from a canister), random and
// mutated raw transactions to rpc_eth_send_raw_transaction, and JSON-RPC bodies over HTTP to the gateway in
// front of the wasm. The canister never traps on an input (a reply, a clean Err or a clean reject every
// time); the gateway never answers 500, never drops the connection and never shows a stack trace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Evm } from '../support/canister.js';
import { common, ETH, account } from '../support/eth.js';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway.js';
import { formatTally, isFailureTrap, fuzzCandidWasm, fuzzRawTxWasm, fuzzRpcHttp, newTally, rawSeeds } from '../support/fuzz.js';

const A = account(61);
let evm: Evm;
let gw: GatewayHarness;
beforeAll(async () => {
  evm = await Evm.start({ genesis: [{ address: A.address, balance: ETH }] });
  gw = await startGatewayHarness({ autoMineMs: 0 });
});
afterAll(async () => {
  evm?.close();
  await gw?.close();
});

describe('fuzzing the real wasm', () => {
  it('Candid argument bytes: a reply or a clean reject for every input, never a trap', async () => {
    const t = newTally();
    await fuzzCandidWasm(t, evm, 0xca5d, 400);
    console.log(`wasm ${formatTally('candid', t)}`);
    expect(t.failures).toEqual([]);
    expect(t.traps + t.crashes).toBe(0);
    // The inputs reach both sides: refused by the argument check, and decoded and answered.
    expect(t.codes.get('reject candid.args_malformed') ?? 0).toBeGreaterThan(0);
    expect(t.codes.get('reply') ?? 0).toBeGreaterThan(0);
  });

  it('raw transactions: an Ok or a coded Err for every input, never a trap', async () => {
    const t = newTally();
    await fuzzRawTxWasm(t, evm, rawSeeds(common, A.key), 0x7a11, 120);
    console.log(`wasm ${formatTally('rawtx', t)}`);
    expect(t.failures).toEqual([]);
    expect(t.codes.size).toBeGreaterThan(3);
  });

  it('JSON-RPC bodies over HTTP: never a 500, a dropped connection or a stack trace; the canister never traps', async () => {
    const t = newTally();
    await fuzzRpcHttp(t, gw.url, 0x4e7, 600);
    console.log(formatTally('rpc-http', t));
    expect(t.failures).toEqual([]);
    expect(gw.evm.messages.filter(isFailureTrap)).toEqual([]);
    expect(gw.internalLog.filter((l) => /\n\s+at /.test(l))).toEqual([]);
    // Bodies reach the canister as well as the gateway's own refusals.
    expect(t.codes.get('result') ?? 0).toBeGreaterThan(0);
    expect(t.codes.get('rpc -32700') ?? 0).toBeGreaterThan(0);
  });
});
