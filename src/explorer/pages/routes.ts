// The pages as routes of the explorer's HTTP server (src/explorer/http.ts), next to the verification APIs:
// the indexer's database for history, the gateway (JSON-RPC) for head state, the explorer's store for
// verified contracts.
import type { Abi } from 'viem';
import type { Queryable } from '../../indexer/db.js';
import type { Route } from '../http.js';
import type { ExplorerStore } from '../store.js';
import { toPrefixedHex } from '../../gateway/hex.js';
import { answerPage, PAGE_PATH, type PagesDeps, type VerifiedContractInfo } from './index.js';
import { ExplorerQueries } from './queries.js';

/** What one gateway answer may hold (a trace asks for less, through the call's own maxBytes). */
export const RPC_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** The body of a response, read up to maxBytes; past it the read is cancelled and a `response_too_large` Error thrown. */
async function boundedText(res: Response, maxBytes: number): Promise<string> {
  const reader = res.body?.getReader();
  if (reader === undefined) return '';
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw Object.assign(new Error(`the gateway's answer is larger than ${maxBytes} bytes`), { code: 'response_too_large', maxBytes });
    }
    parts.push(value);
  }
  return Buffer.concat(parts).toString('utf8');
}

/**
 * A JSON-RPC call to the gateway, bounded in time and in the size of its answer; an error answer becomes an
 * Error with code and data.
 */
export function gatewayRpc(url: string | Promise<string>, timeoutMs = 15_000): PagesDeps['rpc'] {
  let id = 0;
  return async (method, params, opts) => {
    const res = await fetch(await url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      signal: AbortSignal.timeout(opts?.timeoutMs ?? timeoutMs),
    });
    const body = JSON.parse(await boundedText(res, opts?.maxBytes ?? RPC_MAX_RESPONSE_BYTES)) as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
    if (body.error !== undefined) throw Object.assign(new Error(body.error.message), { code: body.error.code, data: body.error.data });
    return body.result;
  };
}

export function verifiedFromStore(store: ExplorerStore): PagesDeps['verified'] {
  return async (address: Uint8Array): Promise<VerifiedContractInfo | undefined> => {
    const c = await store.getContract(toPrefixedHex(address));
    if (c === undefined) return undefined;
    const sources = Object.fromEntries(Object.entries(c.input.sources).map(([path, s]) => [path, s.content]));
    return {
      contractName: c.contractName,
      compilerVersion: c.compilerVersion,
      match: c.runtimeMatch,
      abi: c.abi as Abi,
      sources,
      settings: c.input.settings,
      verifiedAt: c.verifiedAt.toISOString(),
    };
  };
}

/** `rpcUrl` may be a promise: in npm start the gateway's port is known only once it listens. */
export function pageRoutes(o: { db: Queryable; store: ExplorerStore; rpcUrl: string | Promise<string>; chainId: bigint }): Route[] {
  const deps: PagesDeps = { db: o.db, rpc: gatewayRpc(o.rpcUrl), chainId: o.chainId, verified: verifiedFromStore(o.store) };
  const q = new ExplorerQueries(o.db);
  return [
    {
      methods: ['GET'],
      path: PAGE_PATH,
      async handle(req) {
        const a = await answerPage(deps, q, req.url);
        return a ?? { status: 404, body: 'not found', contentType: 'text/plain; charset=utf-8' };
      },
    },
  ];
}
