// Shared helpers for the EVM engine tests: an engine over MemoryCoreHost, block envs and transactions.
import type { BlockEnv, ExecTx, IncludedOutcome, TxOutcome } from '../../src/core/engine.js';
import { createEvmEngine, type EvmEngine, type EvmEngineOptions } from '../../src/core/evm/index.js';
import { MemoryCoreHost } from '../../src/core/host.js';
import { addr } from '../support/asm.js';

export const BASE_FEE = 250_000_000_000n;
export const TIP = 1_000_000_000n;
export const COINBASE = addr(0xc0);
export const ALICE = addr(1);
export const BOB = addr(2);
export const ETH = 10n ** 18n;

export function env(number = 1n, over: Partial<BlockEnv> = {}): BlockEnv {
  return {
    number,
    timestamp: 1_700_000_000n + number * 2n,
    baseFeePerGas: BASE_FEE,
    gasLimit: 3_000_000n,
    coinbase: COINBASE,
    prevRandao: new Uint8Array(32).fill(7),
    parentHash: new Uint8Array(32).fill(9),
    ...over,
  };
}

export function tx(over: Partial<ExecTx> & { nonce: bigint }): ExecTx {
  return {
    type: 2,
    from: ALICE,
    to: BOB,
    value: 0n,
    data: new Uint8Array(0),
    gasLimit: 1_000_000n,
    maxFeePerGas: BASE_FEE + TIP,
    maxPriorityFeePerGas: TIP,
    accessList: [],
    ...over,
  };
}

export async function newEngine(
  host = new MemoryCoreHost(),
  opts: Partial<EvmEngineOptions> = {},
): Promise<{ host: MemoryCoreHost; engine: EvmEngine }> {
  const engine = await createEvmEngine({ host, ...opts });
  return { host, engine };
}

export function included(o: TxOutcome): IncludedOutcome {
  if (o.kind !== 'included') throw new Error(`expected included, got ${o.code}: ${o.message}`);
  return o;
}
