// Plain Node, no dependencies: runs before `npm test` / `npm start` on a fresh clone and installs the
// locked dependencies when node_modules is missing or older than package-lock.json.
// (.npmrc sets ignore-scripts: azle's install script needs dfx and writes outside the project.)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'node_modules', '.install-stamp');
const lockHash = createHash('sha256').update(readFileSync(join(root, 'package-lock.json'))).digest('hex');

if (!existsSync(stamp) || readFileSync(stamp, 'utf8').trim() !== lockHash) {
  console.log('bootstrap: installing dependencies (npm ci)...');
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error('bootstrap: npm ci failed');
    process.exit(r.status ?? 1);
  }
  writeFileSync(stamp, `${lockHash}\n`);
}
