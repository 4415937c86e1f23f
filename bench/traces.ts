// Tracer figures for `npm run bench` (wall time on this machine, stock EthereumJS in Node, as the archive runs
// them): the struct logger over a transaction of about 100,000 steps (ms, and the answer's JSON bytes), and
// callTracer over a Uniswap V2-style swap through a router (tests/fixtures/solidity/Pair.sol).
import { encodeFunctionData, type Abi, type Hex } from 'viem';
import { traceTransaction, type StructLoggerResult, type TraceRequest } from '../src/archive/trace/index.js';
import { compileFixture } from '../tests/fixtures/solidity/compile.js';
import { localBlock, localChain, SENDER } from '../tests/support/trace_local.js';

import type { Report } from './evm.js';

const STEPS = 100_000;
const LIMITS = { maxResultBytes: 2 ** 31, defaultTimeoutMs: 600_000 };

export async function benchTraces(report: Report): Promise<void> {
  const chain = await localChain();
  const request = (data: Hex, to: Hex, gas: bigint): TraceRequest => ({
    stateManager: chain.sm,
    common: chain.common,
    block: localBlock,
    priorTxs: [],
    tx: { tx: chain.tx({ to, data, gas }) },
  });

  // Tracee.burn() loops until it runs out of gas: the gas limit sets the steps (calibrated on a short run).
  const burn = chain.call('Tracee', 'burn', []);
  const probe = (await traceTransaction(request(burn, chain.tracee, 200_000n), {}, LIMITS)) as StructLoggerResult;
  const gas = (200_000n * BigInt(STEPS)) / BigInt(probe.structLogs.length);
  const t0 = performance.now();
  const log = (await traceTransaction(request(burn, chain.tracee, gas), {}, LIMITS)) as StructLoggerResult;
  const ms = performance.now() - t0;
  const bytes = JSON.stringify(log).length;
  // The same transaction untraced (noopTracer attaches to no EVM event): what the struct logger adds.
  const u0 = performance.now();
  await traceTransaction(request(burn, chain.tracee, gas), { tracer: 'noopTracer' }, LIMITS);
  const untraced = performance.now() - u0;
  report('trace.struct_log.steps', log.structLogs.length, 'steps');
  report('trace.untraced.ms_per_100k_steps', Math.round((untraced * STEPS) / log.structLogs.length), 'ms');
  report('trace.struct_log.ms_per_100k_steps', Math.round((ms * STEPS) / log.structLogs.length), 'ms');
  report('trace.struct_log.bytes_per_100k_steps', Math.round((bytes * STEPS) / log.structLogs.length), 'bytes');

  // A swap: router reads the reserves, pulls the input with transferFrom, the pair sends the output and
  // updates its reserves (four calls below the router, four events).
  const tokenAbi = compileFixture('Token.sol', 'Token').abi as Abi;
  const a = await chain.deploy('Token.sol', 'Token', ['A', 'A', 10n ** 30n]);
  const b = await chain.deploy('Token.sol', 'Token', ['B', 'B', 10n ** 30n]);
  const [t0a, t1a] = a.toLowerCase() < b.toLowerCase() ? [a, b] : [b, a];
  const pairAbi = compileFixture('Pair.sol', 'Pair').abi as Abi;
  const routerAbi = compileFixture('Pair.sol', 'Router').abi as Abi;
  const pair = await chain.deploy('Pair.sol', 'Pair', [t0a, t1a]);
  const router = await chain.deploy('Pair.sol', 'Router');
  const send = (to: Hex, abi: Abi, functionName: string, args: unknown[]) =>
    chain.apply(chain.tx({ to, data: encodeFunctionData({ abi, functionName, args } as never), gas: 500_000n }));
  for (const t of [t0a, t1a]) {
    await send(t, tokenAbi, 'transfer', [pair, 10n ** 27n]);
    await send(t, tokenAbi, 'approve', [router, 2n ** 256n - 1n]);
  }
  await send(pair, pairAbi, 'mint', [SENDER.toString()]);
  const swap = encodeFunctionData({ abi: routerAbi, functionName: 'swapExactIn', args: [pair, true, 10n ** 18n, 1n, SENDER.toString()] });
  const runs = 20;
  let calls = 0;
  const s0 = performance.now();
  for (let i = 0; i < runs; i++) {
    const tree = (await traceTransaction(request(swap, router, 500_000n), { tracer: 'callTracer', tracerConfig: { withLog: true } }, LIMITS)) as { calls?: unknown[]; error?: string };
    if (tree.error !== undefined) throw new Error(`swap failed: ${tree.error}`);
    calls = tree.calls?.length ?? 0;
  }
  report('trace.call_tracer.uniswap_swap_calls', calls, 'calls');
  report('trace.call_tracer.uniswap_swap_ms', Math.round(((performance.now() - s0) / runs) * 10) / 10, 'ms');
}
