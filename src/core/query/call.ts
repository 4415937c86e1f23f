// eth_call / eth_estimateGas inputs: the callObject (SPEC "callObject") and a raw signed transaction,
// turned into an ExecTx for the engine's call(), plus the block environment calls run in.
//
// Keys (exactly SPEC's): to, from, gas, gasPrice, value, data, nonce, maxFeePerGas, maxPriorityFeePerGas,
// chainId, type, accessList. The Candid record has exactly these fields (snake_case, `type` as tx_type), so
// no other field can reach the canister: Candid drops unknown record fields while decoding, which is why the
// gateway rejects unknown JSON keys (-32602) and the canister validates values here.
//
// Rules (docs/read-api.md):
// - type: 0x0 or 0x2 only (arg.invalid.tx_type); 0x0 cannot carry maxFeePerGas/maxPriorityFeePerGas/accessList,
//   0x2 cannot carry gasPrice. Without type: maxFee/priority => 0x2; gasPrice => 0x0 (0x1 when an accessList
//   is given, the only way to run EIP-2930 semantics); nothing => 0x2.
// - gasPrice together with maxFeePerGas or maxPriorityFeePerGas, or priority above maxFee: arg.invalid.fee_params.
//   Only one of maxFee/priority given: the other defaults to it (priority = maxFee, or maxFee = priority).
// - chainId other than ours: arg.invalid.chain_id.
// - from: default the zero address. nonce: default the sender's account nonce at the head (it decides the
//   address of a creation). value 0, data empty, accessList empty by default.
// - gas: default the block gas limit; a larger value is clamped to the block gas limit (the RPC gas cap,
//   like geth's --rpc.gascap, so a call can never need more than one block could give it).
// - No fee fields: fees 0, the call runs with base fee 0 (no fee charged). Balance is never checked.
// - Calls execute in the environment of the next block: number head + 1, base fee = the next base fee,
//   timestamp max(now, head + 1 s), the configured block gas limit and coinbase.

import { CHAIN_ID, MAX_TX_SIZE } from '../constants.js';
import type { Address, BlockEnv, Bytes32, ExecTx } from '../engine.js';
import { ErrorCode, err, ok, type Result } from '../errors.js';
import { parseSignedTx, recoverSender } from '../tx/decode.js';

export interface CallObject {
  readonly to?: Uint8Array | undefined;
  readonly from?: Uint8Array | undefined;
  readonly gas?: bigint | undefined;
  readonly gasPrice?: bigint | undefined;
  readonly value?: bigint | undefined;
  readonly data?: Uint8Array | undefined;
  readonly nonce?: bigint | undefined;
  readonly maxFeePerGas?: bigint | undefined;
  readonly maxPriorityFeePerGas?: bigint | undefined;
  readonly chainId?: bigint | undefined;
  readonly type?: bigint | undefined;
  readonly accessList?: readonly (readonly [Uint8Array, readonly Uint8Array[]])[] | undefined;
}

export interface CallContext {
  readonly blockGasLimit: bigint;
  /** Account nonce at the head (nonce default). */
  nonceOf(address: Address): bigint;
}

const U64 = 1n << 64n;
const U256 = 1n << 256n;
const ZERO_ADDRESS = new Uint8Array(20);

function bad(message: string): Result<never> {
  return err(ErrorCode.ArgInvalidCallObject, message);
}

function checkQuantity(name: string, v: bigint | undefined, limit: bigint): Result<never> | undefined {
  if (v === undefined) return undefined;
  if (v < 0n || v >= limit) return bad(`${name} must be below 2^${limit === U64 ? 64 : 256}`);
  return undefined;
}

