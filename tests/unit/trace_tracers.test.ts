// The tracers' options and bounds on a small in-memory chain (stock EthereumJS, no anvil): muxTracer is its
// parts, noopTracer answers {}, `timeout` and the answer bound stop a run with their codes, geth's `limit`
// counts bytes, bad configs are refused as geth refuses them, the caller's state is left as it was, and an
// impersonated sender (no usable signature) is traced as given.
import { describe, expect, it } from 'vitest';
import { createAddressFromString, hexToBytes } from '@ethereumjs/util';
import {
  callTree,
  internalTransactions,
  otsInternalOperations,
  parseDuration,
  traceCall,
  traceTransaction,
  TraceError,
  TraceErrorCode,
  type StructLoggerResult,
  type StructLogJson,
  type StateOverride,
  type TraceConfig,
  type TraceRequest,
} from '../../src/archive/trace/index.js';
import { localBlock, localChain, SENDER } from '../support/trace_local.js';

const chain = await localChain();
const sink = '0x000000000000000000000000000000000000dead';

function request(tx = chain.tx({ to: chain.tracee, data: chain.call('Tracee', 'run', [chain.lib, chain.reverter, sink]), value: 100n })): TraceRequest {
  return { stateManager: chain.sm, common: chain.common, block: localBlock, priorTxs: [], tx: { tx } };
}

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(TraceError);
    return (e as TraceError).code;
  }
  throw new Error('no error');
};

