// The pull loop (docs/indexer.md): export_blocks from the stored cursor, whole blocks decoded, archived and
// committed with the new cursor in one transaction. Canister and database errors are retried with backoff; a
// malformed export chunk stops the indexer with a message naming the cursor (nothing of it is written). The
// loop itself (backoff, progress, stop, rewind requests) is ../client/follow.ts, shared with the archive.
import type { CanisterClient } from '../client/index.js';
import { ConfigError } from '../client/errors.js';
import { EXPORT_FORMAT_VERSIONS_READ } from '../core/export/format.js';
import { Archive } from './archive.js';
import type { IndexerConfig } from './config.js';
import type { Db } from './db.js';
import { ExportAssembler, ExportFormatError, type ExportedBlock } from '../core/export/decode.js';
import { ExportFollower, type FollowTiming, type PullOutcome } from '../client/follow.js';
import type { Progress } from '../client/progress.js';
import { blockRows, type BlockRows } from './rows.js';
import { SchemaTooNewError } from './migrate.js';
import { bytesEqual } from '../core/codec/bytes.js';
import { applyRetention, commitBlocks, ensureSchema, IndexerStateError, insertMetricsSample, openState, recordGap, rewindBlocks, updateHead, type IndexerState } from './store.js';

/** A condition the indexer cannot retry its way out of; the message says what to do. */
export class IndexerFatalError extends Error {
  override name = 'IndexerFatalError';
}

export interface IndexerOptions {
  readonly config: IndexerConfig;
  readonly client: CanisterClient;
  readonly db: Db;
  readonly log?: (line: string) => void;
  /** A terminal: progress as a live bar. */
  readonly tty?: boolean;
  /** Called after every commit (tests, the devnet). */
  readonly onCommit?: (state: { cursorBlock: bigint; head: bigint }) => void;
}

/** Schema and state errors say what to do; retrying cannot fix them. */
function isRetryable(e: unknown): boolean {
  return !(e instanceof SchemaTooNewError || e instanceof IndexerStateError);
}

/** How far back a chain that went back is searched for the last block both sides agree on. */
const MAX_FORK_SEARCH = 100_000n;

/** How often retention runs while the indexer is caught up. */
const RETENTION_INTERVAL_MS = 10 * 60_000;

export interface IndexerStats {
  blocks: number;
  txs: number;
  skippedTransfers: number;
  gaps: number;
  retried: number;
}

export class Indexer extends ExportFollower {
  readonly stats: IndexerStats = { blocks: 0, txs: 0, skippedTransfers: 0, gaps: 0, retried: 0 };
  private archive: Archive | undefined;
  private state: IndexerState | undefined;
  private head = 0n;
  private firstAvailable = 0n;
  private lastMetrics = 0;
  private lastPrune = 0;
  private lastRetention = 0;

  constructor(private readonly o: IndexerOptions) {
    super('indexer', o.log ?? ((l) => console.log(l)), o.tty === true);
  }

  get cursor(): bigint | undefined {
    return this.state?.cursorBlock;
  }

  /** Checks chain id and schema, opens the archive and collects orphans; returns the state to start from. */
  async prepare(): Promise<IndexerState> {
    const { config, client, db } = this.o;
    const chainId = await client.query('rpc_eth_chain_id', []);
    if (chainId !== config.chainId) {
      throw new ConfigError('INDEXER_CHAIN_ID', `is ${config.chainId} but the canister's chain id is ${chainId}; set INDEXER_CHAIN_ID=${chainId} or point EVM_CANISTER_ID at the right canister`);
    }
    const applied = await ensureSchema(db);
    if (applied.length > 0) this.log(`indexer: database schema migrated to version ${applied.at(-1)}`);
    this.state = await openState(db, config.chainId, 0n);
    this.archive = await Archive.open(config.archiveDir, config.chainId, config.zstdLevel);
    await this.collectOrphans();
    return this.state;
  }

