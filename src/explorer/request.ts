// One typed verification request, decoded once at the edge from any of the three APIs (SPEC's, the
// Etherscan-compatible /api, Sourcify v2), with every bound checked before anything is queued or compiled.
import { CHAIN_ID } from '../core/constants.js';
import { parseCompilerVersion, type LoadedCompiler } from './compilers.js';
import type { VerifyLimits } from './config.js';
import { VerifyError } from './errors.js';

export type VerifyApi = 'spec' | 'etherscan' | 'sourcify';

export interface StandardJsonInput {
  readonly language: 'Solidity';
  readonly sources: Record<string, { content: string }>;
  readonly settings: Record<string, unknown>;
}

export interface VerifyRequest {
  readonly api: VerifyApi;
  /** 0x + 40 lowercase hex. */
  readonly address: string;
  /** The allowed compiler's long version (v0.8.37+commit.f401782d). */
  readonly compilerVersion: string;
  readonly input: StandardJsonInput;
  /** `path/File.sol:Name`, or `Name` when it is unique among the sources. */
  readonly contractName: string;
  /** ABI-encoded constructor arguments as lowercase hex without 0x; undefined: take them from the creation transaction. */
  readonly constructorArgs: string | undefined;
  readonly codeFormat: 'solidity-standard-json-input' | 'solidity-single-file';
  readonly licenseType: string | undefined;
}

export interface RequestContext {
  readonly enabled: boolean;
  readonly compilers: readonly LoadedCompiler[];
  readonly limits: VerifyLimits;
}

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;
const HEX_RE = /^(0x)?([0-9a-fA-F]{2})*$/;
const EVM_VERSIONS = ['homestead', 'tangerineWhistle', 'spuriousDragon', 'byzantium', 'constantinople', 'petersburg', 'istanbul', 'berlin', 'london', 'paris', 'shanghai', 'cancun', 'prague', 'osaka'];

export function requireEnabled(ctx: RequestContext): void {
  if (!ctx.enabled) throw new VerifyError('verification_disabled', 'contract verification is switched off on this explorer (EXPLORER_VERIFY_ENABLED=1 switches it on)');
}

export function parseAddress(v: unknown, field = 'address'): string {
  if (typeof v !== 'string' || !ADDRESS_RE.test(v.trim())) throw new VerifyError('invalid_address', `${field}: expected a 20-byte hex address (0x + 40 hex digits)`);
  return v.trim().toLowerCase();
}

export function parseChainId(v: unknown, field = 'chainId'): void {
  if (v === undefined || v === null || v === '') return;
  const s = String(v).trim();
  let n: bigint;
  try {
    if (!/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(s)) throw new Error();
    n = BigInt(s);
  } catch {
    throw new VerifyError('wrong_chain_id', `${field}: ${JSON.stringify(s)} is not a chain id`);
  }
  if (n !== CHAIN_ID) throw new VerifyError('wrong_chain_id', `${field}: this chain is ${CHAIN_ID}, not ${s}`);
}

/** An allowed compiler by any spelling clients use; a known but disallowed version is refused by name. */
export function resolveCompiler(v: unknown, ctx: RequestContext, field = 'compilerVersion'): LoadedCompiler {
  if (typeof v !== 'string' || v.trim() === '') throw new VerifyError('invalid_compiler_version', `${field}: required (e.g. v0.8.37+commit.f401782d)`);
  const p = parseCompilerVersion(v);
  if (p === undefined) throw new VerifyError('invalid_compiler_version', `${field}: ${JSON.stringify(v)} is not a solc version (e.g. v0.8.37+commit.f401782d)`);
  const c = ctx.compilers.find((x) => x.version === p.version && (p.commit === undefined || x.longVersion.endsWith(`+commit.${p.commit}`)));
  if (c === undefined) {
    throw new VerifyError(
      'compiler_not_allowed',
      `compiler ${v.trim()} is not allowed on this explorer (allowed: ${ctx.compilers.map((x) => x.longVersion).join(', ') || 'none'})`,
    );
  }
  return c;
}

