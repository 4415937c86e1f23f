// Differential check: the same transactions through our engine (flat state, our keccak, budget hooks, fast run loop) and
// through stock @ethereumjs/vm with its default Merkle state manager must agree on status, gasUsed,
// logs, return data and the resulting balances, nonces and storage.
import { Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { Address, bigIntToBytes, createAccount, generateAddress } from '@ethereumjs/util';
import { createVM, runTx, type VM } from '@ethereumjs/vm';
import { describe, expect, it } from 'vitest';
import type { BlockEnv, ExecTx } from '../../src/core/engine.js';
import { asm, deployCode, hex, label, ref, word } from '../support/asm.js';
import { ALICE, BOB, ETH, TIP, BASE_FEE, env, included, newEngine, tx } from '../support/evm_fixtures.js';

const CAROL = Uint8Array.from({ length: 20 }, (_, i) => (i === 19 ? 3 : 0xbb));

function stockTx(vm: VM, t: ExecTx): TypedTransaction {
  const opts = { common: vm.common, freeze: false };
  const base = { nonce: t.nonce, gasLimit: t.gasLimit, to: t.to && new Address(t.to), value: t.value, data: t.data };
  const accessList = t.accessList.map(([a, s]) => [a, [...s]] as [Uint8Array, Uint8Array[]]);
  const e =
    t.type === 0
      ? createLegacyTx({ ...base, gasPrice: t.maxFeePerGas }, opts)
      : t.type === 1
        ? createAccessList2930Tx({ ...base, gasPrice: t.maxFeePerGas, accessList }, opts)
        : createFeeMarket1559Tx(
            { ...base, maxFeePerGas: t.maxFeePerGas, maxPriorityFeePerGas: t.maxPriorityFeePerGas, accessList },
            opts,
          );
  const sender = new Address(t.from);
  Object.defineProperty(e, 'getSenderAddress', { value: () => sender });
  return e;
}

function stockBlock(e: BlockEnv, common: unknown): never {
  return {
    common,
    header: {
      number: e.number,
      timestamp: e.timestamp,
      gasLimit: e.gasLimit,
      gasUsed: 0n,
      baseFeePerGas: e.baseFeePerGas,
      coinbase: new Address(e.coinbase),
      prevRandao: e.prevRandao,
      difficulty: 0n,
      getBlobGasPrice: () => 1n,
    },
  } as never;
}

// Runtime: SSTORE(calldata[0], calldata[32]); return SLOAD(calldata[0]).
const STORE_RUNTIME = asm(32, 'CALLDATALOAD', 0, 'CALLDATALOAD', 'SSTORE', 0, 'CALLDATALOAD', 'SLOAD', 0, 'MSTORE', 32, 0, 'RETURN');
// Runtime: several writes of the same slots in one transaction (EIP-2200 original-value paths).
const CHURN_RUNTIME = asm(1, 0, 'SSTORE', 0, 0, 'SSTORE', 1, 1, 'SSTORE', 2, 1, 'SSTORE', 1, 1, 'SSTORE', 7, 5, 'SSTORE', 0, 5, 'SSTORE', 'STOP');
// Runtime: LOG2 with data "hi" and two topics, then LOG0; returns nothing.
const LOG_RUNTIME = asm(0x6869, 0, 'MSTORE', 0xbeef, 0xcafe, 2, 30, 'LOG2', 1, 31, 'LOG0', 'STOP');
// Runtime: REVERT with 4 bytes 0xdeadbeef.
const REVERT_RUNTIME = asm(0xdeadbeefn << 224n, 0, 'MSTORE', 4, 0, 'REVERT');
// Runtime: SSTORE(0, 0x42) then REVERT (used as the inner callee).
const INNER_REVERT = asm(0x42, 0, 'SSTORE', 0, 0, 'REVERT');

function outerCaller(inner: Uint8Array): Uint8Array {
  // SSTORE(1, 7); r = CALL(gas, inner, 0, 0,0,0,0); SSTORE(2, r + 10); STOP
  return asm(7, 1, 'SSTORE', 0, 0, 0, 0, 0, new Uint8Array([0x73, ...inner]), 'GAS', 'CALL', 10, 'ADD', 2, 'SSTORE', 'STOP');
}

// Runtime: loop `calldata[0]` times over KECCAK256 of memory, store the result: exercises a loop, memory, hashing.
const LOOP_RUNTIME = asm(
  0, 'CALLDATALOAD',
  label('top'), 'DUP1', 'ISZERO', ref('end'), 'JUMPI',
  'DUP1', 0, 'MSTORE', 32, 0, 'KECCAK256', 3, 'SSTORE',
  1, 'SWAP1', 'SUB', ref('top'), 'JUMP',
  label('end'), 'STOP',
);

// Factory: CREATE2(salt 1) of calldata init code, store the address in slot 0.
const FACTORY_RUNTIME = asm('CALLDATASIZE', 0, 0, 'CALLDATACOPY', 1, 'CALLDATASIZE', 0, 0, 'CREATE2', 0, 'SSTORE', 'STOP');
// Init code: SSTORE(0, 1), then SELFDESTRUCT to CAROL (same-tx creation: account and storage removed).
const SELF_DESTRUCT_INIT = asm(1, 0, 'SSTORE', new Uint8Array([0x73, ...CAROL]), 'SELFDESTRUCT');

const contract = (nonce: bigint): Uint8Array => generateAddress(ALICE, bigIntToBytes(nonce));

function scenario(): ExecTx[] {
  const store = contract(1n);
  const churn = contract(2n);
  const logs = contract(3n);
  const rev = contract(4n);
  const inner = contract(5n);
  const outer = contract(6n);
  const loop = contract(7n);
  const factory = contract(8n);
  const call = (nonce: bigint, to: Uint8Array, data: Uint8Array, over: Partial<ExecTx> = {}): ExecTx =>
    tx({ nonce, to, data, ...over });
  return [
    tx({ nonce: 0n, value: ETH, gasLimit: 21000n }),
    tx({ nonce: 1n, to: undefined, data: deployCode(STORE_RUNTIME) }),
    tx({ nonce: 2n, to: undefined, data: deployCode(CHURN_RUNTIME) }),
    tx({ nonce: 3n, to: undefined, data: deployCode(LOG_RUNTIME) }),
    tx({ nonce: 4n, to: undefined, data: deployCode(REVERT_RUNTIME) }),
    tx({ nonce: 5n, to: undefined, data: deployCode(INNER_REVERT) }),
    tx({ nonce: 6n, to: undefined, data: deployCode(outerCaller(inner)) }),
    tx({ nonce: 7n, to: undefined, data: deployCode(LOOP_RUNTIME) }),
    tx({ nonce: 8n, to: undefined, data: deployCode(FACTORY_RUNTIME) }),
    call(9n, store, new Uint8Array([...word(1n), ...word(5n)])), // fresh slot
    call(10n, store, new Uint8Array([...word(1n), ...word(6n)])), // dirty -> other
    call(11n, store, new Uint8Array([...word(1n), ...word(0n)])), // clear: refund
    call(12n, store, new Uint8Array([...word(1n), ...word(0n)])), // no-op on zero
    call(13n, churn, new Uint8Array()),
    call(14n, churn, new Uint8Array()), // same writes again: originals now non-zero
    call(15n, logs, new Uint8Array()),
    call(16n, rev, new Uint8Array()),
    call(17n, outer, new Uint8Array()),
    call(18n, loop, word(5n)),
    call(19n, loop, word(100_000n), { gasLimit: 200_000n }), // out of gas
    call(20n, factory, SELF_DESTRUCT_INIT),
    call(21n, factory, SELF_DESTRUCT_INIT), // CREATE2 at the same address again
    call(22n, store, new Uint8Array([...word(2n), ...word(9n)]), {
      type: 1,
      maxFeePerGas: BASE_FEE + TIP,
      maxPriorityFeePerGas: BASE_FEE + TIP,
      accessList: [[store, [word(2n)]]],
    }),
    call(23n, store, new Uint8Array([...word(3n), ...word(9n)]), {
      type: 0,
      maxFeePerGas: BASE_FEE + 5n,
      maxPriorityFeePerGas: BASE_FEE + 5n,
    }),
    call(24n, store, new Uint8Array([...word(4n), ...word(9n)]), { accessList: [[store, [word(4n), word(5n)]]] }),
    call(25n, precompile(4), new Uint8Array([1, 2, 3])), // IDENTITY
    call(26n, precompile(2), new Uint8Array([1, 2, 3])), // SHA256
    call(27n, precompile(5), new Uint8Array(96)), // MODEXP of zeros
    call(28n, precompile(0x0b), new Uint8Array(10)), // BLS G1ADD bad length: precompile failure
    call(29n, INVALID_TARGET, new Uint8Array()),
    tx({ nonce: 30n, to: undefined, data: asm(0, 0, 'REVERT') }), // failed creation
    tx({ nonce: 31n, to: CAROL, value: 5n, gasLimit: 21000n }), // to an address that got a selfdestruct payout
  ];
}
const INVALID_TARGET = contract(100n);
function precompile(id: number): Uint8Array {
  const a = new Uint8Array(20);
  a[19] = id;
  return a;
} // no code: plain call to an empty account

describe('differential: flat engine vs stock EthereumJS', () => {
  it('agrees on every outcome and on the resulting state', async () => {
    const txs = scenario();
    const e = env(1n, { gasLimit: 30_000_000n });

    const { engine } = await newEngine();
    engine.setGenesisBalance(ALICE, 100n * ETH);
    engine.beginBlock(e);
    const ours = [];
    for (const t of txs) ours.push(included(await engine.runTx(t)));
    await engine.commitBlock();

    const common = createCustomCommon({ chainId: 4801360 }, Mainnet, { hardfork: Hardfork.Prague });
    const vm = await createVM({ common });
    await vm.stateManager.putAccount(new Address(ALICE), createAccount({ balance: 100n * ETH }));
    const theirs = [];
    let gasUsed = 0n;
    for (const t of txs) {
      const r = await runTx(vm, {
        tx: stockTx(vm, t),
        block: stockBlock(e, common),
        skipHardForkValidation: true,
        blockGasUsed: gasUsed,
      });
      gasUsed += r.totalGasSpent;
      theirs.push(r);
    }

    for (let i = 0; i < txs.length; i++) {
      const o = ours[i]!;
      const r = theirs[i]!;
      const ctx = `tx ${i}`;
      expect(o.status, ctx).toBe(r.execResult.exceptionError === undefined ? 1 : 0);
      expect(o.gasUsed, ctx).toBe(r.totalGasSpent);
      expect(hex(o.returnData), ctx).toBe(hex(r.execResult.returnValue));
      expect(
        o.logs.map((l) => [hex(l.address), l.topics.map(hex), hex(l.data)]),
        ctx,
      ).toEqual((r.execResult.logs ?? []).map(([a, t, d]) => [hex(a), t.map(hex), hex(d)]));
    }
    // Sanity: the scenario exercises what it claims to.
    expect(ours[15]!.logs.length).toBe(2);
    expect(ours[16]!.failure?.code).toBe('exec.reverted');
    expect(hex(ours[16]!.returnData)).toBe('deadbeef');
    expect(ours[19]!.failure?.code).toBe('exec.halt');
    expect(ours[11]!.gasUsed).toBeLessThan(ours[10]!.gasUsed); // refund applied
    expect(ours[17]!.status).toBe(1); // outer succeeds although the inner call reverted
    expect(ours[20]!.status).toBe(1);
    expect(ours[21]!.status).toBe(1); // re-creation at the address destroyed in tx 20
    expect(ours[28]!.failure?.code).toBe('exec.halt.precompile_error');
    expect(ours[30]!.status).toBe(0);

    const accounts = [ALICE, BOB, CAROL, e.coinbase, ...Array.from({ length: 12 }, (_, n) => contract(BigInt(n)))];
    const created = await vm.stateManager.getStorage(new Address(contract(8n)), word(0n));
    expect(created.length).toBe(20);
    accounts.push(created);
    for (const a of accounts) {
      const acc = await vm.stateManager.getAccount(new Address(a));
      expect(engine.getBalance(a), `balance ${hex(a)}`).toBe(acc?.balance ?? 0n);
      expect(engine.getNonce(a), `nonce ${hex(a)}`).toBe(acc?.nonce ?? 0n);
      expect(hex(engine.getCode(a)), `code ${hex(a)}`).toBe(hex(await vm.stateManager.getCode(new Address(a))));
      for (let s = 0n; s < 8n; s++) {
        const theirsV = await vm.stateManager.getStorage(new Address(a), word(s));
        const padded = new Uint8Array(32);
        padded.set(theirsV, 32 - theirsV.length);
        expect(hex(engine.getStorage(a, word(s))), `storage ${hex(a)}[${s}]`).toBe(hex(padded));
      }
    }
  });
});
