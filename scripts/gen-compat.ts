// Writes docs/compatibility.md from the gateway's method table. `--check` exits 1 when the file is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderCompat } from '../src/gateway/compat.js';
import { PROJECT_ROOT } from '../src/host/paths.js';

export const COMPAT_PATH = join(PROJECT_ROOT, 'docs', 'compatibility.md');

const text = renderCompat();
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(COMPAT_PATH, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (current !== text) {
    console.error('docs/compatibility.md is stale: run `npx tsx scripts/gen-compat.ts`');
    process.exit(1);
  }
  console.log('docs/compatibility.md is up to date');
} else {
  writeFileSync(COMPAT_PATH, text);
  console.log(`wrote ${COMPAT_PATH}`);
}
