// The archive's differential run (docs/archive.md): the same signed transactions (ERC-20 transfers and a
// reverted one, a Uniswap V2-style pair with its router: liquidity, swaps both ways and a swap refused for
// slippage, contract creations by accounts and by contracts (CREATE, CREATE2), a creation that reverts,
// self-destructs of a contract created in the same transaction and of an older one, value transfers) on anvil
// and on `npm start -- --block-time 0` (its own devnet: the canister wasm, its archive and the gateway over
// HTTP). Both mine each transaction into its own block from the same genesis, so block N is the same block on
// both. Once the archive has caught up with the head, for EVERY block N of the run: balances, nonces and code
// of every account involved, chosen storage slots, and eth_call of view functions at N must be identical on
// both (below the head the devnet's answers come from the archive). Then `cast run` of past transactions
// replays them against `npm start` (it forks at the block before, reading its state from the archive) and
// prints what it prints against anvil.
// Transactions are legacy at a fixed 1000 gwei, so that a sender pays gas used x price on both whatever each
// chain's base fee does, and both chains are given the same block timestamps (evm_setNextBlockTimestamp: the
// pair's gas and storage depend on the time between its updates). Left out, explicitly: the coinbase (each
// chain's own), and a revert's error code (the gateway's -32000 where anvil says 3: docs/gateway.md; the revert
// data is compared).
import { encodeDeployData, encodeFunctionData, getContractAddress, keccak256, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAIN_ID } from '../../src/core/constants.js';
import { devAccounts } from '../../src/devnet/accounts.js';
import { compileFixture } from '../fixtures/solidity/compile.js';
import { removeDir, rpc, run, sleep, startAnvil, startDevnetProcess, tempDir, waitForReceipt, type Anvil, type DevnetProcess } from '../support/e2e.js';
import { createdAddress, mappingSlot, word } from '../support/slots.js';
import { classify, jsonDiff } from '../support/trace_diff.js';

const accounts = devAccounts();
const A = privateKeyToAccount(accounts[1]!.privateKey);
const B = privateKeyToAccount(accounts[2]!.privateKey);
const X = '0x000000000000000000000000000000000000a4c1' as Hex;
const SINK = '0x00000000000000000000000000000000000051c4' as Hex;
const GAS_PRICE = 1000n * 10n ** 9n;
const ETH = 10n ** 18n;
const MAX = 2n ** 256n - 1n;

const token = compileFixture('Token.sol', 'Token');
const pairC = compileFixture('Pair.sol', 'Pair');
const routerC = compileFixture('Pair.sol', 'Router');
const traced = (name: string) => compileFixture('../../support/trace_fixtures/Traced.sol', name);
const traceeC = traced('Tracee');
const libC = traced('Lib');
const tReverterC = traced('Reverter');
const childC = traced('Child');
const failingC = compileFixture('../../e2e/contracts/Differential.sol', 'Reverter');

const slot = (v: bigint | number): Hex => `0x${word(v)}`;

interface Step {
  readonly label: string;
  readonly from: typeof A;
  readonly to?: Hex;
  readonly data?: Hex;
  readonly value?: bigint;
  readonly gas: bigint;
}

const a = {
  token0: createdAddress(A.address, 0),
  token1: createdAddress(A.address, 1),
  pair: createdAddress(A.address, 2),
  router: createdAddress(A.address, 3),
  lib: createdAddress(A.address, 4),
  reverter: createdAddress(A.address, 5),
  tracee: createdAddress(A.address, 6),
  child: createdAddress(A.address, 7),
  failing: createdAddress(A.address, 8),
};
// Tracee.run's children: CREATE at the tracee's nonce 1, CREATE2 with salt 7 (self-destructed in the same transaction).
const runChild1 = createdAddress(a.tracee, 1);
const runChild2 = getContractAddress({
  opcode: 'CREATE2',
  from: a.tracee,
  salt: slot(7),
  bytecode: encodeDeployData({ abi: childC.abi as Abi, bytecode: childC.bytecode, args: [5n] }),
}).toLowerCase() as Hex;