  /** Files in the archive that no committed record names: left by a crash between write and commit. */
  async collectOrphans(): Promise<{ orphans: number; deleted: number }> {
    const archive = this.archive!;
    const known = new Set((await this.o.db.query<{ path: string }>('SELECT path FROM archive_files')).rows.map((r) => r.path));
    const orphans = archive.listFiles().filter((p) => !known.has(p));
    if (orphans.length === 0) return { orphans: 0, deleted: 0 };
    if (!this.o.config.archiveGcDeleteOrphans) {
      this.log(`indexer: ${orphans.length} archive file(s) without a database record kept (INDEXER_ARCHIVE_GC_DELETE_ORPHANS=true deletes them)`);
      return { orphans: orphans.length, deleted: 0 };
    }
    for (const p of orphans) archive.remove(p);
    this.log(`indexer: deleted ${orphans.length} archive file(s) without a database record`);
    return { orphans: orphans.length, deleted: orphans.length };
  }

  // requestRewind (ExportFollower) is for a chain that went back, which only the devnet's evm_revert does (IC
  // blocks are final). The loop applies it between two steps, so a step already under way finishes first (its
  // blocks, if from before the revert, are removed with the rest).
  protected async applyRewind(): Promise<void> {
    const head = this.rewindTo!;
    const waiters = this.takeRewindWaiters();
    const r = await rewindBlocks(this.o.db, head);
    // A request for a lower head that came meanwhile is applied by the next turn of the loop.
    if (this.rewindTo === head) this.rewindTo = undefined;
    this.resetAssembler();
    this.state = { ...this.state!, cursorBlock: r.cursorBlock };
    for (const p of r.paths) this.archive!.remove(p);
    if (r.blocks > 0) this.log(`indexer: the chain went back to block ${head}; ${r.blocks} later block(s) removed, pulling again from block ${r.cursorBlock}`);
    for (const w of waiters) w();
  }

  /**
   * Whether `first` (the next block to commit) continues the indexed chain: its parent must be the indexed
   * block before it. If not, the chain went back without a rewind request reaching this indexer (an
   * evm_revert while it was stopped), and the rewind goes to the highest block both still agree on.
   */
  private async continuesChain(first: ExportedBlock['block']): Promise<boolean> {
    if (first.number === 0n) return true;
    const prev = await this.storedHash(first.number - 1n);
    if (prev === undefined || bytesEqual(prev, first.parentHash)) return true;
    const fork = await this.forkPoint(first.number - 1n);
    this.log(`indexer: block ${first.number} does not follow the indexed block ${first.number - 1n}: the chain went back; rewinding to block ${fork}`);
    this.rewindAtMost(fork);
    return false;
  }

  /**
   * Whether an InvalidCursor answer means the chain went back under the cursor: a rewind is pending (the
   * devnet's evm_revert while this pull was under way), or the head is now below the cursor (a revert while
   * the indexer was stopped), in which case the rewind to the last block both sides agree on is requested.
   */
  private async wentBack(cursor: bigint): Promise<boolean> {
    if (this.rewindTo !== undefined) return true;
    const head = await this.o.client.query('rpc_eth_block_number', []);
    if (cursor <= head + 1n) return false;
    const fork = await this.forkPoint(head < cursor - 1n ? head : cursor - 1n);
    this.log(`indexer: the cursor (block ${cursor}) is past the canister's head ${head}: the chain went back; rewinding to block ${fork}`);
    this.rewindAtMost(fork);
    return true;
  }

  private async storedHash(n: bigint): Promise<Uint8Array | undefined> {
    return (await this.o.db.query<{ hash: Uint8Array }>('SELECT hash FROM blocks WHERE number = $1', [n])).rows[0]?.hash;
  }

  /** The highest indexed block at or below `from` that the canister still has with the same hash. */
  private async forkPoint(from: bigint): Promise<bigint> {
    for (let n = from; n >= 0n && from - n <= MAX_FORK_SEARCH; n--) {
      const stored = await this.storedHash(n);
      if (stored === undefined) return n; // nothing indexed to compare (a pruned gap, retention): keep the rest
      const live = (await this.o.client.query('rpc_eth_get_block_by_number', [n, false]))[0];
      if (live !== undefined && bytesEqual(live.hash, stored)) return n;
    }
    throw new IndexerFatalError(`the indexed chain and the canister's differ for more than ${MAX_FORK_SEARCH} blocks below block ${from}: was the canister reinstalled? Index into a new database`);
  }

  protected override isPrepared(): boolean {
    return this.state !== undefined;
  }

