// Block selectors for state reads (SPEC "Block tags"): latest, pending, safe and finalized act at the head
// (blocks are final on production); only the head's state exists, since live state is flat and unversioned.

import { ErrorCode, err, ok, type Result } from './errors.js';

export type BlockTag =
  | { readonly kind: 'Latest' }
  | { readonly kind: 'Pending' }
  | { readonly kind: 'Safe' }
  | { readonly kind: 'Finalized' }
  | { readonly kind: 'Earliest' }
  | { readonly kind: 'Number'; readonly number: bigint };

/**
 * Accepts the tag when it names the head. A block above the head is outside the readable window
 * (invalid.block_range.out_of_window); an earlier block, including `earliest` on a chain past genesis,
 * existed but its state is not kept (exec.state.unavailable).
 */
export function requireHeadState(tag: BlockTag, head: bigint): Result<void> {
  switch (tag.kind) {
    case 'Latest':
    case 'Pending':
    case 'Safe':
    case 'Finalized':
      return ok(undefined);
    case 'Earliest':
      return head === 0n ? ok(undefined) : err(ErrorCode.ExecStateUnavailable, 'state of block 0 is not kept; only the head state is readable');
    case 'Number':
      if (tag.number === head) return ok(undefined);
      if (tag.number > head) {
        return err(ErrorCode.InvalidBlockRangeOutOfWindow, `block ${tag.number} is above the head (${head})`);
      }
      return err(ErrorCode.ExecStateUnavailable, `state of block ${tag.number} is not kept; only the head (${head}) is readable`);
  }
}
