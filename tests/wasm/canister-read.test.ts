// The read API through the real canister wasm: eth_call (callObject and raw signed tx) and eth_estimateGas
// against a solc-compiled ERC-20, revert data decoded with viem, callObject validation, block tags, and the
// fee reads (gas price, priority fee, fee history) on a fresh chain and after busy blocks.
import { decodeErrorResult, decodeFunctionResult, encodeDeployData, encodeFunctionData, type Abi, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileFixture } from '../fixtures/solidity/compile.js';
import { KECCAK_LOOP_INIT } from '../fixtures/contracts/index.js';
import { deployCode, word } from '../support/asm.js';
import { Evm, LATEST, errCode, type BlockTag, type CandidResult } from '../support/canister.js';
import { BASE_FEE, ETH, GWEI, account, createAddress, feeMarketTx, hex, legacyTx, plainAddress, transfer } from '../support/eth.js';
import { COUNT_LOOP_GAS_RUNTIME, COUNT_LOOP_RUNTIME, callObject, type CallObjectFields } from '../support/read.js';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';

const ALICE = account(1);
const CAROL = account(2);
const BOB = plainAddress(1);
const TIPPERS = [3, 4, 5, 6, 7, 8].map(account);
const SUPPLY = 10n ** 24n;
const QUERY_LIMIT = 5_000_000_000n;
const MIN_PRIORITY = 250n * GWEI;

const token = compileFixture('Token.sol', 'Token');
const abi = token.abi as Abi;
const h = (b: Uint8Array): Hex => `0x${hex(b)}`;
const bytes = (x: Hex): Uint8Array => Uint8Array.from(Buffer.from(x.slice(2), 'hex'));
const fn = (functionName: string, args: unknown[]): Uint8Array => bytes(encodeFunctionData({ abi, functionName, args }));

type Res<T> = CandidResult<T>;
let evm: Evm;
let tokenAddress: Uint8Array;
const aliceNonce = { n: 0n };

function call(f: CallObjectFields, tag: BlockTag = LATEST): { value: Res<Uint8Array>; instructions: bigint } {
  const r = evm.client.queryMeasured('rpc_eth_call_object', [callObject(f), tag]);
  return { value: r.value, instructions: r.instructions! };
}
function estimate(f: CallObjectFields, tag: BlockTag = LATEST): { value: Res<bigint>; instructions: bigint } {
  const r = evm.client.queryMeasured('rpc_eth_estimate_gas_object', [callObject(f), tag]);
  return { value: r.value, instructions: r.instructions! };
}
function ok<T>(r: Res<T>): T {
  if ('Err' in r) throw new Error(`expected Ok, got ${r.Err.code}: ${r.Err.message}`);
  return r.Ok;
}
function revertData(r: Res<unknown>): Hex {
  if (!('Err' in r)) throw new Error('expected a revert');
  expect(r.Err.code).toBe('exec.reverted');
  expect(r.Err.data.length).toBe(1);
  return h(r.Err.data[0]!);
}
const balanceOf = (who: Uint8Array): bigint =>
  decodeFunctionResult({ abi, functionName: 'balanceOf', data: h(ok(call({ to: tokenAddress, data: fn('balanceOf', [h(who)]) }).value)) }) as bigint;

async function mineAll(): Promise<void> {
  for (let i = 0; i < 10 && evm.query<{ pending_txs: bigint }>('health').pending_txs > 0n; i++) await evm.mine();
}

beforeAll(async () => {
  evm = await Evm.start({
    genesis: [ALICE, CAROL, ...TIPPERS].map((a) => ({ address: a.address, balance: 1000n * ETH })),
  });
});
afterAll(() => evm?.close());

