// Per-transaction instruction budget (DESIGN rule 5), enforced inside EthereumJS's execution.
//
// The deadline is relative: counter at the start of the transaction + budget, so a transaction's
// outcome does not depend on where it sits in a block. Enforcement points:
//   - every opcode handler is wrapped: every `interval` steps the host counter is read (the fast loop's
//     inline opcodes: counted in code bytes at each JUMP/JUMPI, see CODE_BYTES_PER_BUDGET_STEP);
//   - opcodes whose single step can be expensive check first, with a worst-case reserve:
//     KECCAK256 and CREATE2 (hashing, by input length), CALL*/CREATE* (a new frame: jump analysis,
//     account/code loads);
//   - every precompile checks before it starts, reserving (gas it will charge) x (instructions-per-gas
//     bound for that precompile);
//   - new contract code checks before it is hashed (state manager hook);
//   - the top-level frame checks on return, reserving the receipt work EthereumJS still does
//     (one keccak per log address and topic for the bloom).
// Exhaustion throws InstructionBudgetExceeded, a plain Error (not an EVMError), so EthereumJS does not
// treat it as a frame failure: it unwinds the whole runTx and the engine settles the transaction
// as a failed one with all gas charged.

import { MAX_LOG_BYTES_PER_TX, MAX_LOGS_PER_TX } from '../constants.js';
import { ErrorCode } from '../errors.js';
import { toHex } from './encoding.js';
import { type OpHandler, type PrecompileFn, opcodeMap, precompileMap, type RunState } from './internals.js';

/**
 * Instructions for one keccak-f permutation (136-byte block) inside the canister, with margin over the bench
 * figure keccak.block.instructions (src/core/keccak.ts) and over a one-block KECCAK256 step, which adds its
 * bigint conversion to that.
 */
export const KECCAK_BLOCK_INSTRUCTIONS = 2_500_000n;
/** Starting a call frame: jump analysis of up to 24 KB of code, account and code loads, message setup. */
export const FRAME_RESERVE_INSTRUCTIONS = 300_000_000n;
/** runTx's work after the top-level frame, besides the bloom: fee settlement, cleanup, receipt. */
export const TAIL_RESERVE_INSTRUCTIONS = 50_000_000n;
/** Counter reads are spaced this many opcode steps apart (a cheap step costs interp.step.instructions, SLOAD/CALL far more; a read is a system call). */
export const DEFAULT_CHECK_INTERVAL = 16;
/**
 * The fast interpreter loop counts code bytes, not steps, for its inline opcodes, and only at JUMP and JUMPI
 * (interpreter.ts): a step is at least one byte, so `interval` steps are `interval` x this many bytes.
 */
export const CODE_BYTES_PER_BUDGET_STEP = 4;
/**
 * Code whose longest straight run (bytes between two JUMP/JUMPI or halting opcodes) is longer runs in
 * EthereumJS's loop, which counts every step. Compiled Solidity stays far below (the bench's pair: 167
 * bytes). An inline step costs at most about three interp.step.instructions a byte (`DUP1 MLOAD`, a 32-byte
 * word read), so what runs between two counts is at most that times this many bytes past `interval`'s worth.
 */
export const MAX_UNCOUNTED_RUN_BYTES = 1024;

/**
 * Upper bounds on instructions per unit of gas charged, per precompile, inside the canister: the cost
 * measured in the canister under the Node IC host (ic-wasm counter, tables already warm; the measurements
 * are docs/execution.md's, "Precompile bounds"), times about 1.5. MSM bounds are per unit of undiscounted gas (see precompileWorkInstructions).
 * Fixed per-call overhead: PRECOMPILE_BASE_INSTRUCTIONS.
 */
