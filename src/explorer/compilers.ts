// The Solidity compilers the explorer verifies with: solc-js from npm, several releases side by side (npm
// aliases in package.json), each run in a worker thread so a long or runaway compilation never blocks the
// server and is ended by its time limit (the worker is terminated, never awaited). Its memory is bounded twice:
// the V8 heap by the worker's resource limits, and soljson's WebAssembly memory (which those limits do not
// cover) by refusing any growth past the pool's budget, which solc answers as a failed allocation.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { VerifyError } from './errors.js';

/** One compiler the project ships: its short version and the npm package (or alias) holding it. */
export interface ShippedCompiler {
  readonly version: string;
  readonly module: string;
}

/** Every compiler the project installs (package.json: solc and its solc-X.Y.Z aliases); one source of truth. */
export const SHIPPED_COMPILERS: readonly ShippedCompiler[] = [
  { version: '0.8.37', module: 'solc' },
  { version: '0.7.6', module: 'solc-0.7.6' },
  { version: '0.6.12', module: 'solc-0.6.12' },
  { version: '0.5.17', module: 'solc-0.5.17' },
];

/** A compiler that passed the preflight: loaded once, its long version read from the compiler itself. */
export interface LoadedCompiler extends ShippedCompiler {
  /** e.g. v0.8.37+commit.f401782d, as forge, Hardhat and Etherscan spell it. */
  readonly longVersion: string;
}

const VERSION_RE = /^v?(\d+\.\d+\.\d+)(?:\+commit\.([0-9a-f]{8}))?$/;

/** Parses `0.8.37`, `v0.8.37` or `v0.8.37+commit.f401782d` (what clients send); undefined when malformed. */
export function parseCompilerVersion(s: string): { version: string; commit: string | undefined } | undefined {
  const m = VERSION_RE.exec(s.trim().replace(/\.Emscripten\.clang$/, ''));
  if (m === null) return undefined;
  return { version: m[1]!, commit: m[2] };
}

/** solc-js's `version()` (`0.8.37+commit.f401782d.Emscripten.clang`) in the long form clients use. */
export function longVersionOf(solcVersion: string): string {
  const p = parseCompilerVersion(solcVersion);
  if (p === undefined || p.commit === undefined) throw new Error(`unexpected solc version string ${JSON.stringify(solcVersion)}`);
  return `v${p.version}+commit.${p.commit}`;
}

// CommonJS run by `new Worker(code, { eval: true })`: loads one solc-js package and answers compile requests.
const WORKER_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
// soljson grows its memory from JavaScript (emscripten's resize); a growth past the budget fails, and the
// worker, whose compiler state is then unknown, is ended after answering.
let overBudget = false;
const grow = WebAssembly.Memory.prototype.grow;
WebAssembly.Memory.prototype.grow = function (pages) {
  if (this.buffer.byteLength + pages * 65536 > workerData.memoryBytes) {
    overBudget = true;
    throw new RangeError('compiler memory budget');
  }
  return grow.call(this, pages);
};
let solc;
try {
  solc = createRequire(workerData.base)(workerData.module);
  parentPort.postMessage({ type: 'ready', version: solc.version() });
} catch (e) {
  parentPort.postMessage({ type: 'load_error', message: String((e && e.message) || e) });
}
parentPort.on('message', (m) => {
  let output;
  try {
    output = solc.compile(m.input);
  } catch (e) {
    output = JSON.stringify({ errors: [{ severity: 'error', type: 'InternalCompilerError', formattedMessage: String((e && e.message) || e) }] });
  }
  parentPort.postMessage(overBudget ? { type: 'over_budget' } : { type: 'result', output });
});
`;

interface WorkerHandle {
  readonly worker: Worker;
  readonly version: string;
  idleTimer?: NodeJS.Timeout;
}

type WorkerMessage = { type: 'ready'; version: string } | { type: 'load_error'; message: string } | { type: 'result'; output: string } | { type: 'over_budget' };

/** soljson's WebAssembly memory per compilation, by default (docs/explorer.md). */
export const DEFAULT_COMPILE_MEMORY_MB = 1024;

export interface CompilerPoolOptions {
  /** Time limit of one compilation (the worker is terminated when it passes). */
  readonly compileTimeoutMs: number;
  /** Time limit of loading a compiler into a new worker. */
  readonly loadTimeoutMs?: number;
  /** Loaded workers kept for reuse (each holds a compiler: a few hundred MB); the oldest idle one goes first. */
  readonly maxIdle?: number;
  /** An idle worker is ended after this long unused (default 60 s), so an idle explorer holds no compiler. */
  readonly idleMs?: number;
  /** soljson's WebAssembly memory budget in MiB (default DEFAULT_COMPILE_MEMORY_MB); past it, compile_memory. */
  readonly memoryMb?: number;
}

function once(w: Worker, timeoutMs: number, onTimeout: () => VerifyError): Promise<WorkerMessage> {
  return new Promise((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      w.off('message', onMessage);
      w.off('error', onError);
      w.off('exit', onExit);
    };
    const onMessage = (m: WorkerMessage): void => {
      done();
      resolve(m);
    };
    const onError = (e: Error): void => {
      done();
      reject(new VerifyError('compilation_failed', `the compiler crashed: ${e.message}`));
    };
    const onExit = (code: number): void => {
      done();
      reject(new VerifyError('compilation_failed', `the compiler's worker exited (${code})`));
    };
    const timer = setTimeout(() => {
      done();
      void w.terminate();
      reject(onTimeout());
    }, timeoutMs);
    w.on('message', onMessage);
    w.on('error', onError);
    w.on('exit', onExit);
  });
}

