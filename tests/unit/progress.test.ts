// The backfill progress line the indexer and the archive print (src/client/progress.ts): the rate counts the
// blocks committed after the clock started (the first commit starts it), so the first line is a real rate.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatEta, Progress } from '../../src/client/progress.js';

afterEach(() => vi.useRealTimers());

describe('Progress', () => {
  it('prints blocks/s and ETA every 5 s, timed from the first commit', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const lines: string[] = [];
    const p = new Progress((l) => lines.push(l), false, undefined, 'archive');
    vi.setSystemTime(1_060_000); // a minute after construction: preparing does not count
    p.update(500n, 100_500n, 500);
    expect(lines).toEqual([]);
    for (let s = 1; s <= 5; s++) {
      vi.setSystemTime(1_060_000 + s * 1000);
      p.update(500n + BigInt(s) * 2000n, 100_500n, 2000);
    }
    expect(lines).toEqual(['archive: block 10500 of 100500, 2000.0 blocks/s, ETA 45s']);
    // After a reset (caught up), the next commit starts a new clock.
    p.end();
    vi.setSystemTime(2_000_000);
    p.update(100_600n, 100_600n, 100);
    vi.setSystemTime(2_005_000);
    p.update(101_600n, 101_600n, 1000);
    expect(lines.at(-1)).toBe('archive: block 101600 of 101600, 200.0 blocks/s, ETA 0s');
  });

  it('formats an ETA', () => {
    expect([formatEta(12.2), formatEta(125), formatEta(7300), formatEta(Infinity)]).toEqual(['13s', '2m5s', '2h1m', '?']);
  });
});