export const PRECOMPILE_INSTRUCTIONS_PER_GAS: Readonly<Record<number, bigint>> = {
  0x01: 100_000n, // ECRECOVER
  0x02: 100_000n, // SHA256
  0x03: 20_000n, // RIPEMD160
  0x04: 20_000n, // IDENTITY
  0x05: 160_000n, // MODEXP
  0x06: 35_000n, // BN254_ADD
  0x07: 80_000n, // BN254_MUL
  0x08: 45_000n, // BN254_PAIRING
  0x09: 700_000n, // BLAKE2F
  0x0a: 100_000n, // KZG_POINT_EVALUATION
  0x0b: 950_000n, // BLS12_G1ADD
  0x0c: 75_000n, // BLS12_G1MSM (per undiscounted gas, applied per undiscounted pair, see precompileWorkInstructions)
  0x0d: 1_300_000n, // BLS12_G2ADD
  0x0e: 130_000n, // BLS12_G2MSM (per undiscounted gas, applied per undiscounted pair, see precompileWorkInstructions)
  0x0f: 50_000n, // BLS12_PAIRING_CHECK
  0x10: 85_000n, // BLS12_MAP_FP_TO_G1
  0x11: 100_000n, // BLS12_MAP_FP2_TO_G2
};
export const PRECOMPILE_BASE_INSTRUCTIONS = 20_000_000n;

export class InstructionBudgetExceeded extends Error {
  readonly code = ErrorCode.ExecInstructionBudget;
  constructor() {
    super('transaction exceeded its instruction budget');
  }
}

/**
 * Precompiles whose first use builds curve tables of billions of instructions (see warmup.ts), by the warm-up
 * step that builds them. Building them inside a transaction would overrun its budget, or the message limit.
 */
export const TABLE_PRECOMPILES: Readonly<Record<number, string>> = { 0x08: 'bn254', 0x0a: 'kzg', 0x0f: 'bls12-381' };

export class PrecompileNotReady extends Error {
  readonly code = ErrorCode.ExecHaltPrecompileNotReady;
  constructor(step: string) {
    super(`precompile tables (${step}) are not built yet: the canister's warm-up has not finished`);
  }
}

export class TooManyLogs extends Error {
  readonly code = ErrorCode.ExecTooManyLogs;
  constructor(count: number) {
    super(`transaction emitted ${count} logs, more than ${MAX_LOGS_PER_TX}`);
  }
}

export class TooManyLogBytes extends Error {
  readonly code = ErrorCode.ExecTooManyLogBytes;
  constructor(bytes: number) {
    super(`transaction emitted ${bytes} bytes of log data and topics, more than ${MAX_LOG_BYTES_PER_TX}`);
  }
}

export function keccakReserve(length: number): bigint {
  return BigInt(Math.floor(length / 136) + 1) * KECCAK_BLOCK_INSTRUCTIONS;
}

export class InstructionBudget {
  private deadline = 0n;
  /** Public for the fast interpreter, which runs tick() inline (./interpreter.ts). */
  active = false;
  countdown: number;
  /** Counter readings taken; lets tests see that checks happen. */
  reads = 0;

  constructor(
    private readonly counter: () => bigint,
    readonly interval: number = DEFAULT_CHECK_INTERVAL,
  ) {
    this.countdown = interval;
  }

  /** Starts a transaction; returns the counter value at its start. */
  begin(budget: bigint): bigint {
    const now = this.counter();
    this.deadline = now + budget;
    this.countdown = this.interval;
    this.active = true;
    return now;
  }

  end(): void {
    this.active = false;
  }

  /** One opcode step. */
  tick(): void {
    if (!this.active) return;
    if (--this.countdown > 0) return;
    this.countdown = this.interval;
    this.require(0n);
  }

  /** Throws unless `reserve` more instructions fit before the deadline. */
  require(reserve: bigint): void {
    if (!this.active) return;
    this.reads++;
    if (this.counter() + reserve > this.deadline) {
      this.active = false;
      throw new InstructionBudgetExceeded();
    }
  }
}

const FRAME_OPS = new Set([0xf0, 0xf1, 0xf2, 0xf4, 0xfa]);

