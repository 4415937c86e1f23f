// The explorer inside `npm start`: verification on with every compiler the project ships (the variables
// still override it), on the devnet's database, reading code through the devnet's gateway.
import type { Db } from '../indexer/db.js';
import { SHIPPED_COMPILERS } from '../explorer/compilers.js';
import { DEFAULT_EXPLORER_CONFIG, loadExplorerConfig, type ExplorerConfig } from '../explorer/config.js';
import { startExplorer, type Explorer } from '../explorer/index.js';
import { rpcGetCode } from '../explorer/verify.js';

/** The devnet's explorer defaults: SPEC's variables over verification on and the whole shipped allow-list. */
export function devnetExplorerConfig(env: Readonly<Record<string, string | undefined>>): ExplorerConfig {
  return loadExplorerConfig(env, { ...DEFAULT_EXPLORER_CONFIG, verifyEnabled: true, allowedCompilers: SHIPPED_COMPILERS.map((c) => c.version) });
}

/**
 * Started before the gateway listens (so the JSON-RPC answering means the explorer answers too); eth_getCode
 * waits for the gateway's URL, so a job resumed at start runs once the gateway is up.
 */
export async function startDevnetExplorer(o: { config: ExplorerConfig; db: Db; rpcUrl: Promise<string>; log: (l: string) => void }): Promise<Explorer> {
  return startExplorer({ config: o.config, db: o.db, log: o.log, getCode: async (address) => rpcGetCode(await o.rpcUrl)(address) });
}
