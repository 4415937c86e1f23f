// Canister execution costs, measured with the host's instruction counter on the real (instrumented) wasm.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { encodeDeployData, encodeFunctionData, type Abi } from 'viem';
import { DEFAULT_INSTRUCTION_SOFT_LIMIT, TX_INSTRUCTION_BUDGET } from '../src/core/constants.js';
import { compileFixture } from '../tests/fixtures/solidity/compile.js';
import { account, BenchChain, deployCode, median, signTx, u256, type Account } from './support.js';
import { fromHex } from '../src/gateway/hex.js';
import { selfAuthenticating } from '../tests/support/ic.js';

export type Report = (name: string, value: number | bigint, unit: string) => void;

const addrHex = (a: Uint8Array): `0x${string}` => `0x${Buffer.from(a).toString('hex')}`;

/**
 * Loop of cheap opcodes, iterations from calldata word 0:
 * PUSH1 0 CALLDATALOAD; loop: JUMPDEST PUSH1 1 SWAP1 SUB DUP1 PUSH1 3 JUMPI; STOP — 7 steps, 26 gas an iteration.
 */
export const CHEAP_LOOP = Uint8Array.from([0x60, 0x00, 0x35, 0x5b, 0x60, 0x01, 0x90, 0x03, 0x80, 0x60, 0x03, 0x57, 0x00]);
export const CHEAP_LOOP_STEPS = 7n;
/** Same loop with 32 extra JUMPDESTs (1 gas each): the interpreter's worst instructions-per-gas case. */
export const JUMPDEST_LOOP = Uint8Array.from([0x60, 0x00, 0x35, 0x5b, ...new Array(32).fill(0x5b), 0x60, 0x01, 0x90, 0x03, 0x80, 0x60, 0x03, 0x57, 0x00]);
export const JUMPDEST_LOOP_GAS_PER_ITERATION = 26n + 32n;

/** A loop of calldata's word iterations, each hashing the first `len` bytes of memory (KECCAK256 then POP). */
export const keccakLoop = (len: number): Uint8Array =>
  Uint8Array.from([0x60, 0x00, 0x35, 0x5b, 0x61, len >> 8, len & 0xff, 0x60, 0x00, 0x20, 0x50, 0x60, 0x01, 0x90, 0x03, 0x80, 0x60, 0x03, 0x57, 0x00]);
const KECCAK_LOOP_N = 50n;

/** Deploys a loop program (CHEAP_LOOP, JUMPDEST_LOOP) from `from` in a block of its own; returns its address. */
export async function deployLoop(chain: BenchChain, from: Account, runtime: Uint8Array): Promise<Uint8Array> {
  const deploy = signTx(from, { data: deployCode(runtime), gasLimit: 200_000n });
  await chain.submit(deploy);
  await chain.mine();
  return chain.receipt(keccak_256(deploy)).contract_address[0]!;
}

/** The transaction that runs a deployed loop program `n` times. */
export const loopTx = (from: Account, at: Uint8Array, n: bigint): Uint8Array => signTx(from, { to: at, data: u256(n), gasLimit: 2_900_000n });

