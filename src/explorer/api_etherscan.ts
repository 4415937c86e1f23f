// The Etherscan-compatible /api that Blockscout serves, as forge (`--verifier blockscout`/`etherscan`) and
// hardhat-verify call it: query and form fields merged, any API key accepted, always HTTP 200 with
// `{ status, message, result }` ("1"/"OK" on success, "0"/"NOTOK" with the reason in `result` otherwise).
import { DISABLED_BODY_BYTES, submitJob, type ApiDeps } from './api_common.js';
import { asVerifyError, VerifyError } from './errors.js';
import { json, parseFields, type HttpAnswer, type RequestCtx, type Route } from './http.js';
import {
  parseAddress,
  parseBoolFlag,
  parseChainId,
  parseConstructorArgs,
  parseContractName,
  parseEvmVersion,
  parseRuns,
  parseStandardJson,
  resolveCompiler,
  singleFileInput,
  type VerifyRequest,
} from './request.js';
import type { VerifiedContract } from './store.js';

type Fields = Record<string, string>;

const ok = (result: unknown): HttpAnswer => json(200, { status: '1', message: 'OK', result });
const notOk = (result: unknown, message = 'NOTOK'): HttpAnswer => json(200, { status: '0', message, result });

// The answers clients recognise by their exact text.
export const NOT_VERIFIED = 'Contract source code not verified';
export const ALREADY_VERIFIED = 'Contract source code already verified';
export const PENDING = 'Pending in queue';
export const PASS = 'Pass - Verified';
const MAX_CREATION_LOOKUPS = 5;

function str(f: Fields, name: string): string | undefined {
  const v = f[name];
  return v === undefined || v === '' ? undefined : v;
}

export function parseEtherscanVerify(f: Fields, deps: ApiDeps): VerifyRequest {
  parseChainId(f.chainid, 'chainid');
  const address = parseAddress(f.contractaddress, 'contractaddress');
  const compiler = resolveCompiler(f.compilerversion, deps.ctx, 'compilerversion');
  const contractName = parseContractName(f.contractname, 'contractname');
  // Etherscan's historical spelling first (forge sends both, hardhat-verify only this one).
  const constructorArgs = parseConstructorArgs(str(f, 'constructorArguements') ?? str(f, 'constructorArguments'), 'constructorArguements');
  const format = str(f, 'codeformat') ?? 'solidity-standard-json-input';
  const licenseType = str(f, 'licenseType');
  if (format === 'solidity-standard-json-input') {
    return {
      api: 'etherscan',
      address,
      compilerVersion: compiler.longVersion,
      input: parseStandardJson(f.sourceCode ?? '', deps.ctx.limits, 'sourceCode'),
      contractName,
      constructorArgs,
      codeFormat: format,
      licenseType,
    };
  }
  if (format === 'solidity-single-file') {
    const name = contractName.includes(':') ? contractName.slice(contractName.lastIndexOf(':') + 1) : contractName;
    const libraries: Record<string, string> = {};
    for (let i = 1; i <= 10; i++) {
      const ln = str(f, `libraryname${i}`);
      if (ln !== undefined) libraries[ln] = parseAddress(f[`libraryaddress${i}`], `libraryaddress${i}`);
    }
    return {
      api: 'etherscan',
      address,
      compilerVersion: compiler.longVersion,
      input: singleFileInput(
        f.sourceCode,
        name,
        { optimize: parseBoolFlag(f.optimizationUsed, 'optimizationUsed'), runs: parseRuns(f.runs), evmVersion: parseEvmVersion(f.evmversion, 'evmversion'), libraries },
        deps.ctx.limits,
      ),
      contractName: name,
      constructorArgs,
      codeFormat: format,
      licenseType,
    };
  }
  throw new VerifyError('invalid_request', `codeformat: ${JSON.stringify(format)} is not supported (solidity-standard-json-input or solidity-single-file)`);
}

function settingsOf(c: VerifiedContract): { optimize: boolean; runs: number; evmVersion: string; libraries: string } {
  const s = c.input.settings as { optimizer?: { enabled?: boolean; runs?: number }; evmVersion?: string; libraries?: Record<string, Record<string, string>> };
  const libs = Object.values(s.libraries ?? {}).flatMap((byName) => Object.entries(byName).map(([n, a]) => `${n}:${a}`));
  return { optimize: s.optimizer?.enabled === true, runs: s.optimizer?.runs ?? 200, evmVersion: s.evmVersion ?? 'Default', libraries: libs.join(';') };
}

