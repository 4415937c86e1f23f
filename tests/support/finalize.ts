// Contracts for issue 11, attack 3 (block finalisation outside the budget), shared by the wasm test
// (tests/wasm/canister-harden-finalize.test.ts) and the bench (bench/harden.ts): a log emitter whose logs
// count and size come from calldata, a storage writer, and a burner that spends instructions before emitting.
import { asm, label, ref, word } from './asm.js';
import { cat } from './eth.js';

/**
 * Calldata: word 0 = n logs, word 1 = L data bytes each (zeros from memory), word 2 = 0 for LOG0, else LOG4
 * (four 32-byte topics). Emits n logs of L + 32 * topics bytes each.
 */
export const LOG_EMITTER_RUNTIME = asm(
  0, 'CALLDATALOAD',
  label('loop'),
  'DUP1', 'ISZERO', ref('end'), 'JUMPI',
  64, 'CALLDATALOAD', ref('four'), 'JUMPI',
  32, 'CALLDATALOAD', 0, 'LOG0',
  ref('next'), 'JUMP',
  label('four'),
  'DUP1', 'DUP1', 'DUP1', 'DUP1',
  32, 'CALLDATALOAD', 0, 'LOG4',
  label('next'),
  1, 'SWAP1', 'SUB',
  ref('loop'), 'JUMP',
  label('end'),
  'STOP',
);

export const emitCall = (logs: number, dataBytes: number, topics: 0 | 4): Uint8Array =>
  cat(word(BigInt(logs)), word(BigInt(dataBytes)), word(BigInt(topics)));

/** Calldata: word 0 = first slot, word 1 = count, word 2 = value: stores the value in `count` consecutive slots from the first. */
export const STORAGE_WRITER_RUNTIME = asm(
  32, 'CALLDATALOAD',
  label('loop'),
  'DUP1', 'ISZERO', ref('end'), 'JUMPI',
  64, 'CALLDATALOAD', 'DUP2', 0, 'CALLDATALOAD', 'ADD', 'SSTORE',
  1, 'SWAP1', 'SUB',
  ref('loop'), 'JUMP',
  label('end'),
  'STOP',
);

export const writeCall = (first: number, count: number, value: bigint): Uint8Array => cat(word(BigInt(first)), word(BigInt(count)), word(value));

/**
 * Calldata: word 0 = loop iterations (cheap opcodes: spends instructions, little gas), then as the emitter:
 * word 1 = n logs, word 2 = L data bytes each, all LOG4. The heaviest transaction a block can end with.
 */
export const BURN_THEN_EMIT_RUNTIME = asm(
  0, 'CALLDATALOAD',
  label('burn'),
  'DUP1', 'ISZERO', ref('emit'), 'JUMPI',
  1, 'SWAP1', 'SUB',
  ref('burn'), 'JUMP',
  label('emit'),
  'POP',
  32, 'CALLDATALOAD',
  label('loop'),
  'DUP1', 'ISZERO', ref('end'), 'JUMPI',
  'DUP1', 'DUP1', 'DUP1', 'DUP1',
  64, 'CALLDATALOAD', 0, 'LOG4',
  1, 'SWAP1', 'SUB',
  ref('loop'), 'JUMP',
  label('end'),
  'STOP',
);

export const burnCall = (iterations: bigint, logs: number, dataBytes: number): Uint8Array =>
  cat(word(iterations), word(BigInt(logs)), word(BigInt(dataBytes)));
