// The explorer: one HTTP server (EXPLORER_HOST:EXPLORER_PORT, Blockscout's 4000 by default) on the indexer's
// database, serving contract verification through SPEC's API, the Etherscan-compatible /api and Sourcify v2,
// all behind one job queue, and the explorer's pages (./pages), all routes in one table.
import type { Db } from '../indexer/db.js';
import { migrate } from '../indexer/migrate.js';
import { ensureSchema as ensureIndexerSchema } from '../indexer/store.js';
import type { ApiDeps } from './api_common.js';
import { etherscanRoutes } from './api_etherscan.js';
import { sourcifyRoutes } from './api_sourcify.js';
import { specRoutes } from './api_spec.js';
import { CompilerPool, type LoadedCompiler } from './compilers.js';
import { preflight, type ExplorerConfig } from './config.js';
import { startHttp, type ExplorerHttp, type Route } from './http.js';
import { Verifier } from './jobs.js';
import { EXPLORER_COMPONENT, EXPLORER_MIGRATIONS, ExplorerStore } from './store.js';
import { rpcGetCode } from './verify.js';
import { pageRoutes } from './pages/routes.js';
import { CHAIN_ID } from '../core/constants.js';

export interface ExplorerOptions {
  readonly config: ExplorerConfig;
  /** The indexer's database (the explorer keeps its tables there and reads the indexer's). */
  readonly db: Db;
  readonly log?: (line: string) => void;
  /** The gateway's URL when it is known only later (npm start); default config.rpcUrl. */
  readonly rpcUrl?: Promise<string>;
  /** eth_getCode source; default the gateway at config.rpcUrl. */
  readonly getCode?: (address: string) => Promise<string>;
}

export interface Explorer {
  readonly url: string;
  readonly compilers: readonly LoadedCompiler[];
  readonly verifier: Verifier | undefined;
  readonly store: ExplorerStore;
  close(): Promise<void>;
}

/** All routes of the explorer, in the one place a pages module plugs into. */
export function explorerRoutes(deps: ApiDeps, extra: readonly Route[] = []): Route[] {
  return [...specRoutes(deps), ...etherscanRoutes(deps), ...sourcifyRoutes(deps), ...extra];
}

export async function startExplorer(o: ExplorerOptions): Promise<Explorer> {
  const { config } = o;
  // The indexer's tables are read for creation transactions. The indexer owns them and their migrations;
  // asking it to make them current is idempotent, so the explorer can start before (or without) the indexer
  // on a fresh database.
  await ensureIndexerSchema(o.db);
  await migrate(o.db, EXPLORER_COMPONENT, EXPLORER_MIGRATIONS);
  const store = new ExplorerStore(o.db);
  const pool = new CompilerPool({
    compileTimeoutMs: config.limits.compileTimeoutMs,
    memoryMb: config.limits.compileMemoryMb,
    maxIdle: Math.max(2, config.limits.maxConcurrentJobs),
  });
  let compilers: LoadedCompiler[] = [];
  let verifier: Verifier | undefined;
  const getCode = o.getCode ?? rpcGetCode(config.rpcUrl);
  let http: ExplorerHttp | undefined;
  try {
    if (config.verifyEnabled) {
      compilers = await preflight(config.allowedCompilers, pool);
      verifier = new Verifier({ store, pool, compilers, limits: config.limits, getCode, log: o.log });
    }
    const deps: ApiDeps = { ctx: { enabled: config.verifyEnabled, compilers, limits: config.limits }, store, verifier, getCode };
    const pages = pageRoutes({ db: o.db, store, rpcUrl: o.rpcUrl ?? config.rpcUrl, chainId: CHAIN_ID });
    http = await startHttp({ host: config.host, port: config.port, routes: explorerRoutes(deps, pages), maxRequestBytes: config.limits.maxRequestBytes, log: o.log });
    await verifier?.start();
  } catch (e) {
    await http?.close();
    await pool.close();
    throw e;
  }
  const server = http;
  return {
    url: server.url,
    compilers,
    verifier,
    store,
    async close() {
      await server.close();
      await verifier?.close();
      await pool.close();
    },
  };
}
