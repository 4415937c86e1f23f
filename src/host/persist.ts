// Persistence of the host's canister in a stable-memory file and its `<file>.meta.json` (stable.ts): what a
// new host process needs to resume, written after every committed message. A failed flush (disk full, I/O
// error) is remembered: the host then refuses writes until a retried flush succeeds.
import { existsSync, readFileSync } from 'node:fs';
import { HostStateError } from './errors.js';
import type { CanisterInstance } from './instance.js';
import { StableFile } from './stable.js';

export interface PersistedMeta {
  version: 1;
  canisterId: string;
  controllers: string[];
  wasmHash: string;
  timerDeadline: string;
  certifiedData: string;
  canisterVersion: string;
  stableSizePages: string;
  timeNs: string;
}

export class Persistence {
  private lastMetaKey = '';
  /**
   * Why the last flush of stable memory to its file failed (disk full, I/O error), until one succeeds. While
   * set, the host refuses every message that could write (updates, timers) with a clear error rather than go
   * on as if written; the dirty pages are kept, and each refused attempt first retries the flush.
   */
  private storageError: string | undefined;

  private constructor(
    readonly file: StableFile,
    /** The metadata found at creation (a canister to resume), if any. */
    readonly meta: PersistedMeta | undefined,
  ) {}

  static open(path: string, fsync: boolean): Persistence {
    const file = new StableFile(path, fsync);
    const meta = existsSync(file.metaPath) ? (JSON.parse(readFileSync(file.metaPath, 'utf8')) as PersistedMeta) : undefined;
    return new Persistence(file, meta);
  }

  /** Retries a failed flush; throws a clear HostStateError when stable memory still cannot be written. */
  requireWritable(core: CanisterInstance): void {
    if (this.storageError === undefined) return;
    this.save(core);
    if (this.storageError !== undefined) {
      throw new HostStateError(`stable memory file cannot be written (${this.storageError}); no new writes are accepted until a flush succeeds`);
    }
  }

  save(core: CanisterInstance): void {
    if (core.live === undefined) return;
    const { pages, size } = core.stable.peekDirty();
    const meta: PersistedMeta = {
      version: 1,
      canisterId: core.canisterId.toText(),
      controllers: core.controllers.map((c) => c.toText()),
      wasmHash: core.wasmHash,
      timerDeadline: core.timerDeadline.toString(),
      certifiedData: Buffer.from(core.certifiedData).toString('hex'),
      canisterVersion: core.version.toString(),
      stableSizePages: size.toString(),
      timeNs: core.now().toString(),
    };
    // Skip the write (and its fsyncs) when neither pages nor metadata changed; the clock alone does not count.
    const key = JSON.stringify({ ...meta, timeNs: '' });
    if (pages.length === 0 && key === this.lastMetaKey && this.storageError === undefined) return;
    try {
      this.file.flush(pages, JSON.stringify(meta, null, 2));
    } catch (e) {
      this.storageError = (e as Error).message;
      core.debugPrint(`stable memory flush failed: ${this.storageError}`);
      return;
    }
    this.storageError = undefined;
    this.lastMetaKey = key;
    core.stable.clearDirty(pages);
  }
}
