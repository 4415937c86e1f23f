// The tracing methods through the gateway's dispatch on a chain run by the canister's core in memory and
// followed by the archive: debug_trace*, ots_* and trace_* answer from the archive's state and the exported
// block; bad params and configs are -32602; a block the archive does not hold is -32000; without an archive
// every one of them is -32601, as before.
import { describe, expect, it } from 'vitest';
import { ArchiveFollower } from '../../src/archive/follower.js';
import { ArchiveReader } from '../../src/archive/reader.js';
import { CanisterClient } from '../../src/client/index.js';
import { keccak256 } from '../../src/core/crypto.js';
import { DEFAULT_CONFIG } from '../../src/gateway/config.js';
import { METHODS } from '../../src/gateway/methods/index.js';
import { handleRequest } from '../../src/gateway/rpc.js';
import { createContext } from '../../src/gateway/server.js';
import { openDb } from '../../src/indexer/db.js';
import { asm, deployCode, label, ref } from '../support/asm.js';
import { A, ArchiveTestChain, B, GENESIS } from '../support/archive_chain.js';

const h = (b: Uint8Array): string => `0x${Buffer.from(b).toString('hex')}`;
const word = (b: Uint8Array | bigint): Uint8Array => {
  const w = new Uint8Array(32);
  if (typeof b === 'bigint') w.set(Buffer.from(b.toString(16).padStart(64, '0'), 'hex'));
  else w.set(b, 32 - b.length);
  return w;
};
/** Sends its call value on to the address in word 0; then reverts with 0xab when word 1 is not zero. */
const PAYER = asm(0, 0, 0, 0, 'CALLVALUE', 0, 'CALLDATALOAD', 'GAS', 'CALL', 'POP', 32, 'CALLDATALOAD', 'ISZERO', ref('ok'), 'JUMPI', 0xab, 0, 'MSTORE8', 1, 0, 'REVERT', label('ok'), 'STOP');

const TRACE_METHODS = ['debug_traceTransaction', 'debug_traceBlockByNumber', 'debug_traceBlockByHash', 'debug_traceCall', 'ots_getApiLevel', 'ots_hasCode', 'ots_getInternalOperations', 'ots_getTransactionError', 'ots_traceTransaction', 'trace_transaction', 'trace_block', 'trace_replayBlockTransactions'];

