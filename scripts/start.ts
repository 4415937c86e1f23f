// `npm start`: the local devnet on its embedded defaults.
// Options: --data-dir DIR (or EVM_DEVNET_DIR; default .devnet), --reset (start a new chain).
import { resolve } from 'node:path';
import { devnetBanner, devnetDataDirDefault, startDevnet } from '../src/devnet/index.js';
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
const devnet = await startDevnet({ dataDir, reset });
console.log(devnetBanner(devnet, dataDir));
console.log('Blocks are mined every 2 s while transactions are pending. Ctrl-C stops; state is kept.');

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  devnet.stop();
  console.log('\nstopped; state kept in', dataDir);
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
// Keep the process alive: the host's wall-clock timer is unref'd.
setInterval(() => {}, 1 << 30);
