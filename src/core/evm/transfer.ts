// Plain value transfers without EthereumJS's runTx: the same state writes, in the same order, applied directly to
// the flat state.
//
// A transaction with no calldata and no access list, to an account with no code that is not a precompile, runs
// no EVM code: runTx only moves balances, bumps the nonce and deletes touched empty accounts (EIP-161). Building
// the EthereumJS transaction object, the journal's warm sets, the message, the bloom and the receipt is most of
// `block.transfer.instructions_per_tx`; here the effects are written as runTx writes them:
//   1. sender: nonce + 1, balance - gasLimit * price (upfront), then - value (the top-level call);
//   2. recipient: balance + value (created if absent);
//   3. sender: balance + (gasLimit - gasUsed) * price (the unused gas);
//   4. coinbase: balance + gasUsed * (price - baseFee), read after the sender's refund (created if absent);
//   5. each touched account (recipient, coinbase; the sender's nonce is at least 1) that is then empty is deleted.
// Anything outside that shape (code at the recipient, a precompile, calldata, an access list, a balance that
// would pass 2^256 - 1, a nonce at 2^64 - 1) returns undefined and takes runTx. tests/unit/evm_transfer.test.ts
// compares both paths' outcomes and state roots, and stock EthereumJS's state.

import type { BlockEnv, ExecTx, IncludedOutcome } from '../engine.js';
import type { FlatStateManager } from './state.js';
import { KECCAK256_NULL } from '@ethereumjs/util';

const MAX_UINT256 = (1n << 256n) - 1n;
const MAX_NONCE = (1n << 64n) - 1n;

/** True for 0x00..00 through 0x00..ffff: every precompile (0x01-0x11, P256VERIFY's 0x0100) is in this range. */
function maybePrecompile(a: Uint8Array): boolean {
  for (let i = 0; i < 18; i++) if (a[i] !== 0) return false;
  return true;
}

function sameAddress(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < 20; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Deletes `address` if it exists and is empty (EIP-161), as runTx's journal clean-up does for touched accounts. */
function deleteIfEmpty(sm: FlatStateManager, address: Uint8Array): void {
  const rec = sm.getAccountRecord(address);
  if (rec !== undefined && rec.nonce === 0n && rec.balance === 0n && rec.codeHash === undefined) sm.deleteAccountSync(address);
}

/**
 * Runs `tx` as a plain value transfer if it is one (see the header), after the engine's own checks (nonce, fees,
 * balance for gasLimit * maxFee + value, EIP-3607) passed. `txGas` is the intrinsic gas of a transaction without
 * calldata or access list (21,000), which is then also its EIP-7623 floor and its whole gas use.
 */
export function runPlainTransfer(
  sm: FlatStateManager,
  tx: ExecTx,
  env: BlockEnv,
  txGas: bigint,
): Omit<IncludedOutcome, 'instructions'> | undefined {
  const to = tx.to;
  if (to === undefined || tx.data.length !== 0 || tx.accessList.length !== 0 || tx.gasLimit < txGas) return undefined;
  if (tx.nonce >= MAX_NONCE || maybePrecompile(to)) return undefined;
  const recipient = sm.getAccountRecord(to);
  if (recipient?.codeHash !== undefined) return undefined;
  const self = sameAddress(to, tx.from);
  if (!self && (recipient?.balance ?? 0n) + tx.value > MAX_UINT256) return undefined;
  const sender = sm.getAccountRecord(tx.from);
  if (sender === undefined) return undefined; // the engine's balance check makes this unreachable for a paying tx

  const baseFee = env.baseFeePerGas;
  const price =
    tx.type === 2 ? (tx.maxFeePerGas < baseFee + tx.maxPriorityFeePerGas ? tx.maxFeePerGas : baseFee + tx.maxPriorityFeePerGas) : tx.maxFeePerGas;
  const senderHash = sender.codeHash ?? KECCAK256_NULL;
  // Steps 1-3: with a distinct recipient nothing reads the sender in between, so one write has the same result.
  if (self) {
    sm.putAccountSync(tx.from, sender.nonce + 1n, sender.balance - txGas * price, senderHash);
  } else {
    sm.putAccountSync(tx.from, sender.nonce + 1n, sender.balance - txGas * price - tx.value, senderHash);
    sm.putAccountSync(to, recipient?.nonce ?? 0n, (recipient?.balance ?? 0n) + tx.value, KECCAK256_NULL);
  }
  const cb = sm.getAccountRecord(env.coinbase);
  sm.putAccountSync(env.coinbase, cb?.nonce ?? 0n, (cb?.balance ?? 0n) + txGas * (price - baseFee), cb?.codeHash ?? KECCAK256_NULL);
  if (!self) deleteIfEmpty(sm, to);
  deleteIfEmpty(sm, env.coinbase);
  sm.originalStorageCache.clear();
  return {
    kind: 'included',
    status: 1,
    gasUsed: txGas,
    logs: [],
    contractAddress: undefined,
    returnData: new Uint8Array(0),
    failure: undefined,
    gasRefund: 0n,
  };
}
