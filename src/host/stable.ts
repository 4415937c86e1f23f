// Stable memory: sparse 64 KiB pages (only pages ever written are allocated), an undo log per message
// (first write to a page saves its old contents, so a trap or a query restores exactly those pages), and
// an optional file backing that receives only the pages dirtied since the last flush.
// Copy on write: a message's first write to a page puts a fresh copy in the map and keeps the old page
// object as the undo entry, so a committed page is never written again. Once a follower (the query replica,
// replica.ts) follows, pages live in SharedArrayBuffers, so its worker shares them without copying and
// without ever seeing a half-written page. (A SharedArrayBuffer page costs several times a plain one to allocate,
// so hosts without a follower keep plain pages.)
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readSync, renameSync, rmSync, writeSync, fstatSync, ftruncateSync } from 'node:fs';
import { dirname } from 'node:path';

export const WASM_PAGE = 65536;
/** 400 GiB of stable memory, in 64 KiB pages (logical; only written pages are allocated). */
export const DEFAULT_MAX_STABLE_PAGES = (400n * 1024n * 1024n * 1024n) / 65536n;

/** A zeroed page in shared memory (see the header: committed pages are immutable and may be shared). */
const sharedPage = (): Buffer => Buffer.from(new SharedArrayBuffer(WASM_PAGE));
const isShared = (p: Buffer): boolean => p.buffer instanceof SharedArrayBuffer;
/** Journal trailer: page count, metadata length, SHA-256, magic. */
const TRAILER_V2 = 44;

export class StableMemory {
  private pages = new Map<number, Buffer>();
  private sizePages = 0n;
  // Undo log of the running message: page index -> contents before the message (undefined = absent).
  private undo = new Map<number, Buffer | undefined>();
  private sizeBefore = 0n;
  // Pages changed by committed messages and not yet flushed to the file.
  private dirty = new Set<number>();
  // Pages changed by committed messages and not yet sent to the query replica (when one follows).
  private changed: Map<number, Buffer> | undefined;
  // New pages go to shared memory (a follower has followed).
  private shared = false;

  constructor(readonly maxPages: bigint) {}

  get size(): bigint {
    return this.sizePages;
  }

  /** Number of pages actually held in memory (the logical size can be much larger). */
  get allocatedPages(): number {
    return this.pages.size;
  }

  grow(n: bigint): bigint {
    const old = this.sizePages;
    if (n < 0n || old + n > this.maxPages) return -1n;
    this.sizePages = old + n;
    return old;
  }

  read(dst: Uint8Array, offset: bigint, size: bigint): void {
    this.checkRange(offset, size);
    let off = Number(offset);
    let done = 0;
    const len = Number(size);
    while (done < len) {
      const page = Math.floor(off / WASM_PAGE);
      const inPage = off % WASM_PAGE;
      const n = Math.min(WASM_PAGE - inPage, len - done);
      const p = this.pages.get(page);
      if (p === undefined) dst.fill(0, done, done + n);
      else dst.set(p.subarray(inPage, inPage + n), done);
      done += n;
      off += n;
    }
  }

  write(offset: bigint, src: Uint8Array): void {
    this.checkRange(offset, BigInt(src.length));
    let off = Number(offset);
    let done = 0;
    while (done < src.length) {
      const page = Math.floor(off / WASM_PAGE);
      const inPage = off % WASM_PAGE;
      const n = Math.min(WASM_PAGE - inPage, src.length - done);
      let p = this.pages.get(page);
      if (!this.undo.has(page)) {
        // Copy on write: the committed page becomes the undo entry, untouched from now on.
        this.undo.set(page, p);
        const fresh = this.newPage();
        if (p !== undefined) p.copy(fresh);
        this.pages.set(page, fresh);
        p = fresh;
      }
      p!.set(src.subarray(done, done + n), inPage);
      done += n;
      off += n;
    }
  }

  private checkRange(offset: bigint, size: bigint): void {
    if (offset < 0n || size < 0n || offset + size > this.sizePages * BigInt(WASM_PAGE)) {
      throw new RangeError(`stable memory access out of bounds: offset ${offset} size ${size}, stable size ${this.sizePages} pages`);
    }
  }

  /** Start of a message: remember the size; the undo log is empty. */
  begin(): void {
    this.undo.clear();
    this.sizeBefore = this.sizePages;
  }

  /** Keep the message's writes; returns the number of pages it touched. */
  commit(): number {
    const n = this.undo.size;
    for (const page of this.undo.keys()) {
      this.dirty.add(page);
      this.changed?.set(page, this.pages.get(page)!);
    }
    this.undo.clear();
    this.sizeBefore = this.sizePages;
    return n;
  }

  /** Undo the message's writes and growth; returns the number of pages restored. */
  rollback(): number {
    const n = this.undo.size;
    for (const [page, old] of this.undo) {
      if (old === undefined) this.pages.delete(page);
      else this.pages.set(page, old);
    }
    this.undo.clear();
    this.sizePages = this.sizeBefore;
    return n;
  }