describe('tracing methods through the gateway', () => {
  it('trace transactions, blocks and calls from the archive', async () => {
    const chain = await ArchiveTestChain.create();
    const payer = chain.send(A, { to: null, data: deployCode(PAYER), gasLimit: 300_000n });
    await chain.mine();
    chain.send(A, { to: payer, value: 1000n, data: new Uint8Array([...word(B.address), ...word(0n)]) });
    chain.send(A, { to: payer, value: 7n, data: new Uint8Array([...word(B.address), ...word(1n)]) });
    await chain.mine();
    const [paid, reverted] = chain.blockRaws[1]!.map((r) => h(keccak256(r)));
    const db = await openDb({ memory: true });
    await new ArchiveFollower({ client: chain.client(), db, chainId: 4801360n, genesis: GENESIS, log: () => {} }).run({ untilCaughtUp: true });
    const inner = chain.transport();
    // The receipt lookup the canister answers: the block of a known hash.
    const client = new CanisterClient({
      kind: 'host',
      call: async (mode, method, args) => {
        if (method === 'rpc_eth_get_transaction_receipt_with_status_by_eth_hash') {
          const hash = h(args[0] as Uint8Array);
          const b = chain.exportedBlocks().find((x) => x.txs.some((t) => h(t.ethHash) === hash));
          return b === undefined ? { NotFound: null } : { Found: { block_number: b.block.number } };
        }
        return inner.call(mode, method, args);
      },
    });
    const logs: string[] = [];
    const ctx = createContext({ config: DEFAULT_CONFIG, client, archive: new ArchiveReader(db), log: (l) => logs.push(l) });
    const rpc = async (method: string, params: unknown[]) => handleRequest({ jsonrpc: '2.0', id: 1, method, params }, ctx);
    const P = h(payer).toLowerCase();
    const Bx = h(B.address).toLowerCase();
    const Ax = h(A.address).toLowerCase();

    const call = (await rpc('debug_traceTransaction', [paid, { tracer: 'callTracer' }])) as { result: Record<string, unknown> };
    expect(call.result).toMatchObject({ type: 'CALL', from: Ax, to: P, value: '0x3e8', calls: [{ type: 'CALL', from: P, to: Bx, value: '0x3e8', input: '0x' }] });
    expect(call.result).not.toHaveProperty('error');
    const failed = (await rpc('debug_traceTransaction', [reverted, { tracer: 'callTracer' }])) as { result: Record<string, unknown> };
    expect(failed.result).toMatchObject({ type: 'CALL', to: P, value: '0x7', output: '0xab', error: 'execution reverted', calls: [{ to: Bx, value: '0x7' }] });
    const structs = (await rpc('debug_traceTransaction', [paid, { disableStack: true }])) as { result: { failed: boolean; structLogs: { op: string }[] } };
    expect(structs.result.failed).toBe(false);
    expect(structs.result.structLogs.map((s) => s.op)).toContain('CALL');

    // The top call's value too, as anvil lists it.
    expect(await rpc('ots_getInternalOperations', [paid])).toMatchObject({ result: [{ type: 0, from: Ax, to: P, value: '0x3e8' }, { type: 0, from: P, to: Bx, value: '0x3e8' }] });
    expect(await rpc('ots_getTransactionError', [reverted])).toMatchObject({ result: '0xab' });
    expect(await rpc('ots_getTransactionError', [paid])).toMatchObject({ result: '0x' });
    expect(await rpc('ots_traceTransaction', [paid])).toMatchObject({ result: [{ type: 'CALL', depth: 0, to: P }, { type: 'CALL', depth: 1, from: P, to: Bx, value: '0x3e8' }] });
    expect(await rpc('ots_getApiLevel', [])).toMatchObject({ result: 8 });
    expect(await rpc('ots_hasCode', [P, '0x1'])).toMatchObject({ result: true });
    expect(await rpc('ots_hasCode', [P, '0x0'])).toMatchObject({ result: false });

    const tt = (await rpc('trace_transaction', [paid])) as { result: Record<string, unknown>[] };
    expect(tt.result).toHaveLength(2);
    expect(tt.result[1]).toMatchObject({ type: 'call', traceAddress: [0], blockNumber: 2, transactionHash: paid, transactionPosition: 0, action: { from: P, to: Bx, value: '0x3e8' } });
    const tb = (await rpc('trace_block', ['0x2'])) as { result: { transactionHash: string; error?: string }[] };
    expect(tb.result.map((t) => t.transactionHash)).toEqual([paid, paid, reverted, reverted]);
    expect(tb.result[2]!.error).toBe('Reverted');
    const replay = (await rpc('trace_replayBlockTransactions', ['0x2', ['trace']])) as { result: { transactionHash: string; output: string }[] };
    expect(replay.result.map((r) => [r.transactionHash, r.output])).toEqual([[paid, '0x'], [reverted, '0xab']]);

    const byNumber = (await rpc('debug_traceBlockByNumber', ['0x2', { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } }])) as { result: { txHash: string; result: { calls?: unknown } }[] };
    expect(byNumber.result.map((r) => r.txHash)).toEqual([paid, reverted]);
    expect(byNumber.result[0]!.result.calls).toBeUndefined();
    const b2 = chain.exportedBlocks(2n)[0]!.block;
    expect(await rpc('debug_traceBlockByHash', [h(b2.hash), { tracer: 'callTracer' }])).toMatchObject({ result: [{ txHash: paid, result: { calls: [{ to: Bx }] } }, { txHash: reverted }] });

    // debug_traceCall at block 1 (before the payments), B's balance overridden, paying C.
    const C = '0x00000000000000000000000000000000000000cc';
    const traced = await rpc('debug_traceCall', [{ from: Ax, to: P, value: '0x5', data: h(new Uint8Array([...word(Buffer.from(C.slice(2), 'hex')), ...word(0n)])) }, '0x1', { tracer: 'prestateTracer', tracerConfig: { diffMode: true }, stateOverrides: { [C]: { balance: '0x64' } } }]);
    expect(traced).toMatchObject({ result: { post: { [C]: { balance: '0x69' } } } });
    expect(await rpc('debug_traceCall', [{ from: Ax, to: P }, '0x1', { tracer: 'callTracer', blockOverrides: { number: '0x99' } }])).toMatchObject({ result: { type: 'CALL', to: P } });

    // txIndex (geth's): the call at block 2 on the state after its first k transactions. The prestate of a call
    // touching A and B shows what those transactions set: A's nonce and balance, B's balance (paid 1000 by the
    // first, nothing by the reverted second).
    const pre = async (txIndex: string) => {
      const r = (await rpc('debug_traceCall', [{ from: Ax, to: Bx }, '0x2', { tracer: 'prestateTracer', txIndex }])) as { result: Record<string, { balance: string; nonce?: number }> };
      return { aNonce: r.result[Ax]!.nonce, b: BigInt(r.result[Bx]!.balance) };
    };
    const balanceAt = async (who: string, n: string) => BigInt(((await rpc('eth_getBalance', [who, n])) as { result: string }).result);
    const b1 = await balanceAt(Bx, '0x1');
    expect(await pre('0x0')).toEqual({ aNonce: 1, b: b1 });
    expect(await pre('0x1')).toEqual({ aNonce: 2, b: b1 + 1000n });
    // The end state (no txIndex) has both transactions: A's nonce 3, B still paid once.
    const end = (await rpc('debug_traceCall', [{ from: Ax, to: Bx }, '0x2', { tracer: 'prestateTracer' }])) as { result: Record<string, { nonce: number; balance: string }> };
    expect([end.result[Ax]!.nonce, BigInt(end.result[Bx]!.balance)]).toEqual([3, b1 + 1000n]);
    // A call after the prefix sees its storage-free effects too: the payer's call of the first transaction
    // made again after it pays B a second time; the block's context (number 2) is kept.
    const again = (await rpc('debug_traceCall', [{ from: Ax, to: P, value: '0x3e8', data: h(new Uint8Array([...word(B.address), ...word(0n)])) }, '0x2', { tracer: 'prestateTracer', tracerConfig: { diffMode: true }, txIndex: '0x1' }])) as { result: { pre: Record<string, { balance: string }>; post: Record<string, { balance: string }> } };
    expect(BigInt(again.result.pre[Bx]!.balance)).toBe(b1 + 1000n);
    expect(BigInt(again.result.post[Bx]!.balance)).toBe(b1 + 2000n);
    // The prefix runs in the block's own context, whatever the call's block overrides (and the zero base fee a
    // call without a fee gets): A paid the first transaction's fee at the block's base fee, as its receipt says.
    const receipt = chain.exportedBlocks(2n)[0]!.receipts[0]!;
    const fee = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(fee).toBeGreaterThan(0n);
    const aBalance = async (config: Record<string, unknown>) =>
      BigInt(((await rpc('debug_traceCall', [{ from: Ax, to: Bx }, '0x2', { tracer: 'prestateTracer', txIndex: '0x1', ...config }])) as { result: Record<string, { balance: string }> }).result[Ax]!.balance);
    const a1 = await balanceAt(Ax, '0x1');
    expect(await aBalance({})).toBe(a1 - 1000n - fee);
    expect(await aBalance({ blockOverrides: { baseFeePerGas: '0x1', number: '0x99' } })).toBe(a1 - 1000n - fee);
    // Bounds and errors as geth's: past the last transaction, block 0, a number instead of a hex string.
    expect(await rpc('debug_traceCall', [{ to: P }, '0x2', { txIndex: '0x2' }])).toMatchObject({ error: { code: -32000, message: `transaction index 2 out of range for block ${h(b2.hash)}` } });
    expect(await rpc('debug_traceCall', [{ to: P }, '0x0', { txIndex: '0x0' }])).toMatchObject({ error: { code: -32000, message: 'no transaction in genesis' } });
    expect(await rpc('debug_traceCall', [{ to: P }, '0x2', { txIndex: 1 }])).toMatchObject({ error: { code: -32602 } });
    expect(await rpc('debug_traceCall', [{ to: P }, '0x9', { txIndex: '0x0' }])).toMatchObject({ error: { code: -32000, message: expect.stringMatching(/^state unavailable/) } });

    // Errors: params and configs at the edge, the trace's own codes through the one mapping.
    expect(await rpc('debug_traceTransaction', [paid, { tracer: 'jsTracer' }])).toMatchObject({ error: { code: -32602, message: 'tracer not found: jsTracer' } });
    expect(await rpc('debug_traceTransaction', [paid, { disableStack: 'yes' }])).toMatchObject({ error: { code: -32602 } });
    expect(await rpc('debug_traceTransaction', [paid, { timeout: '1 minute' }])).toMatchObject({ error: { code: -32602 } });
    expect(await rpc('debug_traceTransaction', ['0x12'])).toMatchObject({ error: { code: -32602 } });
    expect(await rpc('debug_traceTransaction', [h(new Uint8Array(32))])).toMatchObject({ result: null });
    expect(await rpc('debug_traceCall', [{ to: P, bogus: 1 }, '0x1'])).toMatchObject({ error: { code: -32602 } });
    expect(await rpc('debug_traceCall', [{ to: P }, '0x1', { stateOverrides: { [C]: { state: {}, stateDiff: {} } } }])).toMatchObject({ error: { code: -32602 } });
    expect(await rpc('trace_replayBlockTransactions', ['0x2', ['vmTrace']])).toMatchObject({ error: { code: -32602 } });
    expect(await rpc('trace_block', ['0x9'])).toMatchObject({ error: { code: -32000, message: expect.stringMatching(/^state unavailable: the archive does not hold block 9/) } });
    expect(await rpc('debug_traceCall', [{ to: P }, '0x9'])).toMatchObject({ error: { code: -32000 } });
    // The archive still holding an undone block 2 (a moment after evm_revert): not traced on the new one.
    await db.query('UPDATE archive_blocks SET hash = $1 WHERE number = 2', [new Uint8Array(32).fill(9)]);
    expect(await rpc('debug_traceTransaction', [paid])).toMatchObject({ error: { code: -32000, message: "state unavailable: the archive has not followed the chain's block 2 yet" } });
    expect(logs).toEqual([]);

    // Without an archive: unknown methods, as before.
    const plain = createContext({ config: DEFAULT_CONFIG, client, log: () => {} });
    for (const m of TRACE_METHODS) {
      expect(await handleRequest({ jsonrpc: '2.0', id: 1, method: m, params: [] }, plain), m).toMatchObject({ error: { code: -32601, message: `the method ${m} does not exist/is not available` } });
    }
    expect(TRACE_METHODS.every((m) => METHODS.some((s) => s.name === m))).toBe(true);
  });
});
