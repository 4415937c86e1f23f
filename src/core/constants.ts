// Every constant of SPEC.md, in one place. Other modules import from here, never restate a value.

export const CHAIN_ID = 4801360n;
// SPEC.md also writes the hex form as 0x4944d0, which is 4801744, not 4801360. The decimal value is the one
// the spec repeats everywhere (constants, init sequence, indexer default), so eth_chainId answers its hex:
// 0x494350. Clients compare eth_chainId with the chain id they sign with, so the two must agree.
export const CHAIN_ID_HEX = `0x${CHAIN_ID.toString(16)}`;

export const MAX_TX_SIZE = 131072;
export const MAX_TXS_PER_BLOCK = 1024;
export const MAX_PENDING_GLOBAL = 8192;
export const MAX_PENDING_PER_SENDER = 64;
export const MAX_PENDING_PER_PRINCIPAL = 32;
export const MAX_NONCE_WINDOW = 64;
// Not-executable pending transactions (a nonce gap before them, or a max fee below the base fee) have their
// own smaller limits and a lifetime, so a pool full of them cannot stop later submits (docs/execution.md).
export const MAX_NOT_EXECUTABLE_PER_SENDER = 16;
export const MAX_NOT_EXECUTABLE_GLOBAL = 1024;
/** A transaction still not executable this long after it arrived is dropped (pool.expired); geth's default. */
export const NOT_EXECUTABLE_LIFETIME_NS = 3n * 3600n * 1_000_000_000n;
/** The status of a dropped (or replaced, evicted, expired) transaction is kept this long, then removed. */
export const DROPPED_STATUS_LIFETIME_NS = 24n * 3600n * 1_000_000_000n;
/** At most this many dropped statuses are removed per mining tick (bounded work per message). */
export const DROPPED_STATUS_PRUNE_PER_TICK = 256;
export const MAX_LOGS_PER_TX = 64;
export const MAX_LOG_TOPICS = 4;
/**
 * Most bytes of log data and topics (32 a topic) one transaction's surviving logs may carry. The block message
 * hashes every log byte into the receipts commitment after the last transaction (docs/execution.md "Block
 * production"), so one transaction's share of that work must be bounded: at the measured cost this is at
 * most finalizeInstructionsPerLogByte(version) * MAX_LOG_BYTES_PER_TX of BLOCK_FINALIZATION_RESERVE (ops/limits.ts).
 */
export const MAX_LOG_BYTES_PER_TX = 65536;

export const DEFAULT_MINING_INTERVAL_MS = 2000;
export const DEFAULT_BASE_FEE = 250_000_000_000n;
export const DEFAULT_MIN_GAS_PRICE = 250_000_000_000n;
export const DEFAULT_MIN_PRIORITY_FEE = 250_000_000_000n;
export const DEFAULT_BLOCK_GAS_LIMIT = 3_000_000n;
export const DEFAULT_INSTRUCTION_SOFT_LIMIT = 4_000_000_000n;
export const DEFAULT_PRUNE_TIMER_INTERVAL_MS = 3_600_000;
export const DEFAULT_PRUNE_MAX_OPS_PER_TICK = 5000;
export const MIN_PRUNE_TIMER_INTERVAL_MS = 1000;
export const MIN_PRUNE_MAX_OPS_PER_TICK = 1;

// IC execution limits (instructions per message), enforced by the replica and by src/host.
export const IC_QUERY_INSTRUCTION_LIMIT = 5_000_000_000n;
export const IC_UPDATE_INSTRUCTION_LIMIT = 40_000_000_000n;
/** canister_inspect_message (the replica's max_instructions_for_message_acceptance_calls); past it the message is refused. */
export const IC_INSPECT_INSTRUCTION_LIMIT = 200_000_000n;
/**
 * Raw transactions up to this size are screened in full (hash-free checks, sender recovery, affordability)
 * by canister_inspect_message, where a refusal costs the canister nothing; larger ones only by the update.
 * Screening at this size costs inspect.submit_raw.screened_unfunded.instructions (npm run bench), well inside the 200 M
 * limit with margin; the keccak pass over the payload grows with the size (keccak.block.instructions a 136 bytes).
 */
export const INSPECT_SCREEN_MAX_TX_BYTES = 2048;

// Replacement of a pending (sender, nonce) needs both fees raised by at least this percentage.
export const REPLACEMENT_FEE_BUMP_PERCENT = 10n;

