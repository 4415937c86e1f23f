// rpc_eth_send_raw_transaction_with_key through the real wasm: the sender's public key as a hint (what the
// gateway sends). The hint changes no accepted answer: same tx_id, same sender, same receipts as without it;
// a key that did not sign is refused; a key's first submit recovers, the later ones verify for fewer
// instructions; canister_inspect_message screens hinted submits as plain ones.
import { IDL } from '@dfinity/candid';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unfundedTx } from '../../bench/harden.js';
import { parseRefusal } from '../../src/canister/refusal.js';
import { INSPECT_SCREEN_MAX_TX_BYTES } from '../../src/core/constants.js';
import { senderPublicKey } from '../../src/gateway/sender_key.js';
import { Evm, errCode, type CandidResult } from '../support/canister.js';
import { selfAuthenticating } from '../support/ic.js';
import { ETH, account, hex, plainAddress, transfer, type Account } from '../support/eth.js';

const ALICE = account(41);
const BOB = account(42);
const CAROL = account(43); // no funds
const DAVE = account(44);
const ERIN = account(45);
const SINK = plainAddress(9);
const keyOf = (a: Account): Uint8Array => secp256k1.getPublicKey(a.key, false).subarray(1);

let evm: Evm;
beforeAll(async () => {
  evm = await Evm.start({ genesis: [ALICE, BOB, DAVE, ERIN].map((a) => ({ address: a.address, balance: 1000n * ETH })) });
});
afterAll(() => evm?.close());

// As another canister would call (no ingress inspection), so that every refusal is the method's Err value.
const withKey = async (raw: Uint8Array, key: Uint8Array) => {
  const r = await evm.client.as({ fromCanister: true }).updateMeasured('rpc_eth_send_raw_transaction_with_key', [raw, key]);
  return { value: r.value, instructions: r.instructions ?? 0n };
};

describe('rpc_eth_send_raw_transaction_with_key', () => {
  it("a sender's submits with its key: accepted as without it, the later ones for fewer instructions", async () => {
    const costs: bigint[] = [];
    const ids: Uint8Array[] = [];
    for (let nonce = 0n; nonce < 4n; nonce++) {
      const raw = transfer(ALICE, nonce, SINK, 1n).serialize();
      expect(hex(senderPublicKey(raw)!)).toBe(hex(keyOf(ALICE)));
      const r = await withKey(raw, keyOf(ALICE));
      expect(errCode(r.value)).toBeUndefined();
      ids.push((r.value as { Ok: Uint8Array }).Ok);
      costs.push(r.instructions);
      // Submitting the same bytes without the hint answers the same tx_id (already known).
      expect(hex(await evm.submit(raw))).toBe(hex(ids[ids.length - 1]!));
    }
    await evm.mine();
    for (const id of ids) {
      const receipt = evm.receipt(id)!;
      expect(receipt.status).toBe(1);
      expect(hex(receipt.from)).toBe(hex(ALICE.address));
    }
    // First: a recovery; second: the key's tables are built; third and fourth: verification only.
    console.log(`with_key submits: ${costs.join(', ')} instructions`);
    expect(costs[2]! * 10n).toBeLessThan(costs[0]! * 8n);
    expect(costs[3]! * 10n).toBeLessThan(costs[0]! * 8n);
  });

  it('a key that did not make the signature is refused, whether the key is new or known', async () => {
    const raw = transfer(BOB, 0n, SINK, 1n).serialize();
    expect(errCode((await withKey(raw, keyOf(CAROL))).value)).toBe('submit.sender_key_mismatch');
    // ALICE's key has tables by now (previous test).
    expect(errCode((await withKey(raw, keyOf(ALICE))).value)).toBe('submit.sender_key_mismatch');
    const notAPoint = keyOf(BOB).slice();
    notAPoint[63]! ^= 1;
    expect(errCode((await withKey(raw, notAPoint)).value)).toBe('submit.sender_key_mismatch');
    expect(errCode((await withKey(raw, keyOf(BOB).subarray(1))).value)).toBe('arg.invalid');
    expect(errCode((await withKey(raw, new Uint8Array(65))).value)).toBe('arg.invalid');
    // Nothing was admitted: BOB's transaction goes in with its own key.
    expect(errCode((await withKey(raw, keyOf(BOB))).value)).toBeUndefined();
    await evm.mine();
  });

  it('other refusals come first, as without the hint (fees, signature); a refused submit keeps no key', async () => {
    const unfunded = transfer(CAROL, 0n, SINK, 1n).serialize();
    const first = await withKey(unfunded, keyOf(CAROL));
    expect(errCode(first.value)).toBe('submit.insufficient_funds');
    // Not kept, so no tables are built at the next sight: the same recovery again.
    const second = await withKey(transfer(CAROL, 1n, SINK, 1n).serialize(), keyOf(CAROL));
    expect(errCode(second.value)).toBe('submit.insufficient_funds');
    expect(second.instructions * 10n).toBeLessThan(first.instructions * 11n);
    expect(first.instructions * 10n).toBeLessThan(second.instructions * 11n);
    const junk = new Uint8Array([0xc0]);
    const plain = (await evm.client.as({ fromCanister: true }).update('rpc_eth_send_raw_transaction', [junk]));
    expect(errCode(plain)).toMatch(/^DecodeError::/);
    expect(errCode((await withKey(junk, keyOf(CAROL))).value)).toBe(errCode(plain));
  });

  it('canister_inspect_message screens a hinted submit as a plain one', async () => {
    const raw = unfundedTx(INSPECT_SCREEN_MAX_TX_BYTES);
    const key = senderPublicKey(raw)!;
    const from = evm.messages.length;
    const r = await evm.host.update('rpc_eth_send_raw_transaction_with_key', new Uint8Array(IDL.encode([IDL.Vec(IDL.Nat8), IDL.Vec(IDL.Nat8)], [raw, key])));
    expect(evm.messages.slice(from).map((m) => m.kind)).toEqual(['inspect']);
    expect(r.kind === 'reject' && parseRefusal(r.message)?.code).toBe('submit.insufficient_funds');
    // A funded sender's transaction with another key as the hint: refused there too, for free.
    const wrong = transfer(BOB, 1n, SINK, 1n).serialize();
    const before = evm.messages.length;
    const w = await evm.host.update('rpc_eth_send_raw_transaction_with_key', new Uint8Array(IDL.encode([IDL.Vec(IDL.Nat8), IDL.Vec(IDL.Nat8)], [wrong, keyOf(ALICE)])));
    expect(evm.messages.slice(before).map((m) => m.kind)).toEqual(['inspect']);
    expect(w.kind === 'reject' && parseRefusal(w.message)?.code).toBe('submit.sender_key_mismatch');
  });
});