/** Validates a callObject and builds the transaction the engine runs (see the rules above). */
export function callObjectToExecTx(o: CallObject, ctx: CallContext): Result<ExecTx> {
  if (o.to !== undefined && o.to.length !== 20) return err(ErrorCode.ArgAddressLength, `to must be 20 bytes, got ${o.to.length}`);
  if (o.from !== undefined && o.from.length !== 20) return err(ErrorCode.ArgAddressLength, `from must be 20 bytes, got ${o.from.length}`);
  const q =
    checkQuantity('gas', o.gas, U64) ??
    checkQuantity('nonce', o.nonce, U64 - 1n) ??
    checkQuantity('value', o.value, U256) ??
    checkQuantity('gasPrice', o.gasPrice, U256) ??
    checkQuantity('maxFeePerGas', o.maxFeePerGas, U256) ??
    checkQuantity('maxPriorityFeePerGas', o.maxPriorityFeePerGas, U256);
  if (q !== undefined) return q;
  if (o.data !== undefined && o.data.length > MAX_TX_SIZE) return bad(`data is ${o.data.length} bytes, limit ${MAX_TX_SIZE}`);
  for (const [a, keys] of o.accessList ?? []) {
    if (a.length !== 20) return bad('accessList address must be 20 bytes');
    for (const k of keys) if (k.length !== 32) return bad('accessList storage key must be 32 bytes');
  }
  if (o.chainId !== undefined && o.chainId !== CHAIN_ID) {
    return err(ErrorCode.ArgInvalidChainId, `chainId ${o.chainId} is not this chain's (${CHAIN_ID})`);
  }
  const has1559 = o.maxFeePerGas !== undefined || o.maxPriorityFeePerGas !== undefined;
  if (o.gasPrice !== undefined && has1559) {
    return err(ErrorCode.ArgInvalidFeeParams, 'gasPrice cannot be combined with maxFeePerGas or maxPriorityFeePerGas');
  }
  if (o.type !== undefined && o.type !== 0n && o.type !== 2n) {
    return err(ErrorCode.ArgInvalidTxType, `type 0x${o.type.toString(16)} is not supported in a call (only 0x0 and 0x2)`);
  }
  const hasAccessList = o.accessList !== undefined && o.accessList.length > 0;
  if (o.type === 0n && (has1559 || hasAccessList)) {
    return err(ErrorCode.ArgInvalidTxType, 'type 0x0 cannot carry maxFeePerGas, maxPriorityFeePerGas or accessList');
  }
  if (o.type === 2n && o.gasPrice !== undefined) return err(ErrorCode.ArgInvalidTxType, 'type 0x2 cannot carry gasPrice');

  let type: 0 | 1 | 2;
  let maxFee: bigint;
  let priority: bigint;
  if (o.gasPrice !== undefined) {
    type = hasAccessList ? 1 : 0;
    maxFee = priority = o.gasPrice;
  } else {
    type = o.type === 0n ? 0 : 2;
    maxFee = o.maxFeePerGas ?? o.maxPriorityFeePerGas ?? 0n;
    priority = o.maxPriorityFeePerGas ?? maxFee;
    if (priority > maxFee) return err(ErrorCode.ArgInvalidFeeParams, `maxPriorityFeePerGas ${priority} exceeds maxFeePerGas ${maxFee}`);
  }
  const from = o.from ?? ZERO_ADDRESS;
  const gas = o.gas === undefined || o.gas > ctx.blockGasLimit ? ctx.blockGasLimit : o.gas;
  return ok({
    type,
    from,
    to: o.to,
    nonce: o.nonce ?? ctx.nonceOf(from),
    value: o.value ?? 0n,
    data: o.data ?? new Uint8Array(0),
    gasLimit: gas,
    maxFeePerGas: maxFee,
    maxPriorityFeePerGas: priority,
    accessList: (o.accessList ?? []) as readonly (readonly [Address, readonly Bytes32[]])[],
  });
}

/**
 * A signed raw transaction executed as a call from its recovered sender (rpc_eth_call_rawtx): the same
 * format checks as submit (size, type, chain id, signature), then every field as signed. The gas limit
 * is clamped to the block gas limit like a callObject's. Nonce and balance are not checked.
 */
export function rawTxToExecTx(raw: Uint8Array, ctx: CallContext): Result<ExecTx> {
  if (raw.length > MAX_TX_SIZE) return err(ErrorCode.SubmitTxTooLarge, `transaction is ${raw.length} bytes, limit ${MAX_TX_SIZE}`);
  const parsed = parseSignedTx(raw);
  if (!parsed.ok) return parsed;
  const sender = recoverSender(parsed.value);
  if (!sender.ok) return sender;
  const f = parsed.value.fields;
  return ok({
    type: f.type,
    from: sender.value,
    to: f.to,
    nonce: f.nonce,
    value: f.value,
    data: f.data,
    gasLimit: f.gasLimit > ctx.blockGasLimit ? ctx.blockGasLimit : f.gasLimit,
    maxFeePerGas: f.maxFeePerGas,
    maxPriorityFeePerGas: f.maxPriorityFeePerGas,
    accessList: f.accessList,
  });
}

/** The environment calls run in: the next block's (see the header). */
export function nextBlockEnv(
  head: { readonly number: bigint; readonly hash: Bytes32; readonly timestamp: bigint },
  nowNs: bigint,
  cfg: { readonly blockGasLimit: bigint; readonly coinbase: Address },
  nextBaseFee: bigint,
): BlockEnv {
  const nowS = nowNs / 1_000_000_000n;
  return {
    number: head.number + 1n,
    timestamp: nowS > head.timestamp ? nowS : head.timestamp + 1n,
    baseFeePerGas: nextBaseFee,
    gasLimit: cfg.blockGasLimit,
    coinbase: cfg.coinbase,
    prevRandao: head.hash,
    parentHash: head.hash,
  };
}