// Instructions one transaction may spend, measured from the counter at its start (DESIGN rule 5).
// 20 B: a block message needs at most the soft limit (4 B) + one whole transaction (20 B) + the
// overshoot of the last check and the receipt/commit work (the finalisation reserve, ops/limits.ts), well
// under the 40 B update limit; and it leaves room for the expensive precompiles real contracts use (a 4-pair
// BN254 pairing for a Groth16 verifier, a KZG point evaluation: a few B each, evm/budget.ts's bounds).
export const TX_INSTRUCTION_BUDGET = 20_000_000_000n;
// eth_call / eth_estimateGas executed inside an IC query (5 B limit) can only apply a smaller budget;
// a call that exhausts it there may still fit TX_INSTRUCTION_BUDGET in a block (run it as an update to know).
export const QUERY_CALL_INSTRUCTION_BUDGET = 4_500_000_000n;

// ---- Read API (src/core/query; docs/read-api.md explains each choice) ----
// eth_getLogs / rpc_eth_get_logs_paged.
/** Widest block range one filter may span (toBlock - fromBlock + 1, tags resolved against the head, before toBlock is clamped to it). */
export const MAX_LOG_BLOCK_RANGE = 10_000n;
/** Most logs one page returns (the default page size); asking for more gives logs.too_many_results. */
export const MAX_LOGS_PER_PAGE = 1000;
/** A page stops before the log that would take its logs' payload (address, topics, data) past this many bytes (at least one log per page). */
export const MAX_LOG_PAGE_BYTES = 1_500_000;
/**
 * A page stops (and returns a cursor) before the instructions spent so far plus the projected cost of encoding
 * its logs into the reply would pass this; the IC stops queries at 5 B. The projection over-estimates (a log's
 * view is already in the counter), and between checks at most one block's scan of non-matching logs is added
 * (a few percent of this limit for a block full of logs), which stays under the IC's 5 B.
 */
export const LOG_PAGE_INSTRUCTION_SOFT_LIMIT = 4_000_000_000n;
/** Instructions a returned log costs (its view and its Candid encoding): query.get_logs.1000_logs.instructions a thousandth, with margin. */
export const LOG_REPLY_INSTRUCTIONS_PER_LOG = 3_000_000n;
/** And per byte of its data and topics (Candid copies blobs in bulk). */
export const LOG_REPLY_INSTRUCTIONS_PER_BYTE = 64n;
/** topics[0] may be one value or an OR list of at most this many. */
export const MAX_LOG_TOPIC0_ALTERNATIVES = 16;
// rpc_eth_get_logs_filtered: Ethereum's whole filter (address lists, OR lists on every topic position).
/** Most addresses one filter may list (geth takes the same number of alternatives per topic position). */
export const MAX_LOG_FILTER_ADDRESSES = 1000;
/** Most alternatives one topic position may list. */
export const MAX_LOG_FILTER_TOPIC_ALTERNATIVES = 1000;
/**
 * A condition (the address list, or one topic position) with at most this many alternatives is tested against
 * each block's logsBloom before the block's logs are read; a longer one is only matched log by log. Each
 * alternative costs one keccak per page (keccak.block.instructions), so this bounds the set-up of a page.
 */
export const MAX_LOG_BLOOM_ALTERNATIVES = 32;
// eth_getBlockReceipts / rpc_eth_get_block_receipts_paged: a page stops before passing any of these (at least
// one receipt a page). Encoding a log costs at most LOG_REPLY_INSTRUCTIONS_PER_LOG, a receipt
// with no logs far less; these keep a full page near half of the query's 5 B. A block at the default gas limit
// (at most 142 transactions of 21,000 gas) fits one page unless it holds more than 700 logs.
export const BLOCK_RECEIPTS_PAGE_MAX_RECEIPTS = 150;
export const BLOCK_RECEIPTS_PAGE_MAX_LOGS = 700;
export const BLOCK_RECEIPTS_PAGE_MAX_LOG_BYTES = 1_000_000;
// eth_feeHistory.
/** blockCount above this is clamped to it (as geth does); SPEC: "at most 256". */
export const MAX_FEE_HISTORY_BLOCKS = 256n;
/** At most this many reward percentiles per request (as geth). */
export const MAX_FEE_HISTORY_PERCENTILES = 100;
// eth_maxPriorityFeePerGas / eth_gasPrice: percentile of the lowest effective tip of each of the last blocks.
export const PRIORITY_FEE_LOOKBACK_BLOCKS = 20n;
export const PRIORITY_FEE_PERCENTILE = 60;

/** EIP-170: the largest runtime code an account may hold; also the bound on each genesis code entry. */
export const MAX_CODE_SIZE = 24_576;
/** Genesis code entries an install may give (keccak of each code runs in init). */
export const MAX_GENESIS_CODE_ENTRIES = 64;
