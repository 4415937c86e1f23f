// The local devnet: the real canister wasm in the Node IC host, timers on the wall clock, state in one data
// folder (stable memory file + host metadata) so that a restart keeps every block, receipt, balance and
// pending transaction. The JSON-RPC gateway attaches to the returned handle (issue 6).
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build, isStale, WASM_PATH } from '../../scripts/build.js';
import { CHAIN_ID } from '../core/constants.js';
import { EvmClient, encodeInitArgs } from '../host/evm_client.js';
import { IcHost, type MessageStats } from '../host/index.js';
import { DEV_ACCOUNT_BALANCE, devAccounts, type DevAccount } from './accounts.js';

export interface DevnetOptions {
  readonly dataDir: string;
  /** Delete the data folder first. */
  readonly reset?: boolean;
  readonly log?: (line: string) => void;
}

export interface Devnet {
  readonly host: IcHost;
  readonly evm: EvmClient;
  readonly accounts: readonly DevAccount[];
  /** true when the chain was created now, false when resumed from the data folder. */
  readonly fresh: boolean;
  stop(): void;
}

const STABLE_FILE = 'canister.stable';

export async function startDevnet(opts: DevnetOptions): Promise<Devnet> {
  const log = opts.log ?? ((l: string) => console.log(l));
  if (opts.reset === true) rmSync(opts.dataDir, { recursive: true, force: true });
  mkdirSync(opts.dataDir, { recursive: true });
  if (isStale()) {
    log('building the canister wasm (sources changed)...');
    build({ quiet: true });
  }
  const accounts = devAccounts();
  let blockMessage: MessageStats | undefined;
  const host = await IcHost.create({
    wasm: WASM_PATH,
    clock: 'wall',
    stableMemoryFile: join(opts.dataDir, STABLE_FILE),
    debugPrint: (m) => log(`[canister] ${m}`),
    onMessage: (m) => {
      if (m.kind === 'update' && m.method.includes('timer_executor')) blockMessage = m;
    },
  });
  const evm = new EvmClient(host);
  const fresh = !host.hasPersistedState;
  if (fresh) {
    log('installing the canister (first start; warm-up of precompile tables takes a few seconds)...');
    await host.install(encodeInitArgs({ genesis_allocations: [accounts.map((a) => ({ address: hexToBytes(a.address), balance: DEV_ACCOUNT_BALANCE }))] }));
  } else {
    log(`resuming the chain from ${opts.dataDir} ...`);
    await host.resume();
  }

  // One line per produced block, with what no other devnet can tell: the instructions it cost.
  let lastHead = evm.query<bigint>('rpc_eth_block_number').value;
  const watcher = setInterval(() => {
    const head = evm.query<bigint>('rpc_eth_block_number').value;
    if (head === lastHead) return;
    for (let n = lastHead + 1n; n <= head; n++) {
      const b = evm.query('rpc_eth_get_block_by_number', [n, false]).value[0];
      if (b === undefined) continue;
      const instr = blockMessage?.instructions;
      log(
        `block ${n}: ${b.transactions.Hashes.length} tx, gas ${b.gas_used}` +
          (instr === undefined ? '' : `, ${(Number(instr) / 1e6).toFixed(1)} M instructions`),
      );
    }
    lastHead = head;
  }, 500);
  watcher.unref();

  return {
    host,
    evm,
    accounts,
    fresh,
    stop() {
      clearInterval(watcher);
      host.close();
    },
  };
}

export function devnetBanner(d: Devnet, dataDir: string): string {
  const lines = [
    '',
    `EVM devnet (chain id ${CHAIN_ID}, 0x${CHAIN_ID.toString(16)}) — head block ${d.evm.query<bigint>('rpc_eth_block_number').value}`,
    `state: ${dataDir} (${d.fresh ? 'new chain' : 'resumed'}; --reset starts over)`,
    'JSON-RPC gateway: not part of this build yet; the canister runs in the Node IC host.',
    '',
    'Development accounts (10,000 ETH each at genesis; mnemonic "test test test test test test test test test test test junk"):',
    ...d.accounts.map((a, i) => `  (${i}) ${a.address}  ${a.privateKey}`),
    '',
  ];
  return lines.join('\n');
}

function hexToBytes(h: string): Uint8Array {
  return Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
}

export const devnetDataDirDefault = (root: string): string => join(root, '.devnet');
export const devnetExists = (dataDir: string): boolean => existsSync(join(dataDir, STABLE_FILE));