export function parseConstructorArgs(v: unknown, field = 'constructorArguments'): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new VerifyError('invalid_request', `${field}: expected a hex string`);
  const s = v.trim();
  if (s === '' || s === '0x') return undefined;
  if (!HEX_RE.test(s)) throw new VerifyError('invalid_request', `${field}: expected ABI-encoded hex (an even number of hex digits)`);
  return s.replace(/^0x/, '').toLowerCase();
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const MAX_SOURCE_PATH = 1024;

/**
 * The standard-JSON settings that decide the code solc generates, with the keys of each object kept; the rest
 * (modelChecker, stopAfter, outputSelection, ...) only costs compilation time or memory and is dropped.
 */
const CODEGEN_SETTINGS: Readonly<Record<string, readonly string[] | 'value'>> = {
  remappings: 'value',
  optimizer: ['enabled', 'runs', 'details'],
  evmVersion: 'value',
  eofVersion: 'value',
  viaIR: 'value',
  metadata: ['useLiteralContent', 'bytecodeHash', 'appendCBOR'],
  libraries: 'value',
  debug: ['revertStrings'],
};

/** The submitted settings restricted to CODEGEN_SETTINGS (docs/explorer.md "Compiler settings"). */
export function codegenSettings(settings: Record<string, unknown>, field: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, keep] of Object.entries(CODEGEN_SETTINGS)) {
    const v = settings[key];
    if (v === undefined) continue;
    if (keep === 'value') {
      out[key] = v;
      continue;
    }
    if (!isObject(v)) throw new VerifyError('invalid_json', `${field}.settings.${key}: expected an object`);
    out[key] = Object.fromEntries(keep.filter((k) => v[k] !== undefined).map((k) => [k, v[k]]));
  }
  return out;
}

/**
 * A source file name as it will be served back (getsourcecode, Sourcify's files), which tools such as
 * `cast source -d` and `forge clone` write to disk under a folder: a relative path of `/`-separated segments.
 * Refused: empty or longer than 1024 characters, absolute (`/x`, `C:x`), a `..` segment, a backslash, NUL or
 * any other control character.
 */
export function parseSourcePath(name: string, field: string): string {
  const bad = (why: string): VerifyError => new VerifyError('invalid_request', `${field}: source file name ${JSON.stringify(name.slice(0, 200))} ${why}`);
  if (name.length === 0 || name.length > MAX_SOURCE_PATH) throw bad(`must have 1 to ${MAX_SOURCE_PATH} characters`);
  if (/[\u0000-\u001f\u007f]/.test(name)) throw bad('holds a control character');
  if (name.includes('\\')) throw bad('holds a backslash (use / between folders)');
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) throw bad('is absolute (give a path relative to the project)');
  if (name.split('/').includes('..')) throw bad('has a .. segment');
  return name;
}

