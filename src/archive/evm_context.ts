// The block context a replayed transaction (or a historical eth_call) runs in, as docs/execution.md defines
// it: the block's own number, timestamp, base fee, gas limit and coinbase; PREVRANDAO is the parent block's
// hash; BLOCKHASH answers the chain's own hashes of the 256 blocks below; BLOBBASEFEE is 1 (excess blob gas 0).
// Execution is stock EthereumJS: its Common (Prague, this chain's id, its default keccak), its VM and runTx.
import { createBlock, type Block } from '@ethereumjs/block';
import { type Common, Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import type { StateManagerInterface } from '@ethereumjs/common';
import { type VM, createVM } from '@ethereumjs/vm';
import { paramsTx } from '@ethereumjs/tx';
import { CHAIN_ID } from '../core/constants.js';
import { kzgAdapter } from '../core/evm/common.js';

export interface BlockContext {
  readonly number: bigint;
  readonly hash: Uint8Array;
  readonly parentHash: Uint8Array;
  readonly timestamp: bigint;
  readonly baseFeePerGas: bigint;
  readonly gasLimit: bigint;
  readonly coinbase: Uint8Array;
  /** PREVRANDAO: the parent block's hash (docs/execution.md, "EVM configuration"). */
  readonly prevRandao: Uint8Array;
  /** BLOCKHASH(n) for the 256 blocks below this one; undefined answers 0 as the canister does. */
  readonly blockHash: (n: bigint) => Uint8Array | undefined;
}

let sharedCommon: Common | undefined;
let sharedTxCommon: Common | undefined;

/**
 * The Common transaction objects carry. EthereumJS's transaction constructors copy the Common they are given and
 * merge the transaction parameters into the copy, about half of a transfer's runTx; transactions never change
 * their Common here (runTx runs with skipHardForkValidation), so one merged copy is shared, whose copy() returns
 * itself (as the canister's engine does, for the same reason).
 */
export function archiveTxCommon(): Common {
  if (sharedTxCommon === undefined) {
    const c = archiveCommon().copy();
    c.updateParams(paramsTx);
    Object.defineProperty(c, 'copy', { value: () => c });
    Object.defineProperty(c, 'updateParams', { value: () => c });
    sharedTxCommon = c;
  }
  return sharedTxCommon;
}

/** Prague with this chain's id. The point-evaluation precompile needs a KZG; the chain's minimal one is used. */
export function archiveCommon(): Common {
  if (sharedCommon === undefined) {
    sharedCommon = createCustomCommon({ chainId: Number(CHAIN_ID), name: 'icp-evm-archive' }, Mainnet, {
      hardfork: Hardfork.Prague,
      customCrypto: { kzg: kzgAdapter },
    });
    withEipSet(sharedCommon);
  }
  return sharedCommon;
}

/**
 * EthereumJS asks isActivatedEIP several times per opcode, and answers it with a search of the active EIPs' array
 * (about a tenth of a contract call's replay). The same answer from a Set built from that array, rebuilt when
 * Common replaces the array (it does on a hardfork or EIP change). An own enumerable property, so the copies
 * EthereumJS makes of the Common (Object.assign) keep it.
 */
function withEipSet(c: Common): void {
  // By array: copies share theirs until one of them changes hardfork.
  const sets = new WeakMap<readonly number[], Set<number>>();
  (c as { isActivatedEIP: (eip: number) => boolean }).isActivatedEIP = function (this: Common, eip: number): boolean {
    const list = (this as unknown as { _activatedEIPsCache: readonly number[] })._activatedEIPsCache;
    let set = sets.get(list);
    if (set === undefined) {
      set = new Set(list);
      sets.set(list, set);
    }
    return set.has(eip);
  };
}

const ZERO32 = new Uint8Array(32);

/** A stock VM over `stateManager` whose BLOCKHASH asks `ctx()` (the block being run, set before each run). */
export async function createArchiveVm(stateManager: StateManagerInterface, ctx: () => BlockContext | undefined): Promise<VM> {
  const blockchain: EVMMockBlockchainInterface = {
    getBlock: async (n: number) => {
      const h = ctx()?.blockHash(BigInt(n)) ?? ZERO32;
      return { hash: () => h };
    },
    putBlock: async () => undefined,
    shallowCopy() {
      return this;
    },
  };
  return createVM({ common: archiveCommon(), stateManager, blockchain: blockchain as never });
}

/** An EthereumJS block carrying the context's header fields (no transactions: runTx takes them one by one). */
export function ethBlockOf(c: BlockContext, common = archiveCommon()): Block {
  return createBlock(
    {
      header: {
        number: c.number,
        parentHash: c.parentHash,
        timestamp: c.timestamp,
        gasLimit: c.gasLimit,
        baseFeePerGas: c.baseFeePerGas,
        coinbase: c.coinbase,
        mixHash: c.prevRandao,
        difficulty: 0n,
        excessBlobGas: 0n,
        blobGasUsed: 0n,
      },
    },
    { common, skipConsensusFormatValidation: true, setHardfork: false },
  );
}
