// Where the host and the tests keep generated files: inside the project (node_modules/.cache), never in
// the OS temp folder, so that running the project writes nothing outside its folder.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CACHE_DIR = join(PROJECT_ROOT, 'node_modules', '.cache', 'icp-evm');

/** A fresh temporary folder under the project's cache (tests clean up after themselves). */
export function projectTempDir(prefix: string): string {
  const base = join(CACHE_DIR, 'tmp');
  mkdirSync(base, { recursive: true });
  return mkdtempSync(join(base, prefix));
}
