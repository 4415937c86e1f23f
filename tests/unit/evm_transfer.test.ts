// Plain value transfers (src/core/evm/transfer.ts, which bypasses runTx) against the same engine through runTx
// (stockTransfers) and against stock EthereumJS: the same outcomes, the same state roots, the same accounts.
import { Address, createAccount } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import type { BlockEnv, ExecTx, IncludedOutcome } from '../../src/core/engine.js';
import type { EvmEngine } from '../../src/core/evm/index.js';
import { addr, asm, hex } from '../support/asm.js';
import {
  ALICE,
  BASE_FEE,
  BOB,
  COINBASE,
  ETH,
  TIP,
  env,
  expectStateMatchesStock,
  expectStockAgrees,
  included,
  newEngine,
  tx,
} from '../support/evm_fixtures.js';

const FRESH = addr(0x51);
const EMPTY = addr(0x52); // exists with nonce 0 and balance 0: a touch deletes it (EIP-161)
const CONTRACT = addr(0x53);
const IDENTITY = new Uint8Array(20);
IDENTITY[19] = 4;
const ZERO = new Uint8Array(20);

// [coinbase of the block, its transactions]; nonces are filled in order.
type Block = [Uint8Array, Partial<ExecTx>[]];
const blocks: Block[] = [
  [
    COINBASE,
    [
      { to: BOB, value: ETH, gasLimit: 21000n }, // fresh recipient
      { to: BOB, value: 5n, gasLimit: 50_000n }, // unused gas refunded
      { to: ALICE, value: 7n }, // to itself
      { to: COINBASE, value: 3n, gasLimit: 21000n },
      { to: FRESH, value: 0n, gasLimit: 21000n }, // touched, empty: never created
      { to: EMPTY, value: 0n, gasLimit: 21000n }, // touched, empty: deleted
      { to: BOB, value: 1n, maxFeePerGas: BASE_FEE, maxPriorityFeePerGas: 0n }, // no tip
      { to: BOB, value: 2n, maxFeePerGas: BASE_FEE + 3n, maxPriorityFeePerGas: TIP }, // tip capped by max fee
      { to: IDENTITY, value: 1n }, // precompile: runTx
      { to: CONTRACT, value: 4n }, // code: runTx
      { to: BOB, value: 1n, data: new Uint8Array([1, 0, 2]) }, // calldata: runTx
    ],
  ],
  [ALICE, [{ to: BOB, value: 9n, gasLimit: 30_000n }, { to: ALICE, value: 1n }]], // sender is the coinbase
  [BOB, [{ to: BOB, value: 11n }, { to: FRESH, value: 1n }]], // recipient is the coinbase
  [ZERO, [{ to: FRESH, value: 0n, maxFeePerGas: BASE_FEE, maxPriorityFeePerGas: 0n }]], // coinbase paid nothing
  [
    COINBASE,
    [
      { type: 0, to: BOB, value: 3n, maxFeePerGas: BASE_FEE + 5n, maxPriorityFeePerGas: BASE_FEE + 5n },
      { type: 1, to: FRESH, value: 3n, maxFeePerGas: BASE_FEE + 6n, maxPriorityFeePerGas: BASE_FEE + 6n },
    ],
  ],
];

const CONTRACT_CODE = asm(1, 0, 'SSTORE', 'STOP');

async function engineWith(stockTransfers: boolean): Promise<EvmEngine> {
  const { engine } = await newEngine(undefined, { stockTransfers });
  engine.setGenesisBalance(ALICE, 100n * ETH);
  engine.setGenesisBalance(EMPTY, 0n);
  engine.setGenesisCode(CONTRACT, CONTRACT_CODE);
  return engine;
}

async function run(engine: EvmEngine): Promise<{ outs: IncludedOutcome[][]; roots: string[]; runTxCalls: number }> {
  // Transactions that opened a state checkpoint from depth 0: runTx (and run_tx.ts) open one for every
  // transaction (run_tx.ts through the synchronous form, runTx through the async one, which calls it), transfer.ts none.
  let runTxCalls = 0;
  let depth = 0;
  const sm = engine.vm.stateManager as unknown as { checkpointSync(): void; commitSync(): void; revertSync(): void };
  const [checkpoint, commit, revert] = [sm.checkpointSync.bind(sm), sm.commitSync.bind(sm), sm.revertSync.bind(sm)];
  sm.checkpointSync = () => {
    if (depth++ === 0) runTxCalls++;
    checkpoint();
  };
  sm.commitSync = () => {
    depth--;
    commit();
  };
  sm.revertSync = () => {
    depth--;
    revert();
  };
  const outs: IncludedOutcome[][] = [];
  const roots: string[] = [];
  let nonce = 0n;
  for (let b = 0; b < blocks.length; b++) {
    const [coinbase, txs] = blocks[b]!;
    engine.beginBlock(env(BigInt(b + 1), { coinbase }));
    const o: IncludedOutcome[] = [];
    for (const t of txs) o.push(included(await engine.runTx(tx({ ...t, nonce: nonce++ }))));
    roots.push(hex((await engine.commitBlock()).stateRoot));
    outs.push(o);
  }
  return { outs, roots, runTxCalls };
}

const comparable = (o: IncludedOutcome): unknown => ({
  status: o.status,
  gasUsed: o.gasUsed,
  logs: o.logs.length,
  returnData: hex(o.returnData),
  failure: o.failure,
  contractAddress: o.contractAddress,
});

describe('plain value transfers without runTx', () => {
  it('give the same outcomes and state roots as runTx', async () => {
    const fast = await run(await engineWith(false));
    const stock = await run(await engineWith(true));
    expect(fast.outs.map((b) => b.map(comparable))).toEqual(stock.outs.map((b) => b.map(comparable)));
    expect(fast.roots).toEqual(stock.roots);
    expect(new Set(fast.roots).size).toBe(blocks.length); // every block changed state
    const total = blocks.reduce((n, [, txs]) => n + txs.length, 0);
    expect(stock.runTxCalls).toBe(total);
    expect(fast.runTxCalls).toBe(3); // precompile, code, calldata
  });

  it('leave the state stock EthereumJS leaves (type-2 transfers, one coinbase)', async () => {
    const txs = blocks[0]![1].filter((t) => t.type === undefined).map((t, i) => tx({ ...t, nonce: BigInt(i) }));
    const e: BlockEnv = env(1n);
    const engine = await engineWith(false);
    engine.beginBlock(e);
    const outs: IncludedOutcome[] = [];
    for (const t of txs) outs.push(included(await engine.runTx(t)));
    await engine.commitBlock();
    const vm = await expectStockAgrees(e, txs, outs, async (v) => {
      await v.stateManager.putAccount(new Address(EMPTY), createAccount({}));
      await v.stateManager.putAccount(new Address(CONTRACT), createAccount({ nonce: 1n }));
      await v.stateManager.putCode(new Address(CONTRACT), CONTRACT_CODE);
    });
    await expectStateMatchesStock(vm, [engine], [ALICE, BOB, COINBASE, FRESH, EMPTY, CONTRACT, IDENTITY], [0n]);
    expect(await vm.stateManager.getAccount(new Address(EMPTY))).toBeUndefined();
    expect(await vm.stateManager.getAccount(new Address(FRESH))).toBeUndefined();
  });
});