/** Checks a standard-JSON input (object or JSON text) against the limits and keeps only what compiling needs. */
export function parseStandardJson(v: unknown, limits: VerifyLimits, field = 'standardJsonInput'): StandardJsonInput {
  let obj: unknown = v;
  if (typeof v === 'string') {
    try {
      obj = JSON.parse(v);
    } catch (e) {
      throw new VerifyError('invalid_json', `${field}: not valid JSON (${(e as Error).message})`);
    }
  }
  if (!isObject(obj)) throw new VerifyError('invalid_json', `${field}: expected a standard-JSON input object`);
  if (obj.language !== undefined && obj.language !== 'Solidity') throw new VerifyError('invalid_request', `${field}.language: only Solidity is supported (got ${JSON.stringify(obj.language)})`);
  if (!isObject(obj.sources)) throw new VerifyError('invalid_json', `${field}.sources: expected an object of file name -> { content }`);
  const names = Object.keys(obj.sources);
  if (names.length === 0) throw new VerifyError('invalid_request', `${field}.sources: no source files`);
  if (names.length > limits.maxFiles) throw new VerifyError('too_many_files', `${field}.sources: ${names.length} files, at most ${limits.maxFiles} are accepted`);
  const sources: Record<string, { content: string }> = {};
  for (const name of names) {
    parseSourcePath(name, `${field}.sources`);
    const s = obj.sources[name];
    if (!isObject(s) || typeof s.content !== 'string') {
      throw new VerifyError('invalid_json', `${field}.sources[${JSON.stringify(name)}]: expected { content: string } (urls are not fetched)`);
    }
    if (Buffer.byteLength(s.content, 'utf8') > limits.maxFileBytes) {
      throw new VerifyError('file_too_large', `${field}.sources[${JSON.stringify(name)}]: larger than ${limits.maxFileBytes} bytes`);
    }
    sources[name] = { content: s.content };
  }
  const settings = obj.settings === undefined ? {} : obj.settings;
  if (!isObject(settings)) throw new VerifyError('invalid_json', `${field}.settings: expected an object`);
  return { language: 'Solidity', sources, settings: codegenSettings(settings, field) };
}

/** A single source file with optimizer settings, as standard JSON (the file is named after the contract). */
export function singleFileInput(
  source: unknown,
  contractName: string,
  o: { optimize: boolean; runs: number; evmVersion: string | undefined; libraries?: Record<string, string> },
  limits: VerifyLimits,
): StandardJsonInput {
  if (typeof source !== 'string' || source.trim() === '') throw new VerifyError('invalid_request', 'sourceCode: required (the Solidity source text)');
  if (Buffer.byteLength(source, 'utf8') > limits.maxFileBytes) throw new VerifyError('file_too_large', `sourceCode: larger than ${limits.maxFileBytes} bytes`);
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(contractName)) throw new VerifyError('invalid_request', `contractName: ${JSON.stringify(contractName.slice(0, 200))} is not a contract name (the single file is named after it)`);
  const file = `${contractName}.sol`;
  const settings: Record<string, unknown> = { optimizer: { enabled: o.optimize, runs: o.runs } };
  if (o.evmVersion !== undefined) settings.evmVersion = o.evmVersion;
  if (o.libraries !== undefined && Object.keys(o.libraries).length > 0) settings.libraries = { [file]: o.libraries };
  return { language: 'Solidity', sources: { [file]: { content: source } }, settings };
}

export function parseContractName(v: unknown, field = 'contractName'): string {
  if (typeof v !== 'string' || v.trim() === '') throw new VerifyError('invalid_request', `${field}: required (Name or path/File.sol:Name)`);
  const s = v.trim();
  if (s.length > 1024) throw new VerifyError('invalid_request', `${field}: too long`);
  return s;
}

export function parseEvmVersion(v: unknown, field = 'evmVersion'): string | undefined {
  if (v === undefined || v === null || v === '' || (typeof v === 'string' && v.toLowerCase() === 'default')) return undefined;
  if (typeof v !== 'string' || !EVM_VERSIONS.includes(v)) throw new VerifyError('invalid_request', `${field}: unknown EVM version ${JSON.stringify(v)} (one of ${EVM_VERSIONS.join(', ')}, or default)`);
  return v;
}

export function parseRuns(v: unknown, field = 'runs'): number {
  if (v === undefined || v === null || v === '') return 200;
  const n = typeof v === 'number' ? v : Number(String(v).trim());
  if (!Number.isInteger(n) || n < 0 || n > 2 ** 32 - 1) throw new VerifyError('invalid_request', `${field}: expected a whole number of optimizer runs`);
  return n;
}

export function parseBoolFlag(v: unknown, field: string): boolean {
  if (v === undefined || v === null || v === '') return false;
  if (v === true || v === 1 || v === '1' || v === 'true') return true;
  if (v === false || v === 0 || v === '0' || v === 'false') return false;
  throw new VerifyError('invalid_request', `${field}: expected 1/0 or true/false`);
}
