// Builds the canister wasm (src/devnet/build.ts).
// Usage: tsx scripts/build.ts [--if-stale] [--update-candid]
import { build, isStale } from '../src/devnet/build.js';

const args = new Set(process.argv.slice(2));
if (args.has('--if-stale') && !isStale()) {
  console.log('build: canister wasm is up to date');
} else {
  build({ writeDid: args.has('--update-candid') });
}