describe('fee reads on a fresh chain (genesis only)', () => {
  it('answers the configured minimums, never an error, so wallets do not fall back to 1 or 2.5 gwei', () => {
    expect(evm.blockNumber()).toBe(0n);
    expect(evm.ok<bigint>('rpc_eth_max_priority_fee_per_gas')).toBe(MIN_PRIORITY);
    // next base fee (250 gwei) + max(estimate, min priority) (250 gwei)
    expect(evm.ok<bigint>('rpc_eth_gas_price')).toBe(BASE_FEE + MIN_PRIORITY);
    const fh = evm.ok('rpc_eth_fee_history', 4n, { Latest: null }, [25, 75]);
    expect(fh).toEqual({ oldest_block: 0n, base_fee_per_gas: [BASE_FEE, BASE_FEE], gas_used_ratio: [0], reward: [[0n, 0n]] });
    // pending = latest; more than 256 (or than exist) is clamped; no percentiles: no reward rows.
    expect(evm.ok('rpc_eth_fee_history', 1000n, { Pending: null }, [])).toEqual({
      oldest_block: 0n,
      base_fee_per_gas: [BASE_FEE, BASE_FEE],
      gas_used_ratio: [0],
      reward: [],
    });
    expect(evm.ok('rpc_eth_fee_history', 0n, LATEST, [])).toEqual({ oldest_block: 0n, base_fee_per_gas: [], gas_used_ratio: [], reward: [] });
    expect(errCode(evm.query('rpc_eth_fee_history', 1n, LATEST, [50, 25]))).toBe('arg.invalid.filter');
    expect(errCode(evm.query('rpc_eth_fee_history', 1n, LATEST, [101]))).toBe('arg.invalid.filter');
    expect(errCode(evm.query('rpc_eth_fee_history', 1n, { Number: 5n }, []))).toBe('invalid.block_range.out_of_window');
  });

  it('query methods refuse to run as updates', async () => {
    for (const m of ['rpc_eth_gas_price', 'rpc_eth_max_priority_fee_per_gas'] as const) {
      await expect(evm.client.transport.call('update', m, [])).rejects.toThrow(/query method/);
    }
    await expect(evm.client.transport.call('update', 'rpc_eth_call_object', [callObject({ to: BOB }), LATEST])).rejects.toThrow(/query method/);
  });
});

