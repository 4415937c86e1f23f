// The explorer's configuration, parsed once from the environment at the edge. An invalid value fails at
// start with a message naming the variable; the verification limits below are documented in docs/explorer.md.
import { CompilerPool, DEFAULT_COMPILE_MEMORY_MB, isInstalled, parseCompilerVersion, SHIPPED_COMPILERS, type LoadedCompiler } from './compilers.js';
import { envReaders, type Env } from '../client/env.js';

export interface VerifyLimits {
  /** Bytes of one HTTP request body (any of the three APIs). */
  readonly maxRequestBytes: number;
  /** Source files in one standard-JSON input. */
  readonly maxFiles: number;
  /** Bytes of one source file. */
  readonly maxFileBytes: number;
  /** Milliseconds one compilation may run before its worker is terminated. */
  readonly compileTimeoutMs: number;
  /** MiB of soljson's WebAssembly memory one compilation may use (compile_memory beyond). */
  readonly compileMemoryMb: number;
  /** Jobs compiling at once (each holds a compiler worker). */
  readonly maxConcurrentJobs: number;
  /** Jobs waiting; beyond this a submission is refused with queue_full. */
  readonly maxQueuedJobs: number;
  /** Jobs waiting from one client (its address); beyond this its submissions are refused with queue_full. */
  readonly maxQueuedJobsPerClient: number;
}

export interface ExplorerConfig {
  readonly host: string;
  readonly port: number;
  readonly verifyEnabled: boolean;
  /** Allow-list entries as given (`0.8.37` or `v0.8.37+commit.f401782d`); checked by preflight(). */
  readonly allowedCompilers: readonly string[];
  readonly limits: VerifyLimits;
  /** The gateway's JSON-RPC URL (eth_getCode). */
  readonly rpcUrl: string;
}

export const DEFAULT_LIMITS: VerifyLimits = {
  maxRequestBytes: 16 * 1024 * 1024,
  maxFiles: 500,
  maxFileBytes: 1024 * 1024,
  compileTimeoutMs: 60_000,
  compileMemoryMb: DEFAULT_COMPILE_MEMORY_MB,
  maxConcurrentJobs: 2,
  maxQueuedJobs: 100,
  maxQueuedJobsPerClient: 10,
};

export const DEFAULT_EXPLORER_CONFIG: ExplorerConfig = {
  host: '127.0.0.1',
  // Blockscout's port, so tools configured for a local Blockscout find the explorer unchanged.
  port: 4000,
  verifyEnabled: false,
  allowedCompilers: [],
  limits: DEFAULT_LIMITS,
  rpcUrl: 'http://127.0.0.1:8545',
};

export class ExplorerConfigError extends Error {
  override name = 'ExplorerConfigError';
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
  }
}

const { present, int, bool } = envReaders((variable, message) => new ExplorerConfigError(variable, message), { boolExpected: '1/0 (true/false)' });

/** The allow-list variable: versions separated by commas or spaces; each must be well formed. */
export function parseAllowList(raw: string, variable = 'EXPLORER_VERIFY_ALLOWED_COMPILERS'): string[] {
  const entries = raw.split(/[\s,]+/).filter((s) => s !== '');
  for (const e of entries) {
    if (parseCompilerVersion(e) === undefined) {
      throw new ExplorerConfigError(variable, `${JSON.stringify(e)} is not a compiler version (expected 0.8.37 or v0.8.37+commit.f401782d)`);
    }
  }
  return entries;
}

/**
 * The explorer's settings from the environment. `defaults` lets the devnet turn verification on with every
 * shipped compiler while the variables still override it.
 */
