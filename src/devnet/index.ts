// The local devnet: the real canister wasm in the Node IC host, timers on the wall clock, state in one data
// folder (stable memory file + host metadata) so that a restart keeps every block, receipt, balance and
// pending transaction, and the JSON-RPC gateway (src/gateway) in front of it on 127.0.0.1:8545, and the IC
// HTTP interface (src/host/ic_http) for IC clients (HttpAgent, icp-cli, a gateway or indexer process) on 4943.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build, isStale, WASM_PATH } from './build.js';
import { CHAIN_ID } from '../core/constants.js';
import { CanisterClient } from '../client/client.js';
import { acceptedSubmit, encodeInitArgs, HostClient } from '../client/host.js';
import { DEFAULT_CONFIG, type GatewayConfig } from '../gateway/config.js';
import { fromHex } from '../gateway/hex.js';
import { DEVNET_CLIENT_VERSION } from './config.js';
import { startGateway, type Gateway } from '../gateway/server.js';
import { KEYS_FILE, startIcHttp, SubnetKeys, type IcHttpServer } from '../host/ic_http/index.js';
import { IcHost, selfAuthenticatingPrincipal, type MessageStats } from '../host/index.js';
import type { Principal as IcPrincipal } from '@icp-sdk/core/principal';
import { DEV_ACCOUNT_BALANCE, devAccounts, devSigner, type DevAccount } from './accounts.js';
import { DevnetControl } from './dev.js';
import { CallConsolePrinter } from './call_console.js';
import { PREDEPLOYS } from './predeploys.js';

export const DEFAULT_BLOCK_TIME_S = 2;
export { DEVNET_CLIENT_VERSION, devnetGatewayConfig } from './config.js';
/** Remembered query replies (IcHostOptions.queryCache): repeated reads between blocks skip the wasm. */
const QUERY_CACHE_ENTRIES = 4096;
import { fundIcPrincipals, type Funding } from './fund_ic.js';
import type { ExplorerConfig } from '../explorer/config.js';
import type { Explorer } from '../explorer/index.js';
import type { Db } from '../indexer/db.js';
import type { ArchiveReader } from '../archive/reader.js';
import { startDevnetExplorer } from './explorer.js';
import { parseBlockLine, unquote, type BlockReport } from '../canister/block_line.js';

export { parseBlockLine, type BlockReport };

export interface DevnetOptions {
  readonly dataDir: string;
  /** Delete the data folder first. */
  readonly reset?: boolean;
  readonly log?: (line: string) => void;
  /** The gateway's configuration (host, port, limits, CORS, client version); default SPEC's defaults with DEVNET_CLIENT_VERSION. */
  readonly gateway?: GatewayConfig;
  /**
   * Seconds between blocks (`--block-time`): 0 mines a block as soon as a transaction is accepted (automine,
   * like anvil's default); N > 0 runs the canister's mining timer every N seconds. Default 2 (SPEC's interval).
   */
  readonly blockTime?: number;
  /** Port of the IC HTTP interface (default 0: a free port; `npm start` passes 4943, the local replica's). */
  readonly icPort?: number;
  /** Address the IC HTTP interface binds (default 127.0.0.1). */
  readonly icHost?: string;
  /** IC principals whose derived submit_ic_tx sender gets 100 ETH from the last dev account (once). */
  readonly fundIc?: readonly IcPrincipal[];
  /**
   * The explorer's configuration and the database it keeps its tables in (the indexer's, opened by the caller,
   * who also closes it); absent: no explorer (tests that only need the chain).
   */
  readonly explorer?: { readonly config: ExplorerConfig; readonly db: Db };
  /** Historical state for the gateway (reads below the head); absent: head state only. */
  readonly archive?: ArchiveReader;
}

export interface Devnet {
  readonly host: IcHost;
  readonly evm: HostClient;
  readonly gateway: Gateway;
  /** The JSON-RPC URL, e.g. http://127.0.0.1:8545. */
  readonly rpcUrl: string;
  /** The IC HTTP interface (agent host URL, canister id, root key). */
  readonly ic: IcHttpServer;
  readonly fundings: readonly Funding[];
  /** The explorer (verification APIs), when started. */
  readonly explorer: Explorer | undefined;
  readonly accounts: readonly DevAccount[];
  /** true when the chain was created now, false when resumed from the data folder. */
  readonly fresh: boolean;
  /** Block production and the development methods (evm_*). */
  readonly dev: DevnetControl;
  /** Prints the console.log of eth_call / eth_estimateGas (re-run on the archive); absent without an archive. */
  readonly calls: CallConsolePrinter | undefined;
  stop(): Promise<void>;
}

