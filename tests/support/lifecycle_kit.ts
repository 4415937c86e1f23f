// Helpers for the lifecycle unit tests: a core over the FakeEngine with a chain of many small blocks.
import type { EvmCoreOptions } from '../../src/core/index.js';
import { addr, ETH, FAIL_MARK, key, LOG_MARK, okValue, PRICE, setup, sign1559, signLegacy, type Setup } from './chain_testkit.js';

export const A = key(71);
export const B = key(72);

export interface Chain extends Setup {
  /** tx_ids in submission order, with the block each was mined in. */
  readonly mined: { txId: Uint8Array; block: bigint; hash: Uint8Array }[];
  nonceA: bigint;
  nonceB: bigint;
}

export async function chain(opts: EvmCoreOptions = {}): Promise<Chain> {
  const s = await setup({ genesisAllocations: [{ address: A.address, balance: 1000n * ETH }, { address: B.address, balance: 1000n * ETH }] }, opts);
  return { ...s, mined: [], nonceA: 0n, nonceB: 0n };
}

/**
 * Mines `n` blocks; block i holds one transfer from A, and every third block also a legacy tx from B that
 * emits logs (or fails, every fifth).
 */
export async function mineBlocks(c: Chain, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const batch: { raw: Uint8Array }[] = [{ raw: sign1559(A, { nonce: c.nonceA++, to: addr(9), value: 5n }) }];
    if (i % 3 === 0) {
      const fail = i % 5 === 0;
      const data = fail ? Uint8Array.of(FAIL_MARK) : Uint8Array.of(LOG_MARK, 2);
      batch.push({ raw: signLegacy(B, { nonce: c.nonceB++, to: addr(3), value: 0n, data, gasLimit: 60000n, gasPrice: PRICE }) });
    }
    const ids = batch.map((b) => okValue(c.core.submitRawTx(b.raw)));
    const r = await c.core.produceBlock();
    if (r.kind !== 'Produced') throw new Error(`expected a block, got ${r.kind}`);
    for (const id of ids) {
      const t = c.core.getTransactionByTxId(id)!;
      c.mined.push({ txId: id, block: r.number, hash: t.hash });
    }
  }
}