const fn = (abi: Abi, functionName: string, args: unknown[] = []): Hex => encodeFunctionData({ abi, functionName, args });
const t = (functionName: string, args: unknown[]) => fn(token.abi as Abi, functionName, args);
const swap = (zeroForOne: boolean, amountIn: bigint, minOut: bigint, to: Hex) => fn(routerC.abi as Abi, 'swapExactIn', [a.pair, zeroForOne, amountIn, minOut, to]);

const STEPS: Step[] = [
  { label: 'deploy token0', from: A, data: encodeDeployData({ abi: token.abi as Abi, bytecode: token.bytecode, args: ['Zero', 'T0', 10n ** 24n] }), gas: 2_000_000n },
  { label: 'deploy token1', from: A, data: encodeDeployData({ abi: token.abi as Abi, bytecode: token.bytecode, args: ['One', 'T1', 10n ** 24n] }), gas: 2_000_000n },
  { label: 'deploy pair', from: A, data: encodeDeployData({ abi: pairC.abi as Abi, bytecode: pairC.bytecode, args: [a.token0, a.token1] }), gas: 3_000_000n },
  { label: 'deploy router', from: A, data: routerC.bytecode, gas: 2_000_000n },
  { label: 'deploy lib', from: A, data: libC.bytecode, gas: 1_000_000n },
  { label: 'deploy reverter', from: A, data: tReverterC.bytecode, gas: 1_000_000n },
  { label: 'deploy tracee', from: A, data: traceeC.bytecode, gas: 2_000_000n },
  { label: 'deploy a child with value', from: A, data: encodeDeployData({ abi: childC.abi as Abi, bytecode: childC.bytecode, args: [9n] }), value: 5n, gas: 1_000_000n },
  { label: 'a creation that reverts', from: A, data: encodeDeployData({ abi: failingC.abi as Abi, bytecode: failingC.bytecode, args: [true] }), gas: 500_000n },
  { label: 'token0 -> pair', from: A, to: a.token0, data: t('transfer', [a.pair, 10n ** 21n]), gas: 200_000n },
  { label: 'token1 -> pair', from: A, to: a.token1, data: t('transfer', [a.pair, 4n * 10n ** 21n]), gas: 200_000n },
  { label: 'pair.mint (liquidity)', from: A, to: a.pair, data: fn(pairC.abi as Abi, 'mint', [A.address]), gas: 500_000n },
  { label: 'approve the router (token0)', from: A, to: a.token0, data: t('approve', [a.router, MAX]), gas: 200_000n },
  { label: 'swap token0 -> token1', from: A, to: a.router, data: swap(true, 10n ** 19n, 0n, A.address), gas: 500_000n },
  { label: 'ERC-20 transfer A -> B', from: A, to: a.token1, data: t('transfer', [B.address, 10n ** 20n]), gas: 200_000n },
  { label: 'approve the router (token1, B)', from: B, to: a.token1, data: t('approve', [a.router, MAX]), gas: 200_000n },
  { label: 'swap token1 -> token0 (B)', from: B, to: a.router, data: swap(false, 5n * 10n ** 19n, 0n, B.address), gas: 500_000n },
  { label: 'swap refused for slippage (reverts)', from: B, to: a.router, data: swap(false, 10n ** 18n, 10n ** 30n, B.address), gas: 500_000n },
  { label: 'ERC-20 transfer above the balance (reverts)', from: B, to: a.token0, data: t('transfer', [A.address, 10n ** 30n]), gas: 200_000n },
  { label: 'tracee.run: delegatecalls, CREATE, CREATE2 and its self-destruct, value out', from: A, to: a.tracee, data: fn(traceeC.abi as Abi, 'run', [a.lib, a.reverter, SINK]), value: 100n, gas: 2_000_000n },
  { label: 'self-destruct of the older child', from: B, to: a.child, data: fn(childC.abi as Abi, 'bye', [SINK]), gas: 200_000n },
  { label: 'value transfer to a new account', from: A, to: X, value: 2n * ETH, gas: 21_000n },
  { label: 'value transfer B -> A', from: B, to: A.address, value: 3n * ETH, gas: 21_000n },
  { label: 'value transfer to a contract without receive (reverts)', from: B, to: a.token0, value: 1n, gas: 100_000n },
  { label: 'swap token0 -> token1 again', from: A, to: a.router, data: swap(true, 3n * 10n ** 19n, 1n, X), gas: 500_000n },
];

