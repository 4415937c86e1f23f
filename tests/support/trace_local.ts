// A small chain in stock EthereumJS for the tracer unit tests (no anvil): one funded account that deployed
// the contracts of tests/support/trace_fixtures/Traced.sol, and a helper that signs its next transactions.
import { createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, bigIntToUnpaddedBytes, bytesToHex, createAddressFromPrivateKey, generateAddress, hexToBytes } from '@ethereumjs/util';
import { createVM, runTx } from '@ethereumjs/vm';
import { encodeDeployData, encodeFunctionData, type Abi, type Hex } from 'viem';
import type { TraceBlockContext } from '../../src/archive/trace/index.js';
import { compileFixture } from '../fixtures/solidity/compile.js';
import type { StateManagerInterface } from '@ethereumjs/common';
import { blockOf, freshState, traceCommon } from './trace_chain.js';

const KEY = hexToBytes('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
export const SENDER = createAddressFromPrivateKey(KEY);
const contract = (name: string) => compileFixture('../../support/trace_fixtures/Traced.sol', name);

export const localBlock: TraceBlockContext = {
  number: 5n,
  timestamp: 1_700_000_000n,
  baseFeePerGas: 7n,
  coinbase: hexToBytes('0x00000000000000000000000000000000000c0ffe'),
  prevRandao: new Uint8Array(32).fill(1),
  gasLimit: 30_000_000n,
};

export interface LocalChain {
  readonly common: ReturnType<typeof traceCommon>;
  readonly sm: StateManagerInterface;
  readonly lib: Hex;
  readonly reverter: Hex;
  readonly tracee: Hex;
  /** A signed legacy transaction from SENDER with the next nonce (or the nonce given); not applied. */
  tx(o: { to?: Hex; data?: Hex; value?: bigint; gas?: bigint; nonce?: bigint }): TypedTransaction;
  call(name: string, fn: string, args: unknown[]): Hex;
  /** Applies a transaction to the chain's state. */
  apply(tx: TypedTransaction): Promise<void>;
  /** Deploys contract `name` of a Solidity fixture (path relative to tests/fixtures/solidity). */
  deploy(file: string, name: string, args?: unknown[]): Promise<Hex>;
}

export async function localChain(): Promise<LocalChain> {
  const common = traceCommon();
  const sm = await freshState(common);
  await sm.putAccount(SENDER, new Account(0n, 10n ** 24n));
  let nonce = 0n;
  const tx = (o: { to?: Hex; data?: Hex; value?: bigint; gas?: bigint; nonce?: bigint }) =>
    createLegacyTx(
      { nonce: o.nonce ?? nonce, gasPrice: 10n, gasLimit: o.gas ?? 3_000_000n, to: o.to, value: o.value ?? 0n, data: o.data === undefined ? undefined : hexToBytes(o.data) },
      { common },
    ).sign(KEY);
  const apply = async (t: TypedTransaction) => {
    const vm = await createVM({ common, stateManager: sm });
    await runTx(vm, { tx: t, block: blockOf(localBlock, common), skipHardForkValidation: true, skipBlockGasLimitValidation: true });
    nonce++;
  };
  const deploy = async (file: string, name: string, args: unknown[] = []): Promise<Hex> => {
    const c = compileFixture(file, name);
    const n = nonce;
    await apply(tx({ data: encodeDeployData({ abi: c.abi as Abi, bytecode: c.bytecode, args }) }));
    return bytesToHex(generateAddress(SENDER.bytes, bigIntToUnpaddedBytes(n))) as Hex;
  };
  const traced = '../../support/trace_fixtures/Traced.sol';
  const lib = await deploy(traced, 'Lib');
  const reverter = await deploy(traced, 'Reverter');
  const tracee = await deploy(traced, 'Tracee');
  const call = (name: string, fn: string, args: unknown[]) => encodeFunctionData({ abi: contract(name).abi as Abi, functionName: fn, args });
  return { common, sm, lib, reverter, tracee, tx, call, apply, deploy };
}

export { Address };
