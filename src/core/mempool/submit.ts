// Admission of transactions into the pending pool. Order (SPEC "Submit validation order"; the
// pre-submit guard runs in the facade before these), with every check that needs no hash first so that junk
// costs little (docs/hardening.md "Submits"; docs/execution.md "Submit"):
//   size -> format (decode: type, chain id, signature ranges) -> fee minimums -> gas limit / initcode / intrinsic
//   -> sender (the signature's point R, a square root without hashing; then one keccak pass + recovery) -> balance of this tx -> eth hash: [duplicate: same tx_id back]
//   -> nonce (too low, window) -> (sender, nonce) conflict or replacement -> sender, not-executable and pool
//   limits (a full pool evicts a worse transaction for an executable one) -> balance for all the sender's pending.
// Each check is a point read; the only hashes are the eth_tx_hash and, for signed txs, the one recovery.

import { CHAIN_ID, INSPECT_SCREEN_MAX_TX_BYTES, MAX_NONCE_WINDOW, MAX_NOT_EXECUTABLE_GLOBAL, MAX_NOT_EXECUTABLE_PER_SENDER, MAX_PENDING_GLOBAL, MAX_PENDING_PER_PRINCIPAL, MAX_PENDING_PER_SENDER, MAX_TX_SIZE, REPLACEMENT_FEE_BUMP_PERCENT } from '../constants.js';
import { callerKeyGuess, forgetCallerKey, keccak256, noteCallerKey, rememberKey } from '../crypto.js';
import type { Address, Bytes32, ExecutionEngine } from '../engine.js';
import { ErrorCode, err, ok, type Result } from '../errors.js';
import { bytesEqual, toHex, u64be } from '../codec/bytes.js';
import type { MetaStore } from '../chain/meta.js';
import { parseSignedTx, recoverSender, recoverSenderGuessing, recoverSenderWithKey } from '../tx/decode.js';
import { checkIcRecord, deriveSyntheticSender, encodeCanonical, isAnonymous, syntheticTxHash, type IcTxRecord } from '../tx/ic_synthetic.js';
import { intrinsicGas, MAX_INITCODE_SIZE } from '../tx/intrinsic.js';
import { TxOrigin, type TxFields } from '../tx/types.js';
import type { PendingPool, PendingEntry } from './pool.js';

export interface SubmitDeps {
  readonly pool: PendingPool;
  readonly meta: MetaStore;
  readonly engine: ExecutionEngine;
  readonly nowNs: () => bigint;
}

/** An already known transaction that is queued or included: submitting the same bytes again returns its tx_id. */
function knownId(deps: SubmitDeps, ethHash: Bytes32): Uint8Array | undefined {
  const id = deps.pool.idByHash(ethHash);
  if (id === undefined) return undefined;
  const st = deps.pool.getStatus(id);
  return st !== undefined && st.kind !== 'Dropped' ? id : undefined;
}

/**
 * A submit's optional hint: the sender's public key (rpc_eth_send_raw_transaction_with_key), and whether this
 * call may keep the key and build its verification tables (an update; canister_inspect_message's heap is
 * discarded).
 */
export interface SenderKeyHint {
  readonly publicKey: Uint8Array;
  readonly learn: boolean;
}

/**
 * A plain submit's caller (rpc_eth_send_raw_transaction without a key), whose earlier submits' key is tried
 * first (crypto.ts callerKeyGuess; the anonymous principal never is), and whether this call may note the key
 * and build its tables (an update).
 */
export interface CallerHint {
  readonly caller: Uint8Array;
  readonly learn: boolean;
}

export function submitRaw(deps: SubmitDeps, raw: Uint8Array, hint?: SenderKeyHint | CallerHint): Result<Uint8Array> {
  const screened = screenRaw(deps, raw, hint);
  if (!screened.ok) return screened;
  const { fields: f, sender, publicKey } = screened.value;
  const ethHash = keccak256(raw);
  const known = knownId(deps, ethHash);
  if (known !== undefined) return ok(known);
  const admitted = admit(deps, f, sender, ethHash, TxOrigin.EthSigned, raw, new Uint8Array(0));
  // Only an admitted transaction's key is kept: refused junk builds nothing (crypto.ts rememberKey).
  if (admitted.ok && hint?.learn === true) {
    if ('publicKey' in hint) rememberKey(hint.publicKey, sender);
    else if (publicKey !== undefined) noteCallerKey(hint.caller, publicKey, sender);
  }
  return admitted;
}

