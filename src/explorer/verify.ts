// One verification: compile the submitted sources with the chosen compiler (in a worker, time-limited), find
// the named contract, and compare its code with the chain's: runtime code with eth_getCode through the
// gateway, creation code and constructor arguments with the creation transaction the indexer stored.
import type { CompilerPool, LoadedCompiler } from './compilers.js';
import { VerifyError } from './errors.js';
import { auxdataSegments, hasUnlinkedLibraries, matchCreation, matchRuntime, type ImmutableReferences, type Segment } from './match.js';
import type { VerifyRequest } from './request.js';
import type { CreationTx, VerifiedContract } from './store.js';

export interface VerifyDeps {
  readonly pool: CompilerPool;
  readonly compilers: readonly LoadedCompiler[];
  /** The chain's runtime code at `address`: lowercase hex without 0x ('' when there is none). */
  getCode(address: string): Promise<string>;
  creationTx(address: string): Promise<CreationTx | undefined>;
}

interface SolcContract {
  abi?: unknown[];
  evm?: {
    bytecode?: { object?: string };
    deployedBytecode?: { object?: string; immutableReferences?: ImmutableReferences };
  };
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage?: string; message?: string }[];
  contracts?: Record<string, Record<string, SolcContract>>;
}

// What verification needs from solc; the submitted outputSelection is replaced (it does not change the code).
const OUTPUT_SELECTION = { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object', 'evm.deployedBytecode.immutableReferences'] } };
const MAX_ERROR_TEXT = 4000;

export type VerifiedData = Omit<VerifiedContract, 'verifiedAt' | 'jobId'>;

/** Splits `path:Name` (the path may itself hold colons); a bare name has no path. */
export function splitContractName(name: string): { path: string | undefined; name: string } {
  const i = name.lastIndexOf(':');
  return i < 0 ? { path: undefined, name } : { path: name.slice(0, i), name: name.slice(i + 1) };
}

function findContract(out: SolcOutput, wanted: string): { path: string; name: string; c: SolcContract } {
  const { path, name } = splitContractName(wanted);
  const contracts = out.contracts ?? {};
  const hits: { path: string; name: string; c: SolcContract }[] = [];
  for (const [p, byName] of Object.entries(contracts)) {
    if (path !== undefined && p !== path) continue;
    const c = byName[name];
    if (c !== undefined) hits.push({ path: p, name, c });
  }
  if (hits.length === 1) return hits[0]!;
  const available = Object.entries(contracts)
    .flatMap(([p, byName]) => Object.keys(byName).map((n) => `${p}:${n}`))
    .slice(0, 50);
  if (hits.length === 0) throw new VerifyError('contract_not_found', `no contract ${wanted} in the compiled sources (found: ${available.join(', ') || 'none'})`);
  throw new VerifyError('contract_not_found', `${wanted} is ambiguous: ${hits.map((h) => `${h.path}:${h.name}`).join(', ')}; give path:Name`);
}

/**
 * The metadata trailers solc placed in the contract's runtime and creation code: the same input compiled again
 * with `metadata.useLiteralContent` flipped changes the metadata hashes and nothing else, so the bytes that
 * differ are the compiler's own (auxdataSegments); undefined where they cannot be located.
 */
async function metadataTrailers(
  deps: VerifyDeps,
  compiler: LoadedCompiler,
  input: { settings: Record<string, unknown> },
  found: { path: string; name: string },
  runtime: string,
  creation: string,
): Promise<{ runtime: Segment[] | undefined; creation: Segment[] | undefined }> {
  const metadata = (input.settings.metadata ?? {}) as Record<string, unknown>;
  const again = {
    ...input,
    settings: {
      ...input.settings,
      metadata: { ...metadata, useLiteralContent: metadata.useLiteralContent !== true },
      outputSelection: { [found.path]: { [found.name]: ['evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  let c: SolcContract | undefined;
  try {
    c = (JSON.parse(await deps.pool.compile(compiler, JSON.stringify(again))) as SolcOutput).contracts?.[found.path]?.[found.name];
  } catch (e) {
    if (e instanceof VerifyError && e.code !== 'compilation_failed') throw e;
  }
  const r2 = (c?.evm?.deployedBytecode?.object ?? '').toLowerCase();
  const c2 = (c?.evm?.bytecode?.object ?? '').toLowerCase();
  return { runtime: auxdataSegments(runtime, r2), creation: auxdataSegments(creation, c2) };
}

export async function verifyContract(req: VerifyRequest, deps: VerifyDeps): Promise<VerifiedData> {
  const compiler = deps.compilers.find((c) => c.longVersion === req.compilerVersion);
  if (compiler === undefined) throw new VerifyError('compiler_not_allowed', `compiler ${req.compilerVersion} is no longer allowed on this explorer`);
  const onchain = await deps.getCode(req.address);
  if (onchain === '') throw new VerifyError('no_code', `no contract code at ${req.address} (not deployed yet, or not a contract)`);

  const input = { language: 'Solidity', sources: req.input.sources, settings: { ...req.input.settings, outputSelection: OUTPUT_SELECTION } };
  const text = await deps.pool.compile(compiler, JSON.stringify(input));
  let out: SolcOutput;
  try {
    out = JSON.parse(text) as SolcOutput;
  } catch {
    throw new VerifyError('compilation_failed', 'the compiler answered something that is not JSON');
  }
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    const msg = errors.map((e) => e.formattedMessage ?? e.message ?? '').join('\n');
    throw new VerifyError('compilation_failed', `the sources do not compile: ${msg.slice(0, MAX_ERROR_TEXT)}`);
  }
  const found = findContract(out, req.contractName);
  const runtime = (found.c.evm?.deployedBytecode?.object ?? '').toLowerCase();
  const creation = (found.c.evm?.bytecode?.object ?? '').toLowerCase();
  if (runtime === '') throw new VerifyError('contract_not_found', `${found.path}:${found.name} has no code (an interface or abstract contract)`);
  if (hasUnlinkedLibraries(runtime) || hasUnlinkedLibraries(creation)) {
    throw new VerifyError('unlinked_libraries', `${found.path}:${found.name} uses libraries whose addresses were not given (standard-JSON settings.libraries)`);
  }
  const refs = found.c.evm?.deployedBytecode?.immutableReferences;
  // Constructor arguments are checked only where the chain holds them: in a top-level creation transaction.
  // A contract created by another contract verifies on its runtime code.
  const tx = await deps.creationTx(req.address);
  let runtimeMatch = matchRuntime(runtime, onchain, refs, undefined, req.address);
  let cm = tx === undefined ? undefined : matchCreation(creation, tx.input);
  if (runtimeMatch === undefined || (tx !== undefined && cm === undefined)) {
    // Not a full match: locate the compiler's own metadata trailers for a partial one (a second compilation).
    const aux = await metadataTrailers(deps, compiler, input, found, runtime, creation);
    runtimeMatch ??= matchRuntime(runtime, onchain, refs, aux.runtime, req.address);
    if (tx !== undefined) cm ??= matchCreation(creation, tx.input, aux.creation);
  }
  if (runtimeMatch === undefined) {
    throw new VerifyError('bytecode_mismatch', `the compiled runtime code of ${found.path}:${found.name} does not match the code at ${req.address}`);
  }
  let creationMatch: VerifiedData['creationMatch'] = null;
  let constructorArgs = req.constructorArgs ?? null;
  if (tx !== undefined) {
    if (cm === undefined) throw new VerifyError('bytecode_mismatch', `the compiled creation code of ${found.path}:${found.name} does not match creation transaction ${tx.txHash}`);
    if (req.constructorArgs !== undefined && req.constructorArgs !== cm.constructorArgs) {
      throw new VerifyError(
        'constructor_args_mismatch',
        `the constructor arguments given differ from those of creation transaction ${tx.txHash} (0x${cm.constructorArgs.slice(0, 512)}${cm.constructorArgs.length > 512 ? '...' : ''})`,
      );
    }
    creationMatch = cm.match;
    constructorArgs = cm.constructorArgs;
  }
  return {
    address: req.address,
    contractPath: found.path,
    contractName: found.name,
    compilerVersion: compiler.longVersion,
    codeFormat: req.codeFormat,
    input: req.input,
    abi: found.c.abi ?? [],
    runtimeMatch,
    creationMatch,
    constructorArgs,
    creationTxHash: tx?.txHash ?? null,
    licenseType: req.licenseType ?? null,
  };
}

/** eth_getCode through the gateway's JSON-RPC; unreachable or failing answers are rpc_unavailable. */
export function rpcGetCode(rpcUrl: string, timeoutMs = 30_000): (address: string) => Promise<string> {
  return async (address) => {
    let body: { result?: unknown; error?: { message?: string } };
    try {
      const res = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getCode', params: [address, 'latest'] }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      body = (await res.json()) as typeof body;
    } catch (e) {
      throw new VerifyError('rpc_unavailable', `the chain's JSON-RPC at ${rpcUrl} did not answer eth_getCode (${(e as Error).message})`);
    }
    if (body.error !== undefined || typeof body.result !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(body.result)) {
      throw new VerifyError('rpc_unavailable', `eth_getCode failed: ${body.error?.message ?? 'malformed answer'}`);
    }
    return body.result.slice(2).toLowerCase();
  };
}