describe('eth_call and eth_estimateGas against a solc ERC-20', () => {
  beforeAll(async () => {
    const deploy = feeMarketTx(ALICE, {
      nonce: aliceNonce.n++,
      data: bytes(encodeDeployData({ abi, bytecode: token.bytecode, args: ['Test', 'TST', SUPPLY] })),
      gasLimit: 2_000_000n,
      maxFeePerGas: 1000n * GWEI,
      maxPriorityFeePerGas: 250n * GWEI,
    });
    await evm.submit(deploy);
    await evm.mine();
    tokenAddress = createAddress(ALICE.address, 0n);
    expect(evm.ok<Uint8Array>('rpc_eth_get_code', tokenAddress, LATEST).length).toBeGreaterThan(0);
  });

  it('reads balanceOf and simulates a transfer without changing state', () => {
    const r = call({ to: tokenAddress, data: fn('balanceOf', [h(ALICE.address)]) });
    console.log(`eth_call balanceOf: ${r.instructions} instructions`);
    expect(r.instructions < QUERY_LIMIT).toBe(true);
    expect(decodeFunctionResult({ abi, functionName: 'balanceOf', data: h(ok(r.value)) })).toBe(SUPPLY);
    const t = call({ to: tokenAddress, from: ALICE.address, data: fn('transfer', [h(BOB), 5n]) });
    expect(decodeFunctionResult({ abi, functionName: 'transfer', data: h(ok(t.value)) })).toBe(true);
    expect(balanceOf(BOB)).toBe(0n);
    expect(balanceOf(ALICE.address)).toBe(SUPPLY);
    // Every fee form that is consistent runs: legacy gasPrice, EIP-1559 fees, type given explicitly.
    const data = fn('balanceOf', [h(ALICE.address)]);
    for (const f of [
      { gas_price: 600n * GWEI },
      { gas_price: 600n * GWEI, tx_type: 0n },
      { max_fee_per_gas: 1000n * GWEI, max_priority_fee_per_gas: 1n, tx_type: 2n },
      { max_fee_per_gas: 1000n * GWEI, access_list: [{ address: tokenAddress, storage_keys: [word(0n)] }] },
      { chain_id: 4801360n, gas: 100_000n, nonce: 7n, value: 0n },
    ]) {
      expect(decodeFunctionResult({ abi, functionName: 'balanceOf', data: h(ok(call({ to: tokenAddress, from: ALICE.address, data, ...f }).value)) })).toBe(SUPPLY);
    }
  });

  it('returns revert data that viem decodes: a custom error and a reason string', () => {
    const custom = call({ to: tokenAddress, from: CAROL.address, data: fn('transfer', [h(BOB), 5n]) });
    const e1 = decodeErrorResult({ abi, data: revertData(custom.value) });
    expect(e1.errorName).toBe('InsufficientBalance');
    expect(String(e1.args![0]).toLowerCase()).toBe(h(CAROL.address));
    expect(e1.args!.slice(1)).toEqual([0n, 5n]);
    const reason = call({ to: tokenAddress, from: CAROL.address, data: fn('transferFrom', [h(ALICE.address), h(BOB), 1n]) });
    const e2 = decodeErrorResult({ abi, data: revertData(reason.value) });
    expect(e2.errorName).toBe('Error');
    expect(e2.args).toEqual(['allowance exceeded']);
    // A halt that is not a revert (out of gas) is exec.halt and carries no data.
    const oog = call({ to: tokenAddress, from: ALICE.address, data: fn('transfer', [h(BOB), 5n]), gas: 25_000n });
    expect('Err' in oog.value && oog.value.Err.code).toBe('exec.halt');
    expect('Err' in oog.value && oog.value.Err.data).toEqual([]);
  });

  it('runs a raw signed transaction as a call from its recovered sender, without submitting it', () => {
    const nonce = evm.ok<bigint>('rpc_eth_get_transaction_count_at', ALICE.address, LATEST);
    const raw = feeMarketTx(ALICE, { nonce, to: tokenAddress, data: fn('transfer', [h(BOB), 7n]), gasLimit: 100_000n, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI });
    const r = evm.client.queryMeasured('rpc_eth_call_rawtx', [raw.serialize(), []]);
    expect(decodeFunctionResult({ abi, functionName: 'transfer', data: h(ok(r.value)) })).toBe(true);
    console.log(`eth_call raw tx (with sender recovery): ${r.instructions} instructions`);
    expect(balanceOf(BOB)).toBe(0n);
    expect(evm.ok<bigint>('rpc_eth_get_transaction_count_at', ALICE.address, LATEST)).toBe(nonce);
    // The sender is the signer: CAROL holds no tokens, so the same call from her reverts with her address.
    const fromCarol = legacyTx(CAROL, { nonce: 40n, to: tokenAddress, data: fn('transfer', [h(BOB), 7n]), gasLimit: 100_000n, gasPrice: 500n * GWEI });
    const e = decodeErrorResult({ abi, data: revertData(evm.query<Res<Uint8Array>>('rpc_eth_call_rawtx', fromCarol.serialize(), [LATEST])) });
    expect(e.errorName).toBe('InsufficientBalance');
    expect(String(e.args![0]).toLowerCase()).toBe(h(CAROL.address));
    // Format errors as at submit.
    const otherChain = createCustomCommon({ chainId: 1 }, Mainnet, { hardfork: Hardfork.Prague });
    const wrong = createFeeMarket1559Tx({ nonce: 0n, to: BOB, gasLimit: 21000n, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI }, { common: otherChain }).sign(ALICE.key);
    expect(errCode(evm.query('rpc_eth_call_rawtx', wrong.serialize(), []))).toBe('DecodeError::WrongChainId');
    expect(errCode(evm.query('rpc_eth_call_rawtx', Uint8Array.of(1, 2, 3), []))).toBe('DecodeError::Malformed');
    expect(errCode(evm.query('rpc_eth_call_rawtx', Uint8Array.of(3, 0xc0), []))).toBe('DecodeError::UnsupportedType');
    expect(errCode(evm.query('rpc_eth_call_rawtx', raw.serialize(), [{ Earliest: null }]))).toBe('exec.state.unavailable');
  });

  it('rejects inconsistent callObjects and block tags other than the head', () => {
    const data = fn('balanceOf', [h(ALICE.address)]);
    const code = (f: CallObjectFields, tag: BlockTag = LATEST) => errCode(call({ to: tokenAddress, data, ...f }, tag).value);
    expect(code({ gas_price: 500n * GWEI, max_fee_per_gas: 600n * GWEI })).toBe('arg.invalid.fee_params');
    expect(code({ gas_price: 500n * GWEI, max_priority_fee_per_gas: 1n })).toBe('arg.invalid.fee_params');
    expect(code({ max_fee_per_gas: 300n * GWEI, max_priority_fee_per_gas: 301n * GWEI })).toBe('arg.invalid.fee_params');
    expect(code({ chain_id: 1n })).toBe('arg.invalid.chain_id');
    expect(code({ tx_type: 1n })).toBe('arg.invalid.tx_type');
    expect(code({ tx_type: 3n })).toBe('arg.invalid.tx_type');
    expect(code({ tx_type: 0n, max_fee_per_gas: 600n * GWEI })).toBe('arg.invalid.tx_type');
    expect(code({ tx_type: 2n, gas_price: 600n * GWEI })).toBe('arg.invalid.tx_type');
    expect(code({ from: new Uint8Array(32) })).toBe('arg.address_length');
    expect(errCode(call({ to: new Uint8Array(19), data }).value)).toBe('arg.address_length');
    expect(code({ gas: 1n << 64n })).toBe('arg.invalid.call_object');
    expect(code({ value: 1n << 256n })).toBe('arg.invalid.call_object');
    expect(code({ access_list: [{ address: tokenAddress, storage_keys: [new Uint8Array(31)] }] })).toBe('arg.invalid.call_object');
    // A fee below the next base fee cannot run (as a block would refuse it).
    expect(code({ gas_price: 1n })).toBe('submit.invalid_fee');
    const head = evm.blockNumber();
    expect(code({}, { Earliest: null })).toBe('exec.state.unavailable');
    expect(code({}, { Number: head - 1n })).toBe('exec.state.unavailable');
    expect(code({}, { Number: head + 1n })).toBe('invalid.block_range.out_of_window');
    for (const tag of [{ Number: head }, { Pending: null }, { Safe: null }, { Finalized: null }] as BlockTag[]) {
      expect(code({}, tag)).toBeUndefined();
      expect(errCode(estimate({ to: BOB }, tag).value)).toBeUndefined();
    }
    expect(errCode(estimate({ to: BOB }, { Earliest: null }).value)).toBe('exec.state.unavailable');
    expect(errCode(estimate({ to: BOB, chain_id: 5n }).value)).toBe('arg.invalid.chain_id');
  });

  it('eth_getTransactionCount: latest and pending at the head, earliest and past blocks unavailable', async () => {
    const latest = evm.ok<bigint>('rpc_eth_get_transaction_count_at', ALICE.address, LATEST);
    await evm.submit(transfer(ALICE, latest, BOB, 1n));
    expect(evm.ok<bigint>('rpc_eth_get_transaction_count_at', ALICE.address, { Pending: null })).toBe(latest + 1n);
    expect(evm.ok<bigint>('rpc_eth_get_transaction_count_at', ALICE.address, LATEST)).toBe(latest);
    const head = evm.blockNumber();
    expect(errCode(evm.query('rpc_eth_get_transaction_count_at', ALICE.address, { Earliest: null }))).toBe('exec.state.unavailable');
    expect(errCode(evm.query('rpc_eth_get_transaction_count_at', ALICE.address, { Number: 0n }))).toBe('exec.state.unavailable');
    expect(errCode(evm.query('rpc_eth_get_transaction_count_at', ALICE.address, { Number: head + 1n }))).toBe('invalid.block_range.out_of_window');
    await mineAll();
    aliceNonce.n = latest + 1n;
    expect(evm.ok<bigint>('rpc_eth_get_transaction_count_at', ALICE.address, LATEST)).toBe(latest + 1n);
  });

  it('estimates the minimum gas that succeeds: gas - 1 fails, a transaction sent with it succeeds', async () => {
    expect(ok(estimate({ from: ALICE.address, to: BOB, value: 1n }).value)).toBe(21000n);
    const data = fn('transfer', [h(CAROL.address), 1000n * ETH]);
    const r = estimate({ from: ALICE.address, to: tokenAddress, data });
    const gas = ok(r.value);
    console.log(`eth_estimateGas ERC-20 transfer: ${gas} gas, ${r.instructions} instructions`);
    expect(r.instructions < QUERY_LIMIT).toBe(true);
    expect('Ok' in call({ from: ALICE.address, to: tokenAddress, data, gas }).value).toBe(true);
    expect(errCode(call({ from: ALICE.address, to: tokenAddress, data, gas: gas - 1n }).value)).toBe('exec.halt');
    const tx = feeMarketTx(ALICE, { nonce: aliceNonce.n++, to: tokenAddress, data, gasLimit: gas, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI });
    const id = await evm.submit(tx);
    await mineAll();
    expect(evm.receipt(id)).toMatchObject({ status: 1, gas_used: gas });
    expect(balanceOf(CAROL.address)).toBe(1000n * ETH);
  });

  it('answers more than gas_used when a refund lowers gas_used (clearing a balance slot)', async () => {
    // CAROL sends her whole balance: her slot goes to zero (SSTORE refund), so gas_used < the gas needed.
    const data = fn('transfer', [h(BOB), 1000n * ETH]);
    const gas = ok(estimate({ from: CAROL.address, to: tokenAddress, data }).value);
    expect(errCode(call({ from: CAROL.address, to: tokenAddress, data, gas: gas - 1n }).value)).toBe('exec.halt');
    const id = await evm.submit(feeMarketTx(CAROL, { nonce: 0n, to: tokenAddress, data, gasLimit: gas, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI }));
    await mineAll();
    const receipt = evm.receipt(id)!;
    expect(receipt.status).toBe(1);
    expect(receipt.gas_used < gas).toBe(true);
    console.log(`estimate ${gas} gas for a transfer whose receipt says gas_used ${receipt.gas_used}`);
    expect(balanceOf(BOB)).toBe(1000n * ETH);
  });

  it('a call that fails at every gas returns its execution error with the revert data', () => {
    const r = estimate({ from: CAROL.address, to: tokenAddress, data: fn('transfer', [h(ALICE.address), 1n]) });
    const e = decodeErrorResult({ abi, data: revertData(r.value) });
    expect(e.errorName).toBe('InsufficientBalance');
    expect(e.args!.slice(1)).toEqual([0n, 1n]);
    // Intrinsic gas above the given gas cap.
    expect(errCode(estimate({ to: BOB, gas: 20_000n }).value)).toBe('submit.intrinsic_gas_too_low');
  });

  it('stays inside one query: a call too heavy for the budget, and a search that cannot finish, are clear errors', async () => {
    // A loop heavy per gas whether compiled or not (a fresh keccak block an iteration), so only the budget stops it.
    await evm.submit(feeMarketTx(ALICE, { nonce: aliceNonce.n++, data: KECCAK_LOOP_INIT, gasLimit: 300_000n, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI }));
    const loopAt = createAddress(ALICE.address, aliceNonce.n - 1n);
    await evm.submit(feeMarketTx(ALICE, { nonce: aliceNonce.n++, data: deployCode(COUNT_LOOP_RUNTIME), gasLimit: 300_000n, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI }));
    const countAt = createAddress(ALICE.address, aliceNonce.n - 1n);
    await evm.submit(feeMarketTx(ALICE, { nonce: aliceNonce.n++, data: deployCode(COUNT_LOOP_GAS_RUNTIME), gasLimit: 300_000n, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI }));
    const countGasAt = createAddress(ALICE.address, aliceNonce.n - 1n);
    await mineAll();
    const heavy = estimate({ to: loopAt });
    expect(errCode(heavy.value)).toBe('exec.halt.instruction_budget');
    expect(heavy.instructions < QUERY_LIMIT).toBe(true);
    const heavyCall = call({ to: loopAt });
    expect(errCode(heavyCall.value)).toBe('exec.halt.instruction_budget');
    // A loop whose single run costs about half of the budget: the call answers, but after the run at the cap
    // there is no room for a second run, so a search that needs one (the loop that reads GAS) stops with its own
    // error instead of trapping. The loop without GAS is answered after its one run (the one-run answer).
    // Per-iteration cost from two lengths, so the fixed cost of a call cancels out.
    const one = call({ to: countAt, data: word(100n) });
    const two = call({ to: countAt, data: word(200n) });
    expect('Ok' in one.value && 'Ok' in two.value).toBe(true);
    const perIteration = (two.instructions - one.instructions) / 100n;
    const fixed = one.instructions - 100n * perIteration;
    const n = (2_400_000_000n - fixed) / perIteration;
    const big = call({ to: countAt, data: word(n) });
    expect('Ok' in big.value).toBe(true);
    console.log(`count loop: ${perIteration} instructions/iteration; ${n} iterations: call ${big.instructions} instructions`);
    const search = estimate({ to: countGasAt, data: word(n) });
    expect(errCode(search.value)).toBe('exec.estimate.instruction_budget');
    expect(search.instructions < QUERY_LIMIT).toBe(true);
    const oneRun = estimate({ to: countAt, data: word(n) });
    expect(oneRun.instructions < QUERY_LIMIT).toBe(true);
    const answer = ok(oneRun.value);
    expect('Ok' in call({ to: countAt, data: word(n), gas: answer }).value).toBe(true);
    expect(errCode(call({ to: countAt, data: word(n), gas: answer - 1n }).value)).toBe('exec.halt');
    // A small loop estimates fine, and the answer is exact.
    const mid = estimate({ to: countAt, data: word(n / 2n) });
    expect('Ok' in mid.value).toBe(true);
    console.log(`estimate of the ${n / 2n}-iteration loop: ${mid.instructions} instructions (one run: the one-run answer)`);
    const small = ok(estimate({ to: countAt, data: word(50n) }).value);
    expect('Ok' in call({ to: countAt, data: word(50n), gas: small }).value).toBe(true);
    expect(errCode(call({ to: countAt, data: word(50n), gas: small - 1n }).value)).toBe('exec.halt');
  });
});

