// The development (cheat) methods of a canister installed with development = opt true (docs/devnet.md,
// "The canister side of cheats"). The facade (index.ts) refuses them with dev.disabled on any other canister;
// nothing here runs on the production path. Every state write is also kept for the next block's state
// changes (pending_changes.ts), so the export stream and the state root stay exact.

import { CHAIN_ID, MAX_CODE_SIZE } from '../constants.js';
import type { Address, ExecutionEngine } from '../engine.js';
import { ErrorCode, err, ok, type Result } from '../errors.js';
import type { KvMap } from '../host.js';
import type { MetaStore } from '../chain/meta.js';
import { decodeStateChanges, encodeStateChanges, mergeStateChange, type AccountChange } from '../export/state_changes.js';
import type { PendingPool } from '../mempool/pool.js';
import { submitImpersonated, type SubmitDeps } from '../mempool/submit.js';
import { impersonatedRaw, impersonatedTxHash } from '../tx/impersonated.js';
import { decodeStoredTx, storedTxFields } from '../tx/stored.js';
import type { AccessList, TxFields } from '../tx/types.js';
import { MetaKey, metaKey } from '../store/meta_keys.js';
import type { PendingStateChanges } from './pending_changes.js';

const K_DEVELOPMENT = metaKey(MetaKey.Development);
/** Storage slots one dev_set_account may set. */
export const MAX_DEV_SLOTS_PER_CALL = 1024;
/** Encoded cheats waiting for the next block; past it a block must be mined first (bounds the block record). */
export const MAX_PENDING_STATE_CHANGE_BYTES = 1024 * 1024;
const MAX_U256 = (1n << 256n) - 1n;

export const isDevelopment = (meta: KvMap): boolean => meta.get(K_DEVELOPMENT)?.[0] === 1;
/** Install only (EvmCore.init): nothing else writes the key. */
export const markDevelopment = (meta: KvMap): void => meta.insert(K_DEVELOPMENT, Uint8Array.of(1));

export interface ImpersonatedTxInput {
  readonly from: Address;
  readonly to: Address | undefined;
  readonly value: bigint;
  readonly data: Uint8Array;
  readonly gasLimit: bigint;
  /** Default: the sender's pending nonce. */
  readonly nonce?: bigint;
  /** Legacy (or, with an access list, EIP-2930) pricing; otherwise EIP-1559. */
  readonly gasPrice?: bigint;
  readonly maxFeePerGas?: bigint;
  readonly maxPriorityFeePerGas?: bigint;
  readonly accessList: AccessList;
}

export interface DevDeps {
  readonly engine: ExecutionEngine;
  readonly meta: MetaStore;
  readonly pool: PendingPool;
  readonly txs: KvMap;
  readonly pending: PendingStateChanges;
  readonly submit: SubmitDeps;
  readonly pendingNonce: (a: Address) => bigint;
}

export function devSetAccount(d: DevDeps, c: AccountChange): Result<null> {
  if (c.address.length !== 20) return err(ErrorCode.ArgAddressLength, 'address must be 20 bytes');
  if (c.balance !== undefined && (c.balance < 0n || c.balance > MAX_U256)) return err(ErrorCode.ArgInvalid, 'balance must be a uint256');
  if (c.code !== undefined && c.code.length > MAX_CODE_SIZE) return err(ErrorCode.ArgInvalid, `code must be at most ${MAX_CODE_SIZE} bytes (EIP-170)`);
  if (c.storage.length > MAX_DEV_SLOTS_PER_CALL) return err(ErrorCode.ArgInvalid, `at most ${MAX_DEV_SLOTS_PER_CALL} storage slots a call`);
  for (const s of c.storage) if (s.slot.length !== 32 || s.value.length !== 32) return err(ErrorCode.ArgInvalid, 'storage slot and value must be 32 bytes each');
  // Net per slot within the call too (the list keeps one value a slot; the last one given wins).
  let change: AccountChange = { ...c, storage: [] };
  let list = mergeStateChange([], change);
  for (const s of c.storage) list = mergeStateChange(list, { address: c.address, storage: [s] });
  change = list[0]!;
  const before = d.pending.pending();
  const merged = mergeStateChange(before === undefined ? [] : decodeStateChanges(before), change);
  const encoded = encodeStateChanges(merged);
  if (encoded.length > MAX_PENDING_STATE_CHANGE_BYTES) {
    return err(ErrorCode.ArgInvalid, `the changes since the last block would take ${encoded.length} bytes (limit ${MAX_PENDING_STATE_CHANGE_BYTES}); mine a block first`);
  }
  d.engine.applyStateChange(change);
  d.pending.set(encoded);
  return ok(null);
}

