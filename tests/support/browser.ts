// Headless Chromium for the browser tests: Debian's package (/usr/bin/chromium), installed with apt-get when it
// is missing and this process may install (root, apt-get present); otherwise a reason to print for the skip.
// Started with the flags this machine needs (no background networking: the network is closed); Playwright keeps
// its fresh profile in TMPDIR, which scripts/run.mjs points inside the project.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The browser binary's path, or why there is none. */
export function ensureChromium(): { path: string } | { reason: string } {
  if (existsSync(CHROMIUM)) return { path: CHROMIUM };
  if (process.platform !== 'linux') return { reason: `no Chromium at ${CHROMIUM} (install it, or set CHROMIUM_PATH)` };
  if (process.getuid?.() !== 0) return { reason: `no Chromium at ${CHROMIUM} and not root to install Debian's chromium package` };
  const has = spawnSync('sh', ['-c', 'command -v apt-get'], { encoding: 'utf8' });
  if (has.status !== 0) return { reason: `no Chromium at ${CHROMIUM} and no apt-get to install it` };
  console.log('browser tests: installing Debian chromium (apt-get)...');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env, timeout: 300_000 });
  const install = spawnSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env, timeout: 600_000 });
  if (update.status !== 0 || install.status !== 0 || !existsSync(CHROMIUM)) return { reason: 'apt-get install chromium failed (see above)' };
  return { path: CHROMIUM };
}

export async function launchChromium(path: string): Promise<Browser> {
  return chromium.launch({
    executablePath: path,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
