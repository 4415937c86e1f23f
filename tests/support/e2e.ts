// End-to-end support: the devnet as users start it (`npm start`, a separate process: the real canister wasm in
// the Node IC host behind the JSON-RPC gateway), anvil from @foundry-rs/anvil-linux-amd64, and the unmodified client
// binaries from npm (cast, forge). Everything listens on 127.0.0.1 with ephemeral ports; every process started
// here is killed by its own process group id when the test ends, and every wait is bounded.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { isAbsolute, join, resolve } from 'node:path';
import { projectTempDir } from '../../src/host/paths.js';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'node_modules', '.bin');
const require = createRequire(import.meta.url);

/**
 * The Foundry binary itself, from its platform package (@foundry-rs/<tool>-linux-amd64, an optional dependency
 * of this project). The wrapper packages (@foundry-rs/<tool>) are not used: their npm wrapper (bin.mjs, 1.7.1)
 * never passes the binary's exit status on, and they list platform packages the registry does not have
 * (darwin, arm64, win32: 404), which leaves package-lock.json unusable by `npm ci`.
 */
export function foundryBin(tool: 'anvil' | 'cast' | 'forge'): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  return require.resolve(`@foundry-rs/${tool}-${process.platform}-${arch}/bin/${tool}`);
}

const toolPath = (tool: string): string =>
  tool === 'anvil' || tool === 'cast' || tool === 'forge' ? foundryBin(tool) : isAbsolute(tool) ? tool : join(BIN, tool);

/**
 * A free TCP port on 127.0.0.1 (bound, checked, released), picked at random below Linux's ephemeral range
 * (32768 and up): a port the kernel hands out for `listen(0)` is also where it puts the local end of outgoing
 * connections, so between its release here and the child's bind another process's connection could take it
 * (a devnet once failed to start in CI with "127.0.0.1:<port> is in use"). Port 0 when no pick binds.
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const port = 20000 + Math.floor(Math.random() * 12768);
    if ((await bindable(port)) !== undefined) return port;
  }
  const any = await bindable(0);
  if (any === undefined) throw new Error('no free port on 127.0.0.1');
  return any;
}

function bindable(port: number): Promise<number | undefined> {
  return new Promise((res) => {
    const s = createServer();
    s.once('error', () => res(undefined));
    s.listen(port, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => res(typeof a === 'object' && a !== null ? a.port : undefined));
    });
  });
}

export function tempDir(prefix: string): string {
  return projectTempDir(`e2e-${prefix}`);
}

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** One JSON-RPC call; throws on an error answer (with code and data attached). */
export async function rpc<T = any>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await res.json()) as { result?: T; error?: RpcError };
  if (body.error !== undefined) throw Object.assign(new Error(`${method}: ${body.error.message}`), body.error);
  return body.result as T;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls until the receipt exists (bounded). */
export async function waitForReceipt(url: string, hash: string, timeoutMs = 60_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await rpc(url, 'eth_getTransactionReceipt', [hash]);
    if (r !== null) return r;
    if (Date.now() > until) throw new Error(`no receipt for ${hash} within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/**
 * The environment of every process the e2e tests start. Foundry (~/.foundry) and Hardhat (its config, data and
 * telemetry folders) write under the home folder, so HOME and the XDG folders point inside the project
 * (node_modules/.cache/icp-evm/home): running the tests writes nothing outside the project.
 */
const HOME = join(ROOT, 'node_modules', '.cache', 'icp-evm', 'home');
mkdirSync(HOME, { recursive: true });
export const childEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  HOME,
  XDG_CONFIG_HOME: join(HOME, '.config'),
  XDG_DATA_HOME: join(HOME, '.local', 'share'),
  XDG_CACHE_HOME: join(HOME, '.cache'),
  ...extra,
});

/** A child process in its own process group, with its output kept for assertions and failure messages. */
export class Proc {
  readonly child: ChildProcess;
  private out = '';
  private exited: Promise<number | null>;
  /** Both output pipes closed: every process of the group that held them (npm's child too) has ended. */
  private outputClosed: Promise<void>;
  exitCode: number | null | undefined = undefined;

  constructor(cmd: string, args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}) {
    this.child = spawn(cmd, args, {
      cwd: opts.cwd ?? ROOT,
      env: childEnv(opts.env),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.child.stdout!.on('data', (d: Buffer) => (this.out += d.toString()));
    this.child.stderr!.on('data', (d: Buffer) => (this.out += d.toString()));
    this.outputClosed = Promise.all([new Promise((r) => this.child.stdout!.once('close', r)), new Promise((r) => this.child.stderr!.once('close', r))]).then(() => {});
    // If this process ends first (a crashed or interrupted test run), the group goes with it.
    const orphanGuard = (): void => {
      try {
        process.kill(-this.child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    process.once('exit', orphanGuard);
    this.exited = new Promise((r) =>
      this.child.on('exit', (code, signal) => {
        process.off('exit', orphanGuard);
        this.exitCode = code ?? (signal === null ? null : -1);
        r(this.exitCode);
      }),
    );
  }

  get output(): string {
    return this.out;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  /** Sends `signal` to the whole group (npm -> node -> tsx -> node) and waits; SIGKILL after `graceMs`. */
  async stop(signal: NodeJS.Signals = 'SIGINT', graceMs = 20_000): Promise<number | null> {
    if (!this.running) return this.exitCode ?? null;
    const pid = this.child.pid!;
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, graceMs);
    const code = await this.exited;
    // npm may exit on the signal before its child has finished stopping; wait for the child's last output.
    await this.outputClosed;
    clearTimeout(timer);
    return code;
  }

  wait(): Promise<number | null> {
    return this.exited;
  }
}

/** Waits until `url` answers eth_chainId, or fails with the process output when it exits or time runs out. */
export async function waitForRpc(url: string, proc: Proc, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (!proc.running) throw new Error(`process exited (${proc.exitCode}) before serving ${url}:\n${proc.output}`);
    try {
      await rpc(url, 'eth_chainId');
      return;
    } catch {
      // not yet
    }
    if (Date.now() > until) {
      await proc.stop('SIGKILL');
      throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${proc.output}`);
    }
    await sleep(250);
  }
}

