// The byte budget of one response: an HTTP body or a WebSocket message's answer, shared by a batch's items. Each
// item's answer is serialized on its own and charged; an item whose answer no longer fits is answered -32005
// instead, so a batch of large answers cannot make the gateway hold (or try to build one string of) more than
// the budget. Methods that read large answers (eth_getLogs) look at what remains before reading.
import { RpcCode, RpcError } from './errors.js';

export class ResponseBudget {
  private used = 0;
  constructor(readonly limit: number) {}

  get remaining(): number {
    return Math.max(0, this.limit - this.used);
  }

  /** Charges `bytes`; false (nothing charged) when they do not fit. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }
}

export const responseTooLarge = (limit: number): RpcError =>
  new RpcError(
    RpcCode.LimitExceeded,
    `response too large: the answers of one request or batch hold at most ${limit} bytes (RPC_GATEWAY_MAX_RESPONSE_BYTES); split the batch or narrow the request`,
  );
