// An upgrade between submit and mining: the pending pool, the chain history and the settings live in
// stable memory (the heap is rebuilt), so queued transactions are mined by the new instance's timer with
// the right receipts, and earlier blocks read the same.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeInitArgs } from '../../src/client/host.js';
import { STORE_INIT, STORE_RUNTIME } from '../fixtures/contracts/index.js';
import { word } from '../support/asm.js';
import { Evm, LATEST, type Block, type Receipt } from '../support/canister.js';
import { selfAuthenticating, syntheticSender } from '../support/ic.js';
import { ETH, GWEI, account, accessListTx, createAddress, feeMarketTx, hex, legacyTx, plainAddress, transfer } from '../support/eth.js';

const A = account(1);
const B = account(2);
const BOB = plainAddress(1);
const IC_USER = selfAuthenticating(0x22);
const IC_SENDER = syntheticSender(IC_USER);
const GENESIS = 100n * ETH;
// A non-default interval, to see that the upgraded instance reads its settings back from stable memory.
const INTERVAL_MS = 3000;

let evm: Evm;
beforeAll(async () => {
  evm = await Evm.start({ genesis: [A.address, B.address, IC_SENDER].map((address) => ({ address, balance: GENESIS })), miningIntervalMs: BigInt(INTERVAL_MS) });
});
afterAll(() => evm?.close());

describe('evm canister: upgrade with transactions pending', () => {
  it('keeps the pending pool, the history and the settings; the new instance mines the queued transactions', async () => {
    // History: one mined block before the upgrade.
    const first = await evm.submit(transfer(A, 0n, BOB, 1n));
    await evm.mine(INTERVAL_MS);
    expect(evm.blockNumber()).toBe(1n);
    const block1 = evm.block(1n, true)!;
    const receipt1 = evm.receipt(first)!;
    expect(receipt1.status).toBe(1);

    // Queued: a creation and a call to it (same sender, consecutive nonces), a 2930 transfer, a legacy tx
    // whose nonce waits on an earlier one, and an IcSynthetic transfer.
    const store = createAddress(A.address, 1n);
    const queued = [
      await evm.submit(feeMarketTx(A, { nonce: 1n, data: STORE_INIT, gasLimit: 300_000n, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI })),
      await evm.submit(feeMarketTx(A, { nonce: 2n, to: store, data: word(77n), gasLimit: 100_000n, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI })),
      await evm.submit(accessListTx(B, { nonce: 0n, to: BOB, value: 2n, gasLimit: 21000n, gasPrice: 500n * GWEI })),
      await evm.submit(legacyTx(B, { nonce: 1n, to: BOB, value: 3n, gasLimit: 21000n, gasPrice: 500n * GWEI })),
    ];
    const ic = await evm.submitIc(
      { to: [BOB], value: 5n, gas_limit: 21000n, nonce: 0n, max_fee_per_gas: 1000n * GWEI, max_priority_fee_per_gas: 250n * GWEI, data: new Uint8Array(0) },
      IC_USER,
    );
    if (!('Ok' in ic)) throw new Error(`submit_ic_tx failed: ${ic.Err.code}`);
    queued.push(ic.Ok);
    for (const id of queued) expect(evm.pending(id)).toEqual({ Queued: null });
    expect(evm.query('health')).toMatchObject({ pending_txs: 5n, block_number: 1n });

    const versionBefore = evm.host.canisterVersion;
    await evm.host.upgrade({ arg: encodeInitArgs(undefined) });
    expect(evm.host.canisterVersion).toBe(versionBefore + 1n);
    // The upgrade ran the warm-up (post_upgrade timers) but mined nothing.
    expect(evm.blockNumber()).toBe(1n);
    for (const id of queued) expect(evm.pending(id)).toEqual({ Queued: null });
    expect(evm.query('health')).toMatchObject({ ok: true, pending_txs: 5n, block_number: 1n });
    expect(evm.block(1n, true)).toEqual(block1);
    expect(evm.receipt(first)).toEqual(receipt1);
    expect(evm.ok('expected_nonce_by_address', A.address)).toBe(3n);
    expect(evm.ok('expected_nonce_by_address', B.address)).toBe(2n);
    expect(evm.ok('expected_nonce_by_address', IC_SENDER)).toBe(1n);
    // Genesis is not applied again by an upgrade.
    expect(evm.balance(B.address)).toBe(GENESIS);

    // The interval is still 3 s: nothing after 2 s, a block after 3.
    await evm.mine(INTERVAL_MS - 1000);
    expect(evm.blockNumber()).toBe(1n);
    // tx_ids are never reused across the upgrade.
    const late = await evm.submit(transfer(B, 2n, BOB, 4n));
    expect(Buffer.compare(Buffer.from(late), Buffer.from(queued[4]!))).toBeGreaterThan(0);
    await evm.mine(1000);
    expect(evm.blockNumber()).toBe(2n);

    const receipts = [...queued, late].map((id) => evm.receipt(id)) as Receipt[];
    receipts.forEach((r, i) => {
      expect(r).toMatchObject({ status: 1, block_number: 2n, failure_code: [] });
      expect(evm.pending([...queued, late][i]!)).toMatchObject({ Included: { block_number: 2n } });
    });
    const [create, call, t2930, tLegacy, tIc, tLate] = receipts as [Receipt, Receipt, Receipt, Receipt, Receipt, Receipt];
    expect(hex(create.contract_address[0]!)).toBe(hex(store));
    expect(call.logs).toHaveLength(1);
    expect(call.logs[0]!.log_index).toBe(1); // after the constructor's log in the same block
    for (const t of [t2930, tLegacy, tIc, tLate]) expect(t.gas_used).toBe(21000n);
    expect(hex(tIc.from)).toBe(hex(IC_SENDER));
    const cumulative = receipts.slice().sort((x, y) => x.transaction_index - y.transaction_index);
    let sum = 0n;
    for (const r of cumulative) expect(r.cumulative_gas_used).toBe((sum += r.gas_used));
    expect(hex(evm.ok('rpc_eth_get_code', store, LATEST))).toBe(hex(STORE_RUNTIME));
    expect(hex(evm.ok('rpc_eth_get_storage_at', store, word(0n), LATEST))).toBe(hex(word(77n)));
    expect(evm.balance(BOB)).toBe(1n + 2n + 3n + 4n + 5n);
    expect(evm.balance(B.address)).toBe(GENESIS - 9n - (t2930.gas_used + tLegacy.gas_used + tLate.gas_used) * 500n * GWEI);

    // The chain continues from the preserved history.
    const block2: Block = evm.block(2n)!;
    expect(hex(block2.parent_hash)).toBe(hex(block1.hash));
    expect(evm.query('rpc_eth_get_block_number_by_hash', block1.hash)).toEqual([1n]);
    expect(evm.query('rpc_eth_get_block_number_by_hash', block2.hash)).toEqual([2n]);
    expect(evm.query('health')).toMatchObject({ pending_txs: 0n, block_number: 2n });
  });
});
