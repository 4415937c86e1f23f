import { formatTx } from '../format.js';
import { toPrefixedHex } from '../hex.js';
import { hash32, positional } from '../params.js';
import type { MethodSpec } from './types.js';

export const eth_getTransactionByHash: MethodSpec = {
  name: 'eth_getTransactionByHash',
  canister: ['rpc_eth_get_transaction_by_eth_hash'],
  blockTags: '-',
  limits: '-',
  differences:
    'Keyed by `eth_tx_hash`. A queued transaction has null block fields; unknown, dropped or pruned ones are `null`. IcSynthetic transactions show type 0x2 with v = r = s = 0.',
  async handler(params, ctx) {
    const [h] = positional(params, 'eth_getTransactionByHash', 1, 1);
    const hash = hash32(h, 'transactionHash');
    const key = `tx:${toPrefixedHex(hash)}`;
    const cached = ctx.cache.get(key);
    if (cached !== undefined) return cached;
    const r = await ctx.client.query('rpc_eth_get_transaction_by_eth_hash', [hash]);
    const t = r[0];
    if (t === undefined) return null;
    const out = formatTx(t);
    // Only an included transaction is immutable (a queued one gains its block fields).
    if (t.block_number.length === 1) ctx.cache.set(key, out);
    return out;
  },
};
