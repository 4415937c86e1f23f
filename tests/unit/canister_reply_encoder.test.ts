// The canister's cached reply encoder must give exactly IDL.encode's bytes (clients decode them with
// @dfinity/candid), for every shape of return type the canister has, and refuse what IDL.encode refuses.
import { IDL } from '@dfinity/candid';
import { Principal } from '@dfinity/principal';
import { describe, expect, it } from 'vitest';
import { replyEncoder, typePrefix } from '../../src/canister/reply_encoder.js';
import { methodSignatures } from '../../src/canister/idl.js';

const encode = (t: IDL.Type[], v: unknown[]): Uint8Array => new Uint8Array(IDL.encode(t, v));
const M = methodSignatures(IDL);

describe('replyEncoder', () => {
  const cases: [string, IDL.Type, unknown[]][] = [
    ['Result<blob>', M.rpc_eth_send_raw_transaction.ret, [{ Ok: Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 7) }, { Err: { code: 'submit.invalid_fee', message: 'fee é €', data: [] } }, { Err: { code: 'x', message: '', data: [Uint8Array.of(1, 2)] } }]],
    ['nat64', M.rpc_eth_block_number.ret, [0n, 18446744073709551615n]],
    ['health record', M.health.ret, [{ ok: true, mode: { Normal: null }, block_number: 5n, pending_txs: 0n, time_ns: 1n, version: '0.1.0' }]],
    ['recursive list', IDL.Rec(), []],
    ['principal and vec', IDL.Record({ p: IDL.Principal, v: IDL.Vec(IDL.Nat32), o: IDL.Opt(IDL.Text) }), [{ p: Principal.anonymous(), v: [1, 2, 3], o: ['a'] }, { p: Principal.fromText('aaaaa-aa'), v: [], o: [] }]],
  ];
  const list = cases[3]![1] as ReturnType<typeof IDL.Rec>;
  list.fill(IDL.Opt(IDL.Record({ head: IDL.Nat, tail: list })));
  cases[3]![2].push([], [{ head: 1n, tail: [{ head: 2n, tail: [] }] }]);

  for (const [name, ret, values] of cases) {
    it(`gives IDL.encode's bytes: ${name}`, () => {
      const enc = replyEncoder(ret, encode);
      for (const v of values) expect(enc(v)).toEqual(encode([ret], [v]));
      // Again, from the cached prefix.
      for (const v of values) expect(enc(v)).toEqual(encode([ret], [v]));
    });
  }

  it('builds every method type prefix as IDL.encode lays it out', () => {
    for (const [name, sig] of Object.entries(M)) {
      const prefix = typePrefix(sig.ret, encode);
      expect(Buffer.from(prefix.subarray(0, 4)).toString(), name).toBe('DIDL');
      expect(prefix.length, name).toBeGreaterThan(5);
    }
  });

  it('refuses a value that does not fit the type, as IDL.encode does', () => {
    const ret = M.rpc_eth_send_raw_transaction.ret;
    const enc = replyEncoder(ret, encode);
    enc({ Ok: new Uint8Array(1) });
    expect(() => enc({ Ok: 'not bytes' })).toThrow();
    expect(() => encode([ret], [{ Ok: 'not bytes' }])).toThrow();
  });
});