/** Wraps an EVM instance's opcode handlers (its own table; other EVM instances are untouched). */
export function instrumentOpcodes(evm: unknown, budget: InstructionBudget): void {
  const map = opcodeMap(evm);
  for (let op = 0; op < map.length; op++) {
    const entry = map[op];
    if (entry === undefined || entry.opHandler === undefined) continue;
    const fn = entry.opHandler;
    let wrapped: (runState: RunState, common: unknown) => unknown;
    if (op === 0x20) {
      wrapped = (rs, c) => {
        const [, len] = rs.stack.peek(2);
        budget.require(keccakReserve(Number(len!)));
        return fn(rs, c);
      };
    } else if (op === 0xf5) {
      wrapped = (rs, c) => {
        const len = rs.stack.peek(3)[2]!;
        budget.require(keccakReserve(Number(len)) + FRAME_RESERVE_INSTRUCTIONS);
        return fn(rs, c);
      };
    } else if (FRAME_OPS.has(op)) {
      wrapped = (rs, c) => {
        budget.require(FRAME_RESERVE_INSTRUCTIONS);
        return fn(rs, c);
      };
    } else {
      wrapped = (rs, c) => {
        budget.tick();
        return fn(rs, c);
      };
    }
    map[op] = { opcodeInfo: entry.opcodeInfo, gasHandler: entry.gasHandler, opHandler: wrapped };
  }
}

interface ParamSource {
  param(name: string): bigint;
}

const wordsOf = (n: number): bigint => BigInt(Math.ceil(n / 32));

function readWord(data: Uint8Array, at: number): bigint {
  let v = 0n;
  for (let i = 0; i < 32; i++) v = (v << 8n) | BigInt(at + i < data.length ? data[at + i]! : 0);
  return v;
}

/** EIP-198 with EIP-2565 pricing (Berlin to Prague): gas from the three lengths and the exponent's first word. */
function modexpGas(data: Uint8Array, common: ParamSource): bigint {
  const bLen = readWord(data, 0);
  const eLen = readWord(data, 32);
  const mLen = readWord(data, 64);
  const maxLen = bLen > mLen ? bLen : mLen;
  let head = 0n;
  if (bLen < BigInt(data.length)) head = readWord(data, 96 + Number(bLen));
  if (eLen < 32n) head >>= 8n * (32n - eLen);
  let adjusted = eLen > 32n ? (eLen - 32n) * 8n : 0n;
  const bitLen = head === 0n ? 0 : head.toString(2).length - 1;
  adjusted += BigInt(bitLen);
  if (adjusted < 1n) adjusted = 1n;
  const words = (maxLen + 7n) / 8n;
  const gas = (adjusted * words * words) / common.param('modexpGquaddivisorGas');
  return gas < 200n ? 200n : gas;
}

// EIP-2537's MSM discount tables (discount per mille for 1..128 pairs; the last entry holds beyond).
const G1_MSM_DISCOUNT = [
  1000, 949, 848, 797, 764, 750, 738, 728, 719, 712, 705, 698, 692, 687, 682, 677, 673, 669, 665, 661, 658, 654, 651, 648,
  645, 642, 640, 637, 635, 632, 630, 627, 625, 623, 621, 619, 617, 615, 613, 611, 609, 608, 606, 604, 603, 601, 599, 598,
  596, 595, 593, 592, 591, 589, 588, 586, 585, 584, 582, 581, 580, 579, 577, 576, 575, 574, 573, 572, 570, 569, 568, 567,
  566, 565, 564, 563, 562, 561, 560, 559, 558, 557, 556, 555, 554, 553, 552, 551, 550, 549, 548, 547, 547, 546, 545, 544,
  543, 542, 541, 540, 540, 539, 538, 537, 536, 536, 535, 534, 533, 532, 532, 531, 530, 529, 528, 528, 527, 526, 525, 525,
  524, 523, 522, 522, 521, 520, 520, 519,
];
const G2_MSM_DISCOUNT = [
  1000, 1000, 923, 884, 855, 832, 812, 796, 782, 770, 759, 749, 740, 732, 724, 717, 711, 704, 699, 693, 688, 683, 679, 674,
  670, 666, 663, 659, 655, 652, 649, 646, 643, 640, 637, 634, 632, 629, 627, 624, 622, 620, 618, 615, 613, 611, 609, 607,
  606, 604, 602, 600, 598, 597, 595, 593, 592, 590, 589, 587, 586, 584, 583, 582, 580, 579, 578, 576, 575, 574, 573, 571,
  570, 569, 568, 567, 566, 565, 563, 562, 561, 560, 559, 558, 557, 556, 555, 554, 553, 552, 552, 551, 550, 549, 548, 547,
  546, 545, 545, 544, 543, 542, 541, 541, 540, 539, 538, 537, 537, 536, 535, 535, 534, 533, 532, 532, 531, 530, 530, 529,
  528, 528, 527, 526, 526, 525, 524, 524,
];

