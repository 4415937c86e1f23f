// Builds the canister wasm (src/devnet/build.ts).
// Usage: tsx scripts/build.ts [--if-stale] [--update-candid] [--prepare]
// --prepare: also prepares the module the Node IC host runs (instrumented and rewritten, cached by the wasm's
// hash; src/host/prepare.ts), once here, so that test workers and devnets started side by side find it cached
// instead of each preparing it (`npm test`).
import { readFileSync } from 'node:fs';
import { build, isStale, WASM_PATH } from '../src/devnet/build.js';
import { prepareWasm } from '../src/host/prepare.js';

const args = new Set(process.argv.slice(2));
if (args.has('--if-stale') && !isStale()) {
  console.log('build: canister wasm is up to date');
} else {
  build({ writeDid: args.has('--update-candid') });
}
if (args.has('--prepare')) {
  const started = Date.now();
  prepareWasm(readFileSync(WASM_PATH), { instrument: true });
  console.log(`build: host module prepared in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
