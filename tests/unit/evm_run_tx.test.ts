// src/core/evm/run_tx.ts (runTx's steps without the transaction object) against EthereumJS's runTx in the
// same engine (stockRunTx): the same outcomes, refunds and state roots for blocks, the same answers for calls.
// The differential tests (evm_differential*.test.ts) compare the default engine, which takes run_tx.ts, with
// stock EthereumJS.
import { bigIntToBytes, generateAddress } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import type { ExecTx, TxOutcome } from '../../src/core/engine.js';
import type { EvmEngine } from '../../src/core/evm/index.js';
import { asm, deployCode, hex, word } from '../support/asm.js';
import { ALICE, BASE_FEE, BOB, ETH, TIP, env, newEngine, tx } from '../support/evm_fixtures.js';

const STORE = asm(32, 'CALLDATALOAD', 0, 'CALLDATALOAD', 'SSTORE', 0, 'CALLDATALOAD', 'SLOAD', 0, 'MSTORE', 32, 0, 'RETURN');
const LOGS = asm(0x6869, 0, 'MSTORE', 0xbeef, 0xcafe, 2, 30, 'LOG2', 1, 31, 'LOG0', 'STOP');
const REVERT = asm(0xdeadbeefn << 224n, 0, 'MSTORE', 4, 0, 'REVERT');
const FACTORY = asm('CALLDATASIZE', 0, 0, 'CALLDATACOPY', 1, 'CALLDATASIZE', 0, 0, 'CREATE2', 0, 'SSTORE', 'STOP');
// several writes of the same slots (EIP-2200 / EIP-3529 refunds), no calldata (so the EIP-7623 floor is 21000)
const CHURN = asm(1, 0, 'SSTORE', 0, 0, 'SSTORE', 1, 1, 'SSTORE', 2, 1, 'SSTORE', 1, 1, 'SSTORE', 7, 5, 'SSTORE', 0, 5, 'SSTORE', 'STOP');
const CAROL = new Uint8Array(20).fill(0xcc);
const SELF_DESTRUCT_INIT = asm(1, 0, 'SSTORE', new Uint8Array([0x73, ...CAROL]), 'SELFDESTRUCT');
const ECRECOVER = new Uint8Array(20).fill(0).map((_, i) => (i === 19 ? 1 : 0));
const contract = (nonce: bigint): Uint8Array => generateAddress(ALICE, bigIntToBytes(nonce));

function blocks(): Partial<ExecTx>[][] {
  const [store, logs, rev, factory] = [contract(0n), contract(1n), contract(2n), contract(3n)];
  const pair = (k: bigint, v: bigint): Uint8Array => new Uint8Array([...word(k), ...word(v)]);
  return [
    [
      { to: undefined, data: deployCode(STORE) },
      { to: undefined, data: deployCode(LOGS) },
      { to: undefined, data: deployCode(REVERT) },
      { to: undefined, data: deployCode(FACTORY) },
      { to: undefined, data: deployCode(CHURN) },
    ],
    [
      { to: store, data: pair(1n, 5n) },
      { to: store, data: pair(1n, 0n) }, // clear: refund, capped
      { to: logs },
      { to: rev },
      { to: factory, data: SELF_DESTRUCT_INIT },
      { to: store, data: pair(2n, 9n), type: 1, maxFeePerGas: BASE_FEE + TIP, maxPriorityFeePerGas: BASE_FEE + TIP, accessList: [[store, [word(2n)]]] },
      { to: store, data: pair(3n, 9n), type: 0, maxFeePerGas: BASE_FEE + 5n, maxPriorityFeePerGas: BASE_FEE + 5n },
      { to: store, data: pair(4n, 9n), accessList: [[store, [word(4n), word(5n)]], [BOB, []]] },
      { to: BOB, data: new Uint8Array(2000).fill(1), gasLimit: 200_000n }, // the EIP-7623 floor decides
      { to: BOB, data: new Uint8Array([1]), gasLimit: 21_000n }, // below the intrinsic gas: rejected
      { to: store, data: pair(6n, 1n), gasLimit: 30_000n }, // out of gas
      { to: undefined, data: asm(0, 0, 'REVERT') }, // failed creation
      { to: store, data: pair(7n, 7n), value: 3n },
      { to: contract(4n) },
      { to: contract(4n) }, // the same writes again: originals now non-zero
      // what an access list warmed (a slot, the sender, a precompile's slot) is cold again in the next
      // transaction: run_tx.ts keeps one always-warm map per journal and takes a transaction's entries back
      { to: store, data: pair(8n, 1n), accessList: [[store, [word(8n)]], [ALICE, []], [ECRECOVER, [word(1n)]]] },
      { to: store, data: pair(8n, 2n) },
      { to: store, data: pair(8n, 3n), accessList: [[ECRECOVER, []]] },
    ],
  ];
}

const view = (o: TxOutcome): unknown =>
  o.kind === 'rejected'
    ? { kind: o.kind, code: o.code }
    : {
        status: o.status,
        gasUsed: o.gasUsed,
        gasRefund: o.gasRefund,
        logs: o.logs.map((l) => [hex(l.address), l.topics.map(hex), hex(l.data)]),
        returnData: hex(o.returnData),
        failure: o.failure?.code,
        contractAddress: o.contractAddress && hex(o.contractAddress),
      };

