// `npm run explorer`: the explorer on its own, against the indexer's PostgreSQL database
// (INDEXER_DATABASE_URL; an embedded PGlite folder is held by the process that opened it, so the standalone
// explorer needs a server) and a gateway (EXPLORER_RPC_URL). Variables: docs/explorer.md.
import { describeDbUrl, openDb } from '../indexer/db.js';
import { ExplorerConfigError, loadExplorerConfig, PreflightError } from './config.js';
import { startExplorer } from './index.js';

const fail = (msg: string, code: number): never => {
  console.error(`explorer: ${msg}`);
  process.exit(code);
};

let config;
try {
  config = loadExplorerConfig(process.env);
} catch (e) {
  fail(e instanceof ExplorerConfigError ? `configuration error: ${e.message}` : String(e), 2);
}
const url = process.env.INDEXER_DATABASE_URL?.trim();
if (url === undefined || url === '') fail('INDEXER_DATABASE_URL is required (the indexer\'s PostgreSQL database, e.g. postgres://postgres@127.0.0.1:5432/icp_evm)', 2);
const db = await openDb({ url: url! }).catch((e: unknown) => fail(`cannot open ${describeDbUrl(url!)}: ${(e as Error).message}`, 1));
const explorer = await startExplorer({ config: config!, db, log: (l) => console.error(l) }).catch(async (e: unknown) => {
  await db.close();
  const err = e as { code?: string };
  if (e instanceof PreflightError) return fail(`preflight: ${e.message}`, 1);
  if (err.code === 'EADDRINUSE') return fail(`${config!.host}:${config!.port} is in use; set EXPLORER_PORT to use another port`, 1);
  return fail((e as Error).message, 1);
});
console.log(`explorer: ${explorer.url} on ${describeDbUrl(url!)}, chain code from ${config!.rpcUrl}`);
console.log(`verification: ${explorer.verifier === undefined ? 'off (EXPLORER_VERIFY_ENABLED=1 switches it on)' : `on; compilers ${explorer.compilers.map((c) => c.longVersion).join(', ')}`}`);

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  void explorer
    .close()
    .then(() => db.close())
    .then(() => {
      console.log('explorer: stopped');
      process.exit(0);
    });
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
