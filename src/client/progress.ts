// Progress a person can follow: during a backfill a line every few seconds (blocks/s, current block, head,
// ETA), on a terminal a live bar rewritten in place instead.
const LINE_EVERY_MS = 5000;
const BAR_EVERY_MS = 250;

export class Progress {
  private started = Date.now();
  private lastPrint = 0;
  private blocks = 0;
  private counting = false;
  private barShown = false;

  constructor(
    private readonly log: (line: string) => void,
    private readonly tty: boolean,
    private readonly write: (s: string) => void = (s) => process.stdout.write(s),
    /** The line's prefix: which follower of the export stream this is. */
    private readonly label = 'indexer',
  ) {}

  update(current: bigint, head: bigint, newBlocks: number): void {
    const now = Date.now();
    if (!this.counting) {
      // The first commit only starts the clock: its blocks took time before it (a rate over ~0 s is nonsense).
      this.counting = true;
      this.started = now;
      this.lastPrint = now;
      return;
    }
    this.blocks += newBlocks;
    if (now - this.lastPrint < (this.tty ? BAR_EVERY_MS : LINE_EVERY_MS)) return;
    this.lastPrint = now;
    const secs = Math.max((now - this.started) / 1000, 0.001);
    const rate = this.blocks / secs;
    const left = head > current ? Number(head - current) : 0;
    const eta = rate > 0 ? left / rate : Infinity;
    const text = `${this.label}: block ${current} of ${head}, ${rate.toFixed(1)} blocks/s, ETA ${formatEta(eta)}`;
    if (!this.tty) {
      this.log(text);
      return;
    }
    const done = head > 0n ? Math.min(1, Number(current) / Number(head)) : 1;
    const width = 30;
    const fill = Math.round(done * width);
    this.write(`\r[${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${(done * 100).toFixed(1)}% ${text.slice(this.label.length + 2)}   `);
    this.barShown = true;
  }

  /** Ends a live bar (so the next log line starts on its own line) and resets the rate. */
  end(): void {
    if (this.barShown) this.write('\n');
    this.barShown = false;
    this.blocks = 0;
    this.counting = false;
  }
}

export function formatEta(s: number): string {
  if (!Number.isFinite(s)) return '?';
  if (s < 60) return `${Math.ceil(s)}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${Math.ceil(s % 60)}s`;
  return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
}
