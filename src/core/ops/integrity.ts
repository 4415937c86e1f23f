// The integrity check: a handful of point reads and map lengths (a negligible cost), run in
// post_upgrade and by the ops timer. A failure names the broken invariant; the facade raises
// CriticalCorrupt with it (ops/state.ts).
//
// Invariants checked:
//   1. an initialized chain has its head block: Blocks[head.number] exists, its hash is Meta's head hash, and
//      BlockHashToNumber maps that hash back to the number;
//   2. the first available block (pruning) is at most the head, and exists unless it is the head + 1;
//   3. pool counters: Pending holds at most MAX_PENDING_GLOBAL entries; PendingBySenderNonce holds one entry
//      per pending transaction plus one counter per sender, so pending <= its length <= 2 * pending; every
//      pending transaction has a status entry and a body (TxStatus, Txs at least as long as Pending);
//   4. the block gas limit is at least 21000.

import { MAX_PENDING_GLOBAL } from '../constants.js';
import type { ChainStore } from '../chain/store.js';
import type { MetaStore } from '../chain/meta.js';
import type { PendingPool } from '../mempool/pool.js';
import type { KvMap } from '../host.js';
import { bytesEqual, readU64be, toHex } from '../codec/bytes.js';

export interface IntegrityDeps {
  readonly meta: MetaStore;
  readonly store: ChainStore;
  readonly pool: PendingPool;
  readonly txs: KvMap;
  readonly firstAvailableBlock: bigint;
}

/** undefined when every invariant holds, else a message naming the first broken one. */
export function checkIntegrity(d: IntegrityDeps): string | undefined {
  const head = d.meta.getHead();
  if (head === undefined) {
    // Not initialized: nothing may exist yet.
    return d.store.maps.blocks.len() === 0n ? undefined : 'blocks exist but Meta has no head';
  }
  const block = d.store.getBlock(head.number);
  if (block === undefined) return `head block ${head.number} is missing`;
  if (!bytesEqual(block.hash, head.hash)) return `head block ${head.number} has hash 0x${toHex(block.hash)}, Meta says 0x${toHex(head.hash)}`;
  const byHash = d.store.maps.blockHashToNumber.get(head.hash);
  if (byHash === undefined || readU64be(byHash) !== head.number) return `the hash index does not map the head block's hash to ${head.number}`;
  const first = d.firstAvailableBlock;
  if (first > head.number) return `first available block ${first} is above the head ${head.number}`;
  if (d.store.maps.blocks.get(u64(first)) === undefined) return `first available block ${first} is missing`;
  const pending = d.pool.maps.pending.len();
  if (pending > BigInt(MAX_PENDING_GLOBAL)) return `pool holds ${pending} pending transactions, limit ${MAX_PENDING_GLOBAL}`;
  const sn = d.pool.maps.bySenderNonce.len();
  if (sn < pending || sn > 2n * pending) return `pool counters inconsistent: ${pending} pending, ${sn} sender/nonce entries`;
  if (d.pool.maps.status.len() < pending) return `pool counters inconsistent: ${pending} pending, fewer status entries`;
  if (d.txs.len() < pending) return `pool counters inconsistent: ${pending} pending, fewer transaction bodies`;
  if (d.meta.getConfig().blockGasLimit < 21000n) return 'block gas limit below 21000';
  return undefined;
}

function u64(n: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n);
  return b;
}
