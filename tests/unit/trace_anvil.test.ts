// Differential run of the tracers (src/archive/trace) against anvil: the same signed transactions (nested
// calls, DELEGATECALL, STATICCALL, CREATE and CREATE2 from a contract, value sent by contracts, caught and
// uncaught reverts, self-destructs, logs, out of gas, one block of four) are mined by anvil (Prague,
// --steps-tracing) and replayed in stock EthereumJS from the same pre-state and block contexts
// (tests/support/trace_chain.ts); every tracer answer is then compared field by field. A difference must be
// one of the named deviations of tests/support/trace_diff.ts (where anvil departs from geth, whose shapes the
// tracers follow; docs/traces.md lists them) or the test fails. anvil has no muxTracer (tests/unit/
// trace_tracers.test.ts checks it against its parts). None comes from the chain itself: both
// executed the same transactions on the same state, which the receipts' gas and the traces' gas agree on.
import { readFileSync } from 'node:fs';
import { hexToBytes } from '@ethereumjs/util';
import { encodeFunctionData, type Abi, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  blockCallTrees,
  callTree,
  otsInternalOperations,
  otsTraceTransaction,
  otsTransactionError,
  parityLocatedTraces,
  parityReplay,
  traceBlock,
  traceCall,
  traceTransaction,
  type TraceConfig,
} from '../../src/archive/trace/index.js';
import { compileFixture } from '../fixtures/solidity/compile.js';
import { rpc, startAnvil, type Anvil } from '../support/e2e.js';
import { runScenario, type Scenario } from '../support/trace_chain.js';
import { ANVIL_DEVIATIONS, classify, jsonDiff, type DiffContext } from '../support/trace_diff.js';

let anvil: Anvil;
let sc: Scenario;

beforeAll(async () => {
  anvil = await startAnvil(['--steps-tracing']);
  sc = await runScenario(anvil.url);
}, 240_000);

afterAll(async () => {
  await anvil?.stop();
});

const CONFIGS: TraceConfig[] = [
  { tracer: 'callTracer' },
  { tracer: 'callTracer', tracerConfig: { withLog: true } },
  { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } },
  { tracer: 'prestateTracer' },
  { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
  { tracer: '4byteTracer' },
  {},
  { enableMemory: true, enableReturnData: true },
  { disableStack: true, disableStorage: true, limit: 4000 },
];

/** The comparison context of transaction i (anvil's receipt, the logs of the block's earlier transactions). */
function diffContext(i: number, anvilRoot: unknown, oursRoot: unknown, limit?: number): DiffContext {
  const t = sc.txs[i]!;
  const priorLogs = sc.txs.slice(0, i).filter((p) => p.receipt.blockNumber === t.receipt.blockNumber).reduce((n, p) => n + p.receipt.logs.length, 0);
  return { txGas: `0x${t.tx.gasLimit.toString(16)}`, receipt: t.receipt, priorLogs, anvilRoot, oursRoot, limit };
}

async function ours(i: number, config: TraceConfig): Promise<unknown> {
  const { sm, prior } = await sc.beforeTx(i);
  const t = sc.txs[i]!;
  return traceTransaction({ stateManager: sm, common: sc.common, block: t.block, priorTxs: prior.map((p) => ({ tx: p.tx })), tx: { tx: t.tx } }, config);
}

async function tree(i: number) {
  const { sm, prior } = await sc.beforeTx(i);
  const t = sc.txs[i]!;
  return callTree({ stateManager: sm, common: sc.common, block: t.block, priorTxs: prior.map((p) => ({ tx: p.tx })), tx: { tx: t.tx } });
}

