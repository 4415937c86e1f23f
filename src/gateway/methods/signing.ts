// The development accounts' methods: eth_sendTransaction, eth_signTransaction, eth_sign, personal_sign and
// eth_signTypedData_v4, answered as anvil answers them when the gateway has a signer (the devnet's, holding the
// development keys); without one (a gateway in front of a canister on the IC) they are -32601 as before.
// The gateway fills what the caller left out, the signer only signs; a signed transaction goes the
// eth_sendRawTransaction path (same checks, same pool, same automine).
import type { CallObjectView } from '../../client/schema.js';
import { invalidParams, RpcCode, RpcError } from '../errors.js';
import { toPrefixedHex } from '../hex.js';
import { address, data, positional } from '../params.js';
import type { Signer, UnsignedTx } from '../signer.js';
import { callObject, chainId, headNumber, unwrap } from './common.js';
import type { DevControl, ImpersonatedTx } from './dev.js';
import { submitRaw, submittedHash } from './eth_sendRawTransaction.js';
import type { MethodContext, MethodSpec } from './types.js';

/** anvil's answer (code and message) for a `from` it holds no key for. */
export const NO_SIGNER_MESSAGE = 'No Signer available';
const NO_KEYS = 'the gateway holds no keys: sign locally and use eth_sendRawTransaction';
/** A typed-data JSON string at most this long (it is parsed here; the body limit bounds it anyway). */
const MAX_TYPED_DATA_CHARS = 64 * 1024;

function signer(ctx: MethodContext, method: string): Signer {
  if (ctx.signer === undefined) throw new RpcError(RpcCode.MethodNotFound, `the method ${method} is not supported by this service: ${NO_KEYS}`);
  return ctx.signer;
}

/** The account that signs: `from`, or (as anvil) the first development account when it is absent. */
function account(s: Signer, from: Uint8Array | undefined): `0x${string}` {
  const a = from === undefined ? s.accounts()[0] : (toPrefixedHex(from) as `0x${string}`);
  if (a === undefined || !s.has(a)) throw new RpcError(RpcCode.InvalidParams, NO_SIGNER_MESSAGE);
  return a;
}

const opt = <T>(o: [] | [T]): T | undefined => o[0];

/**
 * The transaction request with every field filled as anvil fills it: nonce from the pending count, gas by
 * estimation, fees from the devnet's own eth_gasPrice / eth_maxPriorityFeePerGas, the chain id. A gas price
 * without a type makes a legacy transaction (type 1 with an access list), otherwise EIP-1559.
 */
async function fill(ctx: MethodContext, from: `0x${string}`, c: CallObjectView): Promise<UnsignedTx> {
  const fromBytes = Uint8Array.from(Buffer.from(from.slice(2), 'hex'));
  const gasPrice = opt(c.gas_price);
  const given = opt(c.tx_type);
  const type: UnsignedTx['type'] =
    given === undefined ? (gasPrice !== undefined ? (c.access_list.length > 0 ? 'eip2930' : 'legacy') : 'eip1559') : given === 0n ? 'legacy' : given === 1n ? 'eip2930' : given === 2n ? 'eip1559' : invalidType(given);
  if (type !== 'eip1559' && (c.max_fee_per_gas.length > 0 || c.max_priority_fee_per_gas.length > 0)) throw invalidParams(`a ${type} transaction has no maxFeePerGas / maxPriorityFeePerGas`);
  if (type === 'eip1559' && gasPrice !== undefined) throw invalidParams('an EIP-1559 transaction has no gasPrice: use maxFeePerGas');
  const nonce = opt(c.nonce) ?? unwrap(ctx, await ctx.client.query('rpc_eth_get_transaction_count_at', [fromBytes, { Pending: null }]));
  const id = opt(c.chain_id) ?? (await chainId(ctx));
  let fees: Pick<UnsignedTx, 'gasPrice' | 'maxFeePerGas' | 'maxPriorityFeePerGas'>;
  if (type === 'eip1559') {
    const tip = opt(c.max_priority_fee_per_gas) ?? unwrap(ctx, await ctx.client.query('rpc_eth_max_priority_fee_per_gas', []));
    let max = opt(c.max_fee_per_gas);
    if (max === undefined) {
      const price = unwrap(ctx, await ctx.client.query('rpc_eth_gas_price', []));
      max = price > tip ? price : tip;
    }
    fees = { maxFeePerGas: max, maxPriorityFeePerGas: tip };
  } else {
    fees = { gasPrice: gasPrice ?? unwrap(ctx, await ctx.client.query('rpc_eth_gas_price', [])) };
  }
  let gas = opt(c.gas);
  if (gas === undefined) {
    const call: CallObjectView = { ...c, from: [fromBytes], gas: [], nonce: [], chain_id: [], tx_type: [] };
    gas = unwrap(ctx, await ctx.client.query('rpc_eth_estimate_gas_object', [call, { Latest: null }]));
  } else {
    // More than a block holds is lowered to the block gas limit: hardhat-ethers sends every transaction of a
    // Hardhat project's `localhost` signers with min(2^24, the project's own Hardhat network's blockGasLimit,
    // 30 M by default) once the node answers hardhat_metadata, far above this chain's blocks; such a
    // transaction could only be refused, and the keys are the devnet's, so the request is filled to fit.
    const limit = await headGasLimit(ctx);
    if (limit !== undefined && gas > limit) gas = limit;
  }
  const list = opt(c.access_list);
  return {
    type,
    chainId: id,
    nonce,
    gas,
    to: c.to.length === 0 ? undefined : (toPrefixedHex(c.to[0]) as `0x${string}`),
    value: opt(c.value) ?? 0n,
    data: toPrefixedHex(opt(c.data) ?? new Uint8Array()) as `0x${string}`,
    ...fees,
    ...(type === 'legacy' || list === undefined
      ? {}
      : { accessList: list.map((i) => ({ address: toPrefixedHex(i.address) as `0x${string}`, storageKeys: i.storage_keys.map((k) => toPrefixedHex(k) as `0x${string}`) })) }),
  };
}

