// `npm run bench`: prints one JSON object per line, {"name", "value", "unit"}, and keeps the run in
// bench/results/latest.jsonl. Every figure comes from the host's instruction counter on the real wasm
// (or, for throughput, from wall time on this machine; bench/rpc.ts measures JSON-RPC against `npm start` and
// anvil side by side).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchEvm } from '../bench/evm.js';
import { benchIndexer } from '../bench/indexer.js';
import { benchArchive } from '../bench/archive.js';
import { benchArchiveCatchUp } from '../bench/archive_catchup.js';
import { benchExplorerPages } from '../bench/explorer_pages.js';
import { benchHarden } from '../bench/harden.js';
import { benchIcHttp } from '../bench/ic_http.js';
import { benchLifecycle } from '../bench/lifecycle.js';
import { benchReadApi } from '../bench/read_api.js';
import { benchRpc } from '../bench/rpc.js';
import { benchDevnetHardhat } from '../bench/devnet_hardhat.js';
import { benchTraces } from '../bench/traces.js';
import { ROOT } from '../src/devnet/build.js';

const lines: string[] = [];
const report = (name: string, value: number | bigint, unit: string): void => {
  const line = JSON.stringify({ name, value: typeof value === 'bigint' ? Number(value) : value, unit });
  lines.push(line);
  console.log(line);
};

// `npm run bench -- --only evm,read_api` runs some groups; such a partial run goes to partial.jsonl, so that
// latest.jsonl always holds one whole run.
const groups: Record<string, (r: typeof report) => Promise<void>> = {
  evm: benchEvm,
  lifecycle: benchLifecycle,
  harden: benchHarden,
  ic_http: benchIcHttp,
  read_api: benchReadApi,
  rpc: benchRpc,
  devnet_hardhat: benchDevnetHardhat,
  indexer: benchIndexer,
  archive: benchArchive,
  archive_catchup: benchArchiveCatchUp,
  traces: benchTraces,
  explorer_pages: benchExplorerPages,
};
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt >= 0 ? (process.argv[onlyAt + 1] ?? '').split(',').filter((g) => g !== '') : undefined;
const unknown = (only ?? []).filter((g) => !(g in groups));
if (only !== undefined && (only.length === 0 || unknown.length > 0)) {
  console.error(`bench: --only takes a comma-separated list of ${Object.keys(groups).join(', ')}${unknown.length > 0 ? ` (unknown: ${unknown.join(', ')})` : ''}`);
  process.exit(2);
}

const started = Date.now();
for (const [name, run] of Object.entries(groups)) if (only === undefined || only.includes(name)) await run(report);
const dir = join(ROOT, 'bench', 'results');
const file = only === undefined ? 'latest.jsonl' : 'partial.jsonl';
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, file), `${lines.join('\n')}\n`);
console.error(`bench: ${lines.length} figures in ${((Date.now() - started) / 1000).toFixed(0)} s -> bench/results/${file}`);
