// `npm start`: the local devnet on its embedded defaults, with the JSON-RPC gateway on 127.0.0.1:8545.
// Options: --data-dir DIR (or EVM_DEVNET_DIR; default .devnet), --reset (start a new chain).
// The gateway reads SPEC's RPC_GATEWAY_* variables (host, port, limits, CORS, client version).
import { resolve } from 'node:path';
import { devnetBanner, devnetDataDirDefault, startDevnet } from '../src/devnet/index.js';
import { ConfigError, loadConfig, type GatewayConfig } from '../src/gateway/config.js';
import { installLastResortHandler } from '../src/gateway/server.js';
import { ROOT } from './build.js';

function parseArgs(argv: string[]): { dataDir: string; reset: boolean } {
  let dataDir = process.env.EVM_DEVNET_DIR ?? devnetDataDirDefault(ROOT);
  let reset = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--reset') reset = true;
    else if (a === '--data-dir' && argv[i + 1] !== undefined) dataDir = argv[++i]!;
    else if (a.startsWith('--data-dir=')) dataDir = a.slice('--data-dir='.length);
    else {
      console.error(`start: unknown option ${a}\nusage: npm start -- [--data-dir DIR] [--reset]`);
      process.exit(2);
    }
  }
  return { dataDir: resolve(dataDir), reset };
}

const { dataDir, reset } = parseArgs(process.argv.slice(2));
let gateway: GatewayConfig;
// An error that escapes every handler is logged; the devnet keeps serving (issue 11, item 8).
installLastResortHandler();

try {
  gateway = loadConfig(process.env);
} catch (e) {
  console.error(e instanceof ConfigError ? `start: configuration error: ${e.message}` : String(e));
  process.exit(2);
}
const devnet = await startDevnet({ dataDir, reset, gateway }).catch((e: unknown) => {
  const code = (e as { code?: string }).code;
  console.error(
    code === 'EADDRINUSE'
      ? `start: ${gateway.host}:${gateway.port} is in use (another devnet?); set RPC_GATEWAY_PORT to use another port`
      : `start: ${(e as Error).message}`,
  );
  process.exit(1);
});
console.log(devnetBanner(devnet, dataDir));
console.log('Blocks are mined every 2 s while transactions are pending (each logged with its instructions). Ctrl-C stops; state is kept.');

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  void devnet.stop().then(() => {
    console.log('\nstopped; state kept in', dataDir);
    process.exit(0);
  });
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