function msmGas(pairs: number, perPair: bigint, table: readonly number[]): bigint {
  if (pairs === 0) return 0n;
  const discount = table[Math.min(pairs, table.length) - 1]!;
  return (BigInt(pairs) * perPair * BigInt(discount)) / 1000n;
}

/**
 * The gas precompile `id` charges for `data` (parameters read from Common), exactly as EthereumJS computes
 * it before doing any work (the BLS12 MSMs with EIP-2537's discount). Computed here, in O(1) on the input,
 * because asking EthereumJS would mean running it; tests/unit/evm_budget.test.ts checks it against what
 * they charge. It must never exceed the real price: a call given less gas than this is let through
 * without a reservation, as it fails before doing any work.
 */
export function precompileGas(id: number, data: Uint8Array, common: ParamSource): bigint | undefined {
  const p = (name: string): bigint => common.param(name);
  const n = data.length;
  switch (id) {
    case 0x01: return p('ecRecoverGas');
    case 0x02: return p('sha256Gas') + p('sha256WordGas') * wordsOf(n);
    case 0x03: return p('ripemd160Gas') + p('ripemd160WordGas') * wordsOf(n);
    case 0x04: return p('identityGas') + p('identityWordGas') * wordsOf(n);
    case 0x05: return modexpGas(data, common);
    case 0x06: return p('bn254AddGas');
    case 0x07: return p('bn254MulGas');
    case 0x08: return p('bn254PairingGas') + p('bn254PairingWordGas') * BigInt(Math.floor(n / 192));
    case 0x09: return n === 213 ? p('blake2RoundGas') * BigInt(((data[0]! << 24) | (data[1]! << 16) | (data[2]! << 8) | data[3]!) >>> 0) : 0n;
    case 0x0a: return p('kzgPointEvaluationPrecompileGas');
    case 0x0b: return p('bls12381G1AddGas');
    case 0x0c: return msmGas(Math.floor(n / 160), p('bls12381G1MulGas'), G1_MSM_DISCOUNT);
    case 0x0d: return p('bls12381G2AddGas');
    case 0x0e: return msmGas(Math.floor(n / 288), p('bls12381G2MulGas'), G2_MSM_DISCOUNT);
    case 0x0f: return p('bls12381PairingBaseGas') + p('bls12381PairingPerPairGas') * BigInt(Math.floor(n / 384));
    case 0x10: return p('bls12381MapG1Gas');
    case 0x11: return p('bls12381MapG2Gas');
    default: return undefined;
  }
}

/**
 * MODEXP work model (instructions): reading an operand byte; one square-and-multiply round's fixed part; and
 * per (64-bit word of the modulus)^2 of a round's products and reductions. Fitted on the two MODEXP
 * measurements of docs/execution.md's "Precompile bounds" (64-byte operands; a 16 KB exponent over a
 * small modulus) with a margin of 1.5x or more.
 */
const MODEXP_COPY_INSTRUCTIONS_PER_BYTE = 2_000n;
const MODEXP_ROUND_INSTRUCTIONS = 50_000n;
const MODEXP_WORD2_INSTRUCTIONS = 6_000n;

/**
 * EthereumJS's MSMs (precompiles/bls12_381/noble.js) multiply pair by pair (no Pippenger), skipping the
 * multiplication for a zero scalar: a pair with a zero scalar counts a quarter (point decoding and checks
 * only), any other a whole pair.
 */
function msmWorkPairs(data: Uint8Array, pairLen: number): bigint {
  const pairs = Math.floor(data.length / pairLen);
  let quarters = 0;
  for (let k = 0; k < pairs; k++) {
    const end = (k + 1) * pairLen;
    let zero = true;
    for (let i = end - 32; i < end; i++) {
      if (data[i] !== 0) {
        zero = false;
        break;
      }
    }
    quarters += zero ? 1 : 4;
  }
  return BigInt(Math.ceil(quarters / 4));
}

