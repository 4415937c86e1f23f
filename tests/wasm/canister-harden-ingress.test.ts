// Hostile ingress against the real wasm (docs/hardening.md, "Candid arguments" and "Submits"). Candid decoding bomb: argument bytes that would make
// @dfinity/candid loop for 2^40 elements are refused by canister_inspect_message (ingress) and by the
// method's own argument check (calls from canisters, queries), each for well under 5 M instructions, with a
// clean reject and no trap; well-formed calls still work. Junk submits: a maximum-size transaction is refused
// by the checks that need no hash for almost nothing, and one with a bad signature after one keccak pass.
import { IDL } from '@dfinity/candid';
import { lebEncode } from '@icp-sdk/core/candid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { invalidSignatureTx, maxSizeInvalidTx, maxSizeUnfundedTx, unfundedTx } from '../../bench/harden.js';
import { parseRefusal } from '../../src/canister/refusal.js';
import { IC_INSPECT_INSTRUCTION_LIMIT, INSPECT_SCREEN_MAX_TX_BYTES, MAX_TX_SIZE } from '../../src/core/constants.js';
import { handleBody } from '../../src/gateway/rpc.js';
import { fakeContext } from '../support/gateway_fake.js';
import { Evm, errCode, type CandidResult } from '../support/canister.js';
import { GWEI, account, feeMarketTx } from '../support/eth.js';
import { selfAuthenticating } from '../support/ic.js';

/** The controller: controller-only methods refuse anyone else before decoding (so a bomb from a stranger never reaches the decoder). */
const CONTROLLER = selfAuthenticating(0x91);
const CONTROLLER_ONLY = new Set(['set_block_gas_limit', 'set_ops_mode']);

let evm: Evm;
beforeAll(async () => {
  evm = await Evm.start({ controllers: [CONTROLLER] });
});
afterAll(() => evm?.close());

/** What a refused bomb may cost at most (the bench figures candid_bomb.refused_by_inspect.instructions and candid_bomb.refused_by_method.instructions measure it). */
const REFUSAL_BUDGET = 5_000_000n;

/** `(blob, vec null)`: one real blob argument and an extra `vec null` of length 2^40 (about 20 bytes). */
function trailingBomb(blob: Uint8Array): Uint8Array {
  // type table: 0 = vec nat8, 1 = vec null; args: 0, 1.
  return Uint8Array.from([0x44, 0x49, 0x44, 0x4c, 2, 0x6d, 0x7b, 0x6d, 0x7f, 2, 0, 1, ...lebEncode(BigInt(blob.length)), ...blob, ...lebEncode(1n << 40n)]);
}

/** One `vec null` argument of length 2^40 where the method takes a blob. */
function oneArgBomb(): Uint8Array {
  return Uint8Array.from([0x44, 0x49, 0x44, 0x4c, 1, 0x6d, 0x7f, 1, 0, ...lebEncode(1n << 40n)]);
}

/** The instructions of the last message the host ran of this kind. */
function lastOf(kind: string): { instructions: bigint; trapped: boolean } {
  const m = [...evm.messages].reverse().find((x) => x.kind === kind)!;
  return { instructions: m.instructions!, trapped: m.trapped };
}

