// vitest globalSetup of the e2e project: one devnet for the client tests, started as users start it
// (`npm start` in its own process, a fresh data folder, the gateway on a free port), stopped with Ctrl-C at
// the end. The tests that need their own chain (restart, differential) start their own.
import type { TestProject } from 'vitest/node';
import { build, isStale } from '../../scripts/build.js';
import { removeDir, startDevnetProcess, tempDir, type DevnetProcess } from '../support/e2e.js';

declare module 'vitest' {
  export interface ProvidedContext {
    devnetUrl: string;
  }
}

let devnet: DevnetProcess | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (isStale()) build();
  const dataDir = tempDir('shared-');
  devnet = await startDevnetProcess({ dataDir });
  project.provide('devnetUrl', devnet.url);
  return async () => {
    await devnet?.stop();
    removeDir(dataDir);
    if (devnet !== undefined && !devnet.proc.output.includes('stopped; state kept')) {
      console.error(`e2e: the shared devnet did not stop cleanly:\n${devnet.proc.output.slice(-4000)}`);
    }
  };
}
