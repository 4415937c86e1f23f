// The explorer's pure parts: compiler versions, configuration, request bounds, and bytecode matching on real
// solc output (the chain's side is the compiled code with immutable values written where solc says the
// constructor writes them, as the EVM does at deployment). The same flows against a real chain: tests/wasm/explorer.test.ts.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { longVersionOf, parseCompilerVersion } from '../../src/explorer/compilers.js';
import { DEFAULT_LIMITS, ExplorerConfigError, loadExplorerConfig } from '../../src/explorer/config.js';
import { VerifyError } from '../../src/explorer/errors.js';
import { matchCreation, matchRuntime, metadataSegments, type ImmutableReferences } from '../../src/explorer/match.js';
import { parseChainId, parseConstructorArgs, parseStandardJson } from '../../src/explorer/request.js';
import { fixtureSource } from '../support/explorer.js';

const require = createRequire(import.meta.url);
const solc = require('solc') as { compile(i: string): string; version(): string };

interface Out {
  creation: string;
  runtime: string;
  refs: ImmutableReferences;
}

function build(source: string, name = 'Vault'): Out {
  const input = {
    language: 'Solidity',
    sources: { 'src/Vault.sol': { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'prague',
      outputSelection: { '*': { '*': ['evm.bytecode.object', 'evm.deployedBytecode.object', 'evm.deployedBytecode.immutableReferences'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const c = out.contracts['src/Vault.sol'][name];
  return { creation: c.evm.bytecode.object, runtime: c.evm.deployedBytecode.object, refs: c.evm.deployedBytecode.immutableReferences };
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
});

describe('matching', () => {
  it('finds the CBOR metadata block at the end of the runtime code', () => {
    const segs = metadataSegments(vault.runtime);
    expect(segs.length).toBeGreaterThanOrEqual(1);
    const last = segs.at(-1)!;
    expect(last.start + last.length).toBe(vault.runtime.length / 2);
  });

  it('full match with immutables masked; partial when only metadata differs; none when code differs', () => {
    expect(Object.keys(vault.refs).length).toBeGreaterThan(0);
    const onchain = deployed(vault, 123456789n);
    expect(onchain).not.toBe(vault.runtime);
    expect(matchRuntime(vault.runtime, onchain, vault.refs)).toBe('full');
    // Without the immutable references the written value is a difference in the code itself.
    expect(matchRuntime(vault.runtime, onchain, {})).toBeUndefined();
    expect(commented.runtime).not.toBe(vault.runtime);
    expect(matchRuntime(commented.runtime, onchain, commented.refs)).toBe('partial');
    expect(matchRuntime(changed.runtime, onchain, changed.refs)).toBeUndefined();
  });

  it('creation code is a prefix of the creation input; the rest is the constructor arguments', () => {
    const args = '00'.repeat(31) + '2a';
    expect(matchCreation(vault.creation, vault.creation + args)).toEqual({ match: 'full', constructorArgs: args });
    expect(matchCreation(commented.creation, vault.creation + args)).toEqual({ match: 'partial', constructorArgs: args });
    expect(matchCreation(changed.creation, vault.creation + args)).toBeUndefined();
    expect(matchCreation(vault.creation, vault.creation.slice(0, 100))).toBeUndefined();
  });
});