describe('tracers against anvil, field by field', () => {
  it('the scenario ran: every kind of frame, a failed top call, a block of four', () => {
    const labels = sc.txs.map((t) => t.label);
    expect(labels.length).toBe(17);
    expect(sc.txs.filter((t) => t.receipt.status === '0x0').map((t) => t.label)).toEqual([
      'boom: uncaught revert two frames deep',
      'custom error at the top',
      'panic at the top',
      'out of gas',
      'block of four: uncaught revert',
    ]);
    expect(new Set(sc.txs.slice(13).map((t) => t.receipt.blockNumber)).size).toBe(1);
  });

  // One test per config (each a few seconds): the deviations seen are gathered for the check after them.
  const seen = new Map<string, number>();
  it.each(CONFIGS.map((c) => [JSON.stringify(c), c] as const))('debug_traceTransaction %s', async (_name, config) => {
    const failures: string[] = [];
    for (const [i, t] of sc.txs.entries()) {
      const theirs = await rpc(anvil.url, 'debug_traceTransaction', [t.hash, config]);
      const mine = await ours(i, config);
      const { unexplained, counts } = classify(jsonDiff(theirs, mine), diffContext(i, theirs, mine, config.limit));
      for (const [k, n] of counts) seen.set(k, (seen.get(k) ?? 0) + n);
      for (const d of unexplained.slice(0, 5)) failures.push(`${t.label} ${d.path}: anvil ${JSON.stringify(d.anvil)?.slice(0, 200)} ours ${JSON.stringify(d.ours)?.slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
  });

  it('every named deviation still shows (one anvil no longer has must leave the list and the docs)', () => {
    expect([...seen.keys()].sort()).toEqual(ANVIL_DEVIATIONS.map((d) => d.name).sort());
  });

  it('the call tree matches callTracer step for step on the multi-transaction block (priors replayed)', async () => {
    const i = sc.txs.findIndex((t) => t.label === 'block of four: run a third time');
    const theirs = await rpc(anvil.url, 'debug_traceTransaction', [sc.txs[i]!.hash, { tracer: 'callTracer', tracerConfig: { withLog: true } }]);
    const mine = (await ours(i, { tracer: 'callTracer', tracerConfig: { withLog: true } })) as { logs: { index: string }[] };
    // Logs carry their block-wide index: the block's earlier transactions emitted some.
    expect(Number(mine.logs[0]!.index)).toBeGreaterThan(0);
    const { unexplained, counts } = classify(jsonDiff(theirs, mine), diffContext(i, theirs, mine));
    expect(unexplained).toEqual([]);
    expect(counts.get('callTracer withLog: log index')).toBeGreaterThan(0);
  });

  it('ots_getInternalOperations, ots_traceTransaction and ots_getTransactionError are anvil\'s', async () => {
    for (const [i, t] of sc.txs.entries()) {
      const root = await tree(i);
      expect(otsInternalOperations(root), t.label).toEqual(await rpc(anvil.url, 'ots_getInternalOperations', [t.hash]));
      expect(otsTraceTransaction(root), t.label).toEqual(await rpc(anvil.url, 'ots_traceTransaction', [t.hash]));
      expect(otsTransactionError(root), t.label).toEqual(await rpc(anvil.url, 'ots_getTransactionError', [t.hash]));
    }
  });

  it('trace_transaction entries are anvil\'s', async () => {
    for (const [i, t] of sc.txs.entries()) {
      const root = await tree(i);
      const meta = {
        blockHash: hexToBytes(t.receipt.blockHash),
        blockNumber: BigInt(t.receipt.blockNumber),
        transactionHash: hexToBytes(t.hash),
        transactionPosition: Number(t.receipt.transactionIndex),
      };
      expect(parityLocatedTraces(root, meta), t.label).toEqual(await rpc(anvil.url, 'trace_transaction', [t.hash]));
    }
  });

  it('trace_block, trace_replayBlockTransactions and debug_traceBlock on the block of four', async () => {
    const first = sc.txs.findIndex((t) => t.label.startsWith('block of four'));
    const block = sc.txs.slice(first);
    const b = block[0]!;
    const req = { stateManager: await sc.stateBefore(first), common: sc.common, block: b.block, txs: block.map((t) => ({ tx: t.tx })) };
    const roots = await blockCallTrees(req);
    const located = roots.flatMap((r, i) =>
      parityLocatedTraces(r, { blockHash: hexToBytes(b.receipt.blockHash), blockNumber: BigInt(b.receipt.blockNumber), transactionHash: hexToBytes(block[i]!.hash), transactionPosition: i }),
    );
    expect(located).toEqual(await rpc(anvil.url, 'trace_block', [b.receipt.blockNumber]));
    expect(roots.map((r, i) => parityReplay(r, hexToBytes(block[i]!.hash)))).toEqual(await rpc(anvil.url, 'trace_replayBlockTransactions', [b.receipt.blockNumber, ['trace']]));
    const config = { tracer: 'callTracer' };
    const mine = await traceBlock(req, config);
    const theirs = await rpc(anvil.url, 'debug_traceBlockByNumber', [b.receipt.blockNumber, config]);
    for (const [i, t] of block.entries()) {
      expect(mine[i]!.txHash).toBe(t.hash);
      const d = classify(jsonDiff(theirs[i].result, mine[i]!.result), diffContext(first + i, theirs[i].result, mine[i]!.result));
      expect(d.unexplained, t.label).toEqual([]);
    }
  });

  it('debug_traceCall at an older block with state overrides', async () => {
    // At the block of `run` (later blocks changed the same contract), with Tracee's counter and the caller's
    // balance overridden; the call reverts two frames down after a log.
    const i = sc.txs.findIndex((t) => t.label.startsWith('run:'));
    const t = sc.txs[i]!;
    const tracee = t.tx.to!.toString() as Hex;
    const reverter = sc.txs[1]!.receipt.contractAddress as Hex;
    const from = '0x00000000000000000000000000000000000a11ce' as Hex;
    const data = encodeFunctionData({ abi: compileFixture('../../support/trace_fixtures/Traced.sol', 'Tracee').abi as Abi, functionName: 'boom', args: [reverter] });
    const slot1 = `0x${'0'.repeat(63)}1` as Hex;
    const hundred = `0x${'0'.repeat(62)}64` as Hex;
    const overrides = { [tracee]: { stateDiff: { [slot1]: hundred } }, [from]: { balance: '0x1000' } };
    for (const config of [{ tracer: 'callTracer', tracerConfig: { withLog: true } }, { tracer: 'prestateTracer' }, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }, {}] as TraceConfig[]) {
      const theirs = await rpc(anvil.url, 'debug_traceCall', [{ from, to: tracee, data, gas: '0x100000' }, t.receipt.blockNumber, { ...config, stateOverrides: overrides }]);
      const mine = await traceCall(
        {
          stateManager: await sc.stateBefore(i + 1),
          common: sc.common,
          block: t.block,
          call: { from: hexToBytes(from), to: hexToBytes(tracee), data: hexToBytes(data), gas: 0x100000n },
          stateOverrides: [
            { address: hexToBytes(tracee), stateDiff: [{ slot: hexToBytes(slot1), value: hexToBytes(hundred) }] },
            { address: hexToBytes(from), balance: 0x1000n },
          ],
        },
        config,
      );
      if (config.tracer === 'prestateTracer' && config.tracerConfig === undefined) {
        // The override shows in the state the call started from.
        expect((mine as Record<string, { storage?: Record<string, string> }>)[tracee.toLowerCase()]!.storage![slot1]).toBe(hundred);
      }
      const ctx = { ...diffContext(i, theirs, mine), txGas: '0x100000' };
      expect(classify(jsonDiff(theirs, mine), ctx).unexplained, JSON.stringify(config)).toEqual([]);
    }
  });

  it('docs/traces.md names every deviation', () => {
    const doc = readFileSync(new URL('../../docs/traces.md', import.meta.url), 'utf8');
    for (const d of ANVIL_DEVIATIONS) expect(doc, d.name).toContain(d.name);
  });
});
