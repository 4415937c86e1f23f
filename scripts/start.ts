// `npm start`: the local devnet on its embedded defaults, with the JSON-RPC gateway on 127.0.0.1:8545.
// Options: --data-dir DIR (or EVM_DEVNET_DIR; default .devnet), --reset (start a new chain), --ic-port PORT
// (or EVM_DEVNET_IC_PORT; default 4943: the IC HTTP interface), --fund-ic PRINCIPAL (repeatable: fund the
// submit_ic_tx sender of that IC identity with 100 ETH, once), --block-time N (seconds between blocks; 0 = a block
// as soon as a transaction is accepted; default 2).
// The gateway reads SPEC's RPC_GATEWAY_* variables (host, port, limits, CORS, client version).
// The indexer (src/devnet/indexer.ts) runs beside it into the data folder unless --no-indexer; INDEXER_* apply.
// The archive (src/devnet/archive.ts) re-executes and verifies every block into the same database unless
// --no-archive; the gateway answers state reads below the head from it.
// The explorer (src/devnet/explorer.ts) keeps its tables in the same database and reads the indexer's; EXPLORER_*
// apply (docs/explorer.md), with verification on and every shipped compiler allowed.
import { mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { devnetExplorerConfig } from '../src/devnet/explorer.js';
import { ExplorerConfigError, type ExplorerConfig } from '../src/explorer/config.js';
import { DEFAULT_BLOCK_TIME_S, devnetBanner, devnetDataDirDefault, devnetGatewayConfig, startDevnet } from '../src/devnet/index.js';
import { parseFundPrincipal } from '../src/devnet/fund_ic.js';
import { ConfigError, type GatewayConfig } from '../src/gateway/config.js';
import { devnetArchiveReader, startDevnetArchive, type DevnetArchive } from '../src/devnet/archive.js';
import { devnetIndexerConfig, openDevnetDb, startDevnetIndexer, type DevnetDb, type DevnetIndexer } from '../src/devnet/indexer.js';
import type { IndexerConfig } from '../src/indexer/config.js';
import { installLastResortHandler } from '../src/gateway/server.js';
import { ROOT } from '../src/devnet/build.js';

const USAGE = 'usage: npm start -- [--data-dir DIR] [--reset] [--no-indexer] [--no-archive] [--ic-port PORT] [--block-time SECONDS] [--fund-ic PRINCIPAL]...';

function fail(message: string): never {
  console.error(`start: ${message}\n${USAGE}`);
  process.exit(2);
}

function port(text: string, what: string): number {
  if (!/^[0-9]+$/.test(text) || Number(text) > 65535) fail(`${what}: expected a port number 0..65535, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** Whole seconds, 0 to one day (the canister's timer takes whole seconds). */
function blockTimeArg(text: string): number {
  if (!/^[0-9]{1,5}$/.test(text) || Number(text) > 86_400) fail(`--block-time: whole seconds from 0 (mine each transaction at once) to 86400, got ${JSON.stringify(text)}`);
  return Number(text);
}

function parseArgs(argv: string[]) {
  let dataDir = process.env.EVM_DEVNET_DIR ?? devnetDataDirDefault(ROOT);
  let reset = false;
  let indexer = true;
  let archive = true;
  let icPort = process.env.EVM_DEVNET_IC_PORT === undefined || process.env.EVM_DEVNET_IC_PORT === '' ? 4943 : port(process.env.EVM_DEVNET_IC_PORT, 'EVM_DEVNET_IC_PORT');
  let blockTime = DEFAULT_BLOCK_TIME_S;
  const fundIc = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [name, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = (): string => inline ?? argv[++i] ?? fail(`${name} needs a value`);
    if (name === '--reset' && inline === undefined) reset = true;
    else if (name === '--no-indexer' && inline === undefined) indexer = false;
    else if (name === '--no-archive' && inline === undefined) archive = false;
    else if (name === '--data-dir') dataDir = value();
    else if (name === '--ic-port') icPort = port(value(), '--ic-port');
    else if (name === '--block-time') blockTime = blockTimeArg(value());
    else if (name === '--fund-ic') {
      try {
        fundIc.push(parseFundPrincipal(value()));
      } catch (e) {
        fail((e as Error).message);
      }
    } else fail(`unknown option ${a}`);
  }
  return { dataDir: resolve(dataDir), reset, indexer, archive, icPort, fundIc, blockTime };
}

const { dataDir, reset, indexer: withIndexer, archive: withArchive, icPort, fundIc, blockTime } = parseArgs(process.argv.slice(2));
let gateway: GatewayConfig;
// An error that escapes every handler is logged; the devnet keeps serving.
installLastResortHandler();
let indexerConfig: IndexerConfig;
let explorer: ExplorerConfig;
try {
  gateway = devnetGatewayConfig(process.env);
  // The database's place comes from the indexer's configuration even with --no-indexer: the explorer uses it.
  indexerConfig = devnetIndexerConfig(dataDir);
  explorer = devnetExplorerConfig(process.env);
} catch (e) {
  console.error(e instanceof ConfigError || e instanceof ExplorerConfigError ? `start: configuration error: ${e.message}` : String(e));
  process.exit(2);
}
// --reset deletes the data folder before anything in it (the database included) is opened.
if (reset) rmSync(dataDir, { recursive: true, force: true });
mkdirSync(dataDir, { recursive: true });
let db: DevnetDb;
try {
  db = await openDevnetDb(indexerConfig);
} catch (e) {
  console.error(`start: cannot open the indexer's database: ${(e as Error).message}`);
  process.exit(1);
}
const archiveReader = withArchive ? devnetArchiveReader(db.db) : undefined;
const devnet = await startDevnet({ dataDir, gateway, icPort, fundIc, blockTime, explorer: { config: explorer, db: db.db }, ...(archiveReader === undefined ? {} : { archive: archiveReader }) }).catch(async (e: unknown) => {
  await db.db.close();
  const err = e as { code?: string; port?: number };
  console.error(
    err.code === 'EADDRINUSE'
      ? err.port === icPort
        ? `start: 127.0.0.1:${icPort} (the IC HTTP interface) is in use (another devnet or replica?); use --ic-port to pick another port`
        : err.port === explorer.port
          ? `start: ${explorer.host}:${explorer.port} is in use (another explorer or Blockscout?); set EXPLORER_PORT to use another port`
          : `start: ${gateway.host}:${gateway.port} is in use (another devnet?); set RPC_GATEWAY_PORT to use another port`
      : `start: ${(e as Error).message}`,
  );
  process.exit(1);
});
// The banner first: the gateway already answers (clients and tests read the banner as soon as it does).
console.log(devnetBanner(devnet, dataDir));
const indexer: DevnetIndexer | undefined = withIndexer ? startDevnetIndexer({ evm: devnet.evm, config: indexerConfig, db: db.db, log: (l) => console.log(l), dev: devnet.dev }) : undefined;
console.log(indexer === undefined ? `Indexer: off (--no-indexer); database ${db.where}` : `Indexer: ${db.where}`);
const archive: DevnetArchive | undefined = archiveReader === undefined ? undefined : startDevnetArchive({ evm: devnet.evm, db: db.db, reader: archiveReader, log: (l) => console.log(l), dev: devnet.dev });
console.log(
  archive === undefined
    ? 'Archive: off (--no-archive); reads below the head are -32000 state unavailable'
    : `Archive: every block re-executed with stock EthereumJS and checked against the canister; state at any block it holds for eth_getBalance/getTransactionCount/getCode/getStorageAt/call/estimateGas (tables beside the indexer's in its database)`,
);
console.log(
  `${blockTime === 0 ? 'Automine: each transaction is mined as soon as it is accepted' : `Blocks are mined every ${blockTime} s while transactions are pending`}; each block is logged with its instructions. Dev methods: evm_mine, evm_setAutomine, evm_snapshot/evm_revert, evm_increaseTime, evm_setNextBlockTimestamp. Ctrl-C stops; state is kept.`,
);

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  void (indexer?.stop() ?? Promise.resolve())
    .then(() => archive?.stop())
    .then(() => devnet.stop())
    .then(() => db.db.close())
    .then(() => {
    console.log('\nstopped; state kept in', dataDir);
    process.exit(0);
  });
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
