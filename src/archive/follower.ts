// The archive's pull loop (docs/archive.md): export_blocks from the stored cursor through the typed client,
// whole blocks re-executed and verified (./replay.ts), each pull's verified blocks committed with the new cursor
// in one transaction (./store.ts). A mismatch commits the blocks verified before it, records the alarm and
// stops: nothing past the last verified block is ever stored or served. Canister and database errors are
// retried with backoff; an evm_revert on the devnet rewinds it (requestRewind): the loop the indexer runs too
// (../client/follow.ts).
import type { CanisterClient } from '../client/index.js';
import { ConfigError } from '../client/errors.js';
import { EXPORT_FORMAT_VERSIONS_READ } from '../core/export/format.js';
import { ExportAssembler, ExportFormatError, type ExportedBlock } from '../core/export/decode.js';
import { bytesEqual } from '../core/codec/bytes.js';
import type { Db } from '../indexer/db.js';
import { ExportFollower, type FollowTiming, type PullOutcome } from '../client/follow.js';
import type { Progress } from '../client/progress.js';
import { HeadState } from './head_state.js';
import { describeMismatch, type Mismatch } from './mismatch.js';
import { Replayer, type GenesisEntry, type ReplayedBlock, type TxObserver } from './replay.js';
import { ArchiveStateError, ensureArchiveSchema } from './schema.js';
import { commitReplayed, loadHeadState, readMeta, recordAlarm, rewindArchive } from './store.js';
import { readRetention, recordUnservable, Retention } from './retention.js';

export interface ArchiveFollowerOptions {
  readonly client: CanisterClient;
  readonly db: Db;
  readonly chainId: bigint;
  /**
   * Genesis state for a stream whose block 0 lists none (format 1, or a chain installed before format 2): the
   * allocations and code the canister was installed with, in its init order. Format 2 streams carry their own.
   */
  readonly genesis?: readonly GenesisEntry[];
  readonly maxBytes?: number;
  readonly idlePollMs?: number;
  readonly backoffInitialMs?: number;
  readonly backoffMaxMs?: number;
  readonly log?: (line: string) => void;
  readonly tty?: boolean;
  /** Called after every commit (tests, the devnet). */
  readonly onCommit?: (cursorBlock: bigint) => void;
  /** Watches each replayed transaction's execution (the devnet prints console.log calls with it). */
  readonly observer?: TxObserver;
  /** Keep only this many blocks of history below the verified head (./retention.ts); undefined: from genesis. */
  readonly keepBlocks?: number;
}

export interface ArchiveStatus {
  /** The highest verified block (-1: none yet). */
  readonly verifiedHead: bigint;
  /** The canister's head as last seen. */
  readonly chainHead: bigint;
  readonly alarm: Mismatch | undefined;
  /** The first block served (0, or the retention floor). */
  readonly floor: bigint;
  /** Why the archive cannot replay further: the canister pruned blocks it had not replayed yet. */
  readonly unservable: string | undefined;
}

export class ArchiveFatalError extends Error {
  override name = 'ArchiveFatalError';
}

export class ArchiveFollower extends ExportFollower {
  private replayer: Replayer | undefined;
  private cursor = 0n;
  private lastHash: Uint8Array | undefined;
  private chainHead = -1n;
  private alarm: Mismatch | undefined;
  private unservable: string | undefined;
  private floor = 0n;
  private readonly retention: Retention | undefined;
  private pruned = { rows: 0, loggedAt: 0 };
  private assembler: ExportAssembler | undefined;
  readonly stats = { blocks: 0, txs: 0, retried: 0 };

  constructor(private readonly o: ArchiveFollowerOptions) {
    super('archive', o.log ?? ((l) => console.log(l)), o.tty === true);
    this.retention = o.keepBlocks === undefined ? undefined : new Retention(o.db, o.keepBlocks);
  }

  status(): ArchiveStatus {
    return { verifiedHead: this.cursor - 1n, chainHead: this.chainHead, alarm: this.alarm, floor: this.floor, unservable: this.unservable };
  }

  /** Checks the chain id and schema and rebuilds the head state from the history tables. */
  async prepare(): Promise<void> {
    const { client, db, chainId } = this.o;
    const live = await client.query('rpc_eth_chain_id', []);
    if (live !== chainId) throw new ConfigError('EVM_CHAIN_ID', `the archive expects chain ${chainId} but the canister's chain id is ${live}`);
    await ensureArchiveSchema(db, chainId);
    await this.load();
  }

