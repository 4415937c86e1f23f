// Shared helpers for the EVM engine tests: an engine over MemoryCoreHost, block envs and transactions, and the
// differential tests' comparison with stock EthereumJS.
import { Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { Address, createAccount } from '@ethereumjs/util';
import { createVM, runTx, type VM } from '@ethereumjs/vm';
import { expect } from 'vitest';
import { CHAIN_ID } from '../../src/core/constants.js';
import type { BlockEnv, ExecTx, IncludedOutcome, TxOutcome } from '../../src/core/engine.js';
import { createEvmEngine, type EvmEngine, type EvmEngineOptions } from '../../src/core/evm/index.js';
import { MemoryCoreHost } from '../../src/core/host.js';
import { addr, hex, word } from './asm.js';

/** A host whose counter advances by `perRead` on every read, so where the budget stops a transaction is deterministic under Node. */
export class SteppingHost extends MemoryCoreHost {
  constructor(readonly perRead: bigint) {
    super();
  }
  override instructionCounter(): bigint {
    this.instructions += this.perRead;
    return this.instructions;
  }
}

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

/**
 * Runs `txs` (from ALICE, funded with 100 ETH) through stock EthereumJS in one block of `e`, after `setup`
 * prepares its state, and checks each outcome in `outs` against it: status, gas used, return data and logs.
 * Returns the stock VM, whose state the caller compares next (expectStateMatchesStock).
 */
export async function expectStockAgrees(
  e: BlockEnv,
  txs: readonly ExecTx[],
  outs: readonly IncludedOutcome[],
  setup: (vm: VM) => Promise<void> = async () => {},
): Promise<VM> {
  const common = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, { hardfork: Hardfork.Prague });
  const vm = await createVM({ common });
  await vm.stateManager.putAccount(new Address(ALICE), createAccount({ balance: 100n * ETH }));
  await setup(vm);
  const block = {
    common,
    header: {
      number: e.number, timestamp: e.timestamp, gasLimit: e.gasLimit, gasUsed: 0n, baseFeePerGas: e.baseFeePerGas,
      coinbase: new Address(e.coinbase), prevRandao: e.prevRandao, difficulty: 0n, getBlobGasPrice: () => 1n,
    },
  } as never;
  let blockGas = 0n;
  for (let i = 0; i < txs.length; i++) {
    const t = txs[i]!;
    const stx = createFeeMarket1559Tx(
      { nonce: t.nonce, gasLimit: t.gasLimit, to: t.to && new Address(t.to), value: t.value, data: t.data,
        maxFeePerGas: t.maxFeePerGas, maxPriorityFeePerGas: t.maxPriorityFeePerGas,
        accessList: t.accessList.map(([a, keys]) => [a, [...keys]] as [Uint8Array, Uint8Array[]]) },
      { common, freeze: false },
    );
    Object.defineProperty(stx, 'getSenderAddress', { value: () => new Address(ALICE) });
    const r = await runTx(vm, { tx: stx, block, skipHardForkValidation: true, blockGasUsed: blockGas });
    blockGas += r.totalGasSpent;
    const a = outs[i]!;
    const ctx = `tx ${i}`;
    expect(a.status, ctx).toBe(r.execResult.exceptionError === undefined ? 1 : 0);
    expect(a.gasUsed, ctx).toBe(r.totalGasSpent);
    expect(hex(a.returnData), ctx).toBe(hex(r.execResult.returnValue));
    expect(a.logs.map((l) => [hex(l.address), l.topics.map(hex), hex(l.data)]), ctx).toEqual(
      (r.execResult.logs ?? []).map(([ad, tp, d]) => [hex(ad), tp.map(hex), hex(d)]),
    );
  }
  return vm;
}

/** Each engine's balance, nonce, code and the given storage slots of every watched account equal the stock VM's. */
export async function expectStateMatchesStock(vm: VM, engines: readonly EvmEngine[], watch: readonly Uint8Array[], slots: readonly bigint[]): Promise<void> {
  for (const a of watch) {
    const at = new Address(a);
    const acc = await vm.stateManager.getAccount(at);
    const code = hex(await vm.stateManager.getCode(at));
    for (const engine of engines) {
      expect(engine.getBalance(a), `balance ${hex(a)}`).toBe(acc?.balance ?? 0n);
      expect(engine.getNonce(a), `nonce ${hex(a)}`).toBe(acc?.nonce ?? 0n);
      expect(hex(engine.getCode(a)), `code ${hex(a)}`).toBe(code);
    }
    for (const s of slots) {
      const v = await vm.stateManager.getStorage(at, word(s));
      const padded = new Uint8Array(32);
      padded.set(v, 32 - v.length);
      for (const engine of engines) expect(hex(engine.getStorage(a, word(s))), `storage ${hex(a)}[${s}]`).toBe(hex(padded));
    }
  }
}
