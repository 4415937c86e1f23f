// The explorer's pure parts: compiler versions, configuration, request bounds, and bytecode matching on real
// solc output (the chain's side is the compiled code with immutable values written where solc says the
// constructor writes them, as the EVM does at deployment). The same flows against a real chain: tests/wasm/explorer.test.ts.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { longVersionOf, parseCompilerVersion } from '../../src/explorer/compilers.js';
import { DEFAULT_LIMITS, ExplorerConfigError, loadExplorerConfig } from '../../src/explorer/config.js';
import { VerifyError } from '../../src/explorer/errors.js';
import { auxdataSegments, isCborTrailer, matchCreation, matchRuntime, type ImmutableReferences, type Segment } from '../../src/explorer/match.js';
import { parseChainId, parseConstructorArgs, parseStandardJson, singleFileInput } from '../../src/explorer/request.js';
import { fixtureSource, plantedTrailerSource } from '../support/explorer.js';

const require = createRequire(import.meta.url);
const solc = require('solc') as { compile(i: string): string; version(): string };

interface Out {
  creation: string;
  runtime: string;
  refs: ImmutableReferences;
  /** The compiler's metadata trailers, located as verify.ts does (a second compilation, metadata changed). */
  auxRuntime: Segment[] | undefined;
  auxCreation: Segment[] | undefined;
}

