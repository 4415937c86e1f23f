// SPEC's verification API: POST /api/verify/submit (JSON) answers a job id; GET /api/verify/status?id=
// answers queued, running, verified (full or partial match) or failed with a reason. Shapes: docs/explorer.md.
import { submitJob, type ApiDeps } from './api_common.js';
import { VerifyError } from './errors.js';
import { json, parseJsonBody, type Route } from './http.js';
import {
  parseAddress,
  parseBoolFlag,
  parseChainId,
  parseConstructorArgs,
  parseContractName,
  parseEvmVersion,
  parseRuns,
  parseStandardJson,
  requireEnabled,
  resolveCompiler,
  singleFileInput,
  type VerifyRequest,
} from './request.js';
import type { JobRow } from './store.js';

function parseLibraries(v: unknown): Record<string, string> | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw new VerifyError('invalid_request', 'libraries: expected an object of library name -> address');
  const out: Record<string, string> = {};
  for (const [k, a] of Object.entries(v as Record<string, unknown>)) out[k] = parseAddress(a, `libraries.${k}`);
  return out;
}

export function parseSpecSubmit(body: Record<string, unknown>, deps: ApiDeps): VerifyRequest {
  parseChainId(body.chainId);
  const address = parseAddress(body.address);
  const compiler = resolveCompiler(body.compilerVersion, deps.ctx);
  const contractName = parseContractName(body.contractName);
  const constructorArgs = parseConstructorArgs(body.constructorArguments);
  if (body.standardJsonInput !== undefined) {
    if (body.sourceCode !== undefined) throw new VerifyError('invalid_request', 'give either standardJsonInput or sourceCode, not both');
    return {
      api: 'spec',
      address,
      compilerVersion: compiler.longVersion,
      input: parseStandardJson(body.standardJsonInput, deps.ctx.limits),
      contractName,
      constructorArgs,
      codeFormat: 'solidity-standard-json-input',
      licenseType: undefined,
    };
  }
  const opt = body.optimizer;
  if (opt !== undefined && (typeof opt !== 'object' || opt === null || Array.isArray(opt))) throw new VerifyError('invalid_request', 'optimizer: expected { enabled, runs }');
  const o = (opt ?? {}) as Record<string, unknown>;
  return {
    api: 'spec',
    address,
    compilerVersion: compiler.longVersion,
    input: singleFileInput(
      body.sourceCode,
      contractName.includes(':') ? contractName.slice(contractName.lastIndexOf(':') + 1) : contractName,
      { optimize: parseBoolFlag(o.enabled, 'optimizer.enabled'), runs: parseRuns(o.runs, 'optimizer.runs'), evmVersion: parseEvmVersion(body.evmVersion), libraries: parseLibraries(body.libraries) },
      deps.ctx.limits,
    ),
    contractName: contractName.includes(':') ? contractName.slice(contractName.lastIndexOf(':') + 1) : contractName,
    constructorArgs,
    codeFormat: 'solidity-single-file',
    licenseType: undefined,
  };
}

export function specStatus(job: JobRow): Record<string, unknown> {
  return {
    id: job.id,
    status: job.status,
    address: job.address,
    contractName: job.request.contractName,
    compilerVersion: job.request.compilerVersion,
    ...(job.status === 'verified' ? { match: job.runtimeMatch, creationMatch: job.creationMatch } : {}),
    ...(job.status === 'failed' ? { error: { code: job.errorCode, message: job.errorMessage } } : {}),
    submittedAt: job.createdAt.toISOString(),
    finishedAt: job.finishedAt?.toISOString() ?? null,
  };
}

export function specRoutes(deps: ApiDeps): Route[] {
  return [
    {
      methods: ['POST'],
      path: /^\/api\/verify\/submit\/?$/,
      async handle(req) {
        // Switched off: refused before the body is read.
        requireEnabled(deps.ctx);
        const body = parseJsonBody(await req.body());
        const id = await submitJob(deps, parseSpecSubmit(body, deps), req.client);
        return json(202, { id, status: 'queued' });
      },
    },
    {
      methods: ['GET'],
      path: /^\/api\/verify\/status\/?$/,
      async handle(req) {
        const id = req.url.searchParams.get('id');
        if (id === null || id === '') throw new VerifyError('invalid_request', 'id: required (the id answered by /api/verify/submit)');
        const job = await deps.store.getJob(id);
        if (job === undefined) throw new VerifyError('job_not_found', `no verification job ${id}`);
        return json(200, specStatus(job));
      },
    },
  ];
}
