// vitest globalSetup of the e2e projects: one devnet for the client tests, started as users start it
// (`npm start` in its own process, a fresh data folder, the gateway on a free port), stopped with Ctrl-C at
// the end. The tests that need their own chain (npm-start.test.ts, ic-clients.test.ts) start their own.
// Project `e2e` points the clients at the devnet's own (in-process) gateway; project `e2e-agent`
// (global-setup-agent.ts) at a gateway started as its own process over HttpAgent and the devnet's IC HTTP
// interface (EVM_CANISTER_ID, RPC_GATEWAY_IC_HOST, RPC_GATEWAY_FETCH_ROOT_KEY=true), the production path.
// Development accounts on the shared chain, one owner each so nonces and balances are predictable:
// web3 1-2, foundry 3-4, hardhat 5, subscriptions 6, differential 7-8 (9 only signs a hash there), explorer 0,
// explorer pages 9.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { build, isStale } from '../../src/devnet/build.js';
import { freePort, Proc, removeDir, SHARED_FILTER_TIMEOUT_MS, startDevnetProcess, tempDir, waitForRpc, type DevnetProcess } from '../support/e2e.js';

declare module 'vitest' {
  export interface ProvidedContext {
    devnetUrl: string;
    /** The shared devnet's explorer (pages and verification APIs). */
    explorerUrl: string;
    /** The shared devnet's output, appended as it comes (tests check it for internal gateway errors). */
    devnetLog: string;
  }
}

export async function startShared(project: TestProject, gatewayMode: 'in-process' | 'agent'): Promise<() => Promise<void>> {
  if (isStale()) build();
  const dataDir = tempDir('shared-');
  const filterTimeout = { RPC_GATEWAY_FILTER_TIMEOUT_MS: String(SHARED_FILTER_TIMEOUT_MS) };
  const devnet: DevnetProcess = await startDevnetProcess({ dataDir, env: filterTimeout });
  const logDir = tempDir('shared-log-');
  const log = join(logDir, 'devnet.log');
  // Output can still arrive after a process's exit event: once the log folder is removed, it is dropped.
  let logRemoved = false;
  const append = (d: Buffer | string): void => {
    if (!logRemoved) appendFileSync(log, d);
  };
  const follow = (p: Proc): void => {
    append(p.output);
    p.child.stdout!.on('data', append);
    p.child.stderr!.on('data', append);
  };
  follow(devnet.proc);
  let url = devnet.url;
  let gateway: Proc | undefined;
  if (gatewayMode === 'agent') {
    const port = await freePort();
    gateway = new Proc('node', ['scripts/run.mjs', 'tsx', 'src/gateway/main.ts'], {
      env: {
        ...filterTimeout,
        EVM_CANISTER_ID: 'rrkah-fqaaa-aaaaa-aaaaq-cai',
        RPC_GATEWAY_IC_HOST: devnet.icUrl,
        RPC_GATEWAY_FETCH_ROOT_KEY: 'true',
        RPC_GATEWAY_HOST: '127.0.0.1',
        RPC_GATEWAY_PORT: String(port),
      },
    });
    url = `http://127.0.0.1:${port}`;
    try {
      await waitForRpc(url, gateway, 120_000);
    } catch (e) {
      await devnet.stop();
      throw e;
    }
    follow(gateway);
  }
  project.provide('devnetUrl', url);
  project.provide('explorerUrl', devnet.explorerUrl);
  project.provide('devnetLog', log);
  return async () => {
    await gateway?.stop('SIGTERM', 10_000);
    await devnet.stop();
    logRemoved = true;
    removeDir(dataDir);
    removeDir(logDir);
    if (!devnet.proc.output.includes('stopped; state kept')) {
      console.error(`e2e: the shared devnet did not stop cleanly:\n${devnet.proc.output.slice(-4000)}`);
    }
  };
}

export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return startShared(project, 'in-process');
}
