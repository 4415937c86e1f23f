// The replay window of the IC HTTP interface kept across restarts: every call's request id, sender and
// ingress expiry is appended to a file in the data folder before the call runs, so that after a restart the
// same envelope (still within its expiry) is answered from its status ("done": the reply itself is not
// kept) and not run again. The file is rewritten without expired and forgotten ids at start and whenever it
// has grown to twice the live entries.
import { closeSync, existsSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';

export const REQUESTS_FILE = 'ic-requests.log';

export interface SeenRequest {
  readonly id: string;
  readonly expiry: bigint;
  readonly sender: string;
}

const LINE = /^([+-])([0-9a-f]{64})(?: (\d{1,20}) ([a-z0-9-]{1,64}))?$/;

export class SeenRequestLog {
  private fd: number | undefined;
  private lines = 0;

  private constructor(private readonly path: string) {}

  /** Opens (or creates) the log; returns it with the entries still in their window at `floorNs`. */
  static open(path: string, floorNs: bigint, drift: bigint): { log: SeenRequestLog; live: SeenRequest[] } {
    const live = new Map<string, SeenRequest>();
    if (existsSync(path)) {
      for (const line of readFileSync(path, 'utf8').split('\n')) {
        const m = LINE.exec(line);
        if (m === null) continue; // a torn last line after a crash
        if (m[1] === '-') live.delete(m[2]!);
        else if (m[3] !== undefined) live.set(m[2]!, { id: m[2]!, expiry: BigInt(m[3]), sender: m[4]! });
      }
    }
    const kept = [...live.values()].filter((e) => e.expiry + drift >= floorNs);
    const log = new SeenRequestLog(path);
    log.rewrite(kept);
    return { log, live: kept };
  }

  /** Written before the call runs: a crash after running it still leaves it recorded. */
  record(e: SeenRequest): void {
    this.append(`+${e.id} ${e.expiry} ${e.sender}\n`);
  }

  /** A call that did not run after all (refused by inspection, or the host failed). */
  forget(id: string): void {
    this.append(`-${id}\n`);
  }

  /** Rewrites the file with `live` only, if it has grown to over twice that. */
  compact(live: Iterable<SeenRequest>, liveCount: number): void {
    if (this.lines > 2 * liveCount + 1024) this.rewrite(live);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private append(line: string): void {
    if (this.fd === undefined) return;
    writeSync(this.fd, line);
    this.lines++;
  }

  private rewrite(live: Iterable<SeenRequest>): void {
    this.close();
    const text = [...live].map((e) => `+${e.id} ${e.expiry} ${e.sender}\n`).join('');
    // Written aside then renamed: a crash never leaves a half-written log.
    writeFileSync(`${this.path}.tmp`, text, { mode: 0o600 });
    renameSync(`${this.path}.tmp`, this.path);
    this.lines = text.length === 0 ? 0 : text.split('\n').length - 1;
    this.fd = openSync(this.path, 'a');
  }
}