/**
 * The checks of submitRaw that come before the eth hash, in its order, writing nothing: size, format, the
 * hash-free checks, then (one keccak pass and the recovery) the sender and whether it can pay this
 * transaction. canister_inspect_message runs it on small transactions, so junk is refused before it is paid
 * for (docs/hardening.md "Submits"). `publicKey`: the sender's key, when a caller hint's check found it.
 */
export function screenRaw(deps: SubmitDeps, raw: Uint8Array, hint?: SenderKeyHint | CallerHint): Result<{ readonly fields: TxFields; readonly sender: Address; readonly publicKey?: Uint8Array }> {
  if (raw.length > MAX_TX_SIZE) return err(ErrorCode.SubmitTxTooLarge, `transaction is ${raw.length} bytes, limit ${MAX_TX_SIZE}`);
  // Parsing checks type, chain id and signature ranges without hashing.
  const parsed = parseSignedTx(raw);
  if (!parsed.ok) return parsed;
  const f = parsed.value.fields;
  // Every check that needs neither a hash nor the sender, before the first keccak pass over the payload
  // (a 128 KiB junk transaction must be refused for little: docs/hardening.md, "Submits").
  const cheap = cheapChecks(deps.meta.getConfig(), f);
  if (!cheap.ok) return cheap;
  // The sender: the signature's point R first (no hash: an r that is not the x of a curve point is refused
  // there), then one keccak pass over the signing payload and the recovery (or, with a hint, the key's check).
  const opts = { buildTables: hint?.learn === true, pointFirst: raw.length > INSPECT_SCREEN_MAX_TX_BYTES };
  let sender: Result<Address>;
  let publicKey: Uint8Array | undefined;
  if (hint === undefined) sender = recoverSender(parsed.value);
  else if ('publicKey' in hint) sender = recoverSenderWithKey(parsed.value, hint.publicKey, opts);
  else if (isAnonymous(hint.caller)) sender = recoverSender(parsed.value);
  else {
    const guess = callerKeyGuess(hint.caller);
    const found = recoverSenderGuessing(parsed.value, guess, opts);
    if (!found.ok) return found;
    // A miss: forgotten here, before the checks that may still refuse this submit or find it already known
    // (which note nothing), so a caller that changed keys pays one miss, not one per such submit.
    if (guess !== undefined && hint.learn && !bytesEqual(found.value.publicKey, guess)) forgetCallerKey(hint.caller);
    sender = ok(found.value.address);
    publicKey = found.value.publicKey;
  }
  if (!sender.ok) return sender;
  // A sender that cannot pay is refused before the second pass (the eth hash). Unless the nonce is already
  // used: then these bytes may be an included transaction, whose resubmission answers its tx_id.
  if (deps.engine.getBalance(sender.value) < f.gasLimit * f.maxFeePerGas + f.value && f.nonce >= deps.engine.getNonce(sender.value)) {
    return insufficient(deps.engine.getBalance(sender.value), f);
  }
  return ok(publicKey === undefined ? { fields: f, sender: sender.value } : { fields: f, sender: sender.value, publicKey });
}

const insufficient = (balance: bigint, f: TxFields): Result<never> =>
  err(ErrorCode.SubmitInsufficientFunds, `balance ${balance} cannot pay gas limit * max fee + value = ${f.gasLimit * f.maxFeePerGas + f.value}`);

/** Fees against the minimums, gas limit against the block's, initcode size, intrinsic gas: no hashing, no state. */
function cheapChecks(cfg: ReturnType<MetaStore['getConfig']>, f: TxFields): Result<null> {
  // Fees. Legacy/2930 carry gasPrice in both fields, so one price plays both roles.
  if (f.maxFeePerGas < cfg.minGasPrice) return err(ErrorCode.SubmitInvalidFee, `max fee per gas ${f.maxFeePerGas} is below the minimum gas price ${cfg.minGasPrice}`);
  if (f.maxPriorityFeePerGas < cfg.minPriorityFee) return err(ErrorCode.SubmitInvalidFee, `priority fee ${f.maxPriorityFeePerGas} is below the minimum ${cfg.minPriorityFee}`);
  if (f.maxPriorityFeePerGas > f.maxFeePerGas) return err(ErrorCode.SubmitInvalidFee, 'max priority fee per gas exceeds max fee per gas');

  // Gas.
  if (f.gasLimit > cfg.blockGasLimit) return err(ErrorCode.SubmitGasLimitExceedsBlock, `gas limit ${f.gasLimit} exceeds the block gas limit ${cfg.blockGasLimit}`);
  if (f.to === undefined && f.data.length > MAX_INITCODE_SIZE) return err(ErrorCode.SubmitInitcodeTooLarge, `initcode is ${f.data.length} bytes, limit ${MAX_INITCODE_SIZE} (EIP-3860)`);
  const intrinsic = intrinsicGas(f);
  if (f.gasLimit < intrinsic) return err(ErrorCode.SubmitIntrinsicGas, `gas limit ${f.gasLimit} is below the intrinsic gas ${intrinsic}`);
  return ok(null);
}

