// One job queue behind all three APIs. Jobs live in the database (queued -> running -> verified | failed), so
// a restart keeps them; at start, jobs a crash left running are queued again. At most maxConcurrentJobs run at
// once in this process, each compiling in its own worker.
import { randomUUID } from 'node:crypto';
import type { CompilerPool, LoadedCompiler } from './compilers.js';
import type { VerifyLimits } from './config.js';
import { asVerifyError, VerifyError } from './errors.js';
import type { VerifyRequest } from './request.js';
import type { ExplorerStore, JobRow } from './store.js';
import { verifyContract } from './verify.js';

export interface VerifierOptions {
  readonly store: ExplorerStore;
  readonly pool: CompilerPool;
  readonly compilers: readonly LoadedCompiler[];
  readonly limits: VerifyLimits;
  readonly getCode: (address: string) => Promise<string>;
  readonly log?: (line: string) => void;
  /** How often finished jobs past their retention are deleted while running (default hourly). */
  readonly pruneIntervalMs?: number;
}

export const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

export class Verifier {
  private running = 0;
  private closed = false;
  private readonly active = new Set<Promise<void>>();
  private pumping = false;
  private pumpAgain = false;
  private pruneTimer: NodeJS.Timeout | undefined;

  constructor(private readonly o: VerifierOptions) {}

  get compilers(): readonly LoadedCompiler[] {
    return this.o.compilers;
  }

  get store(): ExplorerStore {
    return this.o.store;
  }

  /** Queues jobs a crash left running, deletes finished jobs past their retention, and starts the queue. */
  async start(): Promise<void> {
    const r = await this.o.store.recover();
    if (r.requeued + r.abandoned > 0) this.o.log?.(`[explorer] verification jobs after restart: ${r.requeued} queued again, ${r.abandoned} given up`);
    await this.o.store.pruneFinished();
    this.pruneTimer = setInterval(() => {
      this.o.store.pruneFinished().catch((e: unknown) => this.o.log?.(`[explorer] pruning verification jobs: ${(e as Error).message}`));
    }, this.o.pruneIntervalMs ?? PRUNE_INTERVAL_MS);
    this.pruneTimer.unref();
    this.pump();
  }

  /** Queues a request; refuses an address that is already fully verified, a full queue, a client over its quota. */
  async submit(req: VerifyRequest, client = ''): Promise<string> {
    const existing = await this.o.store.getContract(req.address);
    if (existing !== undefined && existing.runtimeMatch === 'full') {
      throw new VerifyError('already_verified', `the contract at ${req.address} is already verified (full match)`);
    }
    if ((await this.o.store.openJobCount()) >= this.o.limits.maxQueuedJobs) {
      throw new VerifyError('queue_full', `${this.o.limits.maxQueuedJobs} verification jobs are waiting; try again later`);
    }
    if ((await this.o.store.openJobCount(client)) >= this.o.limits.maxQueuedJobsPerClient) {
      throw new VerifyError('queue_full', `${this.o.limits.maxQueuedJobsPerClient} verification jobs of yours are waiting; try again when they finish`);
    }
    const id = randomUUID();
    await this.o.store.insertJob(id, req, client);
    this.pump();
    return id;
  }

  job(id: string): Promise<JobRow | undefined> {
    return this.o.store.getJob(id);
  }

  /**
   * Stops taking jobs and waits up to `graceMs` for the running ones to save their outcome; a job still running
   * after that stays `running` in the database and runs again at the next start.
   */
  async close(graceMs = 5_000): Promise<void> {
    this.closed = true;
    clearInterval(this.pruneTimer);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.active]), new Promise((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
  }

  private pump(): void {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    void this.fill()
      .catch((e: unknown) => this.o.log?.(`[explorer] verification queue: ${(e as Error).message}`))
      .finally(() => {
        this.pumping = false;
        if (this.pumpAgain && !this.closed) {
          this.pumpAgain = false;
          this.pump();
        }
      });
  }

  private async fill(): Promise<void> {
    while (!this.closed && this.running < this.o.limits.maxConcurrentJobs) {
      const job = await this.o.store.claimNext();
      if (job === undefined) return;
      this.running++;
      const p = this.run(job).finally(() => {
        this.running--;
        this.active.delete(p);
        if (!this.closed) this.pump();
      });
      this.active.add(p);
    }
  }

  private async run(job: JobRow): Promise<void> {
    try {
      const data = await verifyContract(job.request, {
        pool: this.o.pool,
        compilers: this.o.compilers,
        getCode: this.o.getCode,
        creationTx: (a) => this.o.store.creationTx(a),
      });
      await this.o.store.finishVerified(job.id, data);
    } catch (e) {
      const err = asVerifyError(e);
      if (err.code === 'internal_error') this.o.log?.(`[explorer] verification job ${job.id}: ${err.message}`);
      await this.o.store.failJob(job.id, err.code, err.message).catch((e2: unknown) => this.o.log?.(`[explorer] job ${job.id}: ${(e2 as Error).message}`));
    }
  }
}