  /** IndexerFatalError / ConfigError and schema or state errors: retrying cannot fix them. */
  protected isFatal(e: unknown): boolean {
    return e instanceof IndexerFatalError || e instanceof ConfigError || !isRetryable(e);
  }

  protected timing(): FollowTiming {
    return this.o.config;
  }

  protected async pull(progress: Progress): Promise<PullOutcome> {
    const caughtUp = await this.step(progress);
    await this.poll();
    return caughtUp ? 'caughtUp' : 'behind';
  }

  protected caughtUpLine(): string {
    const s = this.stats;
    return `indexer: caught up at block ${this.head} (${s.blocks} blocks, ${s.txs} txs indexed this run${s.gaps > 0 ? `, ${s.gaps} pruned gap(s)` : ''}${s.skippedTransfers > 0 ? `, ${s.skippedTransfers} malformed Transfer log(s) skipped` : ''})`;
  }

  protected override whenCaughtUp(): Promise<void> {
    return this.maybeRetention();
  }

  /** One export_blocks call and the commit of the blocks it completed; true when caught up. */
  private assembler: ExportAssembler | undefined;
  private pending: ExportedBlock[] = [];

  async step(progress?: Progress): Promise<boolean> {
    const { client, config, db } = this.o;
    const state = this.state!;
    // The assembler may hold a partial block between calls; after a failed call or commit it restarts at the
    // committed cursor (a partial block is simply pulled again).
    this.assembler ??= new ExportAssembler({ blockNumber: state.cursorBlock, segment: 0, byteOffset: 0 });
    const cur = this.assembler.cursor;
    let r;
    try {
      r = await client.query('export_blocks', [[{ block_number: cur.blockNumber, segment: cur.segment, byte_offset: cur.byteOffset }], config.maxBytes]);
    } catch (e) {
      this.resetAssembler();
      throw e;
    }
    if ('Err' in r) {
      const err = r.Err;
      this.resetAssembler();
      if ('InvalidCursor' in err && (await this.wentBack(state.cursorBlock))) return false;
      if ('Pruned' in err) {
        const first = err.Pruned.first_available_block;
        if (first <= state.cursorBlock) throw new IndexerFatalError(`export_blocks answered Pruned at block ${state.cursorBlock} with first available block ${first}`);
        await recordGap(db, state.cursorBlock, first, this.head);
        this.log(`indexer: blocks ${state.cursorBlock}..${first - 1n} were pruned before they were indexed; gap recorded, continuing at block ${first}`);
        this.stats.gaps++;
        this.state = { ...state, cursorBlock: first, firstAvailableBlock: first };
        return false;
      }
      if ('Unavailable' in err) throw new Error(`export_blocks at block ${cur.blockNumber}: unavailable: ${err.Unavailable}`);
      const text = 'InvalidCursor' in err ? `invalid cursor: ${err.InvalidCursor}` : `invalid argument: ${err.InvalidArgument}`;
      throw new IndexerFatalError(`export_blocks refused the cursor (block ${cur.blockNumber}, segment ${cur.segment}, offset ${cur.byteOffset}): ${text}; is this database from another canister?`);
    }
    const ok = r.Ok;
    if (!EXPORT_FORMAT_VERSIONS_READ.includes(ok.format_version)) {
      throw new IndexerFatalError(`export format version ${ok.format_version} at block ${cur.blockNumber}; this indexer reads versions ${EXPORT_FORMAT_VERSIONS_READ.join(', ')}: upgrade the indexer`);
    }
    this.head = ok.head_block;
    this.firstAvailable = ok.first_available_block;
    const blocks: ExportedBlock[] = [];
    try {
      // A block begun before a canister upgrade is pulled again from its start (ExportAssembler.pushResponse).
      blocks.push(...this.assembler.pushResponse(ok.chunks.map((c) => ({ blockNumber: c.block_number, segment: c.segment, byteOffset: c.byte_offset, segmentLength: c.segment_len, data: c.data })), ok.format_version));
    } catch (e) {
      this.resetAssembler();
      if (e instanceof ExportFormatError) {
        throw new IndexerFatalError(`malformed export data at cursor (block ${cur.blockNumber}, segment ${cur.segment}, offset ${cur.byteOffset}): ${e.message}; nothing of it was written`);
      }
      throw e;
    }
    this.pending.push(...blocks);
    if (this.pending.length > 0) {
      const toCommit = this.pending;
      this.pending = [];
      try {
        if (!(await this.commit(toCommit))) return false;
      } catch (e) {
        this.resetAssembler();
        throw e;
      }
      progress?.update(this.state!.cursorBlock - 1n, this.head, toCommit.length);
      return false;
    }
    if (ok.chunks.length > 0) return false;
    // Caught up: record the head (rows are unchanged).
    await updateHead(db, this.head, this.firstAvailable);
    return true;
  }