export function submitIc(deps: SubmitDeps, rec: IcTxRecord, caller: Uint8Array, canisterId: Uint8Array): Result<Uint8Array> {
  // Size first, before any hashing: the canonical bytes are fixed fields plus data.
  if (rec.data.length + 160 > MAX_TX_SIZE) return err(ErrorCode.SubmitTxTooLarge, `data is ${rec.data.length} bytes, transaction limit ${MAX_TX_SIZE}`);
  const shape = checkIcRecord(rec);
  if (!shape.ok) return shape;
  const sender = deriveSyntheticSender(caller, canisterId);
  if (!sender.ok) return sender;
  const canonical = encodeCanonical(rec, sender.value);
  const ethHash = syntheticTxHash(canonical);
  const known = knownId(deps, ethHash);
  if (known !== undefined) return ok(known);
  const fields = icFields(rec);
  const cheap = cheapChecks(deps.meta.getConfig(), fields);
  if (!cheap.ok) return cheap;
  return admit(deps, fields, sender.value, ethHash, TxOrigin.IcSynthetic, canonical, caller);
}

const icFields = (rec: IcTxRecord): TxFields => ({
  type: 2,
  chainId: CHAIN_ID,
  nonce: rec.nonce,
  gasLimit: rec.gasLimit,
  maxFeePerGas: rec.maxFeePerGas,
  maxPriorityFeePerGas: rec.maxPriorityFeePerGas,
  to: rec.to,
  value: rec.value,
  data: rec.data,
  accessList: [],
});

const bumped = (oldFee: bigint, newFee: bigint): boolean => newFee * 100n >= oldFee * (100n + REPLACEMENT_FEE_BUMP_PERCENT);

