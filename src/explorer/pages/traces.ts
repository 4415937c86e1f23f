// Traces for the transaction page's tabs: geth's callTracer and prestateTracer (diffMode) run on demand through
// the gateway's debug_traceTransaction, which re-runs the transaction in stock EthereumJS on the archive's state
// (docs/traces.md). Each is bounded three ways: the tracer's own timeout, the size of the answer read from the
// gateway, and how many run at once (a page view costs a block's re-execution, so a crawler cannot queue many).
// Every failure becomes a message for the page, never an error page: no archive, not archived yet, too large,
// too slow, busy.
import { html, type Html } from './html.js';
import type { PagesDeps } from './common.js';

/** The tracer's time limit, as geth's `timeout` option (a Go duration). */
export const TRACE_TIMEOUT = '5s';
/** The largest trace answer read from the gateway; past it the page says the trace is too large. */
export const TRACE_MAX_BYTES = 4 * 1024 * 1024;
/** Traces running at once from this explorer, and waiting for a turn; past both the page says to retry. */
export const TRACE_CONCURRENCY = 2;
export const TRACE_MAX_WAITING = 8;

export type TraceAnswer<T> = { readonly ok: true; readonly result: T } | { readonly ok: false; readonly status: number; readonly message: Html };

let running = 0;
const waiting: (() => void)[] = [];

async function withTurn<T>(f: () => Promise<T>): Promise<T | 'busy'> {
  if (running >= TRACE_CONCURRENCY) {
    if (waiting.length >= TRACE_MAX_WAITING) return 'busy';
    await new Promise<void>((r) => waiting.push(r));
  } else {
    running++;
  }
  try {
    return await f();
  } finally {
    // The turn passes straight to the next waiter (running stays counted), or is given back.
    const next = waiting.shift();
    if (next !== undefined) next();
    else running--;
  }
}

/** What the page says for a failed trace request (the gateway's words where they help, never a stack). */
export function traceFailure(e: unknown): { status: number; message: Html } {
  const err = e as { code?: unknown; message?: unknown; name?: unknown };
  const msg = typeof err.message === 'string' ? err.message.slice(0, 300) : '';
  if (err.code === -32601) {
    return {
      status: 200,
      message: html`Traces need the archive: the gateway this explorer reads has none (<code>npm start</code> runs one; a standalone gateway needs <code>RPC_GATEWAY_ARCHIVE_DATABASE_URL</code>).`,
    };
  }
  if (err.code === 'response_too_large' || /larger than|too large/i.test(msg)) {
    return { status: 200, message: html`This transaction's trace is too large to show here (over ${Math.round(TRACE_MAX_BYTES / 1024 / 1024)} MiB). Ask the gateway for it with <code>debug_traceTransaction</code>.` };
  }
  if (/execution timeout/i.test(msg) || err.name === 'TimeoutError' || err.name === 'AbortError') {
    return { status: 200, message: html`Tracing this transaction took longer than ${TRACE_TIMEOUT} and was stopped. Ask the gateway with <code>debug_traceTransaction</code> and a longer <code>timeout</code>.` };
  }
  if (/state unavailable|not followed|has not/i.test(msg)) {
    return { status: 200, message: html`The archive has not re-executed this transaction's block yet: ${msg}. Reload in a moment.` };
  }
  if (typeof err.code === 'number') return { status: 200, message: html`The gateway could not trace this transaction: ${msg}` };
  // A transport failure or an answer that is not JSON: the cause goes to the log, not to the page.
  console.error('explorer: trace request failed:', e);
  return { status: 502, message: html`The gateway did not answer the trace request. Try again in a moment.` };
}

/** debug_traceTransaction with one native tracer, bounded; null when the gateway does not know the transaction. */
export async function fetchTrace<T>(deps: PagesDeps, txHash: string, tracer: string, tracerConfig: Record<string, unknown>): Promise<TraceAnswer<T | null>> {
  const r = await withTurn(async (): Promise<TraceAnswer<T | null>> => {
    try {
      const result = (await deps.rpc('debug_traceTransaction', [txHash, { tracer, tracerConfig, timeout: TRACE_TIMEOUT }], { maxBytes: TRACE_MAX_BYTES, timeoutMs: 30_000 })) as T | null;
      return { ok: true, result };
    } catch (e) {
      return { ok: false, ...traceFailure(e) };
    }
  });
  if (r === 'busy') return { ok: false, status: 503, message: html`The explorer is tracing other transactions right now; reload in a moment.` };
  return r;
}