  private resetAssembler(): void {
    this.assembler = undefined;
    this.pending = [];
  }

  /** Commits whole blocks; false when a rewind must come first (nothing written). */
  private async commit(blocks: ExportedBlock[]): Promise<boolean> {
    // A rewind requested meanwhile comes first; so does one these blocks reveal. Either way the loop applies it
    // and pulls again.
    if (this.rewindTo !== undefined || !(await this.continuesChain(blocks[0]!.block))) {
      this.resetAssembler();
      return false;
    }
    const state = this.state!;
    let rows: BlockRows[];
    try {
      rows = blocks.map(blockRows);
    } catch (e) {
      throw new IndexerFatalError(`malformed transaction in block ${blocks[0]?.block.number} (cursor block ${state.cursorBlock}): ${(e as Error).message}; nothing of it was written`);
    }
    // Archive first: a record is committed only for a file already durable.
    const archived = await this.archive!.writeMany(blocks.map((b) => ({ blockNumber: b.block.number, segments: b.segments })));
    await commitBlocks(this.o.db, { fromBlock: state.cursorBlock, blocks: rows, archived, head: this.head, firstAvailable: this.firstAvailable });
    const next = blocks.at(-1)!.block.number + 1n;
    this.state = { ...state, cursorBlock: next, headBlock: this.head };
    this.stats.blocks += blocks.length;
    for (const r of rows) {
      this.stats.txs += r.txs.length;
      if (r.skipped.length > 0) {
        this.stats.skippedTransfers += r.skipped.length;
        for (const s of r.skipped) this.log(`indexer: block ${s[0]} log ${s[1]}: Transfer-shaped log skipped (${s[2]})`);
      }
    }
    this.o.onCommit?.({ cursorBlock: next, head: this.head });
    return true;
  }

  /** Metrics and prune status, each at its own interval; failures are logged and retried at the next poll. */
  private async poll(): Promise<void> {
    const { client, config, db } = this.o;
    const now = Date.now();
    if (now - this.lastMetrics >= config.metricsPollMs) {
      this.lastMetrics = now;
      const m = await client.query('metrics', []);
      await insertMetricsSample(db, m.block_number, m, m.prune);
    }
    if (now - this.lastPrune >= config.prunePollMs) {
      this.lastPrune = now;
      const p = await client.query('get_prune_status', []);
      const cursor = this.state!.cursorBlock;
      if (p.pruned_before_block > cursor) {
        this.log(`indexer: the canister has pruned history up to block ${p.pruned_before_block - 1n}, ahead of the cursor ${cursor}: those blocks will be recorded as a gap`);
      }
      this.firstAvailable = p.pruned_before_block;
    }
  }

  private async maybeRetention(): Promise<void> {
    const { config, db } = this.o;
    if (!config.retentionEnabled) return;
    const now = Date.now();
    if (now - this.lastRetention < RETENTION_INTERVAL_MS) return;
    this.lastRetention = now;
    await this.retention(now);
  }

  /** Applies (or counts, in dry-run mode) retention as of `nowMs`. */
  async retention(nowMs = Date.now()): Promise<{ blocks: number; txs: number; dryRun: boolean }> {
    const { config, db } = this.o;
    const cutoff = BigInt(Math.floor(nowMs / 1000)) - BigInt(config.retentionDays) * 86_400n;
    const r = await applyRetention(db, cutoff, config.retentionDryRun);
    if (r.blocks > 0) {
      this.log(`indexer: retention ${r.dryRun ? 'dry run: would remove' : 'removed'} ${r.blocks} block(s) and ${r.txs} tx(s) older than ${config.retentionDays} days (the archive keeps them)`);
    }
    return r;
  }
}