function compileOnce(source: string, name: string, file: string, literal: boolean): { creation: string; runtime: string; refs: ImmutableReferences } {
  const input = {
    language: 'Solidity',
    sources: { [file]: { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'prague',
      metadata: { useLiteralContent: literal },
      outputSelection: { '*': { '*': ['evm.bytecode.object', 'evm.deployedBytecode.object', 'evm.deployedBytecode.immutableReferences'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const c = out.contracts[file][name];
  return { creation: c.evm.bytecode.object, runtime: c.evm.deployedBytecode.object, refs: c.evm.deployedBytecode.immutableReferences };
}

function build(source: string, name = 'Vault', file = 'src/Vault.sol'): Out {
  const a = compileOnce(source, name, file, false);
  const b = compileOnce(source, name, file, true);
  return { ...a, auxRuntime: auxdataSegments(a.runtime, b.runtime), auxCreation: auxdataSegments(a.creation, b.creation) };
}

/** What the EVM leaves at the address: the runtime code with each immutable's 32-byte value written in. */
function deployed(o: Out, value: bigint): string {
  let code = o.runtime;
  const word = value.toString(16).padStart(64, '0');
  for (const refs of Object.values(o.refs)) for (const r of refs) code = code.slice(0, r.start * 2) + word + code.slice((r.start + r.length) * 2);
  return code;
}

const src = fixtureSource('Vault.sol');
const vault = build(src);
const commented = build(src.replace('contract Vault {', 'contract Vault {\n    // a comment changes only the metadata hash'));
const changed = build(src.replace('return cap - used;', 'return cap + used;'));

describe('compiler versions', () => {
  it('parses the spellings clients send and the long form of solc-js', () => {
    expect(parseCompilerVersion('0.8.37')).toEqual({ version: '0.8.37', commit: undefined });
    expect(parseCompilerVersion('v0.8.37+commit.f401782d')).toEqual({ version: '0.8.37', commit: 'f401782d' });
    expect(parseCompilerVersion('latest')).toBeUndefined();
    expect(longVersionOf(solc.version())).toMatch(/^v0\.8\.37\+commit\.[0-9a-f]{8}$/);
  });
});

describe('configuration', () => {
  it('defaults to 127.0.0.1:4000 with verification off', () => {
    const c = loadExplorerConfig({});
    expect(c).toMatchObject({ host: '127.0.0.1', port: 4000, verifyEnabled: false, limits: DEFAULT_LIMITS });
  });

  it('needs an allow-list when verification is on, and names a bad variable', () => {
    expect(() => loadExplorerConfig({ EXPLORER_VERIFY_ENABLED: '1' })).toThrow(/EXPLORER_VERIFY_ALLOWED_COMPILERS/);
    expect(() => loadExplorerConfig({ EXPLORER_VERIFY_ENABLED: '1', EXPLORER_VERIFY_ALLOWED_COMPILERS: '0.8.37,latest' })).toThrow(ExplorerConfigError);
    expect(() => loadExplorerConfig({ EXPLORER_PORT: '70000' })).toThrow(/EXPLORER_PORT: must be between/);
    const c = loadExplorerConfig({ EXPLORER_VERIFY_ENABLED: 'true', EXPLORER_VERIFY_ALLOWED_COMPILERS: '0.8.37 v0.5.17+commit.d19bba13', EXPLORER_VERIFY_MAX_FILES: '7' });
    expect(c.allowedCompilers).toEqual(['0.8.37', 'v0.5.17+commit.d19bba13']);
    expect(c.limits.maxFiles).toBe(7);
    const q = loadExplorerConfig({ EXPLORER_VERIFY_MAX_QUEUED_PER_CLIENT: '3', EXPLORER_VERIFY_COMPILE_MEMORY_MB: '256' });
    expect(q.limits).toMatchObject({ maxQueuedJobsPerClient: 3, compileMemoryMb: 256, maxQueuedJobs: 100 });
    expect(() => loadExplorerConfig({ EXPLORER_VERIFY_COMPILE_MEMORY_MB: '8' })).toThrow(/EXPLORER_VERIFY_COMPILE_MEMORY_MB/);
  });
});

describe('request bounds', () => {
  const limits = { ...DEFAULT_LIMITS, maxFiles: 2, maxFileBytes: 10 };
  const code = (f: () => unknown): string | undefined => {
    try {
      f();
      return undefined;
    } catch (e) {
      return (e as VerifyError).code;
    }
  };
  it('refuses malformed, oversized and foreign input with precise codes', () => {
    expect(code(() => parseStandardJson('{', limits))).toBe('invalid_json');
    expect(code(() => parseStandardJson({ sources: { a: { content: 'x' }, b: { content: 'x' }, c: { content: 'x' } } }, limits))).toBe('too_many_files');
    expect(code(() => parseStandardJson({ sources: { a: { content: 'x'.repeat(11) } } }, limits))).toBe('file_too_large');
    expect(code(() => parseStandardJson({ sources: { a: { urls: ['https://x'] } } }, limits))).toBe('invalid_json');
    expect(code(() => parseStandardJson({ language: 'Vyper', sources: { a: { content: '' } } }, limits))).toBe('invalid_request');
    expect(code(() => parseChainId('1'))).toBe('wrong_chain_id');
    expect(code(() => parseChainId('0x494350'))).toBeUndefined();
    expect(code(() => parseConstructorArgs('0xabc'))).toBe('invalid_request');
    expect(parseConstructorArgs('0xABCD')).toBe('abcd');
    expect(parseConstructorArgs('')).toBeUndefined();
  });

  it('passes only the settings that decide the generated code to solc', () => {
    // The model checker (SMT solving: unbounded time and memory) and the rest are dropped, never compiled with.
    const settings = {
      optimizer: { enabled: true, runs: 9, details: { yul: true }, extra: 1 },
      viaIR: true,
      evmVersion: 'cancun',
      metadata: { bytecodeHash: 'none', useLiteralContent: true },
      remappings: ['a/=b/'],
      libraries: { 'A.sol': { L: `0x${'11'.repeat(20)}` } },
      modelChecker: { engine: 'all', targets: ['assert'], timeout: 0 },
      stopAfter: 'parsing',
      outputSelection: { '*': { '*': ['*'] } },
      debug: { revertStrings: 'strip', debugInfo: ['*'] },
    };
    const parsed = parseStandardJson({ sources: { 'A.sol': { content: 'x' } }, settings }, DEFAULT_LIMITS).settings;
    expect(parsed).toEqual({
      optimizer: { enabled: true, runs: 9, details: { yul: true } },
      viaIR: true,
      evmVersion: 'cancun',
      metadata: { bytecodeHash: 'none', useLiteralContent: true },
      remappings: ['a/=b/'],
      libraries: { 'A.sol': { L: `0x${'11'.repeat(20)}` } },
      debug: { revertStrings: 'strip' },
    });
    expect(code(() => parseStandardJson({ sources: { 'A.sol': { content: 'x' } }, settings: { optimizer: true } }, DEFAULT_LIMITS))).toBe('invalid_json');
  });

  it('refuses source file names that would escape the folder tools write them to', () => {
    // cast source -d / forge clone write each served name under a folder: these would land outside it.
    const attack = ['../../.bashrc', 'src/../../x.sol', '/etc/cron.d/x', 'C:/Windows/x.sol', 'src\\..\\x.sol', 'a\u0000.sol', 'a\nb.sol', '', 'x'.repeat(1025)];
    for (const name of attack) {
      expect(code(() => parseStandardJson({ sources: { [name]: { content: 'x' } } }, DEFAULT_LIMITS))).toBe('invalid_request');
    }
    for (const name of ['src/Vault.sol', '@openzeppelin/contracts/token/ERC20/ERC20.sol', 'lib/a..b/X.sol', 'Vault.sol']) {
      expect(Object.keys(parseStandardJson({ sources: { [name]: { content: 'x' } } }, DEFAULT_LIMITS).sources)).toEqual([name]);
    }
    const opts = { optimize: true, runs: 200, evmVersion: undefined };
    expect(code(() => singleFileInput('contract X {}', '../../x', opts, DEFAULT_LIMITS))).toBe('invalid_request');
    expect(Object.keys(singleFileInput('contract X {}', 'X', opts, DEFAULT_LIMITS).sources)).toEqual(['X.sol']);
  });
});

describe('matching', () => {
  it("locates solc's own CBOR metadata trailer at the end of the runtime code, and a well-formed one only", () => {
    const segs = vault.auxRuntime!;
    expect(segs).toHaveLength(1);
    const last = segs[0]!;
    expect(last.start + last.length).toBe(vault.runtime.length / 2);
    expect(parseInt(vault.runtime.slice(-4), 16)).toBe(last.length - 2);
    expect(isCborTrailer(vault.runtime, last)).toBe(true);
    // A map head whose declared entries overrun the length, and a length that disagrees, are not trailers.
    const bad = vault.runtime.slice(0, last.start * 2) + 'a5' + vault.runtime.slice(last.start * 2 + 2);
    expect(isCborTrailer(bad, last)).toBe(false);
    expect(isCborTrailer(vault.runtime.slice(0, -4) + '0034', last)).toBe(false);
    // The creation code carries the runtime's trailer and its own.
    expect(vault.auxCreation!.length).toBeGreaterThanOrEqual(1);
    // Compilations that differ in more than metadata cannot locate trailers.
    expect(auxdataSegments(vault.runtime, changed.runtime)).toBeUndefined();
  });

  it('full match with immutables masked; partial when only metadata differs; none when code differs', () => {
    expect(Object.keys(vault.refs).length).toBeGreaterThan(0);
    const onchain = deployed(vault, 123456789n);
    expect(onchain).not.toBe(vault.runtime);
    expect(matchRuntime(vault.runtime, onchain, vault.refs)).toBe('full');
    // Without the immutable references the written value is a difference in the code itself.
    expect(matchRuntime(vault.runtime, onchain, {})).toBeUndefined();
    expect(commented.runtime).not.toBe(vault.runtime);
    expect(matchRuntime(commented.runtime, onchain, commented.refs, commented.auxRuntime)).toBe('partial');
    // Without the compiler's trailer positions there is no partial match.
    expect(matchRuntime(commented.runtime, onchain, commented.refs)).toBeUndefined();
    expect(matchRuntime(changed.runtime, onchain, changed.refs, changed.auxRuntime)).toBeUndefined();
    // The chain's bytes at the trailer must be a well-formed CBOR map of the same length.
    const t = commented.auxRuntime![0]!;
    const broken = onchain.slice(0, t.start * 2) + 'ff' + onchain.slice(t.start * 2 + 2);
    expect(matchRuntime(commented.runtime, broken, commented.refs, commented.auxRuntime)).toBeUndefined();
  });

  it('creation code is a prefix of the creation input; the rest is the constructor arguments', () => {
    const args = '00'.repeat(31) + '2a';
    expect(matchCreation(vault.creation, vault.creation + args)).toEqual({ match: 'full', constructorArgs: args });
    expect(matchCreation(commented.creation, vault.creation + args, commented.auxCreation)).toEqual({ match: 'partial', constructorArgs: args });
    expect(matchCreation(commented.creation, vault.creation + args)).toBeUndefined();
    expect(matchCreation(changed.creation, vault.creation + args, changed.auxCreation)).toBeUndefined();
    expect(matchCreation(vault.creation, vault.creation.slice(0, 100))).toBeUndefined();
  });

  it('a library matches only with its own address where solc leaves zeros', () => {
    const lib = build(fixtureSource('MathLib.sol'), 'MathLib', 'src/MathLib.sol');
    expect(lib.runtime.startsWith(`73${'0'.repeat(40)}3014`)).toBe(true);
    const self = '11'.repeat(20);
    const onchain = `73${self}${lib.runtime.slice(42)}`;
    expect(matchRuntime(lib.runtime, onchain, lib.refs, lib.auxRuntime, `0x${self}`)).toBe('full');
    expect(matchRuntime(lib.runtime, onchain, lib.refs, lib.auxRuntime, `0x${'22'.repeat(20)}`)).toBeUndefined();
  });
});

// The attack: contract M's admin() returns 0xdead..; source S is M with a literal shaped like a metadata block
// around the admin address, holding 0xbeef... Searching the code for anything shaped like a trailer masked the
// planted one and answered a partial match; only the compiler's own trailer is masked now.
describe('a literal shaped like a metadata trailer (the verification attack)', () => {
  const m = build(plantedTrailerSource('dead'.repeat(10)), 'M', 'M.sol');
  const s = build(plantedTrailerSource('beef'.repeat(10)), 'M', 'M.sol');

  it('is refused: the runtime and the creation code differ outside the compiler\'s trailer', () => {
    expect(m.runtime).toContain('dead'.repeat(10));
    expect(s.runtime.length).toBe(m.runtime.length);
    // The compiler's trailer is the one at the end; the planted block is not masked.
    expect(s.auxRuntime).toHaveLength(1);
    expect(s.auxRuntime![0]!.start + s.auxRuntime![0]!.length).toBe(s.runtime.length / 2);
    expect(matchRuntime(s.runtime, m.runtime, s.refs, s.auxRuntime)).toBeUndefined();
    expect(matchCreation(s.creation, m.creation, s.auxCreation)).toBeUndefined();
    // The honest source still verifies.
    expect(matchRuntime(m.runtime, m.runtime, m.refs, m.auxRuntime)).toBe('full');
  });
});
