// IC time for the host: a manual clock (moved only by the host's caller) or the wall clock (Date.now(), plus
// an offset the devnet moves forward), monotonic either way, and the time a query reads.
import { HostStateError } from './errors.js';

/** Wall mode: the length of the emulated round whose start a query reads as its time (queryTimeNs). */
const QUERY_ROUND_NS = 1_000_000_000n;

export interface ClockState {
  readonly timeNs: bigint;
  readonly lastTimeNs: bigint;
  readonly offsetNs: bigint;
  readonly commitTimeNs: bigint;
}

export class Clock {
  /** Manual mode: the time. (The query replica's clock is set to the leader's query time for each query.) */
  timeNs: bigint;
  private lastTimeNs = 0n;
  /** Wall mode: added to Date.now() (the devnet's evm_increaseTime / evm_setNextBlockTimestamp). */
  offsetNs = 0n;
  /** IC time at the last committed message: queries never see an earlier time. */
  private commitTimeNs = 0n;

  constructor(
    readonly mode: 'manual' | 'wall',
    startNs: bigint,
  ) {
    this.timeNs = startNs;
  }

  /** Current IC time in ns. */
  now(): bigint {
    if (this.mode === 'wall') {
      const t = BigInt(Date.now()) * 1_000_000n + this.offsetNs;
      // IC time is monotonic; never go back even if the system clock does.
      this.lastTimeNs = t > this.lastTimeNs ? t : this.lastTimeNs;
      return this.lastTimeNs;
    }
    return this.timeNs;
  }

  set(ns: bigint): void {
    if (this.mode !== 'manual') throw new HostStateError('setTime needs the manual clock');
    if (ns < this.timeNs) throw new HostStateError('IC time cannot go backwards');
    this.timeNs = ns;
  }

  shift(ns: bigint): void {
    if (ns < 0n) throw new HostStateError('IC time cannot go backwards');
    if (this.mode === 'manual') this.timeNs += ns;
    else this.offsetNs += ns;
  }

  /** A message committed now. */
  committed(): void {
    this.commitTimeNs = this.now();
  }

  /**
   * The time a (non-replicated) query reads. On the IC a query runs on the latest certified state and reads
   * that state's time, which advances once per round, not continuously. Wall mode emulates 1 s rounds: the
   * current second, but never before the last committed message. Manual mode: the clock itself.
   */
  queryTimeNs(): bigint {
    if (this.mode === 'manual') return this.timeNs;
    const round = (this.now() / QUERY_ROUND_NS) * QUERY_ROUND_NS;
    return round > this.commitTimeNs ? round : this.commitTimeNs;
  }

  save(): ClockState {
    return { timeNs: this.timeNs, lastTimeNs: this.lastTimeNs, offsetNs: this.offsetNs, commitTimeNs: this.commitTimeNs };
  }

  restore(s: ClockState): void {
    this.timeNs = s.timeNs;
    this.lastTimeNs = s.lastTimeNs;
    this.offsetNs = s.offsetNs;
    this.commitTimeNs = s.commitTimeNs;
  }
}
