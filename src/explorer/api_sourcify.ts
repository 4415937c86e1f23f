// Sourcify's v2 API, as forge's default verifier calls it (`--verifier sourcify --verifier-url <explorer>/`):
// POST /v2/verify/{chainId}/{address} queues a job (202 { verificationId }; 409 when already verified),
// GET /v2/verify/{verificationId} reads it, GET /v2/contract/{chainId}/{address} reads a verified contract.
// Errors are Sourcify's `{ customCode, message, errorId }` with an HTTP status.
import { randomUUID } from 'node:crypto';
import { CHAIN_ID } from '../core/constants.js';
import { submitJob, type ApiDeps } from './api_common.js';
import { VerifyError, type VerifyErrorCode } from './errors.js';
import { json, parseJsonBody, type HttpAnswer, type Route } from './http.js';
import type { MatchKind } from './match.js';
import { parseAddress, parseChainId, parseContractName, parseStandardJson, requireEnabled, resolveCompiler, type VerifyRequest } from './request.js';
import type { JobRow, VerifiedContract } from './store.js';

// Sourcify's names for the failures its clients know; the rest keep the explorer's code.
const CUSTOM_CODES: Partial<Record<VerifyErrorCode, string>> = {
  bytecode_mismatch: 'no_match',
  constructor_args_mismatch: 'no_match',
  compilation_failed: 'compiler_error',
  contract_not_found: 'contract_not_found_in_compiler_output',
  wrong_chain_id: 'unsupported_chain',
  invalid_address: 'invalid_parameter',
  invalid_request: 'invalid_parameter',
  invalid_json: 'invalid_json',
  no_code: 'contract_not_deployed',
  not_verified: 'not_found',
  job_not_found: 'not_found',
  already_verified: 'already_verified',
  compiler_not_allowed: 'unsupported_compiler_version',
  invalid_compiler_version: 'unsupported_compiler_version',
};

const customCode = (code: string): string => CUSTOM_CODES[code as VerifyErrorCode] ?? code;

export const sourcifyError = (e: VerifyError): HttpAnswer => json(e.httpStatus, { customCode: customCode(e.code), message: e.message, errorId: randomUUID() });

const matchName = (m: MatchKind | null): string | null => (m === 'full' ? 'exact_match' : m === 'partial' ? 'match' : null);

function contractView(c: VerifiedContract): Record<string, unknown> {
  return {
    match: matchName(c.runtimeMatch === 'full' && (c.creationMatch ?? 'full') === 'full' ? 'full' : 'partial'),
    creationMatch: matchName(c.creationMatch),
    runtimeMatch: matchName(c.runtimeMatch),
    chainId: CHAIN_ID.toString(),
    address: c.address,
    verifiedAt: c.verifiedAt.toISOString(),
    matchId: c.jobId,
  };
}

export function parseSourcifyVerify(chainId: string, address: string, body: Record<string, unknown>, deps: ApiDeps): VerifyRequest {
  parseChainId(chainId, 'chainId');
  const compiler = resolveCompiler(body.compilerVersion, deps.ctx);
  if (body.stdJsonInput === undefined) throw new VerifyError('invalid_request', 'stdJsonInput: required (the standard-JSON input)');
  if (body.creationTransactionHash !== undefined && (typeof body.creationTransactionHash !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(body.creationTransactionHash))) {
    throw new VerifyError('invalid_request', 'creationTransactionHash: expected a 32-byte hex hash');
  }
  return {
    api: 'sourcify',
    address: parseAddress(address),
    compilerVersion: compiler.longVersion,
    input: parseStandardJson(body.stdJsonInput, deps.ctx.limits, 'stdJsonInput'),
    contractName: parseContractName(body.contractIdentifier, 'contractIdentifier'),
    constructorArgs: undefined,
    codeFormat: 'solidity-standard-json-input',
    licenseType: undefined,
  };
}

function jobView(job: JobRow): Record<string, unknown> {
  const done = job.status === 'verified' || job.status === 'failed';
  const contract = {
    match: job.status === 'verified' ? matchName(job.runtimeMatch === 'full' && (job.creationMatch ?? 'full') === 'full' ? 'full' : 'partial') : null,
    creationMatch: matchName(job.creationMatch),
    runtimeMatch: matchName(job.runtimeMatch),
    chainId: CHAIN_ID.toString(),
    address: job.address,
    ...(job.status === 'verified' ? { matchId: job.id, verifiedAt: job.finishedAt?.toISOString() } : {}),
  };
  return {
    isJobCompleted: done,
    verificationId: job.id,
    jobStartTime: job.createdAt.toISOString(),
    ...(done && job.finishedAt !== null ? { jobFinishTime: job.finishedAt.toISOString() } : {}),
    contract,
    ...(job.status === 'failed' ? { error: { customCode: customCode(job.errorCode ?? 'internal_error'), message: job.errorMessage ?? '', errorId: job.id } } : {}),
  };
}

export function sourcifyRoutes(deps: ApiDeps): Route[] {
  return [
    {
      methods: ['POST'],
      path: /^\/v2\/verify\/([^/]+)\/([^/]+)\/?$/,
      async handle(req, [chainId, address]) {
        // Switched off: refused before the body is read.
        requireEnabled(deps.ctx);
        const body = parseJsonBody(await req.body());
        const id = await submitJob(deps, parseSourcifyVerify(chainId!, address!, body, deps), req.client);
        return json(202, { verificationId: id });
      },
      onError: sourcifyError,
    },
    {
      methods: ['GET'],
      path: /^\/v2\/verify\/([^/]+)\/?$/,
      async handle(_req, [id]) {
        const job = await deps.store.getJob(id!);
        if (job === undefined) throw new VerifyError('job_not_found', `no verification job ${id}`);
        return json(200, jobView(job));
      },
      onError: sourcifyError,
    },
    {
      methods: ['GET'],
      path: /^\/v2\/contract\/([^/]+)\/([^/]+)\/?$/,
      async handle(req, [chainId, address]) {
        parseChainId(chainId, 'chainId');
        const a = parseAddress(address);
        const c = await deps.store.getContract(a);
        if (c === undefined) throw new VerifyError('not_verified', `contract ${a} on chain ${chainId} is not verified`);
        const view = contractView(c);
        const fields = (req.url.searchParams.get('fields') ?? '').split(',').filter((s) => s !== '');
        if (fields.length > 0) {
          Object.assign(view, {
            abi: c.abi,
            sources: c.input.sources,
            stdJsonInput: { language: 'Solidity', sources: c.input.sources, settings: c.input.settings },
            compilation: {
              language: 'Solidity',
              compilerVersion: c.compilerVersion.replace(/^v/, ''),
              compilerSettings: c.input.settings,
              name: c.contractName,
              fullyQualifiedName: `${c.contractPath}:${c.contractName}`,
            },
            deployment: { transactionHash: c.creationTxHash, chainId: CHAIN_ID.toString(), address: c.address },
            constructorArguments: c.constructorArgs === null ? null : `0x${c.constructorArgs}`,
          });
        }
        return json(200, view);
      },
      onError: sourcifyError,
    },
  ];
}