/**
 * The instructions a precompile call's work may take, for the reservation (`price`: what it charges).
 * - MODEXP: its price counts the longer of base and modulus and the exponent's length in a coarse way; the
 *   work is modelled from the lengths (an empty modulus skips the exponentiation, an empty base and modulus
 *   return at once), capped by the old price-based bound.
 * - The MSMs' work does not shrink with the bulk discount the way the price does (EthereumJS multiplies
 *   pair by pair): per undiscounted pair price, counting pairs with a zero scalar as a quarter (msmWorkPairs).
 */
export function precompileWorkInstructions(id: number, data: Uint8Array, price: bigint, common: ParamSource): bigint {
  const perGas = PRECOMPILE_INSTRUCTIONS_PER_GAS[id] ?? 1_000_000n;
  switch (id) {
    case 0x05: {
      const bLen = readWord(data, 0);
      const eLen = readWord(data, 32);
      const mLen = readWord(data, 64);
      // EthereumJS returns before reading anything when base and modulus are both empty (before EIP-7823).
      if (bLen === 0n && mLen === 0n) return 0n;
      // The operands are padded to their declared lengths and read (the price bounds those lengths).
      const read = (bLen + eLen + mLen + 96n) * MODEXP_COPY_INSTRUCTIONS_PER_BYTE;
      // An empty modulus skips the exponentiation.
      if (mLen === 0n) return read;
      // Square-and-multiply: at most 8 * eLen rounds of two products and two reductions modulo M, and the
      // first squaring of the unreduced base. Never above the old bound by price.
      const bw = (bLen + 7n) / 8n;
      const mw = (mLen + 7n) / 8n;
      const model = read + bw * bw * MODEXP_WORD2_INSTRUCTIONS + 8n * eLen * (MODEXP_ROUND_INSTRUCTIONS + mw * mw * MODEXP_WORD2_INSTRUCTIONS);
      const byPrice = price * perGas;
      return model < byPrice ? model : byPrice;
    }
    case 0x0c: return common.param('bls12381G1MulGas') * msmWorkPairs(data, 160) * perGas;
    case 0x0e: return common.param('bls12381G2MulGas') * msmWorkPairs(data, 288) * perGas;
    default: return price * perGas;
  }
}

/**
 * Wraps an EVM instance's precompiles with a budget check before each one starts: PRECOMPILE_BASE_INSTRUCTIONS
 * plus precompileWorkInstructions. A call whose price exceeds the gas it was given fails at once in
 * Ethereum (out of gas, before any work): it runs with no reservation, so it fails the call and the
 * transaction goes on, instead of halting the transaction on a reservation for work that never happens.
 * `isWarm`: when given, a table-building precompile refuses to run inside a transaction before its warm-up step.
 */
export function instrumentPrecompiles(evm: unknown, common: ParamSource, budget: InstructionBudget, isWarm?: (step: string) => boolean): void {
  const pcs = precompileMap(evm);
  for (const [addr, fn] of [...pcs]) {
    const id = parseInt(addr, 16);
    const perGas = PRECOMPILE_INSTRUCTIONS_PER_GAS[id] ?? 1_000_000n;
    const step = TABLE_PRECOMPILES[id];
    const wrapped: PrecompileFn = (opts) => {
      // Only inside a transaction or call (the budget is active); the warm-up itself runs outside one.
      if (budget.active && step !== undefined && isWarm !== undefined && !isWarm(step)) {
        budget.active = false;
        throw new PrecompileNotReady(step);
      }
      const price = precompileGas(id, opts.data, common);
      if (price === undefined) budget.require(PRECOMPILE_BASE_INSTRUCTIONS + opts.gasLimit * perGas);
      else if (price <= opts.gasLimit) budget.require(PRECOMPILE_BASE_INSTRUCTIONS + precompileWorkInstructions(id, opts.data, price, common));
      return fn(opts);
    };
    pcs.set(addr, wrapped);
  }
}

export const precompileAddressHex = (id: number): string => toHex(Uint8Array.of(id)).padStart(40, '0');