describe('Candid decoding bomb', () => {
  it('ingress: canister_inspect_message refuses the bomb before the update runs, for under 5 M instructions', async () => {
    const before = evm.messages.length;
    const r = await evm.host.update('rpc_eth_send_raw_transaction', trailingBomb(new Uint8Array([1, 2, 3])));
    expect(r.kind).toBe('reject');
    const ran = evm.messages.slice(before);
    expect(ran.map((m) => m.kind)).toEqual(['inspect']);
    const inspect = lastOf('inspect');
    expect(inspect.trapped).toBe(false);
    expect(inspect.instructions).toBeLessThan(REFUSAL_BUDGET);
    console.log(`refused Candid bomb (inspect_message): ${inspect.instructions} instructions`);
  });

  it('a call from a canister (no inspection): the update refuses the bomb itself with candid.args_count, no trap', async () => {
    const r = await evm.host.update('rpc_eth_send_raw_transaction', trailingBomb(new Uint8Array([1])), { fromCanister: true });
    expect(r.kind).toBe('reject');
    if (r.kind === 'reject') expect(r.message).toContain('candid.args_count');
    const u = lastOf('update');
    expect(u.trapped).toBe(false);
    expect(u.instructions).toBeLessThan(REFUSAL_BUDGET);
    console.log(`refused Candid bomb (update, no inspection): ${u.instructions} instructions`);
  });

  it('the same bomb on every update and query is refused cleanly and cheaply', async () => {
    for (const method of ['submit_ic_tx', 'set_block_gas_limit', 'set_ops_mode', 'rpc_eth_send_raw_transaction']) {
      const r = await evm.host.update(method, oneArgBomb(), { fromCanister: true, ...(CONTROLLER_ONLY.has(method) ? { caller: CONTROLLER } : {}) });
      expect(r.kind, method).toBe('reject');
      const u = lastOf('update');
      expect(u.trapped, method).toBe(false);
      expect(u.instructions, method).toBeLessThan(REFUSAL_BUDGET);
    }
    // From anyone else a controller-only method refuses before it decodes anything.
    for (const method of CONTROLLER_ONLY) {
      const r = await evm.host.update(method, oneArgBomb(), { fromCanister: true });
      expect(r.kind, method).toBe('reply');
      const u = lastOf('update');
      expect(u.trapped, method).toBe(false);
      expect(u.instructions, method).toBeLessThan(REFUSAL_BUDGET);
    }
    for (const method of ['get_pending', 'rpc_eth_get_balance', 'rpc_eth_call_object', 'export_blocks', 'rpc_eth_chain_id', 'rpc_eth_get_logs_paged']) {
      for (const arg of [oneArgBomb(), trailingBomb(new Uint8Array(20))]) {
        const r = evm.host.query(method, arg);
        expect(r.kind, method).toBe('reject');
        if (r.kind === 'reject') expect(r.message, method).toMatch(/candid\.args_/);
        const q = lastOf('query');
        expect(q.trapped, method).toBe(false);
        expect(q.instructions, method).toBeLessThan(REFUSAL_BUDGET);
      }
    }
  });

  it('refuses arguments over the per-method byte limit, a long nat and left-over bytes', async () => {
    const big = new Uint8Array(IDL.encode([IDL.Vec(IDL.Nat8)], [new Uint8Array(64 * 1024)]));
    const r1 = evm.host.query('get_pending', big);
    expect(r1.kind === 'reject' && r1.message).toContain('candid.args_too_large');
    // nat of 100 LEB128 bytes where set_block_gas_limit takes nat64: refused before the bigint sum.
    const longNat = Uint8Array.from([0x44, 0x49, 0x44, 0x4c, 0, 1, 0x7d, ...new Array(99).fill(0xff), 0x01]);
    const r2 = await evm.host.update('set_block_gas_limit', longNat, { fromCanister: true, caller: CONTROLLER });
    expect(r2.kind === 'reject' && r2.message).toContain('candid.args_limit');
    const extra = Uint8Array.from([...IDL.encode([IDL.Vec(IDL.Nat8)], [new Uint8Array(4)]), 0]);
    const r3 = evm.host.query('get_pending', extra);
    expect(r3.kind === 'reject' && r3.message).toContain('candid.args_malformed');
    // Wrong types with the right shape reach IDL.decode, which refuses them: still a reject, not a trap.
    const wrong = new Uint8Array(IDL.encode([IDL.Text], ['hello']));
    const r4 = evm.host.query('get_pending', wrong);
    expect(r4.kind === 'reject' && r4.message).toContain('candid.args_decode');
    expect(lastOf('query').trapped).toBe(false);
  });

  it('ingress with a well-formed argument is accepted and runs; ingress to a query method is refused by inspection', async () => {
    const r = await evm.host.update('rpc_eth_send_raw_transaction', new Uint8Array(IDL.encode([IDL.Vec(IDL.Nat8)], [new Uint8Array([0xc0])])));
    expect(r.kind).toBe('reply');
    expect(lastOf('update').trapped).toBe(false);
    const q = evm.query<bigint>('rpc_eth_chain_id');
    expect(q).toBe(4801360n);
  });
});

