// Caller-keyed hints (docs/execution.md "Sender key hints"): a plain submit from a named caller whose last two
// admitted submits were signed by one key is verified against that key first, and recovered when that key
// did not sign it. The sender never comes from the guess: these tests count which check ran (verifiesAs,
// the recovery) and compare every admitted sender with the signer's address.
import { describe, expect, it, vi } from 'vitest';
import { callerKeyGuess, noteCallerKey } from '../../src/core/crypto.js';
import { toHex } from '../../src/core/codec/bytes.js';
import * as secp from '../../src/core/secp256k1.js';
import { ErrorCode } from '../../src/core/errors.js';
import { addr, errCode, ETH, key, okValue, principal, PRICE, setup, sign1559, type Key } from '../support/chain_testkit.js';

vi.mock('../../src/core/secp256k1.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/core/secp256k1.js')>();
  return { ...real, verifiesAs: vi.fn(real.verifiesAs), recoverPointAt: vi.fn(real.recoverPointAt) };
});

const A = key(71);
const B = key(72);
const POOR = key(73);
const ANONYMOUS = Uint8Array.of(0x04);

const verifies = vi.mocked(secp.verifiesAs);
const recovers = vi.mocked(secp.recoverPointAt);

/** Which checks one submit ran, and the sender it admitted. */
async function counted<T>(f: () => T): Promise<{ result: T; verified: number; recovered: number }> {
  verifies.mockClear();
  recovers.mockClear();
  const result = f();
  return { result, verified: verifies.mock.calls.length, recovered: recovers.mock.calls.length };
}

async function chain() {
  const s = await setup({ genesisAllocations: [A, B].map((k) => ({ address: k.address, balance: ETH })) });
  const nonces = new Map<Key, bigint>();
  const tx = (k: Key): Uint8Array => {
    const n = nonces.get(k) ?? 0n;
    nonces.set(k, n + 1n);
    return sign1559(k, { nonce: n, to: addr(9) });
  };
  const senderOf = (id: Uint8Array): string => toHex(s.core.getTransactionByTxId(id)!.from);
  return { ...s, tx, senderOf };
}

