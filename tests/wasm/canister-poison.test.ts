// The poison test (DESIGN rule 5) through the real wasm: transactions that spend their gas as slowly as
// possible in instructions (a JUMPDEST sled, a KECCAK256 loop, BLAKE2F, BLS12 G2ADD and KZG point
// evaluations in loops, each with the maximum gas), submitted together with ordinary transfers. No timer
// message may trap, mining must go on, the transfers must be mined, and each heavy transaction gets the
// documented receipt of src/core/evm/engine.ts: included, status 0, exec.halt.instruction_budget, all gas
// charged, effects undone, nonce bumped, the same whether it runs alone in a block or after others.
import { createEvmEngine } from '../../src/core/evm/index.js';
import { MemoryCoreHost } from '../../src/core/host.js';
import type { MessageStats } from '../../src/host/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BLAKE2F_LOOP_INIT,
  FIELD_ELEMENTS_PER_BLOB,
  G2ADD_EXPECTED,
  G2ADD_LOOP_INIT,
  JUMPDEST_LOOP_INIT,
  KECCAK_LOOP_INIT,
  KZG_LOOP_INIT,
  RECURSE_INIT,
  UNBOUNDED,
} from '../fixtures/contracts/index.js';
import { word } from '../support/asm.js';
import { Evm, LATEST, type Receipt } from '../support/canister.js';
import { ETH, GWEI, account, feeMarketTx, hex, plainAddress, transfer, type Account } from '../support/eth.js';

const IC_MESSAGE_LIMIT = 40_000_000_000n;
const HEAVY_GAS = 2_900_000n;
const FEE = { maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI };
const PRICE = 500n * GWEI; // min(1000, 250 + 250) gwei
const DEPLOYER = account(1);
/** How a maximum-gas heavy loop may end: the instruction budget, or out of gas (exec.halt) when it is cheap per gas. */
const HALTS_OF_A_HEAVY_LOOP = [['exec.halt.instruction_budget'], ['exec.halt']];
const HEAVY = ['JUMPDEST loop', 'KECCAK256 loop', 'BLAKE2F loop', 'BLS12 G2ADD loop', 'KZG loop'] as const;
const INITS = [JUMPDEST_LOOP_INIT, KECCAK_LOOP_INIT, BLAKE2F_LOOP_INIT, G2ADD_LOOP_INIT, KZG_LOOP_INIT];
// One sender per heavy contract and per transfer, so no nonce order ties them together.
const HEAVY_SENDERS = HEAVY.map((_, i) => account(10 + i));
const TRANSFER_SENDERS = HEAVY.map((_, i) => account(20 + i));
// Senders of a block of 160 transfers (20 each, under the per-sender pending limit of 64): about 2.8 B
// instructions (measured 17.6 M a transfer), close to the 4 B soft limit with room for cost drift.
const FILL_SENDERS = Array.from({ length: 8 }, (_, i) => account(30 + i));
const FILL_PER_SENDER = 20;
const GENESIS = 100n * ETH;

let evm: Evm;
let contracts: Uint8Array[];
const nonces = new Map<Account, bigint>();
const nextNonce = (a: Account): bigint => {
  const n = nonces.get(a) ?? 0n;
  nonces.set(a, n + 1n);
  return n;
};

/** Timer messages of one mining round, for the report. */
function describeRound(ms: MessageStats[]): string {
  return ms.map((m) => `${m.kind}:${m.method.replace('canister_update <ic-cdk internal> ', '')}=${m.instructions}`).join(' ');
}

/** Every message of a mining round stayed within the IC's limit and did not trap (mine() checks traps). */
function expectWithinLimits(ms: MessageStats[]): void {
  for (const m of ms) {
    expect(m.trapped).toBe(false);
    expect(m.instructions!).toBeLessThan(IC_MESSAGE_LIMIT);
  }
}

const storageWord = (a: Uint8Array, slot: bigint): string => hex(evm.ok<Uint8Array>('rpc_eth_get_storage_at', a, word(slot), LATEST));

