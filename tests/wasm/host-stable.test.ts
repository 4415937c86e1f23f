// Stable memory bookkeeping and the crash-safe file journal, without a canister.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StableFile, StableMemory, WASM_PAGE } from '../../src/host/stable.js';
import { projectTempDir } from '../../src/host/paths.js';

const dirs: string[] = [];
const tmp = (): string => {
  const d = projectTempDir('ic-host-stable-');
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('StableMemory', () => {
  it('allocates only written pages, rolls back writes and growth, and reports dirty pages on commit', () => {
    const s = new StableMemory(1000n);
    s.begin();
    expect(s.grow(10n)).toBe(0n);
    s.write(3n * BigInt(WASM_PAGE) - 2n, new Uint8Array([1, 2, 3, 4])); // spans pages 2 and 3
    expect(s.allocatedPages).toBe(2);
    expect(s.commit()).toBe(2);
    s.begin();
    s.write(0n, new Uint8Array([9]));
    expect(s.grow(5n)).toBe(10n);
    expect(s.rollback()).toBe(1);
    expect(s.size).toBe(10n);
    const out = new Uint8Array(4);
    s.read(out, 3n * BigInt(WASM_PAGE) - 2n, 4n);
    expect([...out]).toEqual([1, 2, 3, 4]);
    const first = new Uint8Array(1);
    s.read(first, 0n, 1n);
    expect(first[0]).toBe(0);
    expect(s.takeDirty().pages.map(([i]) => i)).toEqual([2, 3]);
    expect(s.grow(991n)).toBe(-1n);
    expect(() => s.read(new Uint8Array(1), 10n * BigInt(WASM_PAGE), 1n)).toThrow(RangeError);
  });
});

describe('StableFile', () => {
  it('replays a complete journal and discards a torn one', () => {
    const d = tmp();
    const path = join(d, 'stable.bin');
    const page = (b: number): Buffer => Buffer.alloc(WASM_PAGE, b);
    const f = new StableFile(path, true);
    f.flush([[1, page(0xaa)]], '{"v":1}');
    f.close();
    expect(readFileSync(`${path}.meta.json`, 'utf8')).toBe('{"v":1}');

    // A crash after the journal was written but before it was applied: replayed on open.
    const meta = Buffer.from('{"v":2}');
    const trailer = Buffer.alloc(12);
    trailer.writeUInt32LE(1, 0);
    trailer.writeUInt32LE(meta.length, 4);
    trailer.write('ICHJ', 8, 'latin1');
    const idx = Buffer.alloc(4);
    idx.writeUInt32LE(2);
    writeFileSync(`${path}.journal`, Buffer.concat([idx, page(0xbb), meta, trailer]));
    const g = new StableFile(path, true);
    const s = new StableMemory(100n);
    s.loadImage(g.descriptor, 3n);
    const b = new Uint8Array(1);
    s.read(b, 2n * BigInt(WASM_PAGE), 1n);
    expect(b[0]).toBe(0xbb);
    expect(readFileSync(`${path}.meta.json`, 'utf8')).toBe('{"v":2}');
    expect(existsSync(`${path}.journal`)).toBe(false);
    g.close();

    // A crash while writing the journal (no trailer): ignored, the image stays as it was.
    writeFileSync(`${path}.journal`, Buffer.concat([idx, page(0xcc).subarray(0, 1000)]));
    const h = new StableFile(path, true);
    const s2 = new StableMemory(100n);
    s2.loadImage(h.descriptor, 3n);
    s2.read(b, 2n * BigInt(WASM_PAGE), 1n);
    expect(b[0]).toBe(0xbb);
    expect(existsSync(`${path}.journal`)).toBe(false);
    h.close();
  });

  it('replays a checksummed journal, and discards one whose bytes do not match its checksum', async () => {
    const { createHash } = await import('node:crypto');
    const d = tmp();
    const path = join(d, 'stable.bin');
    const page = (b: number): Buffer => Buffer.alloc(WASM_PAGE, b);
    const f = new StableFile(path, true);
    f.flush([[0, page(0x11)]], '{"v":1}');
    f.close();
    const journal = (fill: number, corrupt: boolean): Buffer => {
      const idx = Buffer.alloc(4);
      const data = page(fill);
      const meta = Buffer.from(`{"v":${fill}}`);
      const sum = createHash('sha256').update(idx).update(data).update(meta).digest();
      if (corrupt) data[100] = data[100]! ^ 1;
      const trailer = Buffer.alloc(44);
      trailer.writeUInt32LE(1, 0);
      trailer.writeUInt32LE(meta.length, 4);
      sum.copy(trailer, 8);
      trailer.write('ICJ2', 40, 'latin1');
      return Buffer.concat([idx, data, meta, trailer]);
    };
    const first = (): number => {
      const g = new StableFile(path, true);
      const s = new StableMemory(100n);
      s.loadImage(g.descriptor, 1n);
      const b = new Uint8Array(1);
      s.read(b, 0n, 1n);
      g.close();
      return b[0]!;
    };
    writeFileSync(`${path}.journal`, journal(0x22, true));
    expect(first()).toBe(0x11);
    expect(existsSync(`${path}.journal`)).toBe(false);
    writeFileSync(`${path}.journal`, journal(0x33, false));
    expect(first()).toBe(0x33);
  });

  it('a failed flush keeps the dirty pages for the next attempt', () => {
    const d = tmp();
    const path = join(d, 'stable.bin');
    const f = new StableFile(path, true);
    const s = new StableMemory(10n);
    s.begin();
    s.grow(2n);
    s.write(BigInt(WASM_PAGE), new Uint8Array([7]));
    s.commit();
    // The journal path taken by a directory: opening it for writing fails, as a full disk would.
    mkdirSync(`${path}.journal`);
    const dirty = s.peekDirty();
    expect(() => f.flush(dirty.pages, '{}')).toThrow();
    expect(s.peekDirty().pages.map(([i]) => i)).toEqual([1]);
    rmSync(`${path}.journal`, { recursive: true });
    f.flush(dirty.pages, '{}');
    s.clearDirty(dirty.pages);
    expect(s.peekDirty().pages).toEqual([]);
    f.close();
  });
});