  private async load(): Promise<void> {
    const meta = await readMeta(this.o.db);
    this.cursor = meta.cursorBlock;
    this.alarm = meta.alarm;
    this.floor = (await readRetention(this.o.db)).floor;
    this.assembler = undefined;
    const state = new HeadState();
    const h = await loadHeadState(this.o.db, this.cursor);
    if (this.cursor > 0n) state.load(h.accounts, h.storage, h.code, meta.stateRoot);
    const r = new Replayer(state);
    r.observer = this.o.observer;
    if (this.cursor === 0n) r.setFallbackGenesis(this.o.genesis ?? []);
    for (const [n, hash] of h.hashes) r.rememberHash(n, hash);
    this.lastHash = h.hashes.at(-1)?.[1];
    this.replayer = r;
    if (this.alarm !== undefined) this.log(`${describeMismatch(this.alarm)} (recorded earlier; start a new archive database once the cause is known)`);
  }

  protected isFatal(e: unknown): boolean {
    return e instanceof ArchiveFatalError || e instanceof ConfigError || e instanceof ArchiveStateError;
  }

  /** The in-memory head state may be ahead of what was committed: rebuilt from the tables after an error. */
  protected override prepareAfterError(): boolean {
    return true;
  }

  protected timing(): FollowTiming {
    return { backoffInitialMs: this.o.backoffInitialMs ?? 200, backoffMaxMs: this.o.backoffMaxMs ?? 5000, idlePollMs: this.o.idlePollMs ?? 1000 };
  }

  protected async pull(progress: Progress): Promise<PullOutcome> {
    // Stopped at the mismatch: only a rewind below it (devnet) can let it go on. Stopped at blocks the canister
    // pruned: nothing can (a restart asks the canister again).
    if (this.alarm !== undefined || this.unservable !== undefined) return 'halted';
    const caughtUp = await this.step(progress);
    await this.retain(caughtUp);
    return caughtUp ? 'caughtUp' : 'behind';
  }

  protected caughtUpLine(): string {
    return `archive: caught up at block ${this.cursor - 1n}, every block re-executed and verified (${this.stats.blocks} blocks, ${this.stats.txs} txs this run)`;
  }

  protected async applyRewind(): Promise<void> {
    const head = this.rewindTo!;
    const waiters = this.takeRewindWaiters();
    if (head < this.floor) {
      // The state at that block was pruned: replaying from there would start from a state the archive no longer has.
      this.rewindTo = undefined;
      this.unservable = `the chain went back to block ${head}, below this archive's retention floor ${this.floor}: the history needed to replay from there was pruned; start a new archive database`;
      await recordUnservable(this.o.db, this.unservable);
      this.log(`archive: ${this.unservable}`);
      for (const w of waiters) w();
      return;
    }
    const before = this.cursor;
    await rewindArchive(this.o.db, head);
    // An alarm above the new head belongs to blocks that no longer exist.
    if (this.alarm !== undefined && this.alarm.block > head) await this.o.db.query('UPDATE archive_meta SET alarm = NULL WHERE id = 1');
    if (this.rewindTo === head) this.rewindTo = undefined;
    await this.load();
    if (before > this.cursor) this.log(`archive: the chain went back to block ${head}; ${before - this.cursor} later block(s) forgotten, replaying again from block ${this.cursor}`);
    for (const w of waiters) w();
  }

  /**
   * The canister pruned blocks this archive has not replayed: it cannot re-execute them, so it cannot verify or
   * serve any block from its cursor on. Says so (log, status, the reader's answers) and stays idle; what it
   * verified before stays served.
   */
  private async stopAtPruned(firstAvailable: bigint): Promise<void> {
    const held = this.cursor === 0n ? 'it holds no block' : `it keeps serving blocks ${this.floor}..${this.cursor - 1n}, verified before`;
    this.unservable =
      `the canister pruned blocks ${this.cursor}..${firstAvailable - 1n} before this archive replayed them (export_blocks: Pruned, first available block ${firstAvailable}); ` +
      `the archive re-executes every block from genesis, so it can verify and serve no block from ${this.cursor} on (${held}). ` +
      `Run the archive before the canister prunes, or start it on a copy of an archive database that reached block ${firstAvailable - 1n}`;
    await recordUnservable(this.o.db, this.unservable);
    this.log(`archive: ${this.unservable}`);
  }