beforeAll(async () => {
  // A 30 M block gas limit, so gas would let all heavy transactions into one block: only the instruction
  // soft limit (default 4 B) and the per-transaction budget decide.
  evm = await Evm.start({
    genesis: [DEPLOYER, ...HEAVY_SENDERS, ...TRANSFER_SENDERS, ...FILL_SENDERS].map((a) => ({ address: a.address, balance: GENESIS })),
    blockGasLimit: 30_000_000n,
  });
  const ids: Uint8Array[] = [];
  for (const init of INITS) ids.push(await evm.submit(feeMarketTx(DEPLOYER, { nonce: nextNonce(DEPLOYER), data: init, gasLimit: 1_000_000n, ...FEE })));
  await evm.mine();
  contracts = ids.map((id) => {
    const r = evm.receipt(id);
    if (r?.status !== 1) throw new Error('fixture deployment failed');
    return r.contract_address[0]!;
  });
});
afterAll(() => evm?.close());

describe('evm canister: heavy transactions cannot stop block production', () => {
  it('the precompile loops work on their valid inputs: bounded runs complete with the right answers', async () => {
    const [, , blake, g2add, kzg] = contracts as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array];
    const runs = [
      [blake, 3n],
      [g2add, 2n],
      [kzg, 2n],
    ] as const;
    const ids: Uint8Array[] = [];
    for (const [to, count] of runs) ids.push(await evm.submit(feeMarketTx(DEPLOYER, { nonce: nextNonce(DEPLOYER), to, data: word(count), gasLimit: HEAVY_GAS, ...FEE })));
    const round = await evm.mine();
    console.log(`bounded precompile runs (3 BLAKE2F, 2 G2ADD, 2 KZG) in one block: ${describeRound(round)}`);
    expectWithinLimits(round);
    for (const id of ids) expect(evm.receipt(id)).toMatchObject({ status: 1, failure_code: [] });
    // storage[1] = calls made, storage[0] = first word of the last output.
    expect(storageWord(blake, 1n)).toBe(hex(word(3n)));
    expect(storageWord(blake, 0n)).not.toBe(hex(word(0n)));
    expect(storageWord(g2add, 1n)).toBe(hex(word(2n)));
    expect(storageWord(g2add, 0n)).toBe(hex(G2ADD_EXPECTED.subarray(0, 32)));
    expect(storageWord(kzg, 1n)).toBe(hex(word(2n)));
    expect(storageWord(kzg, 0n)).toBe(hex(word(FIELD_ELEMENTS_PER_BLOB)));
  });

  const mixed: Receipt[] = [];

  it('the poison round: maximum-gas heavy transactions submitted with transfers; no trap, progress, documented receipts', async () => {
    const recipients = TRANSFER_SENDERS.map((_, i) => plainAddress(0x40 + i));
    const transferIds: Uint8Array[] = [];
    const heavyIds: Uint8Array[] = [];
    // Interleaved arrival (equal tips): transfer, heavy, transfer, heavy, ...
    for (let i = 0; i < HEAVY.length; i++) {
      transferIds.push(await evm.submit(transfer(TRANSFER_SENDERS[i]!, nextNonce(TRANSFER_SENDERS[i]!), recipients[i]!, 1000n + BigInt(i))));
      const h = HEAVY_SENDERS[i]!;
      heavyIds.push(await evm.submit(feeMarketTx(h, { nonce: nextNonce(h), to: contracts[i]!, data: UNBOUNDED, gasLimit: HEAVY_GAS, ...FEE })));
    }
    const all = [...transferIds, ...heavyIds];
    for (const id of all) expect(evm.pending(id)).toEqual({ Queued: null });

    const rounds: string[] = [];
    let head = evm.blockNumber();
    for (let round = 0; all.some((id) => 'Queued' in evm.pending(id)); round++) {
      expect(round).toBeLessThan(HEAVY.length); // at least one heavy transaction per block: progress
      const ms = await evm.mine();
      expectWithinLimits(ms);
      // Every round makes a block while transactions are queued.
      expect(evm.blockNumber()).toBe(head + 1n);
      head += 1n;
      const b = evm.block(head)!;
      const hashes = 'Hashes' in b.transactions ? b.transactions.Hashes.map(hex) : [];
      const heavyHere = heavyIds.filter((id) => hashes.includes(hex(evm.receipt(id)?.transaction_hash ?? new Uint8Array(0))));
      // The soft limit stops a block after a transaction that used a whole budget: at most one per block, and it
      // is the block's last. A loop that runs out of gas first (the JUMPDEST loop once its code is compiled) used
      // less and may share a block.
      const budgetHalted = heavyHere.filter((id) => evm.receipt(id)!.failure_code[0] === 'exec.halt.instruction_budget');
      expect(budgetHalted.length).toBeLessThanOrEqual(1);
      for (const id of budgetHalted) expect(hex(evm.receipt(id)!.transaction_hash)).toBe(hashes[hashes.length - 1]);
      rounds.push(`block ${head}: ${hashes.length} txs, gas ${b.gas_used}; ${describeRound(ms)}`);
    }
    console.log(`poison round:\n  ${rounds.join('\n  ')}`);

    for (const [i, id] of transferIds.entries()) {
      expect(evm.receipt(id)).toMatchObject({ status: 1, gas_used: 21000n });
      expect(evm.balance(recipients[i]!)).toBe(1000n + BigInt(i));
    }
    for (const [i, id] of heavyIds.entries()) {
      const r = evm.receipt(id)!;
      // Each loop ends halted with all its gas charged: by the per-transaction instruction budget, or, for a loop
      // that runs for fewer instructions per gas than the budget allows at this gas limit (the JUMPDEST loop,
      // compiled once its deployment's block has passed: one run an iteration), by running out of gas.
      expect(HALTS_OF_A_HEAVY_LOOP, HEAVY[i]).toContainEqual(r.failure_code);
      expect(r, HEAVY[i]).toMatchObject({
        status: 0,
        gas_used: HEAVY_GAS,
        effective_gas_price: PRICE,
        logs: [],
        contract_address: [],
      });
      expect(hex(r.logs_bloom)).toBe(hex(new Uint8Array(256)));
      mixed.push(r);
      // All gas charged, nonce bumped, no state change in the contract (storage writes undone).
      const h = HEAVY_SENDERS[i]!;
      expect(evm.balance(h.address)).toBe(GENESIS - HEAVY_GAS * PRICE);
      expect(evm.ok('expected_nonce_by_address', h.address)).toBe(1n);
    }
    expect(storageWord(contracts[4]!, 1n)).toBe(hex(word(2n))); // still the bounded run's count
  });

  it('determinism: each heavy transaction alone in a block gets the same receipt as in the poison round', async () => {
    expect(mixed).toHaveLength(HEAVY.length);
    const lines: string[] = [];
    for (let i = 0; i < HEAVY.length; i++) {
      const h = HEAVY_SENDERS[i]!;
      const id = await evm.submit(feeMarketTx(h, { nonce: nextNonce(h), to: contracts[i]!, data: UNBOUNDED, gasLimit: HEAVY_GAS, ...FEE }));
      const ms = await evm.mine();
      expectWithinLimits(ms);
      const r = evm.receipt(id)!;
      expect(r.transaction_index).toBe(0);
      const b = evm.block(r.block_number)!;
      expect('Hashes' in b.transactions && b.transactions.Hashes.length).toBe(1);
      const outcome = (x: Receipt) => [x.status, x.gas_used, x.failure_code, x.logs.length, hex(x.logs_bloom), x.effective_gas_price];
      expect(outcome(r), HEAVY[i]).toEqual(outcome(mixed[i]!));
      lines.push(`${HEAVY[i]} alone: ${describeRound(ms)}`);
    }
    console.log(`heavy transactions alone:\n  ${lines.join('\n  ')}`);
  });

  it('worst case for a timer message: a heavy transaction that starts near the soft limit, after 160 transfers', async () => {
    const fill: Uint8Array[] = [];
    for (let k = 0; k < FILL_PER_SENDER; k++) {
      for (const f of FILL_SENDERS) fill.push(await evm.submit(transfer(f, nextNonce(f), plainAddress(0x60), 1n)));
    }
    // Equal tips: arrival order, so the heavy transaction (submitted last) runs after every transfer.
    const h = HEAVY_SENDERS[1]!; // the KECCAK256 loop
    const heavy = await evm.submit(feeMarketTx(h, { nonce: nextNonce(h), to: contracts[1]!, data: UNBOUNDED, gasLimit: HEAVY_GAS, ...FEE }));
    const head = evm.blockNumber();
    const ms = await evm.mine();
    expectWithinLimits(ms);
    const b = evm.block(head + 1n)!;
    const count = 'Hashes' in b.transactions ? b.transactions.Hashes.length : 0;
    console.log(`block of ${count} txs (${fill.length} transfers, then the KECCAK256 loop): ${describeRound(ms)}`);
    // Everything fit under the soft limit before the heavy one started: one block, the heavy one last.
    expect(count).toBe(fill.length + 1);
    const r = evm.receipt(heavy)!;
    expect(r.transaction_index).toBe(fill.length);
    const outcome = (x: Receipt) => [x.status, x.gas_used, x.failure_code, x.logs.length, x.effective_gas_price];
    expect(outcome(r)).toEqual(outcome(mixed[1]!));
    for (const id of fill) expect(evm.receipt(id)).toMatchObject({ status: 1, gas_used: 21000n });
    expect(evm.balance(plainAddress(0x60))).toBe(BigInt(fill.length));
  });

  it('deep CALL recursion (hundreds of frames, 29 M gas) runs in the canister exactly as the same engine in Node', async () => {
    const gas = 29_000_000n;
    const create = await evm.submit(feeMarketTx(DEPLOYER, { nonce: nextNonce(DEPLOYER), data: RECURSE_INIT, gasLimit: 200_000n, ...FEE }));
    await evm.mine();
    const target = evm.receipt(create)!.contract_address[0]!;
    const h = HEAVY_SENDERS[0]!;
    const id = await evm.submit(feeMarketTx(h, { nonce: nextNonce(h), to: target, gasLimit: gas, ...FEE }));
    const ms = await evm.mine();
    expectWithinLimits(ms);
    const r = evm.receipt(id)!;
    const depth = BigInt('0x' + storageWord(target, 0n));
    console.log(`recursion: depth ${depth}, gas ${r.gas_used}; ${describeRound(ms)}`);

    // Reference: the engine under Node (no wasm stack, no QuickJS), same transaction on a fresh chain.
    const engine = await createEvmEngine({ host: new MemoryCoreHost() });
    engine.setGenesisBalance(h.address, GENESIS);
    engine.beginBlock({ number: 1n, timestamp: 1n, baseFeePerGas: 250n * GWEI, gasLimit: 30_000_000n, coinbase: new Uint8Array(20), prevRandao: new Uint8Array(32), parentHash: new Uint8Array(32) });
    const base = { type: 2 as const, from: h.address, value: 0n, accessList: [], maxFeePerGas: FEE.maxFeePerGas, maxPriorityFeePerGas: FEE.maxPriorityFeePerGas };
    const c = await engine.runTx({ ...base, nonce: 0n, to: undefined, data: RECURSE_INIT, gasLimit: 200_000n });
    if (c.kind !== 'included' || c.contractAddress === undefined) throw new Error('reference deployment failed');
    const o = await engine.runTx({ ...base, nonce: 1n, to: c.contractAddress, data: new Uint8Array(0), gasLimit: gas });
    if (o.kind !== 'included') throw new Error(`reference run rejected: ${o.code}`);
    await engine.commitBlock();
    const refDepth = BigInt('0x' + hex(engine.getStorage(c.contractAddress, word(0n))));
    expect(depth).toBeGreaterThan(400n);
    expect([r.status, r.gas_used, depth]).toEqual([o.status, o.gasUsed, refDepth]);
  });
});
