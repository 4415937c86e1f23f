import { invalidParams } from '../errors.js';
import { bytesHex, parseData, parseQuantity } from '../hex.js';
import { address, positional } from '../params.js';
import { archiveBlock, fromArchive } from './archive_state.js';
import { stateTag, unwrap } from './common.js';
import { ARCHIVE_READS, STATE_TAGS, type MethodSpec } from './types.js';

/** The slot: a QUANTITY (at most 256 bits) or 32-byte DATA, as a 32-byte big-endian key. */
export function slotKey(v: unknown): Uint8Array {
  const asData = parseData(v, 32);
  if (asData !== undefined) return asData;
  const q = parseQuantity(v);
  if (q === undefined) throw invalidParams('slot: expected a QUANTITY or 32-byte DATA');
  return new Uint8Array(Buffer.from(q.toString(16).padStart(64, '0'), 'hex'));
}

export const eth_getStorageAt: MethodSpec = {
  name: 'eth_getStorageAt',
  canister: ['rpc_eth_get_storage_at'],
  blockTags: STATE_TAGS,
  limits: '-',
  differences: 'The slot may be a QUANTITY or 32-byte DATA. The answer is 32 bytes. ' + ARCHIVE_READS,
  async handler(params, ctx) {
    const [a, s, b] = positional(params, 'eth_getStorageAt', 2, 3);
    const addr = address(a);
    const slot = slotKey(s);
    const n = await archiveBlock(ctx, b);
    if (n !== undefined) return bytesHex(fromArchive(ctx, await ctx.archive!.storageAt(addr, slot, n)));
    const tag = await stateTag(ctx, b);
    const v = unwrap(ctx, await ctx.client.query('rpc_eth_get_storage_at', [addr, slot, tag]));
    const word = new Uint8Array(32);
    word.set(v.subarray(Math.max(0, v.length - 32)), 32 - Math.min(32, v.length));
    return bytesHex(word);
  },
};
