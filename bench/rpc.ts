// JSON-RPC throughput of the devnet as users run it (`npm start` in its own process: the gateway in front of the
// canister wasm in the Node IC host) side by side with anvil (@foundry-rs/anvil-linux-amd64, its own process, default
// automine), measured in one run on this machine, loopback only. Both servers get the same client: Node's fetch
// (keep-alive), CONCURRENCY requests in flight, each loop bounded by a request count and a wall-time cap.
//
//   rpc.eth_blockNumber.rps   eth_blockNumber answered per second
//   rpc.eth_call.rps          eth_call of an ERC-20 balanceOf (the Token fixture, deployed first) per second
//       Both repeat one request between blocks, as a polling client does: the devnet's host answers a repeated
//       query from its remembered replies (src/host: valid until the next committed message) without running
//       the wasm. The figure without that:
//   rpc.eth_call_distinct.rps eth_call of balanceOf with a different address each time (every call runs the wasm)
//   rpc.send_and_mine.tx_per_s
//       SEND_COUNT value transfers, signed beforehand (signing is not timed) by SENDERS development accounts,
//       submitted with eth_sendRawTransaction (each sender's in nonce order, the senders in parallel), timed
//       from the first submit until every receipt exists (polled every 50 ms). The devnet runs with
//       `--block-time 0` (automine: each accepted transaction is mined before eth_sendRawTransaction answers, as
//       anvil does by default); each transaction is then one block of its own (a canister update each).
//
// Names: `rpc.*` for ours, `anvil.rpc.*` for anvil, `rpc.*_ratio_vs_anvil` = ours / anvil.
import { encodeDeployData, encodeFunctionData, keccak256, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { CHAIN_ID } from '../src/core/constants.js';
import { devAccounts } from '../src/devnet/accounts.js';
import { compileFixture } from '../tests/fixtures/solidity/compile.js';
import { removeDir, rpc, sleep, startAnvil, startDevnetProcess, tempDir } from '../tests/support/e2e.js';
import type { Report } from './evm.js';
import { benchCallFlood, benchGatewayBounds } from './gateway_bounds.js';

const CONCURRENCY = 8;
const READ_COUNT = { eth_blockNumber: 4000, eth_call: 400 } as const;
const READ_TIME_CAP_MS = 10_000;
const SENDERS = 4;
const SEND_COUNT = 160; // 40 per sender, under the pool's 64 per sender
const SEND_TIME_CAP_MS = 120_000;
const GAS_PRICE = 1000n * 10n ** 9n;

/** `count` requests (or as many as fit in the time cap), CONCURRENCY at a time; answers per second. */
async function readLoop(url: string, method: string, params: unknown[] | (() => unknown[]), count: number): Promise<number> {
  let issued = 0;
  let done = 0;
  const started = performance.now();
  const deadline = started + READ_TIME_CAP_MS;
  const worker = async (): Promise<void> => {
    while (issued < count && performance.now() < deadline) {
      issued++;
      await rpc(url, method, typeof params === 'function' ? params() : params);
      done++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return done / ((performance.now() - started) / 1000);
}

async function deployToken(url: string, key: Hex, nonce: number): Promise<Hex> {
  const token = compileFixture('Token.sol', 'Token');
  const account = privateKeyToAccount(key);
  const raw = await account.signTransaction({
    type: 'legacy',
    chainId: Number(CHAIN_ID),
    nonce,
    gasPrice: GAS_PRICE,
    gas: 2_000_000n,
    data: encodeDeployData({ abi: token.abi as Abi, bytecode: token.bytecode, args: ['Bench', 'BNCH', 10n ** 24n] }),
  });
  await rpc(url, 'eth_sendRawTransaction', [raw]);
  return (await waitReceipts(url, [keccak256(raw)], SEND_TIME_CAP_MS))[0]!.contractAddress as Hex;
}

async function waitReceipts(url: string, hashes: Hex[], capMs: number): Promise<any[]> {
  const out: any[] = new Array(hashes.length);
  let missing = hashes.map((_, i) => i);
  const deadline = performance.now() + capMs;
  while (missing.length > 0) {
    const still: number[] = [];
    for (const i of missing) {
      const r = await rpc(url, 'eth_getTransactionReceipt', [hashes[i]]);
      if (r === null) still.push(i);
      else out[i] = r;
    }
    missing = still;
    if (missing.length === 0) break;
    if (performance.now() > deadline) throw new Error(`${missing.length} receipts missing after ${capMs} ms`);
    await sleep(50);
  }
  return out;
}

/** Pre-signed transfers: SENDERS accounts (dev accounts 1..SENDERS), nonces from each one's current nonce. */
async function signTransfers(url: string): Promise<Hex[][]> {
  const accounts = devAccounts().slice(1, 1 + SENDERS);
  const perSender = SEND_COUNT / SENDERS;
  const out: Hex[][] = [];
  for (const [s, a] of accounts.entries()) {
    const account = privateKeyToAccount(a.privateKey);
    const first = Number(BigInt(await rpc(url, 'eth_getTransactionCount', [a.address, 'latest'])));
    const txs: Hex[] = [];
    for (let i = 0; i < perSender; i++) {
      const to = `0x${(0xbe000000 + s * 0x10000 + i).toString(16).padStart(40, '0')}` as Hex;
      txs.push(await account.signTransaction({ type: 'legacy', chainId: Number(CHAIN_ID), nonce: first + i, gasPrice: GAS_PRICE, gas: 21_000n, to, value: 1n }));
    }
    out.push(txs);
  }
  return out;
}

async function sendAndMine(url: string): Promise<number> {
  const bySender = await signTransfers(url);
  const started = performance.now();
  await Promise.all(
    bySender.map(async (txs) => {
      for (const raw of txs) await rpc(url, 'eth_sendRawTransaction', [raw]);
    }),
  );
  const receipts = await waitReceipts(url, bySender.flat().map((raw) => keccak256(raw)), SEND_TIME_CAP_MS);
  const seconds = (performance.now() - started) / 1000;
  if (receipts.some((r) => r.status !== '0x1')) throw new Error('send_and_mine: a transfer failed');
  return receipts.length / seconds;
}

async function measure(url: string, flood?: Report): Promise<Record<string, number>> {
  const deployer = devAccounts()[0]!;
  const nonce = Number(BigInt(await rpc(url, 'eth_getTransactionCount', [deployer.address, 'latest'])));
  const token = await deployToken(url, deployer.privateKey, nonce);
  const balanceOf = encodeFunctionData({ abi: compileFixture('Token.sol', 'Token').abi as Abi, functionName: 'balanceOf', args: [deployer.address] });
  // Warm both paths (connection, caches, wasm code) before timing.
  await readLoop(url, 'eth_blockNumber', [], 50);
  await readLoop(url, 'eth_call', [{ to: token, data: balanceOf }, 'latest'], 10);
  const abi = compileFixture('Token.sol', 'Token').abi as Abi;
  let k = 0;
  const distinct = (): unknown[] => {
    const who = `0x${(0xca110000 + k++).toString(16).padStart(40, '0')}` as Hex;
    return [{ to: token, data: encodeFunctionData({ abi, functionName: 'balanceOf', args: [who] }) }, 'latest'];
  };
  const out = {
    'eth_blockNumber.rps': await readLoop(url, 'eth_blockNumber', [], READ_COUNT.eth_blockNumber),
    'eth_call.rps': await readLoop(url, 'eth_call', [{ to: token, data: balanceOf }, 'latest'], READ_COUNT.eth_call),
    'eth_call_distinct.rps': await readLoop(url, 'eth_call', distinct, READ_COUNT.eth_call),
    'send_and_mine.tx_per_s': await sendAndMine(url),
  };
  // Ours only: the gateway's query queue under one client's flood (bench/gateway_bounds.ts).
  if (flood !== undefined) await benchCallFlood(url, distinct, flood);
  return out;
}

export async function benchRpc(report: Report): Promise<void> {
  await benchGatewayBounds(report);
  const dataDir = tempDir('bench-');
  const devnet = await startDevnetProcess({ dataDir, args: ['--block-time', '0'] });
  let ours: Record<string, number>;
  try {
    ours = await measure(devnet.url, report);
  } finally {
    await devnet.stop();
    removeDir(dataDir);
  }
  const anvil = await startAnvil();
  let theirs: Record<string, number>;
  try {
    theirs = await measure(anvil.url);
  } finally {
    await anvil.stop();
  }
  const unit = (k: string) => (k.endsWith('tx_per_s') ? 'tx/s' : 'requests/s');
  for (const [k, v] of Object.entries(ours)) report(`rpc.${k}`, round(v), unit(k));
  for (const [k, v] of Object.entries(theirs)) report(`anvil.rpc.${k}`, round(v), unit(k));
  for (const k of Object.keys(ours)) {
    const name = k.endsWith('tx_per_s') ? k.replace(/tx_per_s$/, 'tx_per_s_ratio_vs_anvil') : k.replace(/rps$/, 'rps_ratio_vs_anvil');
    report(`rpc.${name}`, Math.round((ours[k]! / theirs[k]!) * 1000) / 1000, 'ratio');
  }
}

const round = (v: number): number => Math.round(v * 10) / 10;
