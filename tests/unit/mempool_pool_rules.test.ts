// A pool that never drains (docs/hardening.md, "The pool") at full scale through the core: the flood of gapped
// transactions the issue describes is capped, a full pool makes room for better executable transactions,
// not-executable ones expire, never-includable ones are dropped with a reason, a sender's pending
// transactions must be affordable together, and a controller can purge. docs/execution.md "Pool rules".
// (tests/wasm/canister-harden-pool.test.ts performs the same attacks, at a smaller scale, on the real wasm.)
import { describe, expect, it } from 'vitest';
import {
  MAX_NONCE_WINDOW,
  MAX_NOT_EXECUTABLE_GLOBAL,
  MAX_NOT_EXECUTABLE_PER_SENDER,
  MAX_PENDING_GLOBAL,
  MAX_PENDING_PER_PRINCIPAL,
  NOT_EXECUTABLE_LIFETIME_NS,
} from '../../src/core/constants.js';
import { ErrorCode } from '../../src/core/errors.js';
import { deriveSyntheticSender, type IcTxRecord } from '../../src/core/tx/ic_synthetic.js';
import { addr, CANISTER, errCode, ETH, key, okValue, principal, PRICE, setup, sign1559 } from '../support/chain_testkit.js';

const rec = (o: Partial<IcTxRecord> = {}): IcTxRecord => ({
  to: addr(1), value: 1n, gasLimit: 21000n, nonce: 0n, maxFeePerGas: 2n * PRICE, maxPriorityFeePerGas: PRICE, data: new Uint8Array(0), ...o,
});
const synth = (p: Uint8Array) => okValue(deriveSyntheticSender(p, CANISTER));
const funded = (ps: Uint8Array[]) => ps.map((p) => ({ address: synth(p), balance: ETH }));