/** getsourcecode's record: Etherscan's fields, sources as `{{standard JSON}}` so `cast source` rebuilds the tree. */
export function sourceCodeRecord(c: VerifiedContract | undefined): Record<string, string> {
  if (c === undefined) {
    return {
      SourceCode: '',
      ABI: NOT_VERIFIED,
      ContractName: '',
      CompilerVersion: '',
      OptimizationUsed: '',
      Runs: '',
      ConstructorArguments: '',
      EVMVersion: '',
      Library: '',
      LicenseType: '',
      Proxy: '0',
      Implementation: '',
      SwarmSource: '',
    };
  }
  const s = settingsOf(c);
  const single = c.codeFormat === 'solidity-single-file';
  return {
    SourceCode: single ? (Object.values(c.input.sources)[0]?.content ?? '') : `{${JSON.stringify({ language: 'Solidity', sources: c.input.sources, settings: c.input.settings })}}`,
    ABI: JSON.stringify(c.abi),
    ContractName: c.contractName,
    CompilerVersion: c.compilerVersion,
    OptimizationUsed: s.optimize ? '1' : '0',
    Runs: String(s.runs),
    ConstructorArguments: c.constructorArgs ?? '',
    EVMVersion: s.evmVersion,
    Library: s.libraries,
    LicenseType: c.licenseType ?? '',
    Proxy: '0',
    Implementation: '',
    SwarmSource: '',
    FileName: c.contractPath,
  };
}

async function dispatch(deps: ApiDeps, f: Fields, client: string): Promise<HttpAnswer> {
  const mod = f.module;
  const action = f.action;
  if (mod !== 'contract') return notOk(null, mod === undefined ? 'Missing module parameter' : `Unknown module ${mod}`);
  switch (action) {
    case 'verifysourcecode':
    case 'verify': {
      try {
        const id = await submitJob(deps, parseEtherscanVerify(f, deps), client);
        return ok(id);
      } catch (e) {
        const err = asVerifyError(e);
        if (err.code === 'already_verified') return notOk(ALREADY_VERIFIED);
        // hardhat-verify recognises a missing deployment by this prefix.
        if (err.code === 'no_code') return notOk(`Unable to locate ContractCode at ${f.contractaddress}`);
        throw err;
      }
    }
    case 'checkverifystatus': {
      const guid = str(f, 'guid');
      if (guid === undefined) return notOk('Missing guid parameter');
      const job = await deps.store.getJob(guid);
      if (job === undefined) return notOk('Unknown UID');
      if (job.status === 'queued' || job.status === 'running') return notOk(PENDING);
      if (job.status === 'verified') return ok(PASS);
      if (job.errorCode === 'already_verified') return notOk('Already Verified');
      return notOk(`Fail - Unable to verify. ${job.errorMessage ?? job.errorCode ?? ''}`.trim());
    }
    case 'getabi': {
      const c = await deps.store.getContract(parseAddress(f.address));
      return c === undefined ? notOk(NOT_VERIFIED) : ok(JSON.stringify(c.abi));
    }
    case 'getsourcecode': {
      const c = await deps.store.getContract(parseAddress(f.address));
      return ok([sourceCodeRecord(c)]);
    }
    case 'getcontractcreation': {
      const raw = str(f, 'contractaddresses') ?? '';
      const addresses = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
      if (addresses.length === 0) return notOk('Missing contractaddresses parameter');
      if (addresses.length > MAX_CREATION_LOOKUPS) return notOk(`At most ${MAX_CREATION_LOOKUPS} contractaddresses per request`);
      const out = [];
      for (const a of addresses) {
        const address = parseAddress(a, 'contractaddresses');
        const c = await deps.store.contractCreation(address);
        if (c !== undefined) out.push({ contractAddress: address, contractCreator: c.contractCreator, txHash: c.txHash, blockNumber: c.blockNumber.toString(), ...(c.contractFactory === undefined ? {} : { contractFactory: c.contractFactory }) });
      }
      return out.length === 0 ? notOk(null, 'No data found') : ok(out);
    }
    default:
      return notOk(null, action === undefined ? 'Missing action parameter' : `Unknown action ${action}`);
  }
}

async function fields(req: RequestCtx, deps: ApiDeps): Promise<Fields> {
  const out: Fields = Object.fromEntries(req.url.searchParams);
  if (req.method === 'POST') {
    // The action may be a body field, so the body is read; with verification off only as much as the read
    // actions need.
    const body = await req.body(deps.ctx.enabled ? undefined : DISABLED_BODY_BYTES);
    for (const [k, v] of Object.entries(parseFields(body, req.headers['content-type']))) {
      out[k] = typeof v === 'string' ? v : JSON.stringify(v);
    }
  }
  return out;
}

export function etherscanRoutes(deps: ApiDeps): Route[] {
  return [
    {
      methods: ['GET', 'POST'],
      path: /^\/api\/?$/,
      async handle(req) {
        return dispatch(deps, await fields(req, deps), req.client);
      },
      // Etherscan's clients read the answer's fields, not the HTTP status.
      onError: (e: VerifyError) => notOk(e.message),
    },
  ];
}
