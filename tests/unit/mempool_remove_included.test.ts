// A block's included transactions leave the pool through PendingPool.removeIncluded (one count write per
// sender and principal a block, no read of the (sender, nonce) index): the stable maps and the heap queues it
// leaves are those remove() leaves when called for each included transaction in block order.
import { describe, expect, it } from 'vitest';
import { toHex } from '../../src/core/codec/bytes.js';
import type { PendingEntry, PendingPool } from '../../src/core/mempool/pool.js';
import { MemoryId } from '../../src/core/store/memory_ids.js';
import { deriveSyntheticSender, type IcTxRecord } from '../../src/core/tx/ic_synthetic.js';
import { addr, CANISTER, ETH, key, okValue, principal, PRICE, setup, sign1559 } from '../support/chain_testkit.js';

const rec = (nonce: bigint): IcTxRecord => ({
  to: addr(1), value: 1n, gasLimit: 21000n, nonce, maxFeePerGas: 2n * PRICE, maxPriorityFeePerGas: PRICE, data: new Uint8Array(0),
});

describe('PendingPool.removeIncluded', () => {
  it.each([false, true])('leaves the maps and queues remove() leaves, entry by entry (sender keys passed: %s)', async (withKeys) => {
    const keys = [key(11), key(12), key(13)];
    const ps = [principal(21), principal(22)];
    const synth = ps.map((p) => okValue(deriveSyntheticSender(p, CANISTER)));
    const genesisAllocations = [...keys.map((k) => k.address), ...synth].map((address) => ({ address, balance: ETH }));
    const chains = await Promise.all([setup({ genesisAllocations }), setup({ genesisAllocations })]);
    const included: PendingEntry[][] = [];
    for (const { core } of chains) {
      // Three raw senders with four nonces each, two principals with three each; the last of every queue stays.
      for (let n = 0n; n < 4n; n++) for (const k of keys) okValue(core.submitRawTx(sign1559(k, { nonce: n })));
      for (let n = 0n; n < 3n; n++) for (const p of ps) okValue(core.submitIcTx(rec(n), p, CANISTER));
      const pool = (core as unknown as { pool: PendingPool }).pool;
      const take: PendingEntry[] = [];
      for (const s of [keys[1]!.address, synth[0]!, keys[0]!.address, synth[1]!, keys[2]!.address]) take.push(...pool.queueOf(s).slice(0, -1));
      take.sort((a, b) => Number(a.seq - b.seq));
      included.push(take);
    }
    const hash = new Uint8Array(32).fill(7);
    const [a, b] = chains.map(({ core }) => (core as unknown as { pool: PendingPool }).pool);
    included[0]!.forEach((e, txIndex) => a!.remove(e, { kind: 'Included', blockNumber: 5n, txIndex, blockHash: hash }));
    // Block production passes each entry's queue key, the sender's hex, which it already has.
    b!.removeIncluded(included[1]!, 5n, hash, withKeys ? included[1]!.map((e) => toHex(e.sender)) : undefined);

    for (const id of [MemoryId.Pending, MemoryId.PendingBySenderNonce, MemoryId.PendingByPrincipal, MemoryId.TxStatus, MemoryId.DroppedStatusByTime, MemoryId.Txs, MemoryId.TxHashToId]) {
      const [x, y] = chains.map(({ host }) => host.openMap(id).items());
      expect(y, `map ${id}`).toEqual(x);
    }
    expect(chains[0]!.host.openMap(MemoryId.TxStatus).len()).toBe(18n);
    for (const s of [...keys.map((k) => k.address), ...synth]) {
      expect(b!.senderCount(s)).toBe(1);
      expect(b!.queueOf(s).map((e) => e.nonce)).toEqual(a!.queueOf(s).map((e) => e.nonce));
    }
    for (const p of ps) expect(b!.principalCount(p)).toBe(1);
  });
});
