// The real canister wasm on the wall clock (a block every tick, as the devnet mines) behind the IC HTTP
// interface on a free port, its subnet keys kept in the test's folder: the set-up of the wasm tests that call it
// as a canister on the IC (through the agent, icp-cli or `npm run archive`).
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startIcHttp, SubnetKeys, type IcHttpServer } from '../../src/host/ic_http/index.js';
import { Evm, type InitOptions, type Receipt } from './canister.js';

export interface IcHttpEvm {
  readonly evm: Evm;
  readonly server: IcHttpServer;
  readonly keys: SubnetKeys;
  /** Closes the server and the canister and removes `dir`. */
  close(): Promise<void>;
}

export async function startIcHttpEvm(dir: string, init: InitOptions): Promise<IcHttpEvm> {
  mkdirSync(dir, { recursive: true });
  const keys = SubnetKeys.loadOrCreate(join(dir, 'ic-keys.json'));
  const evm = await Evm.start(init, { clock: 'wall', wallTickMs: 20 });
  let server: IcHttpServer;
  try {
    server = await startIcHttp({ host: evm.host, keys, port: 0 });
  } catch (e) {
    evm.close();
    throw e;
  }
  return {
    evm,
    server,
    keys,
    async close() {
      await server.close();
      evm.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until the wall-clock miner includes the transaction: its receipt. */
export async function minedReceipt(evm: Evm, txId: Uint8Array, timeoutMs = 10_000): Promise<Receipt> {
  for (const end = Date.now() + timeoutMs; Date.now() < end; ) {
    const r = evm.receipt(txId);
    if (r !== undefined) return r;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`not mined within ${timeoutMs / 1000} s`);
}
