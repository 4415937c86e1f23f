// Decoding of positional JSON-RPC parameters into canister arguments; every failure is -32602 with a message
// naming the parameter.
import type { CandidBlockTag } from '../client/schema.js';
import { invalidParams } from './errors.js';
import { parseData, parseQuantity } from './hex.js';

export const MAX_U64 = (1n << 64n) - 1n;

/** The positional parameter list; `undefined` and `null` params are an empty list. */
export function positional(params: unknown, method: string, min: number, max: number): unknown[] {
  const list = params === undefined || params === null ? [] : params;
  if (!Array.isArray(list)) throw invalidParams(`${method}: params must be an array`);
  if (list.length < min) throw invalidParams(`${method}: missing value for required argument ${list.length}`);
  if (list.length > max) throw invalidParams(`${method}: too many arguments, want at most ${max}`);
  return list;
}

export function quantity(v: unknown, name: string): bigint {
  const q = parseQuantity(v);
  if (q === undefined) throw invalidParams(`${name}: expected a hex quantity (0x-prefixed, at most 256 bits)`);
  return q;
}

export function u64(v: unknown, name: string): bigint {
  const q = quantity(v, name);
  if (q > MAX_U64) throw invalidParams(`${name}: above 2^64 - 1`);
  return q;
}

export function data(v: unknown, name: string): Uint8Array {
  const d = parseData(v);
  if (d === undefined) throw invalidParams(`${name}: expected hex data (0x-prefixed, two digits a byte)`);
  return d;
}

export function address(v: unknown, name = 'address'): Uint8Array {
  const d = parseData(v, 20);
  if (d === undefined) throw invalidParams(`${name}: expected a 20-byte address (0x + 40 hex digits)`);
  return d;
}

export function hash32(v: unknown, name = 'hash'): Uint8Array {
  const d = parseData(v, 32);
  if (d === undefined) throw invalidParams(`${name}: expected a 32-byte hash (0x + 64 hex digits)`);
  return d;
}

export function bool(v: unknown, name: string): boolean {
  if (typeof v !== 'boolean') throw invalidParams(`${name}: expected true or false`);
  return v;
}

export const BLOCK_TAG_NAMES = ['latest', 'pending', 'safe', 'finalized', 'earliest'] as const;
export type BlockTagName = (typeof BLOCK_TAG_NAMES)[number];

/** A block parameter: one of the tag names or a QUANTITY block number. */
export type BlockParam = { readonly tag: BlockTagName } | { readonly number: bigint } | { readonly hash: Uint8Array };

/**
 * `latest` | `pending` | `safe` | `finalized` | `earliest` | QUANTITY, or EIP-1898's `{ blockNumber }` /
 * `{ blockHash }` (the hash is resolved to its number by the caller). Missing = `latest`.
 */
export function blockParam(v: unknown, name = 'block'): BlockParam {
  if (v === undefined || v === null) return { tag: 'latest' };
  if (typeof v === 'string') {
    if ((BLOCK_TAG_NAMES as readonly string[]).includes(v)) return { tag: v as BlockTagName };
    const n = parseQuantity(v);
    if (n === undefined || n > MAX_U64) throw invalidParams(`${name}: expected a block number or one of ${BLOCK_TAG_NAMES.join(', ')}`);
    return { number: n };
  }
  if (typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.every((k) => k === 'blockNumber') && keys.length === 1) return blockParam(o.blockNumber, name);
    if ('blockHash' in o && keys.every((k) => k === 'blockHash' || k === 'requireCanonical')) {
      if (o.requireCanonical !== undefined && typeof o.requireCanonical !== 'boolean') throw invalidParams(`${name}: requireCanonical must be a boolean`);
      return { hash: hash32(o.blockHash, `${name}.blockHash`) };
    }
  }
  throw invalidParams(`${name}: expected a block number, a tag (${BLOCK_TAG_NAMES.join(', ')}) or { blockNumber } / { blockHash }`);
}

export function candidTag(p: { tag: BlockTagName } | { number: bigint }): CandidBlockTag {
  if ('number' in p) return { Number: p.number };
  switch (p.tag) {
    case 'latest':
      return { Latest: null };
    case 'pending':
      return { Pending: null };
    case 'safe':
      return { Safe: null };
    case 'finalized':
      return { Finalized: null };
    case 'earliest':
      return { Earliest: null };
  }
}

/** A plain JSON object (not an array, not null). */
export function object(v: unknown, name: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalidParams(`${name}: expected an object`);
  return v as Record<string, unknown>;
}