  /**
   * The pages changed since the last successful flush, without forgetting them: a flush that fails (disk full,
   * I/O error) must leave them dirty for the next attempt. Call clearDirty once the flush has succeeded.
   */
  peekDirty(): { pages: [number, Buffer][]; size: bigint } {
    const pages: [number, Buffer][] = [];
    for (const i of [...this.dirty].sort((a, b) => a - b)) pages.push([i, Buffer.from(this.pages.get(i) ?? Buffer.alloc(WASM_PAGE))]);
    return { pages, size: this.sizePages };
  }

  /** Forgets the pages of a successful flush (those of `pages`; a page dirtied since stays dirty). */
  clearDirty(pages: readonly [number, Buffer][]): void {
    for (const [i] of pages) this.dirty.delete(i);
  }

  takeDirty(): { pages: [number, Buffer][]; size: bigint } {
    const d = this.peekDirty();
    this.clearDirty(d.pages);
    return d;
  }

  /**
   * Starts (or restarts) recording committed changes for a follower, and returns every page as it is now
   * (shared, not copied: committed pages are never written again) with the size. Between messages only.
   */
  follow(): { pages: [number, Buffer][]; size: bigint } {
    if (!this.shared) {
      this.shared = true;
      for (const [i, p] of this.pages) {
        if (isShared(p)) continue;
        const s = sharedPage();
        p.copy(s);
        this.pages.set(i, s);
      }
    }
    this.changed = new Map();
    return { pages: [...this.pages], size: this.sizePages };
  }

  private newPage(): Buffer {
    return this.shared ? sharedPage() : Buffer.alloc(WASM_PAGE);
  }

  /** The pages committed since follow() or the last call (shared, not copied), and the size; between messages. */
  takeChanged(): { pages: [number, Buffer][]; size: bigint } {
    const pages = this.changed === undefined ? [] : [...this.changed];
    this.changed?.clear();
    return { pages, size: this.sizePages };
  }

  /** Stops recording for a follower. */
  unfollow(): void {
    this.changed = undefined;
  }

  /** A follower's side: committed pages and the size from the leader, between messages (never written here: copy on write). */
  applyShared(pages: readonly [number, Buffer][], size: bigint, replaceAll: boolean): void {
    if (replaceAll) this.pages = new Map();
    for (const [i, p] of pages) this.pages.set(i, p);
    this.undo.clear();
    this.sizePages = size;
    this.sizeBefore = size;
  }

  /** A copy of every page and the size, between messages (the devnet's evm_snapshot). */
  copyAll(): { pages: Map<number, Buffer>; size: bigint } {
    const pages = new Map<number, Buffer>();
    for (const [i, p] of this.pages) pages.set(i, Buffer.from(p));
    return { pages, size: this.sizePages };
  }

  /** Replaces everything with a copy taken by copyAll (evm_revert); every page that may differ is marked dirty. */
  replaceAll(image: { pages: ReadonlyMap<number, Buffer>; size: bigint }): void {
    for (const i of this.pages.keys()) this.dirty.add(i);
    this.pages = new Map();
    for (const [i, p] of image.pages) {
      const copy = this.newPage();
      p.copy(copy);
      this.pages.set(i, copy);
      this.dirty.add(i);
    }
    this.undo.clear();
    this.sizePages = image.size;
    this.sizeBefore = image.size;
  }

  /** Load from a file image (all-zero pages stay unallocated). */
  loadImage(fd: number, sizePages: bigint): void {
    this.pages.clear();
    this.dirty.clear();
    this.undo.clear();
    this.sizePages = sizePages;
    this.sizeBefore = sizePages;
    const fileLen = fstatSync(fd).size;
    const buf = Buffer.alloc(WASM_PAGE);
    const zero = Buffer.alloc(WASM_PAGE);
    for (let i = 0; i * WASM_PAGE < fileLen && BigInt(i) < sizePages; i++) {
      buf.fill(0);
      readSync(fd, buf, 0, WASM_PAGE, i * WASM_PAGE);
      if (!buf.equals(zero)) {
        const page = this.newPage();
        buf.copy(page);
        this.pages.set(i, page);
      }
    }
  }
}

/**
 * The stable-memory file and its journal. A flush is crash-safe: the dirty pages and the new metadata go to
 * `<file>.journal` first (fsync), then into the image in place (fsync), then the metadata JSON is replaced
 * atomically (write temp + rename) and the journal removed. On open, a complete journal is replayed; an
 * incomplete one (crash while writing it) is discarded, leaving the image as of the previous flush.
 * With `fsync: false` the same order is kept but nothing is forced to disk (a machine crash may lose recent
 * messages; a process crash cannot). With fsync, the directory is fsynced too after the file is created and
 * after the metadata rename (a rename or a new file is durable only once its directory is). The journal
 * carries a SHA-256 of its pages and metadata: a journal whose bytes do not match is discarded, not replayed.
 */
export class StableFile {
  private fd: number;
  private readonly journal: string;
  readonly metaPath: string;