export function devSubmitImpersonated(d: DevDeps, t: ImpersonatedTxInput): Result<Uint8Array> {
  if (t.from.length !== 20 || (t.to !== undefined && t.to.length !== 20)) return err(ErrorCode.ArgAddressLength, 'from and to must be 20 bytes');
  for (const [a, keys] of t.accessList) {
    if (a.length !== 20 || keys.some((k) => k.length !== 32)) return err(ErrorCode.ArgInvalid, 'access list: 20-byte addresses, 32-byte storage keys');
  }
  if (t.value > MAX_U256) return err(ErrorCode.ArgInvalid, 'value must be a uint256');
  const cfg = d.meta.getConfig();
  let f: TxFields;
  const base = { chainId: CHAIN_ID, nonce: t.nonce ?? d.pendingNonce(t.from), gasLimit: t.gasLimit, to: t.to, value: t.value, data: t.data, accessList: t.accessList };
  if (t.gasPrice !== undefined) {
    if (t.maxFeePerGas !== undefined || t.maxPriorityFeePerGas !== undefined) return err(ErrorCode.ArgInvalidFeeParams, 'give gas_price or the EIP-1559 fees, not both');
    f = { ...base, type: t.accessList.length > 0 ? 1 : 0, maxFeePerGas: t.gasPrice, maxPriorityFeePerGas: t.gasPrice };
  } else {
    const tip = t.maxPriorityFeePerGas ?? cfg.minPriorityFee;
    f = { ...base, type: 2, maxPriorityFeePerGas: tip, maxFeePerGas: t.maxFeePerGas ?? 2n * d.meta.getNextBaseFee() + tip };
  }
  if (f.maxFeePerGas > MAX_U256 || f.maxPriorityFeePerGas > MAX_U256) return err(ErrorCode.ArgInvalidFeeParams, 'fees must be uint256');
  const raw = impersonatedRaw(f);
  return submitImpersonated(d.submit, f, t.from, raw, impersonatedTxHash(raw, t.from));
}

export function devDropTransaction(d: DevDeps, ethHash: Uint8Array): Result<boolean> {
  if (ethHash.length !== 32) return err(ErrorCode.ArgInvalid, 'transaction hash must be 32 bytes');
  const id = d.pool.idByHash(ethHash);
  if (id === undefined || d.pool.getStatus(id)?.kind !== 'Queued') return ok(false);
  const raw = d.txs.get(id);
  if (raw === undefined) return ok(false);
  const stored = decodeStoredTx(raw);
  const entry = d.pool.getBySenderNonce(stored.from, storedTxFields(stored).nonce);
  if (entry === undefined || entry.txId.length !== id.length || entry.txId.some((b, i) => b !== id[i])) return ok(false);
  d.pool.drop(entry, ErrorCode.PoolDroppedDev);
  return ok(true);
}

export function devSetNextBlockBaseFee(d: DevDeps, fee: bigint): Result<null> {
  if (fee < 0n || fee > MAX_U256) return err(ErrorCode.ArgInvalid, 'base fee must be a uint256');
  d.meta.setNextBaseFee(fee);
  return ok(null);
}

export function devSetCoinbase(d: DevDeps, coinbase: Uint8Array): Result<null> {
  if (coinbase.length !== 20) return err(ErrorCode.ArgAddressLength, 'coinbase must be 20 bytes');
  d.meta.setConfig({ ...d.meta.getConfig(), coinbase: coinbase.slice() });
  return ok(null);
}