async function run(stockRunTx: boolean): Promise<{ outs: unknown[]; roots: string[]; calls: unknown[] }> {
  const { engine } = await newEngine(undefined, { stockRunTx });
  engine.setGenesisBalance(ALICE, 100n * ETH);
  const outs: unknown[] = [];
  const roots: string[] = [];
  let nonce = 0n;
  const bs = blocks();
  for (let b = 0; b < bs.length; b++) {
    engine.beginBlock(env(BigInt(b + 1), { gasLimit: 30_000_000n }));
    for (const t of bs[b]!) {
      const o = await engine.runTx(tx({ ...t, nonce }));
      if (o.kind === 'included') nonce++;
      outs.push(view(o));
    }
    roots.push(hex((await engine.commitBlock()).stateRoot));
  }
  return { outs, roots, calls: await calls(engine) };
}

/** eth_call semantics: no nonce or balance checks, balances topped up, maxFeePerGas 0 runs at base fee 0. */
async function calls(engine: EvmEngine): Promise<unknown[]> {
  const e = env(3n);
  const poor = new Uint8Array(20).fill(0x99);
  const store = contract(0n);
  const out: unknown[] = [];
  for (const t of [
    tx({ nonce: 0n, from: poor, to: store, data: new Uint8Array([...word(1n), ...word(2n)]) }),
    tx({ nonce: 5n, from: poor, to: store, value: 7n, type: 0, maxFeePerGas: BASE_FEE + 1n, maxPriorityFeePerGas: BASE_FEE + 1n }),
    tx({ nonce: 0n, from: poor, to: contract(2n), maxFeePerGas: 0n, maxPriorityFeePerGas: 0n }),
    tx({ nonce: 0n, from: ALICE, to: contract(1n) }),
  ]) {
    out.push(view(await engine.call(t, e)));
  }
  return out;
}

describe('run_tx.ts: runTx without the transaction object', () => {
  it('gives runTx outcomes, refunds, state roots and call answers', async () => {
    const lean = await run(false);
    const stock = await run(true);
    expect(lean.outs).toEqual(stock.outs);
    expect(lean.roots).toEqual(stock.roots);
    expect(lean.calls).toEqual(stock.calls);
    // the scenario does what it says
    const o = lean.outs as { status?: number; gasRefund?: bigint; kind?: string; logs?: unknown[]; failure?: string }[];
    expect(o[7]!.logs).toHaveLength(2);
    expect(o[8]!.failure).toBe('exec.reverted');
    expect(o[14]!.kind).toBe('rejected');
    expect(o[15]!.failure).toBe('exec.halt');
    expect(o[16]!.status).toBe(0);
    expect(o[18]!.gasRefund).toBeGreaterThan(0n);
    expect(o[19]!.gasRefund).toBeGreaterThan(0n);
  });
});

// EIP-7702: a transaction to an account whose code is a delegation designator runs the target's code, and
// EVM._loadCode makes that target warm for the rest of the transaction (depth 0 only). Type-4 transactions are
// refused here, so the designator comes from genesis code. Own frames, EthereumJS's frames, the stock runTx and
// stock EthereumJS must charge alike: the target warm within its transaction (BALANCE 100), and cold again in
// the next one (run_tx.ts's kept always-warm map takes back whatever was added to it).
describe('run_tx.ts: a delegation target warmed by the frame', () => {
  const target = new Uint8Array(20).fill(0x77);
  const delegated = new Uint8Array(20).fill(0xdd);
  const reader = new Uint8Array(20).fill(0x55);
  const balanceOfTarget = asm(new Uint8Array([0x73, ...target]), 'BALANCE', 'POP', 'STOP');

  async function gasUsed(opts: { stockFrames?: boolean; stockRunTx?: boolean }): Promise<unknown[]> {
    const { engine } = await newEngine(undefined, opts);
    engine.setGenesisBalance(ALICE, 100n * ETH);
    engine.setGenesisCode(target, balanceOfTarget);
    engine.setGenesisCode(delegated, new Uint8Array([0xef, 0x01, 0x00, ...target]));
    engine.setGenesisCode(reader, balanceOfTarget);
    engine.beginBlock(env(1n, { gasLimit: 30_000_000n }));
    const out: unknown[] = [];
    let nonce = 0n;
    for (const to of [delegated, reader, delegated, reader]) {
      const o = await engine.runTx(tx({ nonce, to }));
      if (o.kind === 'included') nonce++;
      out.push(o.kind === 'included' ? o.gasUsed : o.code);
    }
    await engine.commitBlock();
    return out;
  }

  it('charges as EthereumJS does, within the transaction and after it', async () => {
    const own = await gasUsed({});
    expect(own).toEqual([21105n, 23605n, 21105n, 23605n]);
    expect(await gasUsed({ stockFrames: true })).toEqual(own);
    expect(await gasUsed({ stockRunTx: true })).toEqual(own);
    expect(await gasUsed({ stockFrames: true, stockRunTx: true })).toEqual(own);
  });
});
