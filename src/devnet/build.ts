// Builds the canister wasm offline with azle, into a staging folder first so that a failed build never
// removes the last good artifacts in .azle/evm (azle deletes its output folder before building). The devnet
// builds a stale wasm before it starts; `npm run build` (scripts/build.ts) is the command line.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CANISTER = 'evm';
export const OUT_DIR = join(ROOT, '.azle', CANISTER);
export const WASM_PATH = join(OUT_DIR, `${CANISTER}.wasm`);
export const INSTRUMENTED_WASM_PATH = join(OUT_DIR, `${CANISTER}.instrumented.wasm`);
const STAGING_ROOT = join(ROOT, '.azle-build');
const CANDID_PATH = join(ROOT, 'candid', `${CANISTER}.did`);
const STAMP_PATH = join(OUT_DIR, 'source-hash');

/** Everything that goes into the bundle: the canister, the core it imports, and the locked dependency tree. */
function sourceHash(): string {
  const h = createHash('sha256');
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else {
        h.update(relative(ROOT, p));
        h.update(readFileSync(p));
      }
    }
  };
  walk(join(ROOT, 'src', 'canister'));
  walk(join(ROOT, 'src', 'core'));
  for (const f of ['package-lock.json', 'dfx.json', 'src/devnet/build.ts']) h.update(readFileSync(join(ROOT, f)));
  return h.digest('hex');
}

export function isStale(): boolean {
  if (!existsSync(WASM_PATH) || !existsSync(INSTRUMENTED_WASM_PATH) || !existsSync(STAMP_PATH)) return true;
  return readFileSync(STAMP_PATH, 'utf8').trim() !== sourceHash();
}

function fail(message: string): never {
  console.error(`build: ${message}`);
  process.exit(1);
}

export interface BuildOptions {
  readonly writeDid?: boolean;
  readonly quiet?: boolean;
}

export function build(options: BuildOptions = {}): void {
  const log = (m: string) => options.quiet || console.log(`build: ${m}`);
  const started = Date.now();
  const hash = sourceHash();
  const dfx = JSON.parse(readFileSync(join(ROOT, 'dfx.json'), 'utf8'));
  const main: string = dfx.canisters[CANISTER].main;

  // A staging dfx root whose dfx.json points back at the real sources.
  rmSync(STAGING_ROOT, { recursive: true, force: true });
  mkdirSync(STAGING_ROOT, { recursive: true });
  const stagingMain = relative(STAGING_ROOT, join(ROOT, main));
  writeFileSync(
    join(STAGING_ROOT, 'dfx.json'),
    JSON.stringify({ canisters: { [CANISTER]: { ...dfx.canisters[CANISTER], main: stagingMain } } }),
  );
  const emittedDid = join(STAGING_ROOT, `${CANISTER}.did`);
  log(`bundling ${main} with azle (stable mode)...`);
  const azle = spawnSync(join(ROOT, 'node_modules', '.bin', 'azle'), ['build', CANISTER], {
    cwd: ROOT,
    env: { ...process.env, AZLE_DFX_ROOT: STAGING_ROOT, CANISTER_CANDID_PATH: emittedDid },
    encoding: 'utf8',
  });
  const stagedDir = join(STAGING_ROOT, '.azle', CANISTER);
  if (azle.status !== 0 || !existsSync(join(stagedDir, `${CANISTER}.wasm`))) {
    fail(
      `azle build failed (exit ${azle.status}); the previous artifacts in ${relative(ROOT, OUT_DIR)} are unchanged.\n` +
        `${azle.stdout ?? ''}${azle.stderr ?? ''}`.trim(),
    );
  }

  const candid = readFileSync(emittedDid, 'utf8');
  const committed = existsSync(CANDID_PATH) ? readFileSync(CANDID_PATH, 'utf8') : undefined;
  if (committed !== candid) {
    if (options.writeDid === true) {
      mkdirSync(dirname(CANDID_PATH), { recursive: true });
      writeFileSync(CANDID_PATH, candid);
      log(`updated ${relative(ROOT, CANDID_PATH)}`);
    } else {
      fail(
        `the Candid interface the build emits differs from ${relative(ROOT, CANDID_PATH)}; the previous artifacts are unchanged.\n` +
          `Emitted interface: ${relative(ROOT, emittedDid)}. If the change is intended, run: npm run build -- --update-candid`,
      );
    }
  }

  instrument(join(stagedDir, `${CANISTER}.wasm`), join(stagedDir, `${CANISTER}.instrumented.wasm`));
  writeFileSync(join(stagedDir, 'source-hash'), `${hash}\n`);
  writeFileSync(join(stagedDir, `${CANISTER}.did`), candid);

  rmSync(OUT_DIR, { recursive: true, force: true });
  mkdirSync(dirname(OUT_DIR), { recursive: true });
  renameSync(stagedDir, OUT_DIR);
  rmSync(STAGING_ROOT, { recursive: true, force: true });
  const size = (statSync(WASM_PATH).size / 1e6).toFixed(2);
  log(`wrote ${relative(ROOT, WASM_PATH)} (${size} MB) and ${relative(ROOT, INSTRUMENTED_WASM_PATH)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * The instruction-counting copy, for profiling on a replica: `ic-wasm instrument --heap-trace` (its default
 * mode writes traces into stable memory from page 0, where Azle's memory manager lives). --heap-trace adds
 * a memory maximum that makes Azle's init fail, so the maximum is removed. The Node host does not use this
 * file: it instruments the plain wasm itself (src/host/prepare.ts).
 */
function instrument(input: string, output: string): void {
  const icWasm = join(ROOT, 'node_modules', '@icp-sdk', 'ic-wasm-linux-x64', 'bin', 'ic-wasm');
  const r = spawnSync(icWasm, [input, '-o', output, 'instrument', '--heap-trace'], { encoding: 'utf8' });
  if (r.status !== 0) fail(`ic-wasm instrument failed: ${r.stderr || r.error?.message}`);
  writeFileSync(output, removeMemoryMaximum(readFileSync(output)));
}

/** Rewrites the memory section (id 5) so that its one memory has a minimum only. */
export function removeMemoryMaximum(wasm: Uint8Array): Uint8Array {
  const readLeb = (buf: Uint8Array, at: number): [number, number] => {
    let value = 0;
    let shift = 0;
    let p = at;
    for (;;) {
      const b = buf[p++]!;
      value += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if ((b & 0x80) === 0) return [value, p];
    }
  };
  const leb = (n: number): number[] => {
    const out: number[] = [];
    do {
      let b = n % 128;
      n = Math.floor(n / 128);
      if (n > 0) b |= 0x80;
      out.push(b);
    } while (n > 0);
    return out;
  };
  let p = 8;
  while (p < wasm.length) {
    const id = wasm[p]!;
    const [size, bodyStart] = readLeb(wasm, p + 1);
    const end = bodyStart + size;
    if (id === 5) {
      const [count, q] = readLeb(wasm, bodyStart);
      if (count !== 1) fail('instrumented wasm: expected exactly one memory');
      const flags = wasm[q]!;
      if ((flags & 1) === 0) return wasm;
      const [min] = readLeb(wasm, q + 1);
      const body = [...leb(1), flags & ~1, ...leb(min)];
      const section = Uint8Array.from([5, ...leb(body.length), ...body]);
      const out = new Uint8Array(p + section.length + (wasm.length - end));
      out.set(wasm.subarray(0, p), 0);
      out.set(section, p);
      out.set(wasm.subarray(end), p + section.length);
      return out;
    }
    p = end;
  }
  return wasm;
}
