// Entry of every npm script (plain Node, no dependencies, so it works on a fresh clone):
//   1. installs the locked dependencies when node_modules is missing or older than package-lock.json
//      (.npmrc sets ignore-scripts: azle's install script needs dfx and writes outside the project);
//   2. points TMPDIR into the project (node_modules/.cache/icp-evm/tmp), so tools that cache in the OS temp
//      folder (tsx, esbuild) write nothing outside the project;
//   3. runs the given command with the project's node_modules/.bin on PATH and passes its exit code on.
// Usage: node scripts/run.mjs <command> [args...]
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'node_modules', '.install-stamp');
const lockHash = createHash('sha256').update(readFileSync(join(root, 'package-lock.json'))).digest('hex');

if (!existsSync(stamp) || readFileSync(stamp, 'utf8').trim() !== lockHash) {
  console.log('setup: installing dependencies (npm ci)...');
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error('setup: npm ci failed');
    process.exit(r.status ?? 1);
  }
  writeFileSync(stamp, `${lockHash}\n`);
}

const [command, ...args] = process.argv.slice(2);
if (command === undefined) process.exit(0);
const tmp = join(root, 'node_modules', '.cache', 'icp-evm', 'tmp');
mkdirSync(tmp, { recursive: true });
const env = { ...process.env, TMPDIR: tmp, PATH: `${join(root, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}` };
const child = spawn(command, args, { cwd: root, stdio: 'inherit', env });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 1)));
