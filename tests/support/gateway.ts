// The gateway in front of the real canister wasm for the wasm tests: an IcHost on the manual clock, the
// gateway on an ephemeral port, and an auto-miner that moves the clock one mining interval whenever
// transactions are pending (so clients that poll for receipts see blocks within ~100 ms of wall time).
import { devAccounts, DEV_ACCOUNT_BALANCE, type DevAccount } from '../../src/devnet/accounts.js';
import { DEFAULT_CONFIG, type GatewayConfig } from '../../src/gateway/config.js';
import { startGateway, type Gateway } from '../../src/gateway/server.js';
import { Evm, type InitOptions } from './canister.js';

export interface GatewayHarness {
  readonly evm: Evm;
  readonly gateway: Gateway;
  readonly url: string;
  readonly accounts: readonly DevAccount[];
  /** Internal errors the gateway logged (tests assert none leaked and inspect them). */
  readonly internalLog: string[];
  /** Mines until nothing is pending (at most `max` blocks). */
  mineAll(max?: number): Promise<void>;
  close(): Promise<void>;
}

const hexBytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));

export async function startGatewayHarness(
  o: { init?: InitOptions; config?: Partial<GatewayConfig>; autoMineMs?: number } = {},
): Promise<GatewayHarness> {
  const accounts = devAccounts();
  const evm = await Evm.start({
    genesis: accounts.map((a) => ({ address: hexBytes(a.address), balance: DEV_ACCOUNT_BALANCE })),
    ...o.init,
  });
  const internalLog: string[] = [];
  const gateway = await startGateway({
    config: { ...DEFAULT_CONFIG, port: 0, ...o.config },
    client: evm.client,
    log: (m) => internalLog.push(m),
  });
  const pending = (): bigint => evm.query<{ pending_txs: bigint }>('health').pending_txs;
  let busy = false;
  const timer =
    o.autoMineMs === 0
      ? undefined
      : setInterval(() => {
          if (busy || pending() === 0n) return;
          busy = true;
          evm.mine().finally(() => (busy = false));
        }, o.autoMineMs ?? 100);
  return {
    evm,
    gateway,
    url: gateway.url,
    accounts,
    internalLog,
    async mineAll(max = 20) {
      for (let i = 0; i < max && pending() > 0n; i++) await evm.mine();
    },
    async close() {
      if (timer !== undefined) clearInterval(timer);
      await gateway.close();
      evm.close();
    },
  };
}

/** A raw JSON-RPC call (status, parsed body) for tests that check envelopes and errors exactly. */
export async function rpc(url: string, method: string, params: unknown[] = [], id: number | string = 1): Promise<{ result?: any; error?: { code: number; message: string; data?: string } }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) });
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string; data?: string } };
}
