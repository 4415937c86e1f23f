// JSON-RPC 2.0 envelopes: depth check on the raw text before parsing, single and batch requests,
// notifications (no `id`: executed, never answered), and the dispatch through the method table.
import { CanisterCallError } from '../client/errors.js';
import { TraceError } from '../archive/trace/types.js';
import { responseTooLarge, ResponseBudget } from './budget.js';
import { fromCanisterError, INTERNAL_MESSAGE, RpcCode, RpcError } from './errors.js';
import { DEV_METHOD_TABLE } from './methods/dev_table.js';
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
  // A trace that could not be made (bad config, timeout, too large, refused transaction): the one mapping.
  if (e instanceof TraceError) return fromCanisterError({ code: e.code, message: e.message, data: [] }, ctx.log);
  // Ingress refused by the canister's inspection with a service error code: the method's own answer.
  if (e instanceof CanisterCallError && e.refusal !== undefined) return fromCanisterError({ code: e.refusal.code, message: e.refusal.message, data: [] }, ctx.log);
  // A canister reject or trap, a transport failure, or a bug: log the detail, answer a fixed message.
  if (e instanceof CanisterCallError) ctx.log(`${method}: canister call failed: ${e.message}`);
  else ctx.log(`${method}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  return new RpcError(RpcCode.Internal, INTERNAL_MESSAGE);
}

type Parsed = { answer: RpcResponse } | { single: unknown } | { batch: unknown[] };

/** Depth, JSON and batch-shape checks of a whole body: an immediate answer, or what to run. */
function parseBody(text: string, ctx: MethodContext): Parsed {
  if (jsonDepthExceeds(text, ctx.config.maxJsonDepth)) {
    return { answer: errorResponse(null, new RpcError(RpcCode.InvalidRequest, `invalid request: JSON nesting deeper than ${ctx.config.maxJsonDepth}`)) };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { answer: errorResponse(null, new RpcError(RpcCode.ParseError, 'parse error: the body is not valid JSON')) };
  }
  if (!Array.isArray(body)) return { single: body };
  if (body.length === 0) return { answer: errorResponse(null, new RpcError(RpcCode.InvalidRequest, 'invalid request: empty batch')) };
  if (body.length > ctx.config.maxBatchLen) {
    return { answer: errorResponse(null, new RpcError(RpcCode.InvalidRequest, `invalid request: batch of ${body.length} requests, at most ${ctx.config.maxBatchLen}`)) };
  }
  return { batch: body };
}

/**
 * A whole HTTP body. Returns the JSON to send, or undefined when nothing is answered (only notifications).
 */
export async function handleBody(text: string, ctx: MethodContext): Promise<RpcResponse | RpcResponse[] | undefined> {
  const p = parseBody(text, ctx);
  if ('answer' in p) return p.answer;
  if ('single' in p) return handleRequest(p.single, ctx);
  const answers = await mapBounded(p.batch, BATCH_CONCURRENCY, (req) => handleRequest(req, ctx));
  const out = answers.filter((x): x is RpcResponse => x !== undefined);
  return out.length === 0 ? undefined : out;
}

/**
 * One answer as JSON text, charged to the response's budget: an answer past what remains, or one that cannot be
 * serialized at all (past V8's string limit), is answered with an error for its id instead.
 */
function encodeAnswer(a: RpcResponse, budget: ResponseBudget, ctx: MethodContext): string {
  let text: string;
  try {
    text = JSON.stringify(a);
  } catch (e) {
    ctx.log(`answer to id ${String(a.id)} not serializable: ${e instanceof Error ? e.message : String(e)}`);
    return JSON.stringify(errorResponse(a.id, responseTooLarge(budget.limit)));
  }
  // Counted in UTF-16 units, equal to bytes for the ASCII that hex answers are; a string larger than the
  // budget in units is larger in bytes too.
  if (budget.take(text.length)) return text;
  return JSON.stringify(errorResponse(a.id, responseTooLarge(budget.limit)));
}

/**
 * A whole HTTP body or WebSocket message, answered as JSON text within one byte budget
 * (RPC_GATEWAY_MAX_RESPONSE_BYTES) shared by a batch's items; undefined when nothing is answered.
 */
export async function answerBody(text: string, ctx: MethodContext): Promise<string | undefined> {
  const budget = new ResponseBudget(ctx.config.maxResponseBytes);
  const c: MethodContext = { ...ctx, budget };
  const p = parseBody(text, c);
  if ('answer' in p) return encodeAnswer(p.answer, budget, c);
  const one = async (req: unknown): Promise<string | undefined> => {
    const a = await handleRequest(req, c);
    return a === undefined ? undefined : encodeAnswer(a, budget, c);
  };
  if ('single' in p) return one(p.single);
  const parts = (await mapBounded(p.batch, BATCH_CONCURRENCY, one)).filter((x): x is string => x !== undefined);
  return parts.length === 0 ? undefined : `[${parts.join(',')}]`;
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