  /** With keepBlocks: the floor follows the head; one chunk of history pruned per pull, the rest once caught up. */
  private async retain(caughtUp: boolean): Promise<void> {
    const r = this.retention;
    if (r === undefined || this.cursor === 0n || this.alarm !== undefined || this.rewindTo !== undefined) return;
    await r.follow(this.cursor - 1n);
    for (;;) {
      const c = await r.pruneChunk();
      this.pruned.rows += c.deleted;
      if (c.done || !caughtUp || this.stopped || this.rewindTo !== undefined) break;
    }
    this.floor = (await readRetention(this.o.db)).floor;
    const now = Date.now();
    if (caughtUp && this.pruned.rows > 0 && now - this.pruned.loggedAt >= 60_000) {
      this.log(`archive: history below block ${this.floor} pruned (${this.pruned.rows} rows; keeping ${r.keepBlocks} blocks), serving blocks ${this.floor}..${this.cursor - 1n}`);
      this.pruned = { rows: 0, loggedAt: now };
    }
  }

  /** One export_blocks call and the commit of the blocks it completed; true when caught up. */
  async step(progress?: Progress): Promise<boolean> {
    const { client, db } = this.o;
    this.assembler ??= new ExportAssembler({ blockNumber: this.cursor, segment: 0, byteOffset: 0 });
    const cur = this.assembler.cursor;
    const r = await client.query('export_blocks', [[{ block_number: cur.blockNumber, segment: cur.segment, byte_offset: cur.byteOffset }], this.o.maxBytes ?? 1_200_000]);
    if ('Err' in r) {
      const err = r.Err;
      this.assembler = undefined;
      if ('InvalidCursor' in err) {
        const head = await client.query('rpc_eth_block_number', []);
        if (this.cursor > head + 1n) {
          this.log(`archive: the archive is past the canister's head ${head}: the chain went back; rewinding`);
          this.rewindTo = head;
          return false;
        }
      }
      if ('Pruned' in err) {
        await this.stopAtPruned(err.Pruned.first_available_block);
        return false;
      }
      throw new Error(`export_blocks at block ${cur.blockNumber}: ${JSON.stringify(err, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
    }
    const ok = r.Ok;
    if (!EXPORT_FORMAT_VERSIONS_READ.includes(ok.format_version)) throw new ArchiveFatalError(`export format version ${ok.format_version}; this archive reads versions ${EXPORT_FORMAT_VERSIONS_READ.join(', ')}`);
    this.chainHead = ok.head_block;
    const blocks: ExportedBlock[] = [];
    try {
      // A block begun before a canister upgrade is pulled again from its start (ExportAssembler.pushResponse).
      blocks.push(...this.assembler.pushResponse(ok.chunks.map((c) => ({ blockNumber: c.block_number, segment: c.segment, byteOffset: c.byte_offset, segmentLength: c.segment_len, data: c.data })), ok.format_version));
    } catch (e) {
      this.assembler = undefined;
      if (e instanceof ExportFormatError) throw new ArchiveFatalError(`malformed export data at block ${cur.blockNumber}: ${e.message}`);
      throw e;
    }
    if (blocks.length === 0) return ok.chunks.length === 0;
    const verified: ReplayedBlock[] = [];
    let mismatch: Mismatch | undefined;
    for (const b of blocks) {
      if (this.rewindTo !== undefined) break;
      const parent = verified.at(-1)?.context.hash ?? this.lastHash;
      if (b.block.number > 0n && parent !== undefined && !bytesEqual(parent, b.block.parentHash)) {
        // Not the chain this archive holds: it went back without a rewind reaching us (a devnet revert while stopped).
        this.log(`archive: block ${b.block.number} does not follow the archived block ${b.block.number - 1n}: the chain went back; rewinding`);
        this.rewindTo = b.block.number - 2n < 0n ? 0n : b.block.number - 2n;
        break;
      }
      const out = await this.replayer!.replay(b);
      if (!out.ok) {
        mismatch = out.mismatch;
        break;
      }
      verified.push(out.block);
    }
    await commitReplayed(db, verified);
    if (verified.length > 0 && this.unservable !== undefined) {
      this.unservable = undefined;
      await recordUnservable(db, undefined);
    }
    if (verified.length > 0) {
      this.cursor = verified.at(-1)!.context.number + 1n;
      this.lastHash = verified.at(-1)!.context.hash;
      this.stats.blocks += verified.length;
      for (const v of verified) this.stats.txs += v.txCount;
      progress?.update(this.cursor - 1n, this.chainHead, verified.length);
      this.o.onCommit?.(this.cursor);
    }
    if (mismatch !== undefined) {
      await recordAlarm(db, mismatch);
      this.alarm = mismatch;
      progress?.end();
      this.log(describeMismatch(mismatch));
      return false;
    }
    if (this.rewindTo !== undefined || verified.length < blocks.length) {
      // Blocks after a rewind request are pulled again once it is applied; the replayer state is rebuilt then.
      this.assembler = undefined;
      if (this.rewindTo === undefined) await this.load();
    }
    return false;
  }
}
