// Bounded, seeded fuzzing against the real wasm (issue 11): random and mutated Candid argument bytes to every
// method (queries as queries; updates both as ingress, through canister_inspect_message, and as calls from a
// canister), and random and mutated raw transactions to rpc_eth_send_raw_transaction. The canister never
// traps on an input: every one gets a reply (a clean Err where the method has one) or a clean reject.
import { IDL } from '@dfinity/candid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { methodSignatures } from '../../src/canister/idl.js';
import { Evm, type CandidResult } from '../support/canister.js';
import { common, ETH, account } from '../support/eth.js';
import { candidInput, METHOD_NAMES, Rng, rawInput, rawSeeds } from '../support/fuzz.js';

const SIGS = methodSignatures(IDL) as Record<string, { mode: 'query' | 'update' }>;
const A = account(61);
let evm: Evm;
beforeAll(async () => {
  evm = await Evm.start({ genesis: [{ address: A.address, balance: ETH }] });
});
afterAll(() => evm?.close());

describe('fuzzing the real wasm', () => {
  it('Candid argument bytes: a reply or a clean reject for every input, never a trap', async () => {
    const r = new Rng(0xca5d);
    const outcomes = new Map<string, number>();
    for (let i = 0; i < 240; i++) {
      const method = r.pick(METHOD_NAMES);
      const bytes = candidInput(r, method);
      const before = evm.messages.length;
      const res = SIGS[method]!.mode === 'query' ? evm.host.query(method, bytes) : await evm.host.update(method, bytes, { fromCanister: i % 2 === 0 });
      const trapped = evm.messages.slice(before).filter((m) => m.trapped);
      expect(trapped, `${method} input ${i}`).toEqual([]);
      const key = res.kind === 'reject' ? `reject ${/candid\.[a-z_]+/.exec(res.message)?.[0] ?? res.code}` : 'reply';
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    }
    console.log(`wasm candid fuzz: ${[...outcomes].map(([k, n]) => `${k}=${n}`).join(' ')}`);
  });

  it('raw transactions: an Ok or a coded Err for every input, never a trap', async () => {
    const r = new Rng(0x7a11);
    const seeds = rawSeeds(common, A.key);
    const codes = new Map<string, number>();
    for (let i = 0; i < 80; i++) {
      const before = evm.messages.length;
      const res = await evm.client.update<CandidResult<Uint8Array>>('rpc_eth_send_raw_transaction', [rawInput(r, seeds)]);
      expect(evm.messages.slice(before).filter((m) => m.trapped), `input ${i}`).toEqual([]);
      const code = 'Ok' in res.value ? 'ok' : res.value.Err.code;
      codes.set(code, (codes.get(code) ?? 0) + 1);
    }
    console.log(`wasm rawtx fuzz: ${[...codes].map(([k, n]) => `${k}=${n}`).join(' ')}`);
  });
});