export function loadExplorerConfig(env: Env, defaults: ExplorerConfig = DEFAULT_EXPLORER_CONFIG): ExplorerConfig {
  const verifyEnabled = bool(env, 'EXPLORER_VERIFY_ENABLED', defaults.verifyEnabled);
  const listRaw = present(env, 'EXPLORER_VERIFY_ALLOWED_COMPILERS');
  const allowedCompilers = listRaw === undefined ? defaults.allowedCompilers : parseAllowList(listRaw);
  if (verifyEnabled && allowedCompilers.length === 0) {
    throw new ExplorerConfigError(
      'EXPLORER_VERIFY_ALLOWED_COMPILERS',
      `verification is on (EXPLORER_VERIFY_ENABLED=1) but no compiler is allowed; list versions, e.g. ${SHIPPED_COMPILERS.map((c) => c.version).join(',')}`,
    );
  }
  const rpcUrl = present(env, 'EXPLORER_RPC_URL') ?? defaults.rpcUrl;
  try {
    new URL(rpcUrl);
  } catch {
    throw new ExplorerConfigError('EXPLORER_RPC_URL', `not a URL: ${JSON.stringify(rpcUrl)}`);
  }
  const d = defaults.limits;
  return {
    host: present(env, 'EXPLORER_HOST') ?? defaults.host,
    port: int(env, 'EXPLORER_PORT', defaults.port, 0, 65535),
    verifyEnabled,
    allowedCompilers,
    rpcUrl,
    limits: {
      maxRequestBytes: int(env, 'EXPLORER_VERIFY_MAX_REQUEST_BYTES', d.maxRequestBytes, 1024, 256 * 1024 * 1024),
      maxFiles: int(env, 'EXPLORER_VERIFY_MAX_FILES', d.maxFiles, 1, 100_000),
      maxFileBytes: int(env, 'EXPLORER_VERIFY_MAX_FILE_BYTES', d.maxFileBytes, 1, 64 * 1024 * 1024),
      compileTimeoutMs: int(env, 'EXPLORER_VERIFY_COMPILE_TIMEOUT_MS', d.compileTimeoutMs, 100, 3_600_000),
      compileMemoryMb: int(env, 'EXPLORER_VERIFY_COMPILE_MEMORY_MB', d.compileMemoryMb, 64, 4096),
      maxConcurrentJobs: int(env, 'EXPLORER_VERIFY_MAX_CONCURRENT', d.maxConcurrentJobs, 1, 64),
      maxQueuedJobs: int(env, 'EXPLORER_VERIFY_MAX_QUEUED', d.maxQueuedJobs, 1, 100_000),
      maxQueuedJobsPerClient: int(env, 'EXPLORER_VERIFY_MAX_QUEUED_PER_CLIENT', d.maxQueuedJobsPerClient, 1, 100_000),
    },
  };
}

export class PreflightError extends Error {
  override name = 'PreflightError';
}

/**
 * Loads every allowed compiler once (in a worker, as verification will) and answers them with their long
 * versions; refuses, naming the version, when one is not installed, does not load, or is not the build asked for.
 */
export async function preflight(allowed: readonly string[], pool: CompilerPool): Promise<LoadedCompiler[]> {
  const out: LoadedCompiler[] = [];
  for (const entry of allowed) {
    const p = parseCompilerVersion(entry);
    if (p === undefined) throw new PreflightError(`compiler ${entry}: not a compiler version`);
    const shipped = SHIPPED_COMPILERS.find((c) => c.version === p.version);
    if (shipped === undefined || !isInstalled(shipped)) {
      throw new PreflightError(
        `compiler ${entry} is not installed (installed: ${SHIPPED_COMPILERS.filter(isInstalled)
          .map((c) => c.version)
          .join(', ')})`,
      );
    }
    let longVersion: string;
    try {
      longVersion = await pool.load(shipped);
    } catch (e) {
      throw new PreflightError(`compiler ${entry} could not be loaded: ${(e as Error).message}`);
    }
    if (p.commit !== undefined && !longVersion.endsWith(`+commit.${p.commit}`)) {
      throw new PreflightError(`compiler ${entry} is not installed: the installed ${p.version} is ${longVersion}`);
    }
    if (!out.some((c) => c.version === shipped.version)) out.push({ ...shipped, longVersion });
  }
  return out;
}
