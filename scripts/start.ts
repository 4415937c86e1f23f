// `npm start`: the local devnet on its embedded defaults, with the JSON-RPC gateway on 127.0.0.1:8545.
// Options: --data-dir DIR (or EVM_DEVNET_DIR; default .devnet), --reset (start a new chain),
// --block-time N (seconds between blocks; 0 = a block as soon as a transaction is accepted; default 2).
// The gateway reads SPEC's RPC_GATEWAY_* variables (host, port, limits, CORS, client version).
import { resolve } from 'node:path';
import { DEFAULT_BLOCK_TIME_S, devnetBanner, devnetDataDirDefault, startDevnet } from '../src/devnet/index.js';
import { ConfigError, loadConfig, type GatewayConfig } from '../src/gateway/config.js';
import { ROOT } from './build.js';

const USAGE = 'usage: npm start -- [--data-dir DIR] [--reset] [--block-time SECONDS]';

/** Whole seconds, 0 to one day (the canister's timer takes whole seconds). */
function blockTimeArg(v: string | undefined): number {
  const n = v !== undefined && /^\d{1,5}$/.test(v) ? Number(v) : NaN;
  if (!(n >= 0 && n <= 86_400)) {
    console.error(`start: --block-time takes whole seconds from 0 (mine each transaction at once) to 86400\n${USAGE}`);
    process.exit(2);
  }
  return n;
}

function parseArgs(argv: string[]): { dataDir: string; reset: boolean; blockTime: number } {
  let dataDir = process.env.EVM_DEVNET_DIR ?? devnetDataDirDefault(ROOT);
  let reset = false;
  let blockTime = DEFAULT_BLOCK_TIME_S;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--reset') reset = true;
    else if (a === '--block-time') blockTime = blockTimeArg(argv[++i]);
    else if (a.startsWith('--block-time=')) blockTime = blockTimeArg(a.slice('--block-time='.length));
    else if (a === '--data-dir' && argv[i + 1] !== undefined) dataDir = argv[++i]!;
    else if (a.startsWith('--data-dir=')) dataDir = a.slice('--data-dir='.length);
    else {
      console.error(`start: unknown option ${a}\n${USAGE}`);
      process.exit(2);
    }
  }
  return { dataDir: resolve(dataDir), reset, blockTime };
}

const { dataDir, reset, blockTime } = parseArgs(process.argv.slice(2));
let gateway: GatewayConfig;
try {
  gateway = loadConfig(process.env);
} catch (e) {
  console.error(e instanceof ConfigError ? `start: configuration error: ${e.message}` : String(e));
  process.exit(2);
}
const devnet = await startDevnet({ dataDir, reset, gateway, blockTime }).catch((e: unknown) => {
  const code = (e as { code?: string }).code;
  console.error(
    code === 'EADDRINUSE'
      ? `start: ${gateway.host}:${gateway.port} is in use (another devnet?); set RPC_GATEWAY_PORT to use another port`
      : `start: ${(e as Error).message}`,
  );
  process.exit(1);
});
console.log(devnetBanner(devnet, dataDir));
console.log(
  `${blockTime === 0 ? 'Automine: each transaction is mined as soon as it is accepted' : `Blocks are mined every ${blockTime} s while transactions are pending`}; each block is logged with its instructions. Dev methods: evm_mine, evm_setAutomine, evm_snapshot/evm_revert, evm_increaseTime, evm_setNextBlockTimestamp. Ctrl-C stops; state is kept.`,
);

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