/** The head block's gas limit (what the next block holds unless evm_setBlockGasLimit changed it since). */
async function headGasLimit(ctx: MethodContext): Promise<bigint | undefined> {
  const b = (await ctx.client.query('rpc_eth_get_block_by_number', [await headNumber(ctx), false]))[0];
  return b?.gas_limit;
}

const hexBytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));

/** The filled request as the devnet's impersonated submit takes it (no chain id: nothing is signed). */
function impersonatedTx(from: Uint8Array, t: UnsignedTx): ImpersonatedTx {
  return {
    from,
    to: t.to === undefined ? undefined : hexBytes(t.to),
    value: t.value,
    data: hexBytes(t.data),
    gasLimit: t.gas,
    nonce: t.nonce,
    ...(t.gasPrice === undefined ? {} : { gasPrice: t.gasPrice }),
    ...(t.maxFeePerGas === undefined ? {} : { maxFeePerGas: t.maxFeePerGas }),
    ...(t.maxPriorityFeePerGas === undefined ? {} : { maxPriorityFeePerGas: t.maxPriorityFeePerGas }),
    accessList: (t.accessList ?? []).map((i) => ({ address: hexBytes(i.address), storageKeys: i.storageKeys.map(hexBytes) })),
  };
}

/** eth_accounts on the devnet: the development accounts, then the impersonated addresses (anvil lists both). */
export function devnetAccounts(s: Signer, d: DevControl | undefined): `0x${string}`[] {
  const list = [...s.accounts()];
  for (const a of d?.impersonated() ?? []) if (!s.has(a)) list.push(a);
  return list;
}

function invalidType(t: bigint): never {
  throw invalidParams(`transaction type 0x${t.toString(16)} not supported (0x0, 0x1, 0x2)`);
}

/** One eth_sendTransaction per account at a time: each reads the pending nonce after the previous one is in the pool. */
const queues = new WeakMap<Signer, Map<string, Promise<unknown>>>();
function serialized<T>(s: Signer, from: string, f: () => Promise<T>): Promise<T> {
  let m = queues.get(s);
  if (m === undefined) queues.set(s, (m = new Map()));
  const prev = m.get(from) ?? Promise.resolve();
  const run = prev.then(f, f);
  const tail = run.catch(() => undefined);
  m.set(from, tail);
  void tail.then(() => {
    if (m.get(from) === tail) m.delete(from);
  });
  return run;
}

const spec = (name: string, differences: string, canister: MethodSpec['canister'], handler: (params: unknown, ctx: MethodContext, s: Signer) => Promise<unknown>): MethodSpec => ({
  name,
  canister,
  blockTags: '-',
  limits: '-',
  differences: `Devnet only (\`npm start\`: its ten development accounts); elsewhere -32601 (${NO_KEYS}). A \`from\` that is not one of them: -32602 \`${NO_SIGNER_MESSAGE}\` (anvil's answer). ${differences}`,
  handler: (params, ctx) => handler(params, ctx, signer(ctx, name)),
});

