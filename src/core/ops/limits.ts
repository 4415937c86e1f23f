// Limits of the admin setters (docs/lifecycle.md "Admin methods").

import { IC_UPDATE_INSTRUCTION_LIMIT, MAX_LOG_BYTES_PER_TX, MAX_LOGS_PER_TX, TX_INSTRUCTION_BUDGET } from '../constants.js';
import type { CommitmentVersion } from '../chain/commitments.js';

/**
 * Instructions reserved in a block message besides the soft limit and one whole transaction: what the block does
 * after its last transaction that is not reserved inside the soft limit. That is the last transaction's own
 * finalisation (at most lastTxFinalizeBound(), block.finalize.max_log_tx.reserved), the state commit of the block's writes (at most
 * stateCommitBound(), 2.3 B at MAX_BLOCK_GAS_LIMIT), the fixed part (header, block and fee records; FINALIZE_INSTRUCTIONS_FIXED)
 * and the overshoot of the last counter check. tests/unit/chain_finalize_budget.test.ts checks that the bounds fit.
 */
export const BLOCK_FINALIZATION_RESERVE = 4_000_000_000n;
/**
 * Highest instruction soft limit: a block message must fit the soft limit, one more transaction started just
 * below it (TX_INSTRUCTION_BUDGET) and the finalisation reserve in the IC's 40 B: 40 B - 20 B - 4 B = 16 B.
 */
export const MAX_INSTRUCTION_SOFT_LIMIT = IC_UPDATE_INSTRUCTION_LIMIT - TX_INSTRUCTION_BUDGET - BLOCK_FINALIZATION_RESERVE;
/**
 * Lowest instruction soft limit: the counter is read before every transaction, and a block message has spent
 * tens of millions of instructions before its first one (message overhead, pool scan); below 100 M a block
 * could stop before including anything and the chain would stall.
 */
export const MIN_INSTRUCTION_SOFT_LIMIT = 100_000_000n;

/**
 * Finalisation work a transaction adds to its block (receipt encoding and the receipts commitment, which hashes
 * every log byte, the block bloom, the receipt, log and status records), counted per included transaction while
 * the block is built and reserved before the next one starts, so that a block of log-heavy transactions cannot
 * push the message past its limit after the last transaction (docs/hardening.md, "Block production"). Measured on the real wasm
 * (`npm run bench`: block.finalize.instructions_per_tx, block.finalize.instructions_per_log and
 * block.finalize.instructions_per_log_byte), about 20% added.
 * docs/execution.md "Block production".
 */
export const FINALIZE_INSTRUCTIONS_PER_TX = 2_000_000n;
export const FINALIZE_INSTRUCTIONS_PER_LOG = 500_000n;
/**
 * Per byte of log data and topics, by the chain's commitment version (chain/commitments.ts), whose hash the
 * receipts commitment runs over every log byte: 1 keccak256, 2 BLAKE3 at about half keccak's cost a byte
 * (block.finalize.instructions_per_log_byte on a chain of each version). Both keep the same margin over
 * what they reserve for (about 1.57x).
 */
export const FINALIZE_INSTRUCTIONS_PER_LOG_BYTE_V1 = 16_000n;
export const FINALIZE_INSTRUCTIONS_PER_LOG_BYTE_V2 = 8_000n;
export function finalizeInstructionsPerLogByte(v: CommitmentVersion): bigint {
  return v === 2 ? FINALIZE_INSTRUCTIONS_PER_LOG_BYTE_V2 : FINALIZE_INSTRUCTIONS_PER_LOG_BYTE_V1;
}
/** The part of finalisation that does not grow with the block (header, block and fee records): block.finalize.fixed_instructions, with margin. */
export const FINALIZE_INSTRUCTIONS_FIXED = 50_000_000n;
/**
 * The state commit, per storage slot or account the block changed: hashing its entry into the state root and
 * writing its stable map (block.finalize.instructions_per_storage_write and block.finalize.instructions_per_storage_clear),
 * about 20% added.
 */
export const FINALIZE_INSTRUCTIONS_PER_STATE_WRITE = 2_300_000n;
/**
 * The least gas a block can pay per state write: clearing a slot with a cold SSTORE costs 5,000 gas and refunds
 * 4,800, but a refund is capped at a fifth of the gas used, so 4,000. (A new slot costs 22,100; a value transfer
 * to another account about 9,000; every transaction's sender account comes with 21,000.)
 */
export const MIN_GAS_PER_STATE_WRITE = 4_000n;

/**
 * Highest block gas limit (set_block_gas_limit). The state commit is not reserved per transaction: it is bounded
 * by the block's gas, at most MAX_BLOCK_GAS_LIMIT / MIN_GAS_PER_STATE_WRITE = 1,000 writes, 2.3 B, which with the
 * last transaction's logs (block.finalize.max_log_tx.reserved, bounded by MAX_LOGS_PER_TX and MAX_LOG_BYTES_PER_TX, since gas alone would let
 * one transaction log 500 KB) and the fixed part must fit BLOCK_FINALIZATION_RESERVE. It also bounds what gas lets
 * a block hold in the heap: EVM memory of at most about 1.4 MB a call frame (3 gas a word plus words^2 / 512),
 * at most 500 KB of log data (8 gas a byte). The default is 3,000,000.
 */
export const MAX_BLOCK_GAS_LIMIT = 4_000_000n;
/** Below this no transaction fits (a plain transfer's gas). */
export const MIN_BLOCK_GAS_LIMIT = 21_000n;

/**
 * The most finalisation one transaction can add on a chain of this commitment version: MAX_LOGS_PER_TX logs
 * carrying MAX_LOG_BYTES_PER_TX bytes. Without a version, the largest of all versions' (version 1's), which
 * BLOCK_FINALIZATION_RESERVE must hold.
 */
export function lastTxFinalizeBound(v: CommitmentVersion = 1): bigint {
  return FINALIZE_INSTRUCTIONS_PER_TX + FINALIZE_INSTRUCTIONS_PER_LOG * BigInt(MAX_LOGS_PER_TX) + finalizeInstructionsPerLogByte(v) * BigInt(MAX_LOG_BYTES_PER_TX);
}

/** The most the state commit of a block with this gas limit can take. */
export function stateCommitBound(blockGasLimit: bigint): bigint {
  return (blockGasLimit / MIN_GAS_PER_STATE_WRITE) * FINALIZE_INSTRUCTIONS_PER_STATE_WRITE;
}