describe('tracer options and bounds', () => {
  it('muxTracer answers each part as it answers alone; noopTracer answers {}', async () => {
    const req = request();
    const mux = (await traceTransaction(req, { tracer: 'muxTracer', tracerConfig: { callTracer: { withLog: true }, prestateTracer: { diffMode: true }, '4byteTracer': {} } })) as Record<string, unknown>;
    expect(mux.callTracer).toEqual(await traceTransaction(req, { tracer: 'callTracer', tracerConfig: { withLog: true } }));
    expect(mux.prestateTracer).toEqual(await traceTransaction(req, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }));
    expect(mux['4byteTracer']).toEqual(await traceTransaction(req, { tracer: '4byteTracer' }));
    expect(Object.keys(mux['4byteTracer'] as object).length).toBeGreaterThan(3);
    expect(await traceTransaction(req, { tracer: 'noopTracer' })).toEqual({});
  });

  it('4byteTracer leaves out calls to precompiles', async () => {
    const call = (to: `0x${string}`) => ({ stateManager: chain.sm, common: chain.common, block: localBlock, call: { to: hexToBytes(to), data: Uint8Array.of(1, 2, 3, 4, 5, 6), gas: 100_000n } });
    expect(await traceCall(call('0x0000000000000000000000000000000000000002'), { tracer: '4byteTracer' })).toEqual({});
    expect(await traceCall(call(chain.tracee), { tracer: '4byteTracer' })).toEqual({ '0x01020304-2': 1 });
  });

  it('leaves the state manager as it was', async () => {
    const before = await chain.sm.getStateRoot();
    await traceTransaction(request(), { tracer: 'prestateTracer', tracerConfig: { diffMode: true } });
    await codeOf(traceTransaction(request(chain.tx({ to: chain.tracee, data: chain.call('Tracee', 'burn', []), gas: 5_000_000n })), { timeout: '1ms' }));
    expect(await chain.sm.getStateRoot()).toEqual(before);
  });

  it('leaves the state manager as it was when a run stops deep inside a call', async () => {
    const before = await chain.sm.getStateRoot();
    const full = (await traceTransaction(request(), {})) as StructLoggerResult;
    // Stop the struct log at each tenth of its length in turn: most stops fall inside sub-calls.
    const deep = full.structLogs.map((l, i) => ({ l, i })).filter(({ l }) => l.depth >= 3);
    expect(deep.length).toBeGreaterThan(0);
    for (let k = 1; k < 10; k++) {
      const bound = Math.floor((JSON.stringify(full.structLogs).length * k) / 10);
      expect(await codeOf(traceTransaction(request(), {}, { maxResultBytes: bound, defaultTimeoutMs: 5_000 }))).toBe(TraceErrorCode.TooLarge);
      expect(await chain.sm.getStateRoot()).toEqual(before);
    }
    expect(await traceTransaction(request(), {})).toEqual(full);
  });

  it('stops at `timeout` with trace_timeout', async () => {
    const burn = request(chain.tx({ to: chain.tracee, data: chain.call('Tracee', 'burn', []), gas: 5_000_000n }));
    const t0 = Date.now();
    expect(await codeOf(traceTransaction(burn, { tracer: 'callTracer', timeout: '50ms' }))).toBe(TraceErrorCode.Timeout);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('a struct log past the answer bound fails with trace_too_large, naming the bound', async () => {
    const req = request();
    const err = await traceTransaction(req, {}, { maxResultBytes: 20_000, defaultTimeoutMs: 5_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TraceError);
    expect((err as TraceError).code).toBe(TraceErrorCode.TooLarge);
    expect((err as TraceError).message).toMatch(/larger than 20000 bytes/);
    // Under the bound, the same log is answered whole.
    const whole = (await traceTransaction(req, { disableStack: true })) as StructLoggerResult;
    expect(whole.structLogs.length).toBeGreaterThan(500);
  });

  it("geth's `limit` stops the log once its entries' bytes pass it", async () => {
    const req = request();
    const full = (await traceTransaction(req, {})) as StructLoggerResult;
    const limited = (await traceTransaction(req, { limit: 5_000 })) as StructLoggerResult;
    expect(limited.structLogs).toEqual(full.structLogs.slice(0, limited.structLogs.length));
    const bytes = (n: number) => limited.structLogs.slice(0, n).reduce((s, l) => s + JSON.stringify(l).length, 0);
    expect(bytes(limited.structLogs.length - 1)).toBeLessThanOrEqual(5_000);
    expect(bytes(limited.structLogs.length)).toBeGreaterThan(5_000);
    expect(limited.gas).toBe(full.gas);
  });

  it('refuses what geth refuses', async () => {
    const req = request();
    const bad: TraceConfig[] = [
      { tracer: 'jsTracer' },
      { tracer: 'prestateTracer', tracerConfig: { diffMode: true, includeEmpty: true } },
      { tracer: 'callTracer', tracerConfig: { onlyTopCall: 'yes' } },
      { tracer: 'callTracer', timeout: 'soon' },
      { tracer: 'muxTracer', tracerConfig: { muxTracer: {} } },
      { limit: -1 },
      { limit: '5' } as unknown as TraceConfig,
      { enableMemory: 'true' } as unknown as TraceConfig,
      { tracer: 7 } as unknown as TraceConfig,
      { timeout: 5 } as unknown as TraceConfig,
      [] as unknown as TraceConfig,
    ];
    for (const c of bad) expect(await codeOf(traceTransaction(req, c)), JSON.stringify(c)).toBe(TraceErrorCode.BadConfig);
  });

  it("reads Go's durations", () => {
    expect(parseDuration('5s')).toBe(5_000);
    expect(parseDuration('1m30s')).toBe(90_000);
    expect(parseDuration('300ms')).toBe(300);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(() => parseDuration('5')).toThrow(TraceError);
    expect(() => parseDuration('')).toThrow(TraceError);
  });

  it('traces a transaction whose sender is given (impersonated: no usable signature)', async () => {
    const who = createAddressFromString('0x00000000000000000000000000000000000b0b00');
    await chain.sm.checkpoint();
    const { Account } = await import('@ethereumjs/util');
    await chain.sm.putAccount(who, new Account(0n, 10n ** 20n));
    try {
      const tx = chain.tx({ to: sink, value: 5n, gas: 21_000n, nonce: 0n });
      const root = await callTree({ ...request(tx), tx: { tx, from: who.bytes } });
      expect(otsInternalOperations(root)).toEqual([{ type: 0, from: who.toString(), to: sink, value: '0x5' }]);
    } finally {
      await chain.sm.revert();
    }
    expect(SENDER.toString()).not.toBe(who.toString());
  });

  it('a transaction that cannot be applied is trace_rejected', async () => {
    const tx = chain.tx({ to: sink, value: 10n ** 30n, gas: 21_000n });
    expect(await codeOf(traceTransaction(request(tx), { tracer: 'callTracer' }))).toBe(TraceErrorCode.Rejected);
  });
});

describe('struct log size', () => {
  it("counts each entry's JSON bytes exactly (geth's limit and the answer bound rest on it)", async () => {
    const { entryBytes } = await import('../../src/archive/trace/struct_logger.js');
    const log = (await traceTransaction(request(), { enableMemory: true, enableReturnData: true })) as StructLoggerResult;
    const withError = (await traceTransaction(request(chain.tx({ to: chain.tracee, data: chain.call('Tracee', 'burn', []), gas: 100_000n })), {})) as StructLoggerResult;
    const refunded: StructLogJson = { pc: 1, op: 'SSTORE', gas: 5, gasCost: 0, depth: 2, refund: 4800, storage: {} };
    const entries = [...log.structLogs, ...withError.structLogs.slice(-3), refunded];
    expect(entries.some((e) => e.storage !== undefined && e.memory !== undefined)).toBe(true);
    expect(entries.some((e) => e.returnData !== undefined)).toBe(true);
    expect(withError.structLogs.at(-1)?.error).toBe('out of gas: not enough gas for reentrancy sentry');
    for (const e of entries) expect(entryBytes(e)).toBe(JSON.stringify(e).length);
  });
});

describe("the block's state changes outside transactions", () => {
  it('are applied before the first transaction, and undone with the rest', async () => {
    const before = await chain.sm.getStateRoot();
    const slot1 = new Uint8Array(32);
    slot1[31] = 1;
    const value = new Uint8Array(32);
    value[31] = 0x29;
    const who = createAddressFromString('0x00000000000000000000000000000000000b0b01');
    const req = {
      ...request(chain.tx({ to: chain.tracee, data: chain.call('Tracee', 'boom', [chain.reverter]) })),
      stateChanges: [
        { address: hexToBytes(chain.tracee), storage: [{ slot: slot1, value }] },
        { address: who.bytes, balance: 7n, nonce: 3n, code: Uint8Array.of(0x00), storage: [] },
      ],
    };
    const pre = (await traceTransaction(req, { tracer: 'prestateTracer' })) as Record<string, { storage?: Record<string, string> }>;
    expect(pre[chain.tracee.toLowerCase()]!.storage!['0x' + '0'.repeat(63) + '1']).toBe('0x' + '0'.repeat(62) + '29');
    expect(await chain.sm.getStateRoot()).toEqual(before);
  });
});

describe('debug_traceCall', () => {
  it("a `state` override replaces the whole storage, `stateDiff` changes slots; a call without fee runs at base fee 0", async () => {
    const slot = (n: number) => {
      const b = new Uint8Array(32);
      b[31] = n;
      return b;
    };
    const counter = chain.call('Tracee', 'counter', []);
    const base = { stateManager: chain.sm, common: chain.common, block: localBlock, call: { to: hexToBytes(chain.tracee), data: hexToBytes(counter), gas: 100_000n } };
    const read = async (stateOverrides: StateOverride[]) => ((await traceTransactionOutput(traceCall({ ...base, stateOverrides }, { tracer: 'callTracer' })))).output;
    expect(await read([{ address: hexToBytes(chain.tracee), stateDiff: [{ slot: slot(1), value: slot(9) }] }])).toBe(`0x${'0'.repeat(63)}9`);
    // `state` with only slot 0 set: slot 1 (counter) reads zero.
    expect(await read([{ address: hexToBytes(chain.tracee), state: [{ slot: slot(0), value: slot(5) }] }])).toBe(`0x${'0'.repeat(64)}`);
    const tree = (await traceCall({ ...base, call: { ...base.call, from: SENDER.bytes } }, { tracer: 'callTracer' })) as { gas: string; error?: string };
    expect(tree.error).toBeUndefined();
    expect(tree.gas).toBe('0x186a0');
  });
});

async function traceTransactionOutput(p: Promise<unknown>): Promise<{ output?: string }> {
  return (await p) as { output?: string };
}

describe('internal transactions (the indexer\'s rows)', () => {
  it('one row per frame below the top call, with trace address, kind, value, selector and whether it lasted', async () => {
    const rows = internalTransactions(await callTree(request()));
    const kinds = rows.map((r) => `${r.traceAddress.join('.')}:${r.type}${r.error === undefined ? '' : '!'}${r.reverted ? 'R' : ''}`);
    // delegatecall (and one inside it), staticcall to itself, the caught revert and panic, CREATE, CREATE2,
    // the call that self-destructs CREATE2's contract (its SELFDESTRUCT one level down), the transfer to the sink.
    expect(kinds).toEqual(['0:DELEGATECALL', '0.0:DELEGATECALL', '1:STATICCALL', '2:STATICCALL!R', '3:STATICCALL!R', '4:CREATE', '5:CREATE2', '6:CALL', '6.0:SELFDESTRUCT', '7:CALL']);
    // The inner delegatecall runs in Tracee's storage: geth names Tracee as its caller.
    expect(rows[1]!.from).toEqual(hexToBytes(chain.tracee));
    expect(rows[1]!.to).toEqual(hexToBytes(chain.lib));
    const transfer = rows.at(-1)!;
    expect(transfer.value).toBe(3n);
    expect(transfer.selector).toBeUndefined();
    expect(rows[1]!.selector).toEqual(hexToBytes('0xace803e8'));
    expect(rows[5]!.to).toBeDefined();
    expect(rows[8]!.value).toBe(2n);
  });
});
