// `npm run bench`: prints one JSON object per line, {"name", "value", "unit"}, and keeps the run in
// bench/results/latest.jsonl. Every figure comes from the host's instruction counter on the real wasm
// (or, for throughput, from wall time on this machine; bench/rpc.ts measures JSON-RPC against `npm start` and
// anvil side by side).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchEvm } from '../bench/evm.js';
import { benchIndexer } from '../bench/indexer.js';
import { benchExplorerPages } from '../bench/explorer_pages.js';
import { benchLifecycle } from '../bench/lifecycle.js';
import { benchReadApi } from '../bench/read_api.js';
import { benchRpc } from '../bench/rpc.js';
import { ROOT } from './build.js';

const lines: string[] = [];
const report = (name: string, value: number | bigint, unit: string): void => {
  const line = JSON.stringify({ name, value: typeof value === 'bigint' ? Number(value) : value, unit });
  lines.push(line);
  console.log(line);
};

const started = Date.now();
await benchEvm(report);
await benchLifecycle(report);
await benchReadApi(report);
await benchRpc(report);
await benchIndexer(report);
await benchExplorerPages(report);
const dir = join(ROOT, 'bench', 'results');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'latest.jsonl'), `${lines.join('\n')}\n`);
console.error(`bench: ${lines.length} figures in ${((Date.now() - started) / 1000).toFixed(0)} s -> bench/results/latest.jsonl`);
