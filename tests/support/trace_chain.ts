// The tracer differential scenario: contracts from tests/support/trace_fixtures/Traced.sol, deployed and called
// by signed transactions (chain id 4801360, legacy at a fixed 1000 gwei, one EIP-1559), each sent to anvil
// (automine: one block per transaction) and replayed in an in-memory stock EthereumJS VM built with the same
// pre-state (anvil's ten development accounts) and each of anvil's blocks as the block context.
import { createBlock } from '@ethereumjs/block';
import { Hardfork, Mainnet, createCustomCommon, type Common, type StateManagerInterface } from '@ethereumjs/common';
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, hexToBytes } from '@ethereumjs/util';
import { createVM, runTx } from '@ethereumjs/vm';
import { encodeDeployData, encodeFunctionData, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { CHAIN_ID } from '../../src/core/constants.js';
import { devAccounts } from '../../src/devnet/accounts.js';
import type { TraceBlockContext } from '../../src/archive/trace/index.js';
import { compileFixture } from '../fixtures/solidity/compile.js';
import { rpc, waitForReceipt } from './e2e.js';

const GAS_PRICE = 1000n * 10n ** 9n;
const contract = (name: string) => compileFixture('../../support/trace_fixtures/Traced.sol', name);

export const traceCommon = (): Common => createCustomCommon({ chainId: Number(CHAIN_ID), name: 'trace-test' }, Mainnet, { hardfork: Hardfork.Prague });

export interface SentTx {
  readonly label: string;
  readonly hash: Hex;
  readonly raw: Hex;
  readonly tx: TypedTransaction;
  readonly block: TraceBlockContext;
  /** anvil's receipt. */
  readonly receipt: any;
}

export interface Scenario {
  readonly common: Common;
  readonly txs: SentTx[];
  /** The state before transaction i (genesis, then every earlier transaction replayed in stock EthereumJS). */
  stateBefore(i: number): Promise<StateManagerInterface>;
  /** Transaction i's block: the state before that block and the block's transactions before i. */
  beforeTx(i: number): Promise<{ sm: StateManagerInterface; prior: SentTx[] }>;
}

const hexBig = (h: string): bigint => BigInt(h);

async function blockContext(url: string, number: string): Promise<TraceBlockContext> {
  const b = await rpc(url, 'eth_getBlockByNumber', [number, false]);
  return {
    number: hexBig(b.number),
    timestamp: hexBig(b.timestamp),
    baseFeePerGas: hexBig(b.baseFeePerGas),
    coinbase: hexToBytes(b.miner),
    prevRandao: hexToBytes(b.mixHash),
    gasLimit: hexBig(b.gasLimit),
  };
}

/** Sends the scenario's transactions to anvil; returns them with the block each landed in. */
export async function runScenario(url: string): Promise<Scenario> {
  const common = traceCommon();
  const keys = devAccounts();
  const A = privateKeyToAccount(keys[3]!.privateKey);
  const B = privateKeyToAccount(keys[4]!.privateKey);
  const sink = '0x000000000000000000000000000000000000dead' as Hex;
  const nonces = new Map<string, number>();
  const txs: SentTx[] = [];
  const hashes = new Map<bigint, Uint8Array>();

  const sign = async (who: typeof A, o: { to?: Hex; data?: Hex; value?: bigint; gas: bigint; eip1559?: boolean }): Promise<Hex> => {
    const nonce = nonces.get(who.address) ?? 0;
    nonces.set(who.address, nonce + 1);
    const base = { chainId: Number(CHAIN_ID), nonce, gas: o.gas, to: o.to ?? null, data: o.data, value: o.value ?? 0n };
    return o.eip1559
      ? who.signTransaction({ ...base, type: 'eip1559', maxFeePerGas: GAS_PRICE, maxPriorityFeePerGas: 3n * 10n ** 9n })
      : who.signTransaction({ ...base, type: 'legacy', gasPrice: GAS_PRICE });
  };
  const record = async (label: string, raw: Hex, hash: Hex) => {
    const receipt = await waitForReceipt(url, hash);
    const block = await blockContext(url, receipt.blockNumber);
    txs.push({ label, hash, raw, tx: createTxFromRLP(hexToBytes(raw), { common }), block, receipt });
    return receipt;
  };
  const send = async (label: string, who: typeof A, o: { to?: Hex; data?: Hex; value?: bigint; gas: bigint; eip1559?: boolean }) => {
    const raw = await sign(who, o);
    return record(label, raw, await rpc<Hex>(url, 'eth_sendRawTransaction', [raw]));
  };
  const deploy = async (name: string, who: typeof A, args: unknown[] = [], value = 0n) => {
    const c = contract(name);
    const r = await send(`deploy ${name}`, who, { data: encodeDeployData({ abi: c.abi as Abi, bytecode: c.bytecode, args }), value, gas: 3_000_000n });
    return r.contractAddress as Hex;
  };
  const callData = (name: string, fn: string, args: unknown[]) => encodeFunctionData({ abi: contract(name).abi as Abi, functionName: fn, args });
  const call = (label: string, who: typeof A, to: Hex, name: string, fn: string, args: unknown[], o: { value?: bigint; gas?: bigint; eip1559?: boolean } = {}) =>
    send(label, who, { to, data: callData(name, fn, args), value: o.value, gas: o.gas ?? 2_000_000n, eip1559: o.eip1559 });

  const lib = await deploy('Lib', A);
  const reverter = await deploy('Reverter', A);
  const tracee = await deploy('Tracee', A);
  const old = await deploy('Child', B, [9n], 5n);
  await call('run: nested calls, delegatecall, staticcall, create, create2, self-destruct, transfers', A, tracee, 'Tracee', 'run', [lib, reverter, sink], { value: 10n ** 18n });
  await call('boom: uncaught revert two frames deep', A, tracee, 'Tracee', 'boom', [reverter]);
  await call('custom error at the top', B, reverter, 'Reverter', 'custom', [], { eip1559: true });
  await call('panic at the top', B, reverter, 'Reverter', 'panic', [0n]);
  await call('out of gas', A, tracee, 'Tracee', 'burn', [], { gas: 200_000n });
  await call('self-destruct of an older contract', B, old, 'Child', 'bye', [sink]);
  await call('a call refused for want of balance', A, tracee, 'Tracee', 'overspend', [sink]);
  await send('plain value transfer', A, { to: B.address, value: 12345n, gas: 21_000n });
  await send('value to a contract receive()', B, { to: tracee, value: 777n, gas: 50_000n, eip1559: true });

  // One block of four transactions (anvil mines them together once automine is off): the later ones are
  // traced after the earlier ones are replayed, and their logs' block-wide indexes count the earlier logs.
  await rpc(url, 'evm_setAutomine', [false]);
  const batch: [string, Hex][] = [
    ['block of four: run again', await sign(A, { to: tracee, data: callData('Tracee', 'run', [lib, reverter, sink]), value: 3n, gas: 2_000_000n })],
    ['block of four: transfer', await sign(B, { to: A.address, value: 1n, gas: 21_000n })],
    ['block of four: uncaught revert', await sign(A, { to: tracee, data: callData('Tracee', 'boom', [reverter]), gas: 2_000_000n })],
    ['block of four: run a third time', await sign(A, { to: tracee, data: callData('Tracee', 'run', [lib, reverter, sink]), value: 4n, gas: 2_000_000n, eip1559: true })],
  ];
  const batchHashes: Hex[] = [];
  for (const [, raw] of batch) batchHashes.push(await rpc<Hex>(url, 'eth_sendRawTransaction', [raw]));
  await rpc(url, 'evm_mine', []);
  await rpc(url, 'evm_setAutomine', [true]);
  for (const [i, [label, raw]] of batch.entries()) await record(label, raw, batchHashes[i]!);

  // BLOCKHASH answers as anvil gives them (no fixture reads them; given for completeness).
  const last = BigInt(txs[txs.length - 1]!.receipt.blockNumber);
  for (let n = 0n; n <= last; n++) hashes.set(n, hexToBytes((await rpc(url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false])).hash));
  for (const t of txs) (t.block as { blockHash: (n: bigint) => Uint8Array | undefined }).blockHash = (n) => hashes.get(n);

  // Genesis: anvil's development accounts and their balances at block 0.
  const genesis: [Address, bigint][] = [];
  for (const k of keys) {
    const bal = hexBig(await rpc(url, 'eth_getBalance', [k.address, '0x0']));
    genesis.push([new Address(hexToBytes(k.address as Hex)), bal]);
  }
  const stateBefore = async (i: number): Promise<StateManagerInterface> => {
    const sm = await freshState(common);
    for (const [a, bal] of genesis) await sm.putAccount(a, new Account(0n, bal));
    for (let j = 0; j < i; j++) {
      const t = txs[j]!;
      const vm = await createVM({ common, stateManager: sm });
      await runTx(vm, { tx: t.tx, block: blockOf(t.block, common), skipHardForkValidation: true, skipBlockGasLimitValidation: true });
    }
    return sm;
  };
  // The tracers leave a state manager as they found it, so one per block serves every trace in it.
  const cache = new Map<number, Promise<StateManagerInterface>>();
  const beforeTx = async (i: number) => {
    const first = txs.findIndex((t) => t.receipt.blockNumber === txs[i]!.receipt.blockNumber);
    if (!cache.has(first)) cache.set(first, stateBefore(first));
    return { sm: await cache.get(first)!, prior: txs.slice(first, i) };
  };
  return { common, txs, stateBefore, beforeTx };
}

/** An empty in-memory state (the VM's default state manager; @ethereumjs/statemanager is not a dependency of ours). */
export async function freshState(common: Common): Promise<StateManagerInterface> {
  return (await createVM({ common })).stateManager;
}

export function blockOf(b: TraceBlockContext, common: Common) {
  return createBlock(
    { header: { number: b.number, timestamp: b.timestamp, baseFeePerGas: b.baseFeePerGas, coinbase: b.coinbase, mixHash: b.prevRandao, gasLimit: b.gasLimit, difficulty: 0n } },
    { common, skipConsensusFormatValidation: true },
  );
}
