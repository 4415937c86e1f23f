// The raw archive: each exported block's three segments, zstd-compressed, one file per block under
// <INDEXER_ARCHIVE_DIR>/<chain id>/<block / 10000>/<block>.zst. A file is written atomically (temporary
// file, fsync, rename, fsync of the folder) before the database commit that records it with its sha256, so a
// recorded file is always whole; a file without a record (a crash between the two) is an orphan.
//
// File content (before compression): u32 len || segment 0 || u32 len || segment 1 || u32 len || segment 2.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { compress, decompress, init } from '@bokuweb/zstd-wasm';

let ready: Promise<void> | undefined;
/** The zstd wasm module loads once per process. */
export const zstdReady = (): Promise<void> => (ready ??= init());

const FILES_PER_FOLDER = 10_000n;
const TMP_SUFFIX = '.tmp';

export interface ArchivedBlock {
  readonly blockNumber: bigint;
  /** Relative to the archive root (the chain's folder). */
  readonly path: string;
  readonly sha256: Uint8Array;
  readonly rawBytes: number;
  readonly storedBytes: number;
}

export function frameSegments(segments: readonly Uint8Array[]): Uint8Array {
  const out = Buffer.alloc(segments.reduce((n, s) => n + 4 + s.length, 0));
  let o = 0;
  for (const s of segments) {
    out.writeUInt32BE(s.length, o);
    out.set(s, o + 4);
    o += 4 + s.length;
  }
  return out;
}

export function unframeSegments(b: Uint8Array): [Uint8Array, Uint8Array, Uint8Array] {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const out: Uint8Array[] = [];
  let o = 0;
  for (let i = 0; i < 3; i++) {
    if (o + 4 > buf.length) throw new Error('archive file truncated');
    const len = buf.readUInt32BE(o);
    if (o + 4 + len > buf.length) throw new Error('archive file truncated');
    out.push(Uint8Array.prototype.slice.call(buf, o + 4, o + 4 + len));
    o += 4 + len;
  }
  if (o !== buf.length) throw new Error(`archive file has ${buf.length - o} trailing bytes`);
  return out as [Uint8Array, Uint8Array, Uint8Array];
}

export class Archive {
  /** `root` is the chain's folder: <INDEXER_ARCHIVE_DIR>/<chain id>. */
  constructor(
    readonly root: string,
    private readonly level: number,
  ) {}

  static async open(archiveDir: string, chainId: bigint, level: number): Promise<Archive> {
    await zstdReady();
    const root = join(archiveDir, chainId.toString());
    mkdirSync(root, { recursive: true });
    return new Archive(root, level);
  }

  relPath(blockNumber: bigint): string {
    return join((blockNumber / FILES_PER_FOLDER).toString(), `${blockNumber}.zst`);
  }

  /**
   * Writes blocks durably; returns the records to commit with their rows. Files are written concurrently (each
   * fsync runs on libuv's thread pool), then each folder is synced once for the renames.
   */
  async writeMany(blocks: readonly { readonly blockNumber: bigint; readonly segments: readonly Uint8Array[] }[]): Promise<ArchivedBlock[]> {
    const dirs = new Set<string>();
    const out = await Promise.all(
      blocks.map(async ({ blockNumber, segments }) => {
        const raw = frameSegments(segments);
        const stored = compress(raw, this.level);
        const rel = this.relPath(blockNumber);
        const path = join(this.root, rel);
        const dir = join(path, '..');
        if (!dirs.has(dir)) mkdirSync(dir, { recursive: true });
        dirs.add(dir);
        const tmp = `${path}${TMP_SUFFIX}`;
        const fh = await open(tmp, 'w');
        try {
          await fh.writeFile(stored);
          await fh.sync();
        } finally {
          await fh.close();
        }
        await rename(tmp, path);
        return { blockNumber, path: rel.split(sep).join('/'), sha256: createHash('sha256').update(stored).digest(), rawBytes: raw.length, storedBytes: stored.length };
      }),
    );
    // A rename is durable only once its folder is synced.
    for (const dir of dirs) {
      const fh = await open(dir, 'r');
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
    }
    return out;
  }

  /** Reads a block's segments back, checking the sha256 when one is given. */
  read(rel: string, sha256?: Uint8Array): [Uint8Array, Uint8Array, Uint8Array] {
    const stored = readFileSync(join(this.root, rel));
    if (sha256 !== undefined && Buffer.compare(createHash('sha256').update(stored).digest(), sha256) !== 0) {
      throw new Error(`archive file ${rel}: sha256 differs from its record`);
    }
    return unframeSegments(decompress(stored));
  }

  /** Every file under the root (relative paths with '/'), including temporary ones. */
  listFiles(): string[] {
    const out: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else out.push(relative(this.root, p).split(sep).join('/'));
      }
    };
    walk(this.root);
    return out;
  }

  /** Block numbers of the archived files (not temporary ones), ascending. */
  blockFiles(): { blockNumber: bigint; path: string }[] {
    return this.listFiles()
      .map((path) => ({ path, m: /(?:^|\/)(\d+)\.zst$/.exec(path) }))
      .filter((x): x is { path: string; m: RegExpExecArray } => x.m !== null)
      .map((x) => ({ blockNumber: BigInt(x.m[1]!), path: x.path }))
      .sort((a, b) => (a.blockNumber < b.blockNumber ? -1 : a.blockNumber > b.blockNumber ? 1 : 0));
  }

  remove(rel: string): void {
    rmSync(join(this.root, rel), { force: true });
  }
}
