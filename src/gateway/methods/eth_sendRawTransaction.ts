import type { TxView } from '../../client/schema.js';
import { RpcCode, RpcError } from '../errors.js';
import { toPrefixedHex } from '../hex.js';
import { data, positional } from '../params.js';
import { senderPublicKey } from '../sender_key.js';
import { unwrap } from './common.js';
import type { MethodContext, MethodSpec } from './types.js';

/** Submits signed transaction bytes (with the sender's key as a hint) and answers the transaction's hash. */
export async function submitRaw(ctx: MethodContext, bytes: Uint8Array): Promise<string> {
  // With the sender's key as a hint when it recovers here (src/gateway/sender_key.ts); without it the
  // canister answers the same, for more instructions, and reports what is wrong with the transaction.
  const key = senderPublicKey(bytes);
  const submitted =
    key === undefined
      ? await ctx.client.update('rpc_eth_send_raw_transaction', [bytes])
      : await ctx.client.update('rpc_eth_send_raw_transaction_with_key', [bytes, key]);
  return submittedHash(ctx, unwrap(ctx, submitted));
}

/** The eth hash of a transaction the canister accepted (by its tx_id), announced to pending filters. */
export async function submittedHash(ctx: MethodContext, txId: Uint8Array): Promise<string> {
  let t: TxView | undefined;
  try {
    t = (await ctx.client.query('rpc_eth_get_transaction_by_tx_id', [txId]))[0];
  } catch (e) {
    ctx.log(`eth_sendRawTransaction: hash lookup of tx_id ${toPrefixedHex(txId)} failed: ${(e as Error).message}`);
  }
  if (t === undefined) {
    throw new RpcError(RpcCode.Server, `transaction accepted (tx_id ${toPrefixedHex(txId)}) but its hash is unavailable`);
  }
  const hash = toPrefixedHex(t.hash);
  ctx.pending.publish(hash);
  return hash;
}

export const eth_sendRawTransaction: MethodSpec = {
  name: 'eth_sendRawTransaction',
  canister: ['rpc_eth_send_raw_transaction_with_key', 'rpc_eth_send_raw_transaction', 'rpc_eth_get_transaction_by_tx_id'],
  blockTags: '-',
  limits: 'at most 131072 bytes; pool limits 8192 / 64 per sender; nonce window 64',
  differences:
    'Types 0x0 (EIP-155 only), 0x1, 0x2; 0x3/0x4 are -32602. Returns `eth_tx_hash` resolved from the canister\'s `tx_id`; if that lookup fails after a successful submit: -32000. Submit errors carry geth\'s phrases (`nonce too low`, `insufficient funds`, ...).',
  async handler(params, ctx) {
    const [raw] = positional(params, 'eth_sendRawTransaction', 1, 1);
    return submitRaw(ctx, data(raw, 'signedTransaction'));
  },
};
