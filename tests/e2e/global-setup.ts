// vitest globalSetup of the e2e project: one devnet for the client tests, started as users start it
// (`npm start` in its own process, a fresh data folder, the gateway on a free port), stopped with Ctrl-C at
// the end. The tests that need their own chain (npm-start.test.ts) start their own.
// Development accounts on the shared chain, one owner each so nonces and balances are predictable:
// web3 1-2, foundry 3-4, hardhat 5, differential 7-8 (9 only signs a hash).
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { build, isStale } from '../../scripts/build.js';
import { removeDir, startDevnetProcess, tempDir, type DevnetProcess } from '../support/e2e.js';

declare module 'vitest' {
  export interface ProvidedContext {
    devnetUrl: string;
    /** The shared devnet's output, appended as it comes (tests check it for internal gateway errors). */
    devnetLog: string;
    /** The explorer that `npm start` serves beside the gateway (pages and verification APIs). */
    explorerUrl: string;
  }
}

let devnet: DevnetProcess | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (isStale()) build();
  const dataDir = tempDir('shared-');
  devnet = await startDevnetProcess({ dataDir });
  const logDir = tempDir('shared-log-');
  const log = join(logDir, 'devnet.log');
  appendFileSync(log, devnet.proc.output);
  devnet.proc.child.stdout!.on('data', (d: Buffer) => appendFileSync(log, d));
  devnet.proc.child.stderr!.on('data', (d: Buffer) => appendFileSync(log, d));
  project.provide('devnetUrl', devnet.url);
  project.provide('devnetLog', log);
  return async () => {
    await devnet?.stop();
    removeDir(dataDir);
    removeDir(logDir);
    if (devnet !== undefined && !devnet.proc.output.includes('stopped; state kept')) {
      console.error(`e2e: the shared devnet did not stop cleanly:\n${devnet.proc.output.slice(-4000)}`);
    }
  };
}
