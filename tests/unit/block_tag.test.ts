import { describe, expect, it } from 'vitest';
import { requireHeadState } from '../../src/core/block_tag.js';

describe('requireHeadState', () => {
  it('accepts head-level tags and the head number', () => {
    for (const kind of ['Latest', 'Pending', 'Safe', 'Finalized'] as const) expect(requireHeadState({ kind }, 7n).ok).toBe(true);
    expect(requireHeadState({ kind: 'Number', number: 7n }, 7n).ok).toBe(true);
    expect(requireHeadState({ kind: 'Earliest' }, 0n).ok).toBe(true);
  });
  it('rejects history and the future with distinct codes', () => {
    const past = requireHeadState({ kind: 'Number', number: 3n }, 7n);
    const future = requireHeadState({ kind: 'Number', number: 8n }, 7n);
    const earliest = requireHeadState({ kind: 'Earliest' }, 7n);
    expect(past.ok || past.error.code).toBe('exec.state.unavailable');
    expect(earliest.ok || earliest.error.code).toBe('exec.state.unavailable');
    expect(future.ok || future.error.code).toBe('invalid.block_range.out_of_window');
  });
});
