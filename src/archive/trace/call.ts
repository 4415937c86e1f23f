// debug_traceCall's inputs as geth takes them: the call's fields (TransactionArgs), state overrides and block
// overrides, turned into a transaction with a given sender, the state changes to apply first, and the block.
import type { Common } from '@ethereumjs/common';
import { createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { Address } from '@ethereumjs/util';
import type { BlockStateChange } from './run.js';
import type { TraceBlockContext } from './types.js';

export interface CallArgs {
  readonly from?: Uint8Array;
  readonly to?: Uint8Array;
  readonly gas?: bigint;
  readonly gasPrice?: bigint;
  readonly maxFeePerGas?: bigint;
  readonly maxPriorityFeePerGas?: bigint;
  readonly value?: bigint;
  readonly data?: Uint8Array;
  readonly nonce?: bigint;
}

/** geth's state override of one account: `state` replaces the whole storage, `stateDiff` changes slots. */
export interface StateOverride {
  readonly address: Uint8Array;
  readonly balance?: bigint;
  readonly nonce?: bigint;
  readonly code?: Uint8Array;
  readonly state?: readonly { readonly slot: Uint8Array; readonly value: Uint8Array }[];
  readonly stateDiff?: readonly { readonly slot: Uint8Array; readonly value: Uint8Array }[];
}

export interface BlockOverrides {
  readonly number?: bigint;
  readonly time?: bigint;
  readonly gasLimit?: bigint;
  readonly coinbase?: Uint8Array;
  readonly random?: Uint8Array;
  readonly baseFee?: bigint;
}

/** geth's RPC gas cap, the gas of a call that names none. */
export const CALL_GAS_CAP = 50_000_000n;

/** The call as an unsigned transaction (legacy, or EIP-1559 when its fee fields are), and its sender. */
export function callTx(args: CallArgs, common: Common, stateNonce: bigint): { tx: TypedTransaction; from: Uint8Array } {
  const base = {
    nonce: args.nonce ?? stateNonce,
    gasLimit: args.gas ?? CALL_GAS_CAP,
    to: args.to === undefined ? undefined : new Address(args.to),
    value: args.value ?? 0n,
    data: args.data ?? new Uint8Array(0),
  };
  const tx =
    args.gasPrice === undefined && (args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined)
      ? createFeeMarket1559Tx({ ...base, maxFeePerGas: args.maxFeePerGas ?? 0n, maxPriorityFeePerGas: args.maxPriorityFeePerGas ?? 0n }, { common })
      : createLegacyTx({ ...base, gasPrice: args.gasPrice ?? 0n }, { common });
  return { tx, from: args.from ?? new Uint8Array(20) };
}

/** The block as overridden; a call with no fee runs with a zero base fee, as geth lowers it. */
export function callBlock(block: TraceBlockContext, o: BlockOverrides | undefined, args: CallArgs): TraceBlockContext {
  const b: TraceBlockContext = {
    ...block,
    number: o?.number ?? block.number,
    timestamp: o?.time ?? block.timestamp,
    gasLimit: o?.gasLimit ?? block.gasLimit,
    coinbase: o?.coinbase ?? block.coinbase,
    prevRandao: o?.random ?? block.prevRandao,
    baseFeePerGas: o?.baseFee ?? block.baseFeePerGas,
  };
  const price = args.gasPrice ?? args.maxFeePerGas ?? 0n;
  const tip = args.maxPriorityFeePerGas ?? 0n;
  return price === 0n && tip === 0n ? { ...b, baseFeePerGas: 0n } : b;
}

/** State overrides as state changes; `state` first clears the account's storage (a `clear` marker). */
export function overrideChanges(overrides: readonly StateOverride[]): (BlockStateChange & { clearStorage?: boolean })[] {
  return overrides.map((o) => ({
    address: o.address,
    balance: o.balance,
    nonce: o.nonce,
    code: o.code,
    storage: [...(o.state ?? []), ...(o.stateDiff ?? [])],
    clearStorage: o.state !== undefined,
  }));
}
