// Helpers shared by the method modules: the head, block parameter resolution, and the callObject decoder.
import type { AccessListItemView, CallObjectView, CandidBlockTag, CandidResult } from '../../client/schema.js';
import { invalidParams, RpcCode, RpcError, unwrapResult } from '../errors.js';
import { address, blockParam, candidTag, data, hash32, object, quantity, type BlockParam, type BlockTagName } from '../params.js';
import type { MethodContext } from './types.js';

export async function headNumber(ctx: MethodContext): Promise<bigint> {
  return ctx.client.query('rpc_eth_block_number', []);
}

/**
 * The block a number or tag names: the number itself, `earliest` 0, every other tag (latest, pending, safe,
 * finalized) the head, which `head` supplies and is called only then (a live filter passes one that keeps the
 * tag unresolved).
 */
export function tagNumber<H>(p: { readonly tag: BlockTagName } | { readonly number: bigint }, head: () => H): bigint | H {
  if ('number' in p) return p.number;
  return p.tag === 'earliest' ? 0n : head();
}

export async function chainId(ctx: MethodContext): Promise<bigint> {
  const cached = ctx.cache.get('chain_id');
  if (typeof cached === 'bigint') return cached;
  const id = await ctx.client.query('rpc_eth_chain_id', []);
  ctx.cache.set('chain_id', id);
  return id;
}

/** EIP-1898 `{ blockHash }`: the block's number through the hash index; an unknown hash is -32001. */
export async function numberOfHash(ctx: MethodContext, hash: Uint8Array): Promise<bigint> {
  const r = await ctx.client.query('rpc_eth_get_block_number_by_hash', [hash]);
  if (r[0] === undefined) throw new RpcError(RpcCode.NotFound, 'block not found');
  return r[0];
}

/** The canister BlockTag of a block parameter; the canister applies SPEC's head-only rule. */
export async function stateTag(ctx: MethodContext, v: unknown, name = 'block'): Promise<CandidBlockTag> {
  const p: BlockParam = blockParam(v, name);
  if ('hash' in p) return { Number: await numberOfHash(ctx, p.hash) };
  return candidTag(p);
}

export function unwrap<T>(ctx: MethodContext, r: CandidResult<T>): T {
  return unwrapResult(r, ctx.log);
}

/** SPEC's callObject keys, plus `input` (geth's alias of `data`, sent by Foundry/alloy and web3.js). */
export const CALL_OBJECT_KEYS = [
  'to',
  'from',
  'gas',
  'gasPrice',
  'value',
  'data',
  'input',
  'nonce',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'chainId',
  'type',
  'accessList',
] as const;

/**
 * Keys that web3.js v4 adds to every callObject it estimates (its client-side signing settings:
 * `chain: "mainnet"`, `hardfork: "london"`, `networkId`, and `common` when a custom chain is configured). They
 * say nothing about the execution and geth ignores them; refusing them made web3.js fail before it could send
 * anything. They are accepted and ignored; every other unknown key is still -32602.
 */
export const IGNORED_CALL_OBJECT_KEYS = ['chain', 'hardfork', 'networkId', 'common'] as const;

const none = <T>(): [] | [T] => [];
const some = <T>(v: T | undefined): [] | [T] => (v === undefined ? [] : [v]);

function accessList(v: unknown, name: string): AccessListItemView[] {
  if (!Array.isArray(v)) throw invalidParams(`${name}: expected an array`);
  return v.map((item, i) => {
    const o = object(item, `${name}[${i}]`);
    for (const k of Object.keys(o)) {
      if (k !== 'address' && k !== 'storageKeys') throw invalidParams(`${name}[${i}]: unsupported key ${JSON.stringify(k)}`);
    }
    const keys = o.storageKeys ?? [];
    if (!Array.isArray(keys)) throw invalidParams(`${name}[${i}].storageKeys: expected an array`);
    return { address: address(o.address, `${name}[${i}].address`), storage_keys: keys.map((s, j) => hash32(s, `${name}[${i}].storageKeys[${j}]`)) };
  });
}

/**
 * The callObject, checked key by key: Candid drops unknown record fields, so an unsupported key must be
 * refused here (-32602) or it would silently be ignored. `null` values count as absent (clients send them).
 * Values are decoded for format only; the canister validates ranges, fee combinations, type and chain id.
 */
export function callObject(v: unknown): CallObjectView {
  const o = object(v, 'callObject');
  for (const k of Object.keys(o)) {
    if (!(CALL_OBJECT_KEYS as readonly string[]).includes(k) && !(IGNORED_CALL_OBJECT_KEYS as readonly string[]).includes(k)) {
      throw invalidParams(`callObject: unsupported key ${JSON.stringify(k)} (supported: ${CALL_OBJECT_KEYS.join(', ')})`);
    }
  }
  const get = (k: string): unknown => (o[k] === null ? undefined : o[k]);
  const q = (k: string) => (get(k) === undefined ? none<bigint>() : some(quantity(get(k), `callObject.${k}`)));
  const d = get('data') === undefined ? undefined : data(get('data'), 'callObject.data');
  const input = get('input') === undefined ? undefined : data(get('input'), 'callObject.input');
  if (d !== undefined && input !== undefined && Buffer.compare(d, input) !== 0) {
    throw invalidParams('callObject: both "data" and "input" are set but differ');
  }
  return {
    to: get('to') === undefined ? none() : some(address(get('to'), 'callObject.to')),
    from: get('from') === undefined ? none() : some(address(get('from'), 'callObject.from')),
    gas: q('gas'),
    gas_price: q('gasPrice'),
    value: q('value'),
    data: some(d ?? input),
    nonce: q('nonce'),
    max_fee_per_gas: q('maxFeePerGas'),
    max_priority_fee_per_gas: q('maxPriorityFeePerGas'),
    chain_id: q('chainId'),
    tx_type: q('type'),
    access_list: get('accessList') === undefined ? none() : some(accessList(get('accessList'), 'callObject.accessList')),
  };
}
