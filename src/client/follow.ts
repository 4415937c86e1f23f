// The loop both followers of the canister's export stream run (the indexer, docs/indexer.md; the archive,
// docs/archive.md): prepare, then one pull after another until stop(); errors retrying can fix are logged and
// retried with a doubling backoff, the others end the loop; progress lines during a backfill, one line when
// caught up; a rewind request (the devnet's evm_revert) applied between two pulls. Each follower says what a
// pull is and what to do when caught up; this module owns only the order of things.
import { Progress } from './progress.js';

/** A pause between polls that stop() or a rewind request can cut short. */
export class Pause {
  private wakeUp: (() => void) | undefined;

  /** Resolves after `ms`, or as soon as wake() is called. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wakeUp = undefined;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(t);
        this.wakeUp = undefined;
        resolve();
      };
    });
  }

  /** Ends the current sleep, if any. */
  wake(): void {
    this.wakeUp?.();
  }
}

/** What one pull found: more to pull, the canister's head reached, or halted (nothing to pull until a rewind). */
export type PullOutcome = 'behind' | 'caughtUp' | 'halted';

export interface FollowTiming {
  readonly backoffInitialMs: number;
  readonly backoffMaxMs: number;
  readonly idlePollMs: number;
}

/** The first line of an error (the agent's messages carry a stack trace). */
const oneLine = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0]!;

export abstract class ExportFollower {
  protected stopped = false;
  protected readonly pause = new Pause();
  /** The head a requested rewind goes back to (the lowest of several requests), until applied. */
  protected rewindTo: bigint | undefined;
  private readonly rewindWaiters: (() => void)[] = [];
  abstract readonly stats: { retried: number };

  constructor(
    /** The log lines' prefix. */
    private readonly label: string,
    protected readonly log: (line: string) => void,
    private readonly tty: boolean,
  ) {}

  /** Checks the canister and the database and loads the state to follow from; retried like a pull. */
  protected abstract prepare(): Promise<unknown>;
  /** Forgets what lies above `rewindTo` (then clears it unless a lower head was asked meanwhile). */
  protected abstract applyRewind(): Promise<void>;
  /** One pull and what goes with it. */
  protected abstract pull(progress: Progress): Promise<PullOutcome>;
  /** Errors retrying cannot fix: they end run(). */
  protected abstract isFatal(e: unknown): boolean;
  /** The line logged once each time the follower catches up. */
  protected abstract caughtUpLine(): string;
  protected abstract timing(): FollowTiming;
  /** Whether prepare() has run already (a caller may prepare before run()). */
  protected isPrepared(): boolean {
    return false;
  }
  /** After a retried error: whether prepare() runs again (state held in memory may be ahead of the database). */
  protected prepareAfterError(): boolean {
    return false;
  }
  /** Work done while caught up, before the idle poll. */
  protected async whenCaughtUp(): Promise<void> {}

  stop(): void {
    this.stopped = true;
    this.pause.wake();
    for (const w of this.takeRewindWaiters()) w();
  }

  /** Forgets everything above `head` and follows again from there; resolves once applied (or stopped). */
  requestRewind(head: bigint): Promise<void> {
    this.rewindAtMost(head);
    const done = new Promise<void>((resolve) => this.rewindWaiters.push(resolve));
    this.pause.wake();
    return done;
  }

  /** Asks the loop to forget the blocks above `head` (the lowest of several asks wins). */
  protected rewindAtMost(head: bigint): void {
    if (this.rewindTo === undefined || head < this.rewindTo) this.rewindTo = head;
  }

  /** The rewind requests made so far, to resolve once the rewind they asked for is applied. */
  protected takeRewindWaiters(): (() => void)[] {
    return this.rewindWaiters.splice(0);
  }

  /** Runs until stop() (or, with `untilCaughtUp`, the canister's head); throws what isFatal names. */
  async run(opts: { untilCaughtUp?: boolean } = {}): Promise<void> {
    const { backoffInitialMs, backoffMaxMs, idlePollMs } = this.timing();
    const progress = new Progress(this.log, this.tty, undefined, this.label);
    let backoff = backoffInitialMs;
    let prepared = this.isPrepared();
    let everPrepared = prepared;
    let caughtUpReported = false;
    while (!this.stopped) {
      let outcome: PullOutcome;
      try {
        if (!prepared) {
          await this.prepare();
          prepared = true;
          // The canister or the database answering at last: the first pull starts with the first backoff.
          if (!everPrepared) backoff = backoffInitialMs;
          everPrepared = true;
        }
        if (this.rewindTo !== undefined) await this.applyRewind();
        outcome = await this.pull(progress);
        backoff = backoffInitialMs;
      } catch (e) {
        progress.end();
        if (this.isFatal(e)) throw e;
        this.stats.retried++;
        if (this.prepareAfterError()) prepared = false;
        this.log(`${this.label}: ${oneLine(e)}; retrying in ${backoff} ms`);
        await this.pause.sleep(backoff);
        backoff = Math.min(backoff * 2, backoffMaxMs);
        continue;
      }
      if (outcome === 'halted') {
        if (opts.untilCaughtUp === true) break;
        await this.pause.sleep(idlePollMs);
      } else if (outcome === 'caughtUp') {
        if (!caughtUpReported) {
          progress.end();
          this.log(this.caughtUpLine());
          caughtUpReported = true;
        }
        if (opts.untilCaughtUp === true) break;
        await this.whenCaughtUp();
        await this.pause.sleep(idlePollMs);
      } else caughtUpReported = false;
    }
    progress.end();
  }
}

/** Stops the follower on SIGINT or SIGTERM (after the pull in progress); returns which signal came, if one did. */
export function stopOnSignals(follower: { stop(): void }): () => string | undefined {
  let signal: string | undefined;
  for (const s of ['SIGINT', 'SIGTERM'] as const) {
    process.on(s, () => {
      signal = s;
      follower.stop();
    });
  }
  return () => signal;
}