/** Ethereum's (geth's) reward percentiles, from receipts: sorted by tip, weighted by gas used. */
function rewards(txs: { tip: bigint; gas: bigint }[], blockGas: bigint, percentiles: number[]): bigint[] {
  if (txs.length === 0) return percentiles.map(() => 0n);
  const s = [...txs].sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0));
  let i = 0;
  let sum = s[0]!.gas;
  return percentiles.map((p) => {
    const threshold = BigInt(Math.floor((Number(blockGas) * p) / 100));
    while (sum < threshold && i < s.length - 1) sum += s[++i]!.gas;
    return s[i]!.tip;
  });
}

describe('fee reads after busy blocks', () => {
  it('fee history and the priority-fee estimate follow the observed tips', async () => {
    const first = evm.blockNumber() + 1n;
    // Three blocks; tips differ per sender, and one tx is capped by its max fee (effective tip below priority).
    const plans = [
      [300n, 400n, 500n, 900n],
      [260n, 260n, 700n],
      [1000n, 1200n],
    ];
    const nonces = new Map<number, bigint>();
    for (const tips of plans) {
      for (const [i, tip] of tips.entries()) {
        const a = TIPPERS[i]!;
        const nonce = nonces.get(i) ?? 0n;
        nonces.set(i, nonce + 1n);
        // Sender 1's max fee is the base fee + 10 gwei: its effective tip is 10 gwei, below its priority fee.
        const capped = i === 1;
        const maxFee = capped ? BASE_FEE + 10n * GWEI : 5000n * GWEI;
        const priority = capped ? maxFee : tip * GWEI;
        await evm.submit(feeMarketTx(a, { nonce, to: BOB, value: 1n, gasLimit: 21000n + BigInt(i) * 1000n, maxFeePerGas: maxFee, maxPriorityFeePerGas: priority }));
      }
      await evm.mine();
    }
    const last = evm.blockNumber();
    expect(last).toBe(first + 2n);
    const percentiles = [0, 10, 50, 90, 100];
    const fh = evm.ok<{ oldest_block: bigint; base_fee_per_gas: bigint[]; gas_used_ratio: number[]; reward: bigint[][] }>(
      'rpc_eth_fee_history', 3n, LATEST, percentiles,
    );
    expect(fh.oldest_block).toBe(first);
    const minima: bigint[] = [];
    for (let n = first; n <= last; n++) {
      const b = evm.block(n, true)!;
      const txs = (b.transactions as { Full: { tx_id: Uint8Array }[] }).Full.map((t) => {
        const r = evm.receipt(t.tx_id)!;
        return { tip: r.effective_gas_price - b.base_fee_per_gas, gas: r.gas_used };
      });
      const i = Number(n - first);
      expect(fh.base_fee_per_gas[i]).toBe(b.base_fee_per_gas);
      expect(fh.gas_used_ratio[i]).toBeCloseTo(Number(b.gas_used) / Number(b.gas_limit), 12);
      expect(fh.reward[i]).toEqual(rewards(txs, b.gas_used, percentiles));
      minima.push(txs.reduce((m, t) => (t.tip < m ? t.tip : m), txs[0]!.tip));
    }
    // The last entry is the next block's base fee.
    const next = fh.base_fee_per_gas[3]!;
    expect(fh.base_fee_per_gas.length).toBe(4);
    expect(fh.reward.length).toBe(3);

    // Priority fee: 60th percentile (nearest rank) of each recent block's lowest tip, at least the minimum.
    const all: bigint[] = [];
    for (let n = last; n >= 1n && all.length < 20; n--) {
      const b = evm.block(n, true)!;
      const tips = (b.transactions as { Full: { tx_id: Uint8Array }[] }).Full.map((t) => evm.receipt(t.tx_id)!.effective_gas_price - b.base_fee_per_gas);
      all.push(tips.reduce((m, t) => (t < m ? t : m)));
    }
    all.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const p60 = all[Math.floor(((all.length - 1) * 60) / 100)]!;
    const expected = p60 > MIN_PRIORITY ? p60 : MIN_PRIORITY;
    expect(evm.ok<bigint>('rpc_eth_max_priority_fee_per_gas')).toBe(expected);
    expect(evm.ok<bigint>('rpc_eth_gas_price')).toBe(next + expected);
    expect(minima.length).toBe(3);

    // A window that ends in the past: its last base fee is the following block's.
    const past = evm.ok<{ oldest_block: bigint; base_fee_per_gas: bigint[] }>('rpc_eth_fee_history', 2n, { Number: first }, [50]);
    expect(past.oldest_block).toBe(first - 1n);
    expect(past.base_fee_per_gas[2]).toBe(evm.block(first + 1n)!.base_fee_per_gas);

    // The base fee the history announced for the next block is the one the next block uses.
    await evm.submit(transfer(ALICE, aliceNonce.n++, BOB, 1n));
    await evm.mine();
    expect(evm.block(last + 1n)!.base_fee_per_gas).toBe(next);

    // The full window: 256 blocks at most, a 5 B query with room to spare.
    const r = evm.client.queryMeasured('rpc_eth_fee_history', [256n, LATEST, [10, 20, 30, 40, 50, 60, 70, 80, 90]]);
    expect(r.instructions! < QUERY_LIMIT).toBe(true);
  });
});