/**
 * The shared devnet's filter lifetime (RPC_GATEWAY_FILTER_TIMEOUT_MS; 5 minutes by default), short so that
 * tests/e2e/subscriptions.test.ts can see a filter expire; clients that poll keep theirs alive.
 */
export const SHARED_FILTER_TIMEOUT_MS = 10_000;

export interface DevnetProcess {
  readonly proc: Proc;
  readonly url: string;
  readonly port: number;
  /** The devnet's IC HTTP interface (a free port through --ic-port, never the fixed 4943). */
  readonly icUrl: string;
  /** The devnet's explorer (EXPLORER_PORT set to a free port); it may answer a little after the JSON-RPC. */
  readonly explorerUrl: string;
  readonly dataDir: string;
  /** Ctrl-C, as a user stops it; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * `npm start -- --data-dir DIR` with RPC_GATEWAY_PORT set to a free port (SPEC's variable): the command a user
 * runs, through npm and scripts/run.mjs. Bounded wait for the first answer (install + warm-up: ~20 s here).
 */
export async function startDevnetProcess(o: { dataDir: string; port?: number; timeoutMs?: number; args?: string[]; env?: Record<string, string> }): Promise<DevnetProcess> {
  // A port taken between freePort's check and the devnet's bind (another test file's process) ends the start
  // with the devnet's "is in use" message: up to two more starts on new ports (the data directory keeps what the
  // first start installed, as a restart would).
  for (let attempt = 1; ; attempt++) {
    const port = o.port ?? (await freePort());
    const icPort = await freePort();
    const explorerPort = await freePort();
    const proc = new Proc('npm', ['start', '--silent', '--', '--data-dir', o.dataDir, '--ic-port', String(icPort), ...(o.args ?? [])], {
      env: { ...o.env, RPC_GATEWAY_PORT: String(port), RPC_GATEWAY_HOST: '127.0.0.1', EXPLORER_PORT: String(explorerPort), EXPLORER_HOST: '127.0.0.1' },
    });
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitForRpc(url, proc, o.timeoutMs ?? 180_000);
    } catch (e) {
      if (attempt < 3 && !proc.running && / is in use/.test(proc.output)) continue;
      throw e;
    }
    return { proc, url, port, icUrl: `http://127.0.0.1:${icPort}`, explorerUrl: `http://127.0.0.1:${explorerPort}`, dataDir: o.dataDir, stop: () => proc.stop('SIGINT') };
  }
}

export interface Anvil {
  readonly proc: Proc;
  readonly url: string;
  stop(): Promise<number | null>;
}

/**
 * anvil on 127.0.0.1 with our chain id and fork (Prague), and a base fee equal to ours (250 gwei). Its default
 * accounts are the same ten development accounts (same mnemonic, 10,000 ETH each).
 */
export async function startAnvil(extra: string[] = []): Promise<Anvil> {
  const port = await freePort();
  const proc = new Proc(foundryBin('anvil'), [
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--chain-id',
    '4801360',
    '--hardfork',
    'prague',
    '--block-base-fee-per-gas',
    '250000000000',
    '--silent',
    ...extra,
  ]);
  const url = `http://127.0.0.1:${port}`;
  await waitForRpc(url, proc, 30_000);
  return { proc, url, stop: () => proc.stop('SIGTERM', 5_000) };
}

export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a client from npm (cast, forge: their binaries; hardhat: node_modules/.bin) to completion, bounded. */
export async function run(tool: string, args: string[], o: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((res, rej) => {
    const child = spawn(toolPath(tool), args, { cwd: o.cwd ?? ROOT, env: childEnv(o.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new Error(`${tool} ${args.join(' ')}: no exit within ${o.timeoutMs ?? 120_000} ms\n${stdout}\n${stderr}`));
    }, o.timeoutMs ?? 120_000);
    child.on('error', rej);
    child.on('exit', (code) => {
      clearTimeout(timer);
      res({ code, stdout, stderr });
    });
  });
}

/** Like run(), but fails with the tool's output unless it exits 0; returns trimmed stdout. */
export async function runOk(tool: string, args: string[], o: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<string> {
  const r = await run(tool, args, o);
  if (r.code !== 0) throw new Error(`${tool} ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.stdout.trim();
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Lines the gateway logged as internal failures (`[gateway] ...` on the devnet's stderr). */
export function gatewayInternalErrors(logPath: string): string[] {
  return readFileSync(logPath, 'utf8')
    .split('\n')
    .filter((l) => l.includes('[gateway]'));
}