interface Signed {
  readonly label: string;
  readonly raw: Hex;
  readonly hash: Hex;
}

async function signAll(): Promise<Signed[]> {
  const nonces = new Map<string, number>();
  const out: Signed[] = [];
  for (const s of STEPS) {
    const nonce = nonces.get(s.from.address) ?? 0;
    nonces.set(s.from.address, nonce + 1);
    const raw = await s.from.signTransaction({
      type: 'legacy',
      chainId: Number(CHAIN_ID),
      nonce,
      gas: s.gas,
      gasPrice: GAS_PRICE,
      ...(s.to === undefined ? {} : { to: s.to }),
      value: s.value ?? 0n,
      ...(s.data === undefined ? {} : { data: s.data }),
    });
    out.push({ label: s.label, raw, hash: keccak256(raw) });
  }
  return out;
}

/**
 * A prestate (plain or diffMode) without the coinbase's balance, and without its entry when the balance was
 * all it held (the chains' coinbases differ, and a tip may reach one and not the other); other answers as
 * they are.
 */
function withoutCoinbaseBalance(trace: any, coinbase: string): any {
  for (const state of [trace, trace.pre, trace.post]) {
    const entry = state?.[coinbase.toLowerCase()];
    if (entry === undefined || typeof entry !== 'object') continue;
    delete entry.balance;
    if (Object.keys(entry).length === 0) delete state[coinbase.toLowerCase()];
  }
  return trace;
}

let devnet: DevnetProcess;
let dataDir: string;
let anvil: Anvil;

beforeAll(async () => {
  dataDir = tempDir('archive-differential-');
  [devnet, anvil] = await Promise.all([startDevnetProcess({ dataDir, args: ['--block-time', '0'] }), startAnvil()]);
}, 240_000);
afterAll(async () => {
  await anvil?.stop();
  await devnet?.stop();
  removeDir(dataDir);
});

/**
 * The answer, or a revert's data, or another error's code. A revert is compared by its data alone: the gateway
 * answers it -32000 "execution reverted" where anvil says 3 (docs/gateway.md gives the reason).
 */
async function ask(url: string, method: string, params: unknown[]): Promise<unknown> {
  try {
    return await rpc(url, method, params);
  } catch (e) {
    const { code, data } = e as { code?: number; data?: unknown };
    return data === undefined ? { error: code } : { reverted: data };
  }
}

