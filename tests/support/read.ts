// Helpers for the read-API wasm tests and benchmarks: callObject and log-filter records in their Candid
// shape, and hand-assembled contracts that emit many logs or loop a given number of times.
import { asm, type Item, label, push32, ref, word } from './asm.js';
import type { BlockTag, Log, Opt } from './canister.js';

export interface CallObjectFields {
  to?: Uint8Array;
  from?: Uint8Array;
  gas?: bigint;
  gas_price?: bigint;
  value?: bigint;
  data?: Uint8Array;
  nonce?: bigint;
  max_fee_per_gas?: bigint;
  max_priority_fee_per_gas?: bigint;
  chain_id?: bigint;
  tx_type?: bigint;
  access_list?: { address: Uint8Array; storage_keys: Uint8Array[] }[];
}

const o = <T>(v: T | undefined): Opt<T> => (v === undefined ? [] : [v]);

/** The Candid RpcCallObjectView with only the given fields present. */
export function callObject(f: CallObjectFields) {
  return {
    to: o(f.to),
    from: o(f.from),
    gas: o(f.gas),
    gas_price: o(f.gas_price),
    value: o(f.value),
    data: o(f.data),
    nonce: o(f.nonce),
    max_fee_per_gas: o(f.max_fee_per_gas),
    max_priority_fee_per_gas: o(f.max_priority_fee_per_gas),
    chain_id: o(f.chain_id),
    tx_type: o(f.tx_type),
    access_list: o(f.access_list),
  };
}

export interface LogFilterFields {
  from_block?: BlockTag;
  to_block?: BlockTag;
  block_hash?: Uint8Array;
  address?: Uint8Array[];
  topics?: (Uint8Array[] | null)[];
}

export function logFilter(f: LogFilterFields) {
  return {
    from_block: o(f.from_block),
    to_block: o(f.to_block),
    block_hash: o(f.block_hash),
    address: o(f.address),
    topics: o(f.topics?.map((t) => (t === null ? [] : [t]) as Opt<Uint8Array[]>)),
  };
}

export interface LogPage {
  logs: Log[];
  next_cursor: Opt<{ block_number: bigint; log_index: number }>;
}

export const EMIT_TOPIC = word(0xe1e1e1n);

/**
 * Emitter: n = calldata[0]; n times: mem[0] = i; LOG3(data = mem[0..32], EMIT_TOPIC, i, caller) for i = n..1.
 * 64 logs per transaction at most (MAX_LOGS_PER_TX), so n <= 64.
 */
export const EMITTER_RUNTIME = asm(
  0, 'CALLDATALOAD',
  label('loop'),
  'DUP1', 'ISZERO', ref('end'), 'JUMPI',
  'DUP1', 0, 'MSTORE',
  'CALLER', 'DUP2', push32(EMIT_TOPIC), 32, 0, 'LOG3',
  1, 'SWAP1', 'SUB',
  ref('loop'), 'JUMP',
  label('end'), 'STOP',
);

/**
 * n = calldata[0] iterations of a keccak256 of the counter (a fresh keccak block each, so an iteration costs
 * about as much compiled as stepped) and a few cheap opcodes, then `tail` at the end.
 */
const countLoop = (...tail: Item[]): Uint8Array =>
  asm(
    0, 'CALLDATALOAD',
    label('loop'),
    'DUP1', 'ISZERO', ref('end'), 'JUMPI',
    'DUP1', 0, 'MSTORE', 32, 0, 'KECCAK256', 'POP',
    1, 'SWAP1', 'SUB',
    ref('loop'), 'JUMP',
    label('end'), ...tail,
  );

/** Counter loop: n = calldata[0] iterations, then STOP (cost grows with n, gas too). */
export const COUNT_LOOP_RUNTIME = countLoop('STOP');

/**
 * The counter loop reading GAS before it stops: an estimate cannot answer it after one run (the one-run answer,
 * src/core/evm/gas_left.ts), so it takes the search.
 */
export const COUNT_LOOP_GAS_RUNTIME = countLoop('GAS', 'POP', 'STOP');
