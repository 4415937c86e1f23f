// A JSON-RPC client over a WebSocket for the gateway's tests: every message received is kept in `msgs`
// (answers and subscription notifications), and `call` sends a request (ids 1, 2, ... per connection) and
// waits for its answer.
import WebSocket from 'ws';

export interface WsClient {
  readonly ws: WebSocket;
  readonly msgs: any[];
  call(method: string, params?: unknown[]): Promise<any>;
}

/** Opens `url` (http:// is read as ws://) with the given request headers. */
export async function openWs(url: string, headers: Record<string, string> = {}): Promise<WsClient> {
  const ws = new WebSocket(url.replace(/^http/, 'ws'), { headers });
  const msgs: any[] = [];
  ws.on('message', (d) => msgs.push(JSON.parse(d.toString())));
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  let next = 1;
  return {
    ws,
    msgs,
    async call(method, params = []) {
      const id = next++;
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      for (let i = 0; i < 500; i++) {
        const m = msgs.find((x) => x.id === id);
        if (m !== undefined) return m;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`no answer to ${method}`);
    },
  };
}

/** Waits until `cond` holds or `ms` have passed (the caller asserts what it needs afterwards). */
export async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}