export async function benchEvm(report: Report): Promise<void> {
  const senders: Account[] = Array.from({ length: 9 }, (_, i) => account(i));
  const chain = await BenchChain.start({ accounts: senders });
  try {
    const sink = account(1000).address;

    // Submit: one signed value transfer. As the gateway sends it (with the sender's key as a hint): the
    // sender's first submit (recovers, remembers the key), its second (builds the key's verification
    // tables, then verifies), the median of later ones (verify only); and as a direct Candid caller sends
    // it, without a hint (recovers every time).
    const transfer = (from: Account): Uint8Array => signTx(from, { to: sink, value: 1n, gasLimit: 21000n });
    report('submit_raw.transfer.first_with_key.instructions', (await chain.submit(transfer(senders[0]!))).instructions, 'instructions');
    report('submit_raw.transfer.second_with_key.instructions', (await chain.submit(transfer(senders[0]!))).instructions, 'instructions');
    const submits: bigint[] = [];
    for (let i = 0; i < 5; i++) submits.push((await chain.submit(transfer(senders[0]!))).instructions);
    report('submit_raw.transfer.instructions', median(submits), 'instructions');
    const unhinted: bigint[] = [];
    for (let i = 0; i < 5; i++) unhinted.push((await chain.submit(transfer(senders[1]!), { withKey: false })).instructions);
    report('submit_raw.transfer.without_key.instructions', median(unhinted), 'instructions');
    // The same from a named caller principal, which the canister remembers the key of (docs/execution.md
    // "Sender key hints"): two submits recover, the third builds the key's tables and verifies, later ones
    // verify; then a miss: the caller sends another sender's transaction (verification fails, then recovery).
    const named = selfAuthenticating(0x29);
    const byCaller = async (from: Account): Promise<bigint> => (await chain.submit(transfer(from), { withKey: false, caller: named })).instructions;
    await byCaller(senders[2]!);
    await byCaller(senders[2]!);
    report('submit_raw.transfer.named_caller.tables.instructions', await byCaller(senders[2]!), 'instructions');
    const byNamed: bigint[] = [];
    for (let i = 0; i < 5; i++) byNamed.push(await byCaller(senders[2]!));
    report('submit_raw.transfer.named_caller.instructions', median(byNamed), 'instructions');
    report('submit_raw.transfer.named_caller.miss.instructions', await byCaller(senders[1]!), 'instructions');
    await chain.mine();

    // A full 3,000,000-gas block of value transfers (142 of 21000 gas), from three senders.
    for (let i = 0; i < 150; i++) await chain.submit(signTx(senders[i % 3]!, { to: sink, value: 1n, gasLimit: 21000n }));
    const full = await chain.mine();
    report('block.transfer.txs', full.txCount, 'transactions');
    report('block.transfer.instructions', full.instructions, 'instructions');
    const perTransfer = full.instructions / BigInt(full.txCount);
    report('block.transfer.instructions_per_tx', perTransfer, 'instructions');
    report('block.transfers_per_4b', DEFAULT_INSTRUCTION_SOFT_LIMIT / perTransfer, 'transactions');
    while (chain.evm.querySync('health', []).pending_txs > 0n) await chain.mine();

    // A block's cost beyond its transactions (timer entry, block header, roots, receipts index, commit): a
    // one-transfer block minus the marginal cost of a transfer from the full block above.
    await chain.submit(signTx(senders[0]!, { to: sink, value: 1n, gasLimit: 21000n }));
    const one = await chain.mine();
    if (one.txCount !== 1) throw new Error(`expected a one-transaction block, got ${one.txCount}`);
    const marginal = (full.instructions - one.instructions) / BigInt(full.txCount - 1);
    report('block.fixed.instructions', one.instructions - marginal, 'instructions');

    // ERC-20: deploy, spread tokens to three holders, then a block of token transfers.
    const token = compileFixture('Token.sol', 'Token');
    const abi = token.abi as Abi;
    const deployer = senders[3]!;
    const deployData = fromHex(encodeDeployData({ abi, bytecode: token.bytecode, args: ['Bench', 'BNCH', 10n ** 30n] }));
    const deployRaw = signTx(deployer, { data: deployData, gasLimit: 2_000_000n });
    await chain.submit(deployRaw);
    await chain.mine();
    const tokenAddress = chain.receipt(keccak_256(deployRaw)).contract_address[0]!;
    const holders = [senders[3]!, senders[4]!, senders[5]!];
    for (const h of holders.slice(1)) {
      const data = fromHex(encodeFunctionData({ abi, functionName: 'transfer', args: [addrHex(h.address), 10n ** 27n] }));
      await chain.submit(signTx(deployer, { to: tokenAddress, data, gasLimit: 100_000n }));
    }
    await chain.mine();
    for (let i = 0; i < 90; i++) {
      const to = account(2000 + i).address;
      const data = fromHex(encodeFunctionData({ abi, functionName: 'transfer', args: [addrHex(to), 1000n] }));
      await chain.submit(signTx(holders[i % 3]!, { to: tokenAddress, data, gasLimit: 60_000n }));
    }
    const erc20 = await chain.mine();
    report('block.erc20_transfer.txs', erc20.txCount, 'transactions');
    report('block.erc20_transfer.instructions_per_tx', erc20.instructions / BigInt(erc20.txCount), 'instructions');
    while (chain.evm.querySync('health', []).pending_txs > 0n) await chain.mine();

    // Uniswap V2-style swaps through a router (transferFrom into the pair, swap, two token transfers, reserves
    // and cumulative prices updated, four events), from three traders, in one block.
    const pairC = compileFixture('Pair.sol', 'Pair');
    const routerC = compileFixture('Pair.sol', 'Router');
    const deployToken = async (sym: string): Promise<Uint8Array> => {
      const raw = signTx(deployer, { data: fromHex(encodeDeployData({ abi, bytecode: token.bytecode, args: [sym, sym, 10n ** 30n] })), gasLimit: 2_000_000n });
      await chain.submit(raw);
      await chain.mine();
      return chain.receipt(keccak_256(raw)).contract_address[0]!;
    };
    const tokenA = await deployToken('TKA');
    const tokenB = await deployToken('TKB');
    const [t0, t1] = Buffer.compare(Buffer.from(tokenA), Buffer.from(tokenB)) < 0 ? [tokenA, tokenB] : [tokenB, tokenA];
    const pairDeploy = signTx(deployer, {
      data: fromHex(encodeDeployData({ abi: pairC.abi as Abi, bytecode: pairC.bytecode, args: [addrHex(t0), addrHex(t1)] })),
      gasLimit: 2_000_000n,
    });
    const routerDeploy = signTx(deployer, { data: fromHex(routerC.bytecode), gasLimit: 2_000_000n });
    await chain.submit(pairDeploy);
    await chain.submit(routerDeploy);
    await chain.mine();
    const pair = chain.receipt(keccak_256(pairDeploy)).contract_address[0]!;
    const router = chain.receipt(keccak_256(routerDeploy)).contract_address[0]!;
    const call = async (from: Account, to: Uint8Array, a: Abi, functionName: string, args: unknown[]): Promise<void> => {
      await chain.submit(signTx(from, { to, data: fromHex(encodeFunctionData({ abi: a, functionName, args } as never)), gasLimit: 300_000n }));
    };
    const traders = [senders[6]!, senders[7]!, senders[8]!];
    for (const t of [t0, t1]) await call(deployer, t, abi, 'transfer', [addrHex(pair), 10n ** 27n]);
    for (const tr of traders) {
      for (const t of [t0, t1]) {
        await call(deployer, t, abi, 'transfer', [addrHex(tr.address), 10n ** 26n]);
        await call(tr, t, abi, 'approve', [addrHex(router), 2n ** 256n - 1n]);
      }
    }
    await chain.mine();
    await call(deployer, pair, pairC.abi as Abi, 'mint', [addrHex(deployer.address)]);
    await chain.mine();
    const swaps: Uint8Array[] = [];
    for (let i = 0; i < 36; i++) {
      const tr = traders[i % 3]!;
      const data = fromHex(
        encodeFunctionData({ abi: routerC.abi as Abi, functionName: 'swapExactIn', args: [addrHex(pair), i % 2 === 0, 10n ** 18n, 1n, addrHex(tr.address)] }),
      );
      const raw = signTx(tr, { to: router, data, gasLimit: 200_000n });
      swaps.push(raw);
      await chain.submit(raw);
    }
    const swapBlock = await chain.mine();
    if (chain.receipt(keccak_256(swaps[0]!)).status !== 1) throw new Error('swap failed');
    report('block.uniswap_swap.txs', swapBlock.txCount, 'transactions');
    report('block.uniswap_swap.gas_per_tx', swapBlock.gasUsed / BigInt(swapBlock.txCount), 'gas');
    report('block.uniswap_swap.instructions_per_tx', swapBlock.instructions / BigInt(swapBlock.txCount), 'instructions');
    while (chain.evm.querySync('health', []).pending_txs > 0n) await chain.mine();

    // Interpreter cost per step and per gas: the same loop at two lengths, in blocks of their own, so
    // every fixed cost (message, tx, receipt) cancels out.
    const loopCost = async (runtime: Uint8Array, iterations: bigint[]): Promise<bigint[]> => {
      const from = senders[0]!;
      const at = await deployLoop(chain, from, runtime);
      const out: bigint[] = [];
      for (const n of iterations) {
        const raw = loopTx(from, at, n);
        await chain.submit(raw);
        const m = await chain.mine();
        if (chain.receipt(keccak_256(raw)).status !== 1) throw new Error('loop transaction failed');
        out.push(m.instructions);
      }
      return out;
    };
    const [c1, c2] = await loopCost(CHEAP_LOOP, [2000n, 4000n]);
    const perStep = (c2! - c1!) / (2000n * CHEAP_LOOP_STEPS);
    report('interp.step.instructions', perStep, 'instructions');
    const cheapPerGas = (c2! - c1!) / (2000n * 26n);
    report('interp.cheap_loop.instructions_per_gas', cheapPerGas, 'instructions/gas');
    const [j1, j2] = await loopCost(JUMPDEST_LOOP, [500n, 1000n]);
    const jumpdestPerGas = (j2! - j1!) / (500n * JUMPDEST_LOOP_GAS_PER_ITERATION);
    report('interp.jumpdest_loop.instructions_per_gas', jumpdestPerGas, 'instructions/gas');
    // keccak256, one 136-byte block inside the canister: a KECCAK256 of 1087 bytes (8 blocks) then of 2175
    // bytes (16 blocks) in the same loop, so everything but the extra 8 blocks a hash cancels out (inputs
    // this long are past the keccak memo, src/core/evm/keccak_memo.ts).
    const [k1, k2] = [await loopCost(keccakLoop(1087), [KECCAK_LOOP_N]), await loopCost(keccakLoop(2175), [KECCAK_LOOP_N])];
    report('keccak.block.instructions', (k2![0]! - k1![0]!) / (KECCAK_LOOP_N * 8n), 'instructions');
    report('tx.instruction_budget', TX_INSTRUCTION_BUDGET, 'instructions');
    // The worst of the measured opcode loops (precompile bounds are calibrated in src/core/evm/budget.ts).
    report('worst.instructions_per_gas', jumpdestPerGas > cheapPerGas ? jumpdestPerGas : cheapPerGas, 'instructions/gas');
  } finally {
    chain.close();
  }
}