describe('caller-keyed hints', () => {
  it("a named caller's third submit with the same key is verified, not recovered; the senders are the signers", async () => {
    const { core, tx, senderOf } = await chain();
    const C = principal(301);
    const checks = [];
    for (let i = 0; i < 4; i++) {
      const c = await counted(() => okValue(core.submitRawTx(tx(A), undefined, C)));
      expect(senderOf(c.result)).toBe(toHex(A.address));
      checks.push([c.verified, c.recovered]);
    }
    // Two recoveries (the run of one key), then verification only.
    expect(checks).toEqual([
      [0, 1],
      [0, 1],
      [1, 0],
      [1, 0],
    ]);
  });

  it("a miss (another signer's transaction) is recovered and admitted with the right sender; the guess waits for two of the new key", async () => {
    const { core, tx, senderOf } = await chain();
    const C = principal(302);
    okValue(core.submitRawTx(tx(A), undefined, C));
    okValue(core.submitRawTx(tx(A), undefined, C));
    const miss = await counted(() => okValue(core.submitRawTx(tx(B), undefined, C)));
    expect(senderOf(miss.result)).toBe(toHex(B.address));
    expect([miss.verified, miss.recovered]).toEqual([1, 1]);
    expect(callerKeyGuess(C)).toBeUndefined();
    const next = await counted(() => okValue(core.submitRawTx(tx(B), undefined, C)));
    expect(senderOf(next.result)).toBe(toHex(B.address));
    expect([next.verified, next.recovered]).toEqual([0, 1]);
    const then = await counted(() => okValue(core.submitRawTx(tx(B), undefined, C)));
    expect(senderOf(then.result)).toBe(toHex(B.address));
    expect([then.verified, then.recovered]).toEqual([1, 0]);
  });

  it('a miss forgets the guess even when that submit is refused or already known: the next submit of the new key recovers without a failed verification', async () => {
    const { core, tx, senderOf } = await chain();
    // Already known: B's transaction, admitted from another caller, resubmitted by C (guessing A).
    const C = principal(305);
    okValue(core.submitRawTx(tx(A), undefined, C));
    okValue(core.submitRawTx(tx(A), undefined, C));
    expect(callerKeyGuess(C)).toBeDefined();
    const dup = tx(B);
    const id = okValue(core.submitRawTx(dup, undefined, principal(306)));
    const again = await counted(() => okValue(core.submitRawTx(dup, undefined, C)));
    expect(again.result).toEqual(id);
    expect([again.verified, again.recovered]).toEqual([1, 1]);
    expect(callerKeyGuess(C)).toBeUndefined();
    const next = await counted(() => okValue(core.submitRawTx(tx(B), undefined, C)));
    expect(senderOf(next.result)).toBe(toHex(B.address));
    expect([next.verified, next.recovered]).toEqual([0, 1]);

    // Refused after screening: another transaction at the nonce of B's pending one (no fee bump), from D (guessing A).
    const D = principal(307);
    okValue(core.submitRawTx(tx(A), undefined, D));
    okValue(core.submitRawTx(tx(A), undefined, D));
    const stale = await counted(() => core.submitRawTx(sign1559(B, { nonce: 0n, to: addr(10) }), undefined, D));
    expect(errCode(stale.result)).toBe(ErrorCode.SubmitNonceConflict);
    expect([stale.verified, stale.recovered]).toEqual([1, 1]);
    const after = await counted(() => okValue(core.submitRawTx(tx(B), undefined, D)));
    expect(senderOf(after.result)).toBe(toHex(B.address));
    expect([after.verified, after.recovered]).toEqual([0, 1]);
  });

  it('the anonymous principal never gets a guess; a caller is not another caller', async () => {
    const { core, tx } = await chain();
    for (let i = 0; i < 3; i++) {
      const c = await counted(() => okValue(core.submitRawTx(tx(A), undefined, ANONYMOUS)));
      expect([c.verified, c.recovered]).toEqual([0, 1]);
    }
    expect(callerKeyGuess(ANONYMOUS)).toBeUndefined();
    const other = await counted(() => okValue(core.submitRawTx(tx(A), undefined, principal(303))));
    expect([other.verified, other.recovered]).toEqual([0, 1]);
  });

  it('refused submits note nothing', async () => {
    const { core, tx } = await chain();
    const C = principal(304);
    // Twice a key whose sender cannot pay: refused after its recovery, so no run of that key starts.
    for (let n = 0n; n < 2n; n++) expect(errCode(core.submitRawTx(sign1559(POOR, { nonce: n, to: addr(9) }), undefined, C))).toBe(ErrorCode.SubmitInsufficientFunds);
    expect(callerKeyGuess(C)).toBeUndefined();
    // A fee below the minimum is refused before any check of the signature.
    const low = await counted(() => core.submitRawTx(sign1559(A, { nonce: 0n, to: addr(9), maxFee: PRICE / 2n, tip: PRICE / 2n }), undefined, C));
    expect(errCode(low.result)).toBe(ErrorCode.SubmitInvalidFee);
    expect([low.verified, low.recovered]).toEqual([0, 0]);
    okValue(core.submitRawTx(tx(A), undefined, C));
    expect(callerKeyGuess(C)).toBeUndefined();
  });

  it('keeps at most as many callers as keys, least recently used first', () => {
    const keyBytes = (i: number): Uint8Array => Uint8Array.from({ length: 64 }, (_, j) => (j === 0 ? 0x77 : j === 1 ? i >> 8 : j === 2 ? i & 255 : 1));
    const caller = (i: number): Uint8Array => Uint8Array.of(0x0b, i >> 8, i & 255, 1);
    const address = new Uint8Array(20);
    for (let i = 0; i < 600; i++) {
      noteCallerKey(caller(i), keyBytes(i), address);
      noteCallerKey(caller(i), keyBytes(i), address);
    }
    expect(callerKeyGuess(caller(599))).toEqual(keyBytes(599));
    expect(callerKeyGuess(caller(0))).toBeUndefined();
    const kept = Array.from({ length: 600 }, (_, i) => callerKeyGuess(caller(i)) !== undefined).filter(Boolean).length;
    expect(kept).toBe(512);
  });
});