export class CompilerPool {
  private readonly idle: WorkerHandle[] = [];
  private closed = false;
  private readonly base = import.meta.url;

  constructor(private readonly opts: CompilerPoolOptions) {}

  private get memoryMb(): number {
    return this.opts.memoryMb ?? DEFAULT_COMPILE_MEMORY_MB;
  }

  /** Loads `c` in a fresh worker and answers its long version (the preflight); the worker is ended. */
  async load(c: ShippedCompiler): Promise<string> {
    const h = await this.spawn(c);
    void h.worker.terminate();
    return longVersionOf(h.version);
  }

  /** Runs solc's standard-JSON compile of `input` with compiler `c`; answers solc's JSON output text. */
  async compile(c: ShippedCompiler, input: string): Promise<string> {
    const h = this.take(c) ?? (await this.spawn(c));
    h.worker.postMessage({ input });
    const m = await once(h.worker, this.opts.compileTimeoutMs, () => new VerifyError('compile_timeout', `compilation did not finish within ${this.opts.compileTimeoutMs} ms`));
    if (m.type === 'over_budget') {
      void h.worker.terminate();
      throw new VerifyError('compile_memory', `compilation needed more than ${this.memoryMb} MiB of compiler memory`);
    }
    if (m.type !== 'result') throw new VerifyError('internal_error', 'unexpected message from the compiler worker');
    this.release(h);
    return m.output;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      this.idle.splice(0).map((h) => {
        clearTimeout(h.idleTimer);
        return h.worker.terminate();
      }),
    );
  }

  private take(c: ShippedCompiler): WorkerHandle | undefined {
    const i = this.idle.findIndex((h) => h.version.startsWith(`${c.version}+`));
    if (i < 0) return undefined;
    const h = this.idle.splice(i, 1)[0]!;
    clearTimeout(h.idleTimer);
    return h;
  }

  private release(h: WorkerHandle): void {
    if (this.closed) {
      void h.worker.terminate();
      return;
    }
    this.idle.push(h);
    h.idleTimer = setTimeout(() => {
      const i = this.idle.indexOf(h);
      if (i >= 0) this.idle.splice(i, 1);
      void h.worker.terminate();
    }, this.opts.idleMs ?? 60_000);
    h.idleTimer.unref();
    while (this.idle.length > (this.opts.maxIdle ?? 2)) {
      const old = this.idle.shift()!;
      clearTimeout(old.idleTimer);
      void old.worker.terminate();
    }
  }

  private async spawn(c: ShippedCompiler): Promise<WorkerHandle> {
    const worker = new Worker(WORKER_CODE, {
      eval: true,
      workerData: { module: c.module, base: this.base, memoryBytes: this.memoryMb * 1024 * 1024 },
      // The compiler's heap; a pathological input ends the worker, not the server.
      resourceLimits: { maxOldGenerationSizeMb: 2048 },
    });
    worker.unref();
    const loadMs = this.opts.loadTimeoutMs ?? 60_000;
    const m = await once(worker, loadMs, () => new VerifyError('internal_error', `compiler ${c.version} did not load within ${loadMs} ms`));
    if (m.type === 'load_error') {
      void worker.terminate();
      throw new VerifyError('internal_error', `compiler ${c.version} (${c.module}) could not be loaded: ${m.message}`);
    }
    if (m.type !== 'ready') throw new VerifyError('internal_error', 'unexpected message from the compiler worker');
    return { worker, version: m.version };
  }
}

/** Whether `c` can be required at all (cheap check before loading it). */
export function isInstalled(c: ShippedCompiler): boolean {
  try {
    createRequire(import.meta.url).resolve(`${c.module}/package.json`);
    return true;
  } catch {
    return false;
  }
}