const STABLE_FILE = 'canister.stable';
/** The devnet installs the canister with this controller, so it can turn the canister's debug log on. */
export const DEVNET_CONTROLLER = selfAuthenticatingPrincipal(new TextEncoder().encode('icp-evm devnet controller'));


const mi = (n: bigint): string => `${(Number(n) / 1e6).toFixed(1)} M`;

export async function startDevnet(opts: DevnetOptions): Promise<Devnet> {
  const log = opts.log ?? ((l: string) => console.log(l));
  if (opts.reset === true) rmSync(opts.dataDir, { recursive: true, force: true });
  mkdirSync(opts.dataDir, { recursive: true });
  if (isStale()) {
    log('building the canister wasm (sources changed)...');
    build({ quiet: true });
  }
  const accounts = devAccounts();
  // One report per produced block: the canister's debug line gives each transaction's instructions, the
  // host's message statistics the whole timer message's.
  let report: BlockReport | undefined;
  // Automine sees every accepted transaction, whichever way it came (gateway, IC HTTP interface, the devnet's own).
  let dev: DevnetControl | undefined;
  const host = await IcHost.create({
    wasm: WASM_PATH,
    clock: 'wall',
    controllers: [DEVNET_CONTROLLER],
    queryCache: QUERY_CACHE_ENTRIES,
    // Queries from the gateway, the IC HTTP interface and the indexer run in a worker thread (src/host/replica.ts):
    // a query running to the 5 B limit takes seconds, and must not hold block production or other requests.
    queryReplica: true,
    hostLog: log,
    afterUpdate: async (method, result) => {
      if (dev !== undefined && acceptedSubmit(method, result)) await dev.afterSubmit();
    },
    stableMemoryFile: join(opts.dataDir, STABLE_FILE),
    debugPrint: (raw) => {
      const m = unquote(raw);
      const r = parseBlockLine(m);
      if (r !== undefined) report = r;
      else if (!m.startsWith('[debug]')) log(`[canister] ${m}`);
    },
    onMessage: (m: MessageStats) => {
      if (m.kind !== 'update' || !(m.method.includes('timer_executor') || m.method.endsWith(' mine_block')) || report === undefined) return;
      const r = report;
      report = undefined;
      log(`block ${r.number}: ${r.txs.length} tx, gas ${r.gasUsed}${m.instructions === undefined ? '' : `, ${mi(m.instructions)} instructions in the block's message`}`);
      for (const t of r.txs) log(`  tx ${t.hash}: ${mi(t.instructions)} instructions`);
    },
  });
  const evm = new HostClient(host);
  const fresh = !host.hasPersistedState;
  if (fresh) {
    log('installing the canister (first start; warm-up of precompile tables takes a few seconds)...');
    await host.install(
      encodeInitArgs({
        genesis_allocations: [accounts.map((a) => ({ address: fromHex(a.address), balance: DEV_ACCOUNT_BALANCE }))],
        genesis_code: [PREDEPLOYS.map((p) => ({ address: fromHex(p.address), code: fromHex(p.code) }))],
        // The dev_* cheat methods answer only on a canister installed so (docs/devnet.md).
        development: [true],
      }),
    );
  } else {
    log(`resuming the chain from ${opts.dataDir} ...`);
    await host.resume();
  }
  // Debug level makes the canister print each block's per-transaction instructions (a data folder created
  // before the devnet had a controller cannot: then only block totals are printed).
  const lf = await evm.as({ caller: DEVNET_CONTROLLER }).update('set_log_filter', [{ Debug: null }]);
  if ('Err' in lf) log(`per-transaction instruction counts unavailable: ${lf.Err.message}`);
  const blockTime = opts.blockTime ?? DEFAULT_BLOCK_TIME_S;
  dev = new DevnetControl(host, evm, DEVNET_CONTROLLER, blockTime, log);
  // anvil_reset / hardhat_reset go back to this state (the mining mode is applied again after a reset).
  if (fresh) dev.keepGenesis();
  const why = await dev.configure(blockTime);
  if (why !== undefined) log(`--block-time ${blockTime} not applied (the canister's own timer keeps mining): ${why}`);

  // The explorer starts first (its preflight loads every compiler): once the JSON-RPC answers, so does it.
  let explorer: Explorer | undefined;
  let gatewayUp: (url: string) => void = () => {};
  const rpcUrl = new Promise<string>((resolve) => (gatewayUp = resolve));
  if (opts.explorer !== undefined) {
    try {
      explorer = await startDevnetExplorer({ config: opts.explorer.config, db: opts.explorer.db, rpcUrl, log });
    } catch (e) {
      host.close();
      throw e;
    }
  }

  let gateway: Gateway;
  let ic: IcHttpServer;
  let fundings: Funding[];
  try {
    fundings = await fundIcPrincipals(evm, accounts[accounts.length - 1]!, opts.fundIc ?? []);
    // The root key is generated once per data folder: clients that fetched it keep verifying after a restart.
    const keys = SubnetKeys.loadOrCreate(join(opts.dataDir, KEYS_FILE));
    ic = await startIcHttp({ host, keys, dataDir: opts.dataDir, port: opts.icPort ?? 0, ...(opts.icHost === undefined ? {} : { hostname: opts.icHost }), log });
  } catch (e) {
    await explorer?.close();
    host.close();
    throw e;
  }
  const calls = opts.archive === undefined ? undefined : new CallConsolePrinter({ reader: opts.archive, head: () => evm.query('rpc_eth_block_number', []), log });
  try {
    gateway = await startGateway({
      config: opts.gateway ?? { ...DEFAULT_CONFIG, clientVersion: DEVNET_CLIENT_VERSION },
      client: evm,
      dev,
      signer: devSigner(accounts),
      ...(opts.archive === undefined ? {} : { archive: opts.archive }),
      ...(calls === undefined ? {} : { calls }),
    });
    const cache = gateway.context.cache;
    dev.onRevert.push(() => cache.clear()); // blocks and receipts read after the snapshot are no longer final
  } catch (e) {
    await ic.close();
    await explorer?.close();
    host.close();
    throw e;
  }
  gatewayUp(gateway.url);

  return {
    host,
    evm,
    gateway,
    rpcUrl: gateway.url,
    ic,
    fundings,
    explorer,
    accounts,
    fresh,
    dev,
    calls,
    async stop() {
      await gateway.close();
      await calls?.close();
      await ic.close();
      await explorer?.close();
      host.close();
    },
  };
}

export function devnetBanner(d: Devnet, dataDir: string): string {
  const lines = [
    '',
    `EVM devnet (chain id ${CHAIN_ID}, 0x${CHAIN_ID.toString(16)}) — head block ${d.evm.querySync('rpc_eth_block_number', [])}`,
    `JSON-RPC: ${d.rpcUrl} (WebSocket: ${d.rpcUrl.replace(/^http/, 'ws')})`,
    `IC HTTP interface: ${d.ic.url}  canister ${d.ic.canisterId.toText()}`,
    `IC root key: ${Buffer.from(d.ic.rootKey).toString('hex')}`,
    ...d.fundings.map((f) => `IC identity ${f.principal}: submit_ic_tx sender ${f.sender}${f.txHash === undefined ? ' (already funded)' : `, funded with 100 ETH by ${f.txHash}`}`),
    ...(d.explorer === undefined
      ? []
      : [`Explorer: ${d.explorer.url} (verification: ${d.explorer.verifier === undefined ? 'off' : `/api, /v2, /api/verify; compilers ${d.explorer.compilers.map((c) => c.longVersion).join(', ')}`})`]),
    `state: ${dataDir} (${d.fresh ? 'new chain' : 'resumed'}; --reset starts over)`,
    '',
    'Development accounts (10,000 ETH each at genesis; mnemonic "test test test test test test test test test test test junk"):',
    ...d.accounts.map((a, i) => `  (${i}) ${a.address}  ${a.privateKey}`),
    '',
  ];
  return lines.join('\n');
}

export const devnetDataDirDefault = (root: string): string => join(root, '.devnet');
export const devnetExists = (dataDir: string): boolean => existsSync(join(dataDir, STABLE_FILE));