describe('pool rules', () => {
  it('the gapped flood: 131 funded senders cannot fill the pool with transactions that never run', async () => {
    const ps = Array.from({ length: 131 }, (_, i) => principal(i + 1));
    const { core } = await setup({ genesisAllocations: funded(ps) });
    let accepted = 0;
    const codes = new Set<string>();
    for (const p of ps) {
      // Nonce 0 is never sent: everything from nonce 1 waits behind a gap.
      for (let n = 1; n < Math.min(MAX_NONCE_WINDOW, MAX_PENDING_PER_PRINCIPAL); n++) {
        const r = core.submitIcTx(rec({ nonce: BigInt(n) }), p, CANISTER);
        if (r.ok) accepted++;
        else codes.add(r.error.code);
      }
    }
    expect(accepted).toBe(MAX_NOT_EXECUTABLE_GLOBAL);
    expect([...codes]).toEqual([ErrorCode.SubmitNotExecutableLimit]);
    // Executable transactions still get in and run.
    const id = okValue(core.submitIcTx(rec({ nonce: 0n }), ps[100]!, CANISTER));
    await core.produceBlock();
    expect(core.getPending(id).kind).toBe('Included');
  }, 60_000);

  it('per sender: at most MAX_NOT_EXECUTABLE_PER_SENDER waiting transactions; filling the gap runs them all', async () => {
    const k = key(2);
    const { core } = await setup({ genesisAllocations: [{ address: k.address, balance: ETH }] });
    for (let n = 1; n <= MAX_NOT_EXECUTABLE_PER_SENDER; n++) okValue(core.submitRawTx(sign1559(k, { nonce: BigInt(n) })));
    expect(errCode(core.submitRawTx(sign1559(k, { nonce: BigInt(MAX_NOT_EXECUTABLE_PER_SENDER + 1) })))).toBe(ErrorCode.SubmitNotExecutableLimit);
    okValue(core.submitRawTx(sign1559(k, { nonce: 0n })));
    const r = await core.produceBlock();
    expect(r.kind === 'Produced' && r.txCount).toBe(MAX_NOT_EXECUTABLE_PER_SENDER + 1);
  });

  it('a full pool: a better-paying executable transaction evicts the worst waiting one, then the lowest-paying last one', async () => {
    const ps = Array.from({ length: MAX_PENDING_GLOBAL / MAX_PENDING_PER_PRINCIPAL }, (_, i) => principal(i + 1));
    const newcomers = Array.from({ length: MAX_NOT_EXECUTABLE_PER_SENDER + 3 }, (_, i) => principal(1000 + i));
    const k = key(3);
    const { core } = await setup({ genesisAllocations: [...funded(ps), ...funded(newcomers), { address: k.address, balance: ETH }] });
    const waiting: Uint8Array[] = [];
    for (let n = 1; n <= MAX_NOT_EXECUTABLE_PER_SENDER; n++) waiting.push(okValue(core.submitIcTx(rec({ nonce: BigInt(n) }), ps[0]!, CANISTER)));
    const firstIds: Uint8Array[] = [];
    for (const p of ps.slice(1)) for (let n = 0; n < MAX_PENDING_PER_PRINCIPAL; n++) {
      const id = okValue(core.submitIcTx(rec({ nonce: BigInt(n) }), p, CANISTER));
      if (n === MAX_PENDING_PER_PRINCIPAL - 1) firstIds.push(id);
    }
    for (let n = 0; core.pendingCount() < MAX_PENDING_GLOBAL; n++) okValue(core.submitRawTx(sign1559(k, { nonce: BigInt(n) })));
    expect(core.pendingCount()).toBe(MAX_PENDING_GLOBAL);

    const better = { maxFeePerGas: 4n * PRICE, maxPriorityFeePerGas: 2n * PRICE };
    // Waiting transactions go first, oldest first at equal fees.
    for (let i = 0; i < MAX_NOT_EXECUTABLE_PER_SENDER; i++) {
      okValue(core.submitIcTx(rec({ nonce: 0n, ...better }), newcomers[i]!, CANISTER));
      expect(core.getPending(waiting[i]!)).toEqual({ kind: 'Dropped', code: ErrorCode.PoolEvicted });
      expect(core.pendingCount()).toBe(MAX_PENDING_GLOBAL);
    }
    // No one waits any more: paying the same as everyone is not enough...
    const same = newcomers[MAX_NOT_EXECUTABLE_PER_SENDER]!;
    expect(errCode(core.submitIcTx(rec({ nonce: 0n }), same, CANISTER))).toBe(ErrorCode.SubmitPoolFull);
    // ...paying more evicts the lowest-paying, oldest last transaction of a sender (no gap is left behind).
    okValue(core.submitIcTx(rec({ nonce: 0n, ...better }), newcomers[MAX_NOT_EXECUTABLE_PER_SENDER + 1]!, CANISTER));
    expect(core.getPending(firstIds[0]!)).toEqual({ kind: 'Dropped', code: ErrorCode.PoolEvicted });
    // A transaction that would wait never evicts anything.
    expect(errCode(core.submitIcTx(rec({ nonce: 1n, ...better }), newcomers[MAX_NOT_EXECUTABLE_PER_SENDER + 2]!, CANISTER))).toBe(ErrorCode.SubmitPoolFull);
  }, 120_000);

  it('waiting transactions expire after NOT_EXECUTABLE_LIFETIME_NS; underpriced ones wait too', async () => {
    const k = key(4);
    const { core, host } = await setup({ genesisAllocations: [{ address: k.address, balance: ETH }] });
    const gapped = okValue(core.submitRawTx(sign1559(k, { nonce: 3n })));
    await core.produceBlock();
    expect(core.getPending(gapped).kind).toBe('Queued');
    host.nowNs += NOT_EXECUTABLE_LIFETIME_NS + 1n;
    await core.produceBlock();
    expect(core.getPending(gapped)).toEqual({ kind: 'Dropped', code: ErrorCode.PoolExpired });
  });

  it('drops transactions that can never be included: gas limit above a lowered block gas limit', async () => {
    const k = key(5);
    const { core } = await setup({ genesisAllocations: [{ address: k.address, balance: ETH }] });
    const big = okValue(core.submitRawTx(sign1559(k, { nonce: 0n, gasLimit: 200_000n })));
    okValue(core.setBlockGasLimit(100_000n));
    await core.produceBlock();
    expect(core.getPending(big)).toEqual({ kind: 'Dropped', code: ErrorCode.SubmitGasLimitExceedsBlock });
    expect(core.pendingCount()).toBe(0);
  });

  it("a sender's pending transactions must be affordable together", async () => {
    const k = key(6);
    const each = 21000n * 2n * PRICE + 1n;
    const { core } = await setup({ genesisAllocations: [{ address: k.address, balance: 2n * each }] });
    okValue(core.submitRawTx(sign1559(k, { nonce: 0n })));
    okValue(core.submitRawTx(sign1559(k, { nonce: 1n })));
    expect(errCode(core.submitRawTx(sign1559(k, { nonce: 2n })))).toBe(ErrorCode.SubmitInsufficientFunds);
  });

  it('a controller purge drops every pending transaction with pool.purged', async () => {
    const k = key(7);
    const { core } = await setup({ genesisAllocations: [{ address: k.address, balance: ETH }] });
    const ids = [0n, 1n, 5n].map((n) => okValue(core.submitRawTx(sign1559(k, { nonce: n }))));
    expect(okValue(core.purgePool())).toBe(3n);
    for (const id of ids) expect(core.getPending(id)).toEqual({ kind: 'Dropped', code: ErrorCode.PoolPurged });
    expect(core.pendingCount()).toBe(0);
    okValue(core.submitRawTx(sign1559(k, { nonce: 0n })));
  });
});

describe('dropped statuses have a lifetime', () => {
  it('removes the status of a dropped transaction DROPPED_STATUS_LIFETIME_NS after the drop, not before', async () => {
    const { DROPPED_STATUS_LIFETIME_NS } = await import('../../src/core/constants.js');
    const k = key(8);
    const { core, host } = await setup({ genesisAllocations: [{ address: k.address, balance: ETH }] });
    const old = okValue(core.submitRawTx(sign1559(k, { nonce: 0n })));
    // Replaced: the old one reads Dropped pool.replaced.
    const fresh = okValue(core.submitRawTx(sign1559(k, { nonce: 0n, maxFee: 4n * PRICE, tip: 2n * PRICE })));
    expect(core.getPending(old)).toEqual({ kind: 'Dropped', code: ErrorCode.PoolReplaced });
    await core.produceBlock();
    host.nowNs += DROPPED_STATUS_LIFETIME_NS - 1n;
    await core.produceBlock();
    expect(core.getPending(old)).toEqual({ kind: 'Dropped', code: ErrorCode.PoolReplaced });
    host.nowNs += 1n;
    await core.produceBlock();
    expect(core.getPending(old)).toEqual({ kind: 'Unknown' });
    // The included one is history: pruning, not this rule, removes it.
    expect(core.getPending(fresh).kind).toBe('Included');
  });
});