describe('rpc_eth_send_raw_transaction from a named caller (caller-keyed hint)', () => {
  // Ingress, so canister_inspect_message screens each submit first, as for any direct caller.
  const plain = async (raw: Uint8Array, caller?: ReturnType<typeof selfAuthenticating>) => {
    const r = await (caller === undefined ? evm.client : evm.client.as({ caller })).updateMeasured('rpc_eth_send_raw_transaction', [raw]);
    expect(errCode(r.value)).toBeUndefined();
    return { id: (r.value as { Ok: Uint8Array }).Ok, instructions: r.instructions ?? 0n };
  };

  it("a caller's run of one key is verified from its third submit; another signer's submit is recovered; the anonymous principal always recovers", async () => {
    const caller = selfAuthenticating(0x5c);
    const runs = [];
    for (let nonce = 0n; nonce < 4n; nonce++) runs.push(await plain(transfer(DAVE, nonce, SINK, 1n).serialize(), caller));
    const miss = await plain(transfer(ERIN, 0n, SINK, 1n).serialize(), caller);
    const anonymous = [];
    for (let nonce = 4n; nonce < 7n; nonce++) anonymous.push(await plain(transfer(DAVE, nonce, SINK, 1n).serialize()));
    await evm.mine();
    for (const r of [...runs, ...anonymous]) expect(hex(evm.receipt(r.id)!.from)).toBe(hex(DAVE.address));
    expect(hex(evm.receipt(miss.id)!.from)).toBe(hex(ERIN.address));
    const costs = runs.map((r) => r.instructions);
    console.log(`named caller submits: ${costs.join(', ')}; miss ${miss.instructions}; anonymous ${anonymous.map((r) => r.instructions).join(', ')} instructions`);
    // Third: the key's tables, then verification; fourth: verification only.
    expect(costs[3]! * 10n).toBeLessThan(costs[0]! * 8n);
    // A miss pays a failed verification and a recovery.
    expect(miss.instructions).toBeGreaterThan(costs[0]!);
    for (const r of anonymous) expect(r.instructions * 10n).toBeGreaterThan(costs[0]! * 9n);
  });
});
