// JSON-RPC 2.0 envelopes: depth check on the raw text before parsing, single and batch requests,
// notifications (no `id`: executed, never answered), and the dispatch through the method table.
import { CanisterCallError } from '../client/errors.js';
import { fromCanisterError, INTERNAL_MESSAGE, RpcCode, RpcError } from './errors.js';
import { DEV_METHOD_TABLE } from './methods/dev.js';
import { METHOD_TABLE, UNSUPPORTED, type MethodContext } from './methods/index.js';

export type RpcId = string | number | null;
export interface RpcResponse {
  jsonrpc: '2.0';
  id: RpcId;
  result?: unknown;
  error?: { code: number; message: string; data?: string };
}

/**
 * Nesting depth of a JSON text (arrays and objects), found by scanning the raw characters, so that a deeply
 * nested body is refused before JSON.parse builds it. Brackets inside strings do not count. Returns early
 * once `limit` is passed.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

const errorResponse = (id: RpcId, e: RpcError): RpcResponse => ({ jsonrpc: '2.0', id, error: e.toJSON() });

function validId(v: unknown): v is RpcId {
  return v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

/** One request object; undefined for a notification. */
export async function handleRequest(req: unknown, ctx: MethodContext): Promise<RpcResponse | undefined> {
  if (typeof req !== 'object' || req === null || Array.isArray(req)) {
    return errorResponse(null, new RpcError(RpcCode.InvalidRequest, 'invalid request: expected a JSON-RPC 2.0 request object'));
  }
  const r = req as Record<string, unknown>;
  const isNotification = !('id' in r);
  const id: RpcId = validId(r.id) ? r.id : null;
  if ('id' in r && !validId(r.id)) {
    return errorResponse(null, new RpcError(RpcCode.InvalidRequest, 'invalid request: id must be a string, a number or null'));
  }
  if (r.jsonrpc !== '2.0') return errorResponse(id, new RpcError(RpcCode.InvalidRequest, 'invalid request: jsonrpc must be "2.0"'));
  if (typeof r.method !== 'string') return errorResponse(id, new RpcError(RpcCode.InvalidRequest, 'invalid request: method must be a string'));
  if (r.params !== undefined && (typeof r.params !== 'object' || r.params === null)) {
    return errorResponse(id, new RpcError(RpcCode.InvalidRequest, 'invalid request: params must be an array'));
  }
  let response: RpcResponse;
  try {
    const spec = METHOD_TABLE.get(r.method) ?? DEV_METHOD_TABLE.get(r.method);
    if (spec === undefined) {
      const why = UNSUPPORTED[r.method];
      throw new RpcError(
        RpcCode.MethodNotFound,
        why === undefined
          ? `the method ${r.method} does not exist/is not available`
          : `the method ${r.method} is not supported by this service: ${why}`,
      );
    }
    if (r.params !== undefined && !Array.isArray(r.params)) {
      throw new RpcError(RpcCode.InvalidParams, `${r.method}: params must be an array (positional)`);
    }
    response = { jsonrpc: '2.0', id, result: await spec.handler(r.params, ctx) };
  } catch (e) {
    response = errorResponse(id, toRpcError(e, r.method, ctx));
  }
  return isNotification ? undefined : response;
}

function toRpcError(e: unknown, method: string, ctx: MethodContext): RpcError {
  if (e instanceof RpcError) return e;
  // Ingress refused by the canister's inspection with a service error code: the method's own answer.
  if (e instanceof CanisterCallError && e.refusal !== undefined) return fromCanisterError({ code: e.refusal.code, message: e.refusal.message, data: [] }, ctx.log);
  // A canister reject or trap, a transport failure, or a bug: log the detail, answer a fixed message.
  if (e instanceof CanisterCallError) ctx.log(`${method}: canister call failed: ${e.message}`);
  else ctx.log(`${method}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  return new RpcError(RpcCode.Internal, INTERNAL_MESSAGE);
}

/**
 * A whole HTTP body. Returns the JSON to send, or undefined when nothing is answered (only notifications).
 */
export async function handleBody(text: string, ctx: MethodContext): Promise<RpcResponse | RpcResponse[] | undefined> {
  if (jsonDepthExceeds(text, ctx.config.maxJsonDepth)) {
    return errorResponse(null, new RpcError(RpcCode.InvalidRequest, `invalid request: JSON nesting deeper than ${ctx.config.maxJsonDepth}`));
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return errorResponse(null, new RpcError(RpcCode.ParseError, 'parse error: the body is not valid JSON'));
  }
  if (!Array.isArray(body)) return handleRequest(body, ctx);
  if (body.length === 0) return errorResponse(null, new RpcError(RpcCode.InvalidRequest, 'invalid request: empty batch'));
  if (body.length > ctx.config.maxBatchLen) {
    return errorResponse(null, new RpcError(RpcCode.InvalidRequest, `invalid request: batch of ${body.length} requests, at most ${ctx.config.maxBatchLen}`));
  }
  const answers = await mapBounded(body, BATCH_CONCURRENCY, (req) => handleRequest(req, ctx));
  const out = answers.filter((x): x is RpcResponse => x !== undefined);
  return out.length === 0 ? undefined : out;
}

/** Batch items in flight at once: a batch of heavy calls must not hold many canister calls open together. */
export const BATCH_CONCURRENCY = 4;

/** `f` over `xs` with at most `limit` calls in flight; results in input order. */
export async function mapBounded<T, R>(xs: readonly T[], limit: number, f: (x: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(xs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < xs.length) {
      const i = next++;
      out[i] = await f(xs[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, xs.length) }, worker));
  return out;
}