const FILLED = 'What the request leaves out is filled as anvil does: `from` the first account, the nonce from the pending count, gas by `eth_estimateGas`, fees from `eth_gasPrice` / `eth_maxPriorityFeePerGas` (a `gasPrice` makes a legacy transaction), the chain id. A `gas` above the head block\'s gas limit is lowered to it (hardhat-ethers sends 16,777,216 to a node that answers `hardhat_metadata`; anvil refuses such a transaction).';
const FILL_CANISTER: MethodSpec['canister'] = ['rpc_eth_get_transaction_count_at', 'rpc_eth_max_priority_fee_per_gas', 'rpc_eth_gas_price', 'rpc_eth_estimate_gas_object', 'rpc_eth_block_number', 'rpc_eth_get_block_by_number'];

function typedData(v: unknown): Record<string, unknown> {
  let o = v;
  if (typeof v === 'string') {
    if (v.length > MAX_TYPED_DATA_CHARS) throw invalidParams(`typed data: at most ${MAX_TYPED_DATA_CHARS} characters`);
    try {
      o = JSON.parse(v);
    } catch {
      throw invalidParams('typed data: not valid JSON');
    }
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw invalidParams('typed data: expected an object {types, primaryType, domain, message} or its JSON text');
  return o as Record<string, unknown>;
}

export const SIGNING_METHODS: readonly MethodSpec[] = [
  spec(
    'eth_sendTransaction',
    `${FILLED} Signed with the account's key and submitted as eth_sendRawTransaction (same checks and errors); returns the hash. With \`--block-time 0\` the receipt exists when it answers. From an impersonated address (\`anvil_impersonateAccount\`, \`anvil_autoImpersonateAccount\`): filled the same way and submitted unsigned through the controller-only \`dev_submit_impersonated\`.`,
    [...FILL_CANISTER, 'rpc_eth_send_raw_transaction_with_key', 'rpc_eth_get_transaction_by_tx_id'],
    async (params, ctx, s) => {
      const [o] = positional(params, 'eth_sendTransaction', 1, 1);
      const c = callObject(o);
      const given = opt(c.from);
      const d = ctx.dev;
      if (given !== undefined && d !== undefined) {
        const a = toPrefixedHex(given) as `0x${string}`;
        if (!s.has(a) && d.isImpersonated(a)) return serialized(s, a, async () => submittedHash(ctx, await d.submitImpersonated(impersonatedTx(given, await fill(ctx, a, c)))));
      }
      const from = account(s, given);
      return serialized(s, from, async () => submitRaw(ctx, Buffer.from((await s.signTransaction(from, await fill(ctx, from, c))).slice(2), 'hex')));
    },
  ),
  spec('eth_signTransaction', `${FILLED} Returns the signed transaction's bytes; nothing is submitted.`, FILL_CANISTER, async (params, ctx, s) => {
    const [o] = positional(params, 'eth_signTransaction', 1, 1);
    const c = callObject(o);
    const from = account(s, opt(c.from));
    return s.signTransaction(from, await fill(ctx, from, c));
  }),
  spec('eth_sign', 'Params `[address, data]`: the EIP-191 signature of `data`\'s bytes ("\\x19Ethereum Signed Message:\\n" + length + data), 65 bytes with v = 27/28.', [], async (params, _ctx, s) => {
    const [a, d] = positional(params, 'eth_sign', 2, 2);
    return s.signMessage(account(s, address(a)), data(d, 'data'));
  }),
  spec('personal_sign', 'Params `[data, address]` (the reverse of eth_sign); the same signature.', [], async (params, _ctx, s) => {
    const [d, a] = positional(params, 'personal_sign', 2, 2);
    return s.signMessage(account(s, address(a)), data(d, 'data'));
  }),
  spec('eth_signTypedData_v4', 'Params `[address, typedData]` (an object or its JSON text): the EIP-712 signature, 65 bytes with v = 27/28.', [], async (params, _ctx, s) => {
    const [a, t] = positional(params, 'eth_signTypedData_v4', 2, 2);
    const from = account(s, address(a));
    const typed = typedData(t);
    try {
      return await s.signTypedData(from, typed);
    } catch (e) {
      throw invalidParams(`typed data: ${(e as { shortMessage?: string }).shortMessage ?? (e as Error).message}`);
    }
  }),
];