function admit(
  deps: SubmitDeps,
  f: TxFields,
  sender: Address,
  ethHash: Bytes32,
  origin: TxOrigin,
  raw: Uint8Array,
  principal: Uint8Array,
): Result<Uint8Array> {
  // The caller has run cheapChecks.
  const { pool, meta, engine } = deps;

  // Nonce window: [account nonce, account nonce + MAX_NONCE_WINDOW).
  const accountNonce = engine.getNonce(sender);
  if (f.nonce < accountNonce) return err(ErrorCode.SubmitNonceTooLow, `nonce ${f.nonce} is below the account nonce ${accountNonce}`);
  if (f.nonce - accountNonce >= BigInt(MAX_NONCE_WINDOW)) {
    return err(ErrorCode.SubmitNonceGap, `nonce ${f.nonce} is ${MAX_NONCE_WINDOW} or more ahead of the account nonce ${accountNonce}`);
  }

  // Executable: every nonce from the account's up to this one is pending, and the max fee reaches the next
  // base fee. Otherwise it waits, under the not-executable limits (docs/execution.md "Pool rules").
  let executable = f.maxFeePerGas >= meta.getNextBaseFee();
  for (let n = accountNonce; executable && n < f.nonce; n++) if (!pool.hasSenderNonce(sender, n)) executable = false;
  const queue = pool.queueOf(sender);

  // Same (sender, nonce) pending: replace only with both fees raised by REPLACEMENT_FEE_BUMP_PERCENT.
  const existing = pool.getBySenderNonce(sender, f.nonce);
  let victim: PendingEntry | undefined;
  if (existing !== undefined) {
    if (!bumped(existing.maxFeePerGas, f.maxFeePerGas) || !bumped(existing.maxPriorityFeePerGas, f.maxPriorityFeePerGas)) {
      return err(ErrorCode.SubmitNonceConflict, `a transaction with nonce ${f.nonce} is pending; a replacement must raise both fees by at least ${REPLACEMENT_FEE_BUMP_PERCENT}%`);
    }
  } else {
    if (pool.senderCount(sender) >= MAX_PENDING_PER_SENDER) return err(ErrorCode.SubmitSenderLimit, `sender has ${MAX_PENDING_PER_SENDER} pending transactions`);
    if (!executable) {
      const mine = queue.filter((e) => pool.notExecutable.has(toHex(e.txId))).length;
      if (mine >= MAX_NOT_EXECUTABLE_PER_SENDER) {
        return err(ErrorCode.SubmitNotExecutableLimit, `sender has ${MAX_NOT_EXECUTABLE_PER_SENDER} pending transactions that cannot run yet (a nonce gap or a max fee below the base fee)`);
      }
      if (pool.notExecutable.size >= MAX_NOT_EXECUTABLE_GLOBAL) {
        return err(ErrorCode.SubmitNotExecutableLimit, `the pool holds ${MAX_NOT_EXECUTABLE_GLOBAL} transactions that cannot run yet`);
      }
    }
    if (pool.size() >= MAX_PENDING_GLOBAL) {
      // A full pool makes room only for an executable transaction, by evicting a worse one.
      victim = executable ? pool.evictionCandidate(f.maxFeePerGas) : undefined;
      if (victim === undefined) return err(ErrorCode.SubmitPoolFull, `the pool holds ${MAX_PENDING_GLOBAL} transactions and none pays less or waits`);
    }
  }
  if (principal.length > 0) {
    const freed = existing !== undefined && bytesEqual(existing.principal, principal) ? 1 : 0;
    if (pool.principalCount(principal) - freed >= MAX_PENDING_PER_PRINCIPAL) {
      return err(ErrorCode.SubmitPrincipalLimit, `caller has ${MAX_PENDING_PER_PRINCIPAL} pending transactions`);
    }
  }

  // The sender's pending transactions must be affordable together (the one replaced does not count).
  let committed = 0n;
  for (const e of queue) if (e.nonce !== f.nonce) committed += e.gasLimit * e.maxFeePerGas + e.value;
  const cost = f.gasLimit * f.maxFeePerGas + f.value;
  const balance = engine.getBalance(sender);
  if (balance < committed + cost) {
    return err(ErrorCode.SubmitInsufficientFunds, `balance ${balance} cannot pay gas limit * max fee + value = ${cost} on top of ${committed} for the sender's other pending transactions`);
  }

  if (existing !== undefined) pool.drop(existing, ErrorCode.PoolReplaced);
  if (victim !== undefined) pool.drop(victim, ErrorCode.PoolEvicted);
  // tx_id = the 8-byte big-endian arrival sequence number (see index.ts for why).
  const seq = meta.takeTxSeq();
  const txId = u64be(seq);
  const entry: PendingEntry = {
    txId,
    seq,
    sender,
    ethHash,
    nonce: f.nonce,
    gasLimit: f.gasLimit,
    maxFeePerGas: f.maxFeePerGas,
    maxPriorityFeePerGas: f.maxPriorityFeePerGas,
    principal,
    arrivalNs: deps.nowNs(),
    value: f.value,
  };
  pool.add(entry, { origin, from: sender, ethHash, principal, raw });
  if (!executable) pool.notExecutable.set(toHex(txId), entry);
  return ok(txId);
}

/**
 * dev_submit_impersonated (development canisters; the facade checks that): a transaction from `sender`
 * without a signature, built by the caller (tx/impersonated.ts), through the same checks after the sender
 * and the same admission as every other submit. Resubmitting the same transaction answers its tx_id.
 */
export function submitImpersonated(deps: SubmitDeps, f: TxFields, sender: Address, raw: Uint8Array, ethHash: Bytes32): Result<Uint8Array> {
  if (raw.length > MAX_TX_SIZE) return err(ErrorCode.SubmitTxTooLarge, `transaction is ${raw.length} bytes, limit ${MAX_TX_SIZE}`);
  const cheap = cheapChecks(deps.meta.getConfig(), f);
  if (!cheap.ok) return cheap;
  const known = knownId(deps, ethHash);
  if (known !== undefined) return ok(known);
  return admit(deps, f, sender, ethHash, TxOrigin.Impersonated, raw, new Uint8Array(0));
}