describe('expensive junk submits', () => {
  const submit = async (raw: Uint8Array): Promise<{ code: string | undefined; instructions: bigint }> => {
    const r = await evm.client.updateMeasured('rpc_eth_send_raw_transaction', [raw]);
    return { code: errCode(r.value), instructions: r.instructions! };
  };
  const big = (fee: bigint, gasLimit: bigint): Uint8Array =>
    feeMarketTx(account(77), { nonce: 0n, to: new Uint8Array(20).fill(1), data: new Uint8Array(120_000), gasLimit, maxFeePerGas: fee, maxPriorityFeePerGas: fee }).serialize();

  it('a maximum-size transaction that fails a check needing no hash costs no keccak pass', async () => {
    // One keccak pass over 120 KB is about 1.7 B instructions; these stay far below it.
    const lowFee = await submit(big(1n * GWEI, 3_000_000n));
    expect(lowFee.code).toBe('submit.invalid_fee');
    expect(lowFee.instructions).toBeLessThan(400_000_000n);
    const lowGas = await submit(big(1000n * GWEI, 100_000n));
    expect(lowGas.code).toBe('submit.intrinsic_gas_too_low');
    expect(lowGas.instructions).toBeLessThan(400_000_000n);
    console.log(`max-size junk refused without hashing: fee ${lowFee.instructions}, intrinsic gas ${lowGas.instructions} instructions`);
  });

  it('a maximum-size transaction whose r has no curve point is refused before any keccak pass', async () => {
    const junk = maxSizeInvalidTx();
    expect(junk.length).toBe(MAX_TX_SIZE);
    const r = await submit(junk);
    expect(r.code).toBe('DecodeError::InvalidSignature');
    // One keccak pass over 128 KiB is about 1.75 B instructions.
    expect(r.instructions).toBeLessThan(400_000_000n);
    console.log(`submit_raw.max_size_invalid: ${r.instructions} instructions (${r.code})`);
  });

  it('a maximum-size transaction from an account that cannot pay is refused after one keccak pass, not two', async () => {
    const junk = maxSizeUnfundedTx();
    expect(junk.length).toBe(MAX_TX_SIZE);
    const r = await submit(junk);
    expect(r.code).toBe('submit.insufficient_funds');
    // Submit's earlier two passes over the payload cost about 3.6 B.
    expect(r.instructions).toBeLessThan(2_500_000_000n);
    console.log(`submit_raw.max_size_unfunded: ${r.instructions} instructions (${r.code})`);
  });

  const ingress = async (raw: Uint8Array, fromCanister = false) => {
    const from = evm.messages.length;
    const r = await evm.host.update('rpc_eth_send_raw_transaction', new Uint8Array(IDL.encode([IDL.Vec(IDL.Nat8)], [raw])), { fromCanister });
    return { r, ran: evm.messages.slice(from) };
  };

  it('small junk (a bad signature, a sender that cannot pay) is refused by inspection, which the canister does not pay for', async () => {
    // The costliest screening: a valid signature over 4 KiB from an account with no funds (a keccak pass and a recovery).
    const { r, ran } = await ingress(unfundedTx(INSPECT_SCREEN_MAX_TX_BYTES));
    // Only the inspection ran: no update message, so no cycles; the rejection quotes the error code.
    expect(ran.map((m) => m.kind)).toEqual(['inspect']);
    expect(ran[0]!.instructions!).toBeLessThan(IC_INSPECT_INSTRUCTION_LIMIT / 2n);
    expect(r.kind === 'reject' && parseRefusal(r.message)?.code).toBe('submit.insufficient_funds');
    // A signature whose r has no curve point.
    const bad = await ingress(invalidSignatureTx(INSPECT_SCREEN_MAX_TX_BYTES));
    expect(bad.ran.map((m) => m.kind)).toEqual(['inspect']);
    expect(bad.r.kind === 'reject' && parseRefusal(bad.r.message)?.code).toBe('DecodeError::InvalidSignature');
    console.log(`inspect.submit_raw.screened_unfunded: ${ran[0]!.instructions} instructions (free on the IC)`);
  });

  it('the same junk from another canister (no inspection) gets the Err value; cheap failures are left to the method', async () => {
    const { r } = await ingress(invalidSignatureTx(INSPECT_SCREEN_MAX_TX_BYTES), true);
    expect(r.kind).toBe('reply');
    // A fee below the minimum is cheap to find: inspection lets it through and the method answers Err.
    const lowFee = feeMarketTx(account(79), { nonce: 0n, to: new Uint8Array(20).fill(1), gasLimit: 21_000n, maxFeePerGas: 1n * GWEI, maxPriorityFeePerGas: 1n * GWEI }).serialize();
    const l = await ingress(lowFee);
    expect(l.ran.map((m) => m.kind)).toEqual(['inspect', 'update']);
    expect(l.r.kind).toBe('reply');
  });

  it('a transaction above the screened size passes inspection after the argument check alone, well inside its 200 M limit', async () => {
    const { r, ran } = await ingress(maxSizeInvalidTx());
    expect(ran.map((m) => m.kind)).toEqual(['inspect', 'update']);
    expect(ran[0]!.trapped).toBe(false);
    expect(ran[0]!.instructions!).toBeLessThan(IC_INSPECT_INSTRUCTION_LIMIT / 20n);
    expect(r.kind).toBe('reply');
  });

  it("clients read a refusal as the method's own answer: the gateway maps it to the same JSON-RPC error", async () => {
    // The gateway's dispatch over the real client and the wasm (ingress, so inspection runs).
    const ctx = fakeContext(evm.client as never);
    const raw = `0x${Buffer.from(invalidSignatureTx(1000)).toString('hex')}`;
    const out = (await handleBody(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] }), ctx)) as { error?: { code: number; message: string } };
    // -32602 "invalid sender" (bad signature) or -32000 "insufficient funds": never -32603 internal error.
    const { code, message } = out.error!;
    expect((code === -32602 && message.startsWith('invalid sender')) || (code === -32000 && message.startsWith('insufficient funds')), `${code} ${message}`).toBe(true);
  });
});
