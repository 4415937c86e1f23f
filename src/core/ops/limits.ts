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