  constructor(
    readonly path: string,
    private readonly fsync: boolean,
  ) {
    this.journal = `${path}.journal`;
    this.metaPath = `${path}.meta.json`;
    const created = !existsSync(path);
    this.fd = openSync(path, created ? 'w+' : 'r+');
    if (created) this.syncDir();
    this.replayJournal();
  }

  get descriptor(): number {
    return this.fd;
  }

  // Journal layout: repeated [u32 page index][64 KiB data], then JSON metadata, then the trailer
  // [u32 page count][u32 meta length][32-byte SHA-256 of everything before the trailer]["ICJ2" magic]. The
  // trailer is written last, so its presence means complete; the checksum catches torn or corrupted bytes.
  // (Journals of the earlier layout, a 12-byte trailer with "ICHJ" and no checksum, are still replayed.)
  flush(pages: [number, Buffer][], meta: string): void {
    const metaBytes = Buffer.from(meta, 'utf8');
    const jfd = openSync(this.journal, 'w');
    try {
      const idx = Buffer.alloc(4);
      const sum = createHash('sha256');
      for (const [i, data] of pages) {
        idx.writeUInt32LE(i);
        writeSync(jfd, idx);
        writeSync(jfd, data);
        sum.update(idx).update(data);
      }
      writeSync(jfd, metaBytes);
      sum.update(metaBytes);
      const trailer = Buffer.alloc(TRAILER_V2);
      trailer.writeUInt32LE(pages.length, 0);
      trailer.writeUInt32LE(metaBytes.length, 4);
      sum.digest().copy(trailer, 8);
      trailer.write('ICJ2', 40, 'latin1');
      writeSync(jfd, trailer);
      if (this.fsync) fsyncSync(jfd);
    } finally {
      closeSync(jfd);
    }
    this.apply(pages, metaBytes);
  }

  private apply(pages: [number, Buffer][], metaBytes: Buffer): void {
    for (const [i, data] of pages) writeSync(this.fd, data, 0, WASM_PAGE, i * WASM_PAGE);
    if (this.fsync) fsyncSync(this.fd);
    const tmp = `${this.metaPath}.tmp`;
    const mfd = openSync(tmp, 'w');
    try {
      writeSync(mfd, metaBytes);
      if (this.fsync) fsyncSync(mfd);
    } finally {
      closeSync(mfd);
    }
    renameSync(tmp, this.metaPath);
    if (this.fsync) this.syncDir();
    rmSync(this.journal, { force: true });
  }

  /** fsync of the containing directory: makes a created or renamed entry durable. */
  private syncDir(): void {
    if (!this.fsync) return;
    const dfd = openSync(dirname(this.path), 'r');
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  }

  private replayJournal(): void {
    if (!existsSync(this.journal)) return;
    const jfd = openSync(this.journal, 'r');
    let pages: [number, Buffer][] | undefined;
    let meta: Buffer | undefined;
    try {
      const len = fstatSync(jfd).size;
      const read = (pos: number, n: number): Buffer => {
        const b = Buffer.alloc(n);
        readSync(jfd, b, 0, n, pos);
        return b;
      };
      const body = (count: number, metaLen: number): void => {
        pages = [];
        for (let k = 0; k < count; k++) {
          const rec = read(k * (4 + WASM_PAGE), 4 + WASM_PAGE);
          pages.push([rec.readUInt32LE(0), rec.subarray(4)]);
        }
        meta = read(count * (4 + WASM_PAGE), metaLen);
      };
      const v2 = len >= TRAILER_V2 ? read(len - TRAILER_V2, TRAILER_V2) : undefined;
      const v1 = len >= 12 ? read(len - 12, 12) : undefined;
      if (v2 !== undefined && v2.toString('latin1', 40, 44) === 'ICJ2') {
        const count = v2.readUInt32LE(0);
        const metaLen = v2.readUInt32LE(4);
        if (len === count * (4 + WASM_PAGE) + metaLen + TRAILER_V2) {
          body(count, metaLen);
          const sum = createHash('sha256');
          for (const [i, data] of pages!) {
            const idx = Buffer.alloc(4);
            idx.writeUInt32LE(i);
            sum.update(idx).update(data);
          }
          sum.update(meta!);
          if (!sum.digest().equals(v2.subarray(8, 40))) {
            pages = undefined;
            meta = undefined;
          }
        }
      } else if (v1 !== undefined && v1.toString('latin1', 8, 12) === 'ICHJ') {
        const count = v1.readUInt32LE(0);
        const metaLen = v1.readUInt32LE(4);
        if (len === count * (4 + WASM_PAGE) + metaLen + 12) body(count, metaLen);
      }
    } finally {
      closeSync(jfd);
    }
    if (pages !== undefined && meta !== undefined) this.apply(pages, meta);
    else rmSync(this.journal, { force: true });
  }

  /** Drop everything (a fresh install over an old file). */
  reset(): void {
    ftruncateSync(this.fd, 0);
    rmSync(this.metaPath, { force: true });
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}