describe('archive: every block of a run answers as on anvil', () => {
  const txs: Signed[] = [];
  const receipts: Record<'ours' | 'anvil', any[]> = { ours: [], anvil: [] };

  it('the same transactions give the same receipts, each in its own block', async () => {
    txs.push(...(await signAll()));
    // Block i + 1 at T + 100 i on both (the pair's gas depends on the time between its updates); 100 s apart,
    // so that the devnet's clock, moved to each, never passes the next while a transaction is under way.
    const T = BigInt(Math.floor(Date.now() / 1000)) + 1000n;
    for (const [name, url] of [['ours', devnet.url], ['anvil', anvil.url]] as const) {
      expect(await rpc(url, 'eth_blockNumber'), name).toBe('0x0');
      for (const [i, tx] of txs.entries()) {
        await rpc(url, 'evm_setNextBlockTimestamp', [`0x${(T + 100n * BigInt(i)).toString(16)}`]);
        expect(await rpc(url, 'eth_sendRawTransaction', [tx.raw])).toBe(tx.hash);
        receipts[name].push(await waitForReceipt(url, tx.hash, 30_000));
      }
    }
    const core = (r: any) => ({
      blockNumber: r.blockNumber,
      effectiveGasPrice: r.effectiveGasPrice,
      status: r.status,
      gasUsed: r.gasUsed,
      contractAddress: r.contractAddress,
      logs: r.logs.map((l: any) => [l.address, l.topics, l.data]),
    });
    for (const [i, tx] of txs.entries()) expect(core(receipts.ours[i]), tx.label).toEqual(core(receipts.anvil[i]));
    expect(receipts.ours.map((r) => Number(r.blockNumber))).toEqual(txs.map((_, i) => i + 1));
    expect(txs.filter((_, i) => receipts.ours[i].status === '0x0').map((t) => t.label)).toEqual([
      'a creation that reverts',
      'swap refused for slippage (reverts)',
      'ERC-20 transfer above the balance (reverts)',
      'value transfer to a contract without receive (reverts)',
    ]);
  });

  it('for every block N of the run: balances, nonces, code, storage slots and eth_call at N are identical', async () => {
    const head = BigInt(txs.length);
    // The archive follows the chain a little behind: wait until it serves the block below the head.
    const until = Date.now() + 60_000;
    for (;;) {
      const r = (await ask(devnet.url, 'eth_getBalance', [A.address, `0x${(head - 1n).toString(16)}`])) as { error?: unknown };
      if (r.error === undefined) break;
      if (Date.now() > until) throw new Error(`the archive did not reach block ${head - 1n}: ${JSON.stringify(r)}`);
      await sleep(200);
    }
    expect(await rpc(devnet.url, 'eth_blockNumber')).toBe(`0x${head.toString(16)}`);

    const who = [A.address, B.address, X, SINK, ...Object.values(a), runChild1, runChild2];
    const slots: [Hex, Hex][] = [];
    for (const tok of [a.token0, a.token1]) {
      slots.push([tok, slot(2)]); // totalSupply
      for (const h of [A.address, B.address, X, a.pair]) slots.push([tok, mappingSlot(h, 3n)]);
    }
    // The pair: reserves and last time, cumulative prices, totalSupply, A's liquidity, the lock; the tracee's
    // two slots; the children's value.
    for (let i = 0; i <= 5; i++) slots.push([a.pair, slot(i)]);
    slots.push([a.pair, mappingSlot(A.address, 4n)]);
    slots.push([a.tracee, slot(0)], [a.tracee, slot(1)], [a.child, slot(0)], [runChild1, slot(0)], [runChild2, slot(0)]);
    const views: { label: string; to: Hex; data: Hex }[] = [
      ...[a.token0, a.token1].flatMap((tok) => [A.address, B.address, X, a.pair].map((h) => ({ label: `${tok}.balanceOf(${h})`, to: tok, data: t('balanceOf', [h]) }))),
      { label: 'pair.getReserves()', to: a.pair, data: fn(pairC.abi as Abi, 'getReserves') },
      { label: 'pair.price0CumulativeLast()', to: a.pair, data: fn(pairC.abi as Abi, 'price0CumulativeLast') },
      { label: 'pair.totalSupply()', to: a.pair, data: fn(pairC.abi as Abi, 'totalSupply') },
      { label: 'pair.balanceOf(A)', to: a.pair, data: fn(pairC.abi as Abi, 'balanceOf', [A.address]) },
      { label: 'router.getAmountOut', to: a.router, data: fn(routerC.abi as Abi, 'getAmountOut', [10n ** 18n, 10n ** 21n, 4n * 10n ** 21n]) },
      { label: 'tracee.counter()', to: a.tracee, data: fn(traceeC.abi as Abi, 'counter') },
      { label: 'child.v()', to: a.child, data: fn(childC.abi as Abi, 'v') },
      { label: 'reverter.fail (reverts)', to: a.reverter, data: fn(tReverterC.abi as Abi, 'fail', ['at N']) },
    ];

    const answers = async (url: string, n: bigint): Promise<Record<string, unknown>> => {
      const tag = `0x${n.toString(16)}`;
      const asks: [string, string, unknown[]][] = [];
      for (const h of who) {
        asks.push([`balance ${h}`, 'eth_getBalance', [h, tag]], [`nonce ${h}`, 'eth_getTransactionCount', [h, tag]], [`code ${h}`, 'eth_getCode', [h, tag]]);
      }
      for (const [h, s] of slots) asks.push([`storage ${h} ${s}`, 'eth_getStorageAt', [h, s, tag]]);
      for (const v of views) asks.push([`call ${v.label}`, 'eth_call', [{ to: v.to, data: v.data }, tag]]);
      // A few at a time: the gateway refuses a client's queries beyond its share of the canister's query
      // queue (-32005 server busy) at the head.
      const values: unknown[] = [];
      for (let i = 0; i < asks.length; i += 8) {
        values.push(...(await Promise.all(asks.slice(i, i + 8).map(([, method, params]) => ask(url, method, params)))));
      }
      return Object.fromEntries(asks.map(([key], i) => [key, values[i]]));
    };
    let compared = 0;
    for (let n = 0n; n <= head; n++) {
      const [ours, theirs] = await Promise.all([answers(devnet.url, n), answers(anvil.url, n)]);
      expect({ n, ...ours }).toEqual({ n, ...theirs });
      compared += Object.keys(ours).length;
    }
    // What the run says it covers shows in the history: a swap moved the reserves, both self-destructs
    // happened, the reverted creation left no code but took its nonce, B's nonce counts its reverted transactions.
    const at = async (method: string, params: unknown[]) => rpc(devnet.url, method, params);
    const reserves = (r: string): [bigint, bigint] => [BigInt(`0x${r.slice(2, 66)}`), BigInt(`0x${r.slice(66, 130)}`)];
    const getReserves = fn(pairC.abi as Abi, 'getReserves');
    const swapBlock = txs.findIndex((x) => x.label === 'swap token0 -> token1') + 1;
    const [before0, before1] = reserves(await at('eth_call', [{ to: a.pair, data: getReserves }, `0x${(swapBlock - 1).toString(16)}`]));
    const [after0, after1] = reserves(await at('eth_call', [{ to: a.pair, data: getReserves }, `0x${swapBlock.toString(16)}`]));
    expect([before0, before1]).toEqual([10n ** 21n, 4n * 10n ** 21n]);
    expect(after0).toBe(before0 + 10n ** 19n);
    expect(after1).toBeLessThan(before1);
    const runBlock = txs.findIndex((x) => x.label.startsWith('tracee.run')) + 1;
    expect(await at('eth_getCode', [runChild1, `0x${runBlock.toString(16)}`])).not.toBe('0x');
    expect(await at('eth_getCode', [runChild2, `0x${runBlock.toString(16)}`])).toBe('0x');
    const failBlock = txs.findIndex((x) => x.label === 'a creation that reverts') + 1;
    expect(await at('eth_getTransactionCount', [A.address, `0x${failBlock.toString(16)}`])).toBe(`0x${failBlock.toString(16)}`);
    expect(await at('eth_getCode', [a.failing, `0x${failBlock.toString(16)}`])).toBe('0x');
    expect(await at('eth_getTransactionCount', [B.address, 'latest'])).toBe(`0x${STEPS.filter((x) => x.from === B).length.toString(16)}`);
    const byeBlock = txs.findIndex((x) => x.label.startsWith('self-destruct of the older')) + 1;
    expect(BigInt(await at('eth_getBalance', [a.child, `0x${(byeBlock - 1).toString(16)}`]))).toBe(5n);
    expect(BigInt(await at('eth_getBalance', [a.child, `0x${byeBlock.toString(16)}`]))).toBe(0n);
    expect(compared).toBeGreaterThan(2000);
  });

  it('debug_traceTransaction (callTracer, prestateTracer both modes) and the ots_* trace methods of every transaction answer as anvil', async () => {
    // Through npm start's gateway over HTTP, for every transaction of the run (one per block, so no earlier logs
    // in its block). Differences must be the named deviations of anvil from geth (tests/support/trace_diff.ts);
    // left out explicitly, as above: the coinbase's balance in a prestate (each chain's own past tips). The
    // struct logger is compared with anvil in tests/unit/trace_anvil.test.ts.
    const configs = [{ tracer: 'callTracer', tracerConfig: { withLog: true } }, { tracer: 'prestateTracer' }, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }];
    let compared = 0;
    for (const [i, tx] of txs.entries()) {
      const gas = `0x${STEPS[i]!.gas.toString(16)}`;
      const coinbase = { anvil: (await rpc(anvil.url, 'eth_getBlockByNumber', [receipts.anvil[i].blockNumber, false])).miner, ours: (await rpc(devnet.url, 'eth_getBlockByNumber', [receipts.ours[i].blockNumber, false])).miner };
      for (const config of configs) {
        const theirs = withoutCoinbaseBalance(await rpc(anvil.url, 'debug_traceTransaction', [tx.hash, config]), coinbase.anvil);
        const mine = withoutCoinbaseBalance(await rpc(devnet.url, 'debug_traceTransaction', [tx.hash, config]), coinbase.ours);
        const ctx = { txGas: gas, receipt: receipts.anvil[i], priorLogs: 0, anvilRoot: theirs, oursRoot: mine };
        expect(classify(jsonDiff(theirs, mine), ctx).unexplained, `${tx.label} ${JSON.stringify(config)}`).toEqual([]);
        compared++;
      }
      for (const method of ['ots_getInternalOperations', 'ots_traceTransaction', 'ots_getTransactionError']) {
        expect(await rpc(devnet.url, method, [tx.hash]), `${tx.label} ${method}`).toEqual(await rpc(anvil.url, method, [tx.hash]));
        compared++;
      }
    }
    expect(compared).toBe(txs.length * 6);
  });

  it('debug_traceCall at an older block with state overrides answers as anvil', async () => {
    // A swap by an account that has nothing, at the block after the pair's liquidity (before any swap), with
    // token0 balance, allowance and ether given by overrides. The differences must be named deviations of
    // anvil from geth (tests/support/trace_diff.ts, docs/traces.md). Left out, explicitly: the balance of each
    // chain's coinbase, which the prestate lists (the call pays no fee), made of each chain's own past tips
    // (the two base fees move differently).
    const F = '0x000000000000000000000000000000000000f00f' as Hex;
    const n = `0x${(txs.findIndex((x) => x.label === 'pair.mint (liquidity)') + 1).toString(16)}`;
    const allowance = keccak256(`0x${a.router.slice(2).padStart(64, '0')}${mappingSlot(F, 4n).slice(2)}`);
    const stateOverrides = { [a.token0]: { stateDiff: { [mappingSlot(F, 3n)]: slot(10n ** 20n), [allowance]: slot(MAX) } }, [F]: { balance: '0xde0b6b3a7640000' } };
    const call = { from: F, to: a.router, data: swap(true, 10n ** 19n, 0n, F), gas: '0x100000' };
    for (const config of [{ tracer: 'callTracer', tracerConfig: { withLog: true } }, { tracer: 'prestateTracer' }, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }]) {
      const theirs = withoutCoinbaseBalance(await rpc(anvil.url, 'debug_traceCall', [call, n, { ...config, stateOverrides }]), (await rpc(anvil.url, 'eth_getBlockByNumber', [n, false])).miner);
      const mine = withoutCoinbaseBalance(await rpc(devnet.url, 'debug_traceCall', [call, n, { ...config, stateOverrides }]), (await rpc(devnet.url, 'eth_getBlockByNumber', [n, false])).miner);
      const used = (await rpc(anvil.url, 'debug_traceCall', [call, n, { tracer: 'callTracer', stateOverrides }])).gasUsed as string;
      const ctx = { txGas: call.gas, receipt: { gasUsed: used, cumulativeGasUsed: used }, priorLogs: 0, anvilRoot: theirs, oursRoot: mine };
      expect(classify(jsonDiff(theirs, mine), ctx).unexplained, JSON.stringify(config)).toEqual([]);
      if (config.tracer === 'callTracer') {
        // The swap went through on the overridden state: the pair paid F.
        expect(mine.error).toBeUndefined();
        expect(mine.calls.map((c: { to: string }) => c.to)).toContain(a.pair);
      }
    }
  });

  it('cast run replays past transactions against npm start as against anvil', async () => {
    // A swap (the router, the pair and both tokens, read at the block before from the archive) and the run
    // with its creations and self-destruct; neither sender was funded by a cheat.
    for (const label of ['swap token1 -> token0 (B)', 'tracee.run: delegatecalls, CREATE, CREATE2 and its self-destruct, value out']) {
      const tx = txs.find((x) => x.label === label)!;
      const outputs: string[] = [];
      for (const url of [devnet.url, anvil.url]) {
        const r = await run('cast', ['run', tx.hash, '--rpc-url', url], { timeoutMs: 120_000 });
        expect(r.code, `${label}\n${r.stdout}\n${r.stderr}`).toBe(0);
        outputs.push(r.stdout);
      }
      expect(outputs[0], label).toContain('Transaction successfully executed');
      expect(outputs[0], label).toBe(outputs[1]);
      const gas = /Gas used: (\d+)/.exec(outputs[0]!);
      expect(BigInt(gas![1]!)).toBe(BigInt(receipts.ours[txs.indexOf(tx)].gasUsed));
    }
  });
});
