// Limits of the admin setters (docs/lifecycle.md "Admin methods").

import { IC_UPDATE_INSTRUCTION_LIMIT, TX_INSTRUCTION_BUDGET } from '../constants.js';

/**
 * Instructions reserved in a block message besides the soft limit and one whole transaction: the overshoot of
 * the last counter check, receipts, logs, the commit of the block's state writes and the header (measured
 * about 2 B for a full block; `npm run bench`, block.* figures), doubled for margin.
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
 * every log byte, the bloom, the stores), counted per included transaction while the block is built and
 * reserved before the next one starts, so that a block of log-heavy transactions cannot push the message past
 * its limit after the last transaction (issue 11, attack 3). Estimates from the keccak cost (1.9 M per
 * 136-byte block, about 14 K a byte) with margin; docs/execution.md "Block production".
 */
export const FINALIZE_INSTRUCTIONS_PER_TX = 2_000_000n;
export const FINALIZE_INSTRUCTIONS_PER_LOG = 500_000n;
/** Per byte of log data and topics. */
export const FINALIZE_INSTRUCTIONS_PER_LOG_BYTE = 16_000n;
