// Internal transactions and contract creators written by the archive's replay (src/archive/call_capture.ts,
// replay.ts, store.ts) for every transaction, in the same commit as the block: nested calls and delegatecalls,
// a contract creating two contracts (CREATE and CREATE2) and sending them ether, a self-destruct, caught and
// uncaught reverts, a call refused for want of balance, and what only the opcode tells (CALLCODE, a CALL inside
// a static frame, the reentrancy sentry, an invalid opcode). The rows equal the tracers' (trace/internal_txs.ts over
// the full step-level recorder, re-run on the archived state) and hand-checked expectations; a rewind removes
// them and the replay writes them again; an archive database of schema 1 is upgraded and says from which block
// it holds them.
import { describe, expect, it } from 'vitest';
import { encodeDeployData, encodeFunctionData, type Abi } from 'viem';
import { ArchiveFollower } from '../../src/archive/follower.js';
import { ArchiveReader } from '../../src/archive/reader.js';
import { archiveCommon, archiveTxCommon } from '../../src/archive/evm_context.js';
import { replayTxOf } from '../../src/archive/replay_tx.js';
import { blockCallTrees, internalTransactions } from '../../src/archive/trace/index.js';
import { internalRowsFromBlock } from '../../src/archive/internal_rows.js';
import { ARCHIVE_SCHEMA_VERSION, ensureArchiveSchema } from '../../src/archive/schema.js';
import { readMeta, rewindArchive } from '../../src/archive/store.js';
import { openDb, type Db } from '../../src/indexer/db.js';
import { compileFixture } from '../fixtures/solidity/compile.js';
import { A, ArchiveTestChain, B } from '../support/archive_chain.js';
import { addr } from '../support/chain_testkit.js';
import { asm, deployCode } from '../support/asm.js';

const CHAIN_ID = 4801360n;
const hex = (b: Uint8Array | null | undefined): string | null => (b == null ? null : `0x${Buffer.from(b).toString('hex')}`);
const bytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
const contract = (name: string) => compileFixture('../../support/trace_fixtures/Traced.sol', name);

interface Row {
  block: string;
  txIndex: number;
  traceAddress: string;
  txHash: string | null;
  type: string;
  from: string | null;
  to: string | null;
  value: string;
  gas: string;
  gasUsed: string;
  error: string | null;
  selector: string | null;
  reverted: boolean;
}

async function storedRows(db: Db): Promise<{ internal: Row[]; creators: string[] }> {
  const r = await db.query<Record<string, unknown>>('SELECT * FROM archive_internal_txs ORDER BY block, tx_index, trace_address');
  const internal = r.rows.map((x) => ({
    block: String(x.block),
    txIndex: Number(x.tx_index),
    traceAddress: (x.trace_address as number[]).join('.'),
    txHash: hex(x.tx_hash as Uint8Array),
    type: x.type as string,
    from: hex(x.from_address as Uint8Array),
    to: hex(x.to_address as Uint8Array | null),
    value: String(x.value),
    gas: String(x.gas),
    gasUsed: String(x.gas_used),
    error: (x.error as string | null) ?? null,
    selector: hex(x.selector as Uint8Array | null),
    reverted: x.reverted as boolean,
  }));
  const c = await db.query<Record<string, unknown>>('SELECT * FROM archive_contract_creators ORDER BY block, tx_index, trace_address');
  const creators = c.rows.map((x) => `${x.block}/${x.tx_index}/${(x.trace_address as number[]).join('.')} ${hex(x.address as Uint8Array)} by ${hex(x.creator as Uint8Array)}`);
  return { internal, creators };
}

/** What the tracers say: each block re-run from the archived state before it with the step-level recorder. */
async function tracerRows(chain: ArchiveTestChain, db: Db): Promise<Row[]> {
  const reader = new ArchiveReader(db);
  const out: Row[] = [];
  for (const eb of chain.exportedBlocks(1n)) {
    const n = eb.block.number;
    const context = (await reader.blockContext(n))!;
    const txs = eb.txs.map((t) => ({ tx: replayTxOf(t, archiveTxCommon()).tx, from: t.from, hash: t.ethHash }));
    const roots = await blockCallTrees({ stateManager: reader.stateAt(n - 1n), common: archiveCommon(), block: context, stateChanges: eb.stateChanges, txs });
    roots.forEach((root, i) => {
      for (const t of internalTransactions(root)) {
        out.push({
          block: String(n),
          txIndex: i,
          traceAddress: t.traceAddress.join('.'),
          txHash: hex(eb.txs[i]!.ethHash),
          type: t.type,
          from: hex(t.from),
          to: hex(t.to),
          value: String(t.value),
          gas: String(t.gas),
          gasUsed: String(t.gasUsed),
          error: t.error ?? null,
          selector: hex(t.selector),
          reverted: t.reverted,
        });
      }
    });
  }
  return out;
}

const follow = async (chain: ArchiveTestChain, db: Db): Promise<void> => {
  const f = new ArchiveFollower({ client: chain.client(), db, chainId: CHAIN_ID, log: () => {} });
  await f.run({ untilCaughtUp: true });
  expect(f.status().alarm).toBeUndefined();
};

describe('internal transactions and contract creators written by the replay', () => {
  it('one row per frame below the top call, equal to the tracers\' rows; creators of every creation that lasted', async () => {
    const chain = await ArchiveTestChain.create();
    // The block gas limit is 3,000,000: gas limits small enough for each block to hold its transactions.
    const deploy = (name: string, gasLimit: bigint): Uint8Array => {
      const c = contract(name);
      return chain.send(A, { to: null, data: bytes(encodeDeployData({ abi: c.abi as Abi, bytecode: c.bytecode, args: [] })), gasLimit });
    };
    const lib = deploy('Lib', 400_000n);
    const reverter = deploy('Reverter', 400_000n);
    const tracee = deploy('Tracee', 1_200_000n);
    await chain.mine();
    const abi = contract('Tracee').abi as Abi;
    const call = (fn: string, args: unknown[]) => bytes(encodeFunctionData({ abi, functionName: fn, args }));
    const sink = addr(0xdead);
    // Nested calls, two creations with ether (1 and 2 wei), a self-destruct, two caught reverts, a transfer.
    chain.send(A, { to: tracee, data: call('run', [hex(lib), hex(reverter), hex(sink)]), value: 100n, gasLimit: 1_500_000n });
    // An uncaught revert deep down: the transaction fails, every frame of it is undone.
    chain.send(B, { to: tracee, data: call('boom', [hex(reverter)]), gasLimit: 300_000n });
    // A call refused for want of balance (Tracee holds 100 - 1 - 2 - 3 wei, it sends one more): a frame that used no gas.
    chain.send(A, { to: tracee, data: call('overspend', [hex(sink)]), gasLimit: 200_000n });
    await chain.mine();
    // A plain transfer: no rows.
    chain.send(B, { to: A.address, value: 1n, gasLimit: 21_000n });
    // Hand-written contracts for what only the opcode tells: the kind of a call inside a static frame, CALLCODE,
    // and the failures geth names from the failing opcode (the reentrancy sentry, an invalid opcode).
    const writer = chain.send(B, { to: null, data: deployCode(asm(1, 0, 'SSTORE', 'STOP')), gasLimit: 100_000n });
    const invalid = chain.send(B, { to: null, data: deployCode(asm('INVALID')), gasLimit: 100_000n });
    const n = (a: Uint8Array) => BigInt(hex(a)!);
    const inner = chain.send(B, { to: null, data: deployCode(asm(0, 0, 0, 0, 0, n(writer), 30_000, 'CALL', 'POP', 'STOP')), gasLimit: 100_000n });
    const driver = chain.send(B, {
      to: null,
      data: deployCode(asm(
        0, 0, 0, 0, 0, n(writer), 2_000, 'CALL', 'POP', // SSTORE with 2,000 gas: the sentry
        0, 0, 0, 0, 0, n(writer), 5_000, 'CALL', 'POP', // SSTORE past the sentry, short of its cost: out of gas
        0, 0, 0, 0, 0, n(invalid), 30_000, 'CALL', 'POP',
        0, 0, 0, 0, 0, n(writer), 30_000, 'CALLCODE', 'POP', // the writer's code on the driver's storage
        0, 0, 0, 0, n(inner), 60_000, 'STATICCALL', 'POP', // its CALL to the writer is a CALL, refused to write
        'STOP',
      )),
      gasLimit: 200_000n,
    });
    await chain.mine();
    chain.send(B, { to: driver, gasLimit: 300_000n });
    await chain.mine();

    const db = await openDb({ memory: true });
    try {
      await follow(chain, db);
      const stored = await storedRows(db);
      expect(stored.internal).toEqual(await tracerRows(chain, db));

      const run = stored.internal.filter((r) => r.block === '2' && r.txIndex === 0);
      expect(run.map((r) => `${r.traceAddress}:${r.type}${r.error === null ? '' : '!'}${r.reverted ? 'R' : ''}`)).toEqual([
        '0:DELEGATECALL', '0.0:DELEGATECALL', '1:STATICCALL', '2:STATICCALL!R', '3:STATICCALL!R', '4:CREATE', '5:CREATE2', '6:CALL', '6.0:SELFDESTRUCT', '7:CALL',
      ]);
      const at = (ta: string) => run.find((r) => r.traceAddress === ta)!;
      const tr = hex(tracee);
      const viaDelegate = bytes(encodeFunctionData({ abi: contract('Lib').abi as Abi, functionName: 'viaDelegate', args: [hex(lib), 42n] }));
      expect(at('0')).toMatchObject({ from: tr, to: hex(lib), selector: hex(viaDelegate.slice(0, 4)), value: '100' });
      expect(at('2')).toMatchObject({ from: tr, to: hex(reverter), error: 'execution reverted', reverted: true, value: '0' });
      expect(at('4')).toMatchObject({ from: tr, value: '1', selector: null, reverted: false });
      expect(at('5')).toMatchObject({ from: tr, value: '2', reverted: false });
      // c2 self-destructs to the sink with the 2 wei it was given; the sink gets 3 more from Tracee.
      expect(at('6.0')).toMatchObject({ type: 'SELFDESTRUCT', from: at('5').to, to: hex(sink), value: '2' });
      expect(at('7')).toMatchObject({ from: tr, to: hex(sink), value: '3', selector: null, error: null });
      const c1 = at('4').to!;
      const c2 = at('5').to!;

      const boom = stored.internal.filter((r) => r.block === '2' && r.txIndex === 1);
      expect(boom.map((r) => `${r.traceAddress}:${r.type}:${r.error}:${r.reverted}`)).toEqual(['0:STATICCALL:execution reverted:true']);
      const over = stored.internal.filter((r) => r.block === '2' && r.txIndex === 2);
      expect(over).toEqual([expect.objectContaining({ traceAddress: '0', type: 'CALL', from: tr, to: hex(sink), gasUsed: '0', error: 'insufficient balance for transfer', reverted: true, value: '95' })]);
      expect(stored.internal.some((r) => r.block === '3')).toBe(false);
      const edge = stored.internal.filter((r) => r.block === '4');
      expect(edge.map((r) => `${r.traceAddress}:${r.type}:${r.error}:${r.reverted}`)).toEqual([
        '0:CALL:out of gas: not enough gas for reentrancy sentry:true',
        '1:CALL:out of gas:true',
        '2:CALL:invalid opcode: INVALID:true',
        '3:CALLCODE:null:false',
        '4:STATICCALL:null:false',
        '4.0:CALL:write protection:true',
      ]);
      expect(edge[3]).toMatchObject({ from: hex(driver), to: hex(writer) });
      expect(edge[5]).toMatchObject({ from: hex(inner), to: hex(writer) });

      expect(stored.creators).toEqual([
        `1/0/ ${hex(lib)} by ${hex(A.address)}`,
        `1/1/ ${hex(reverter)} by ${hex(A.address)}`,
        `1/2/ ${tr} by ${hex(A.address)}`,
        `2/0/4 ${c1} by ${tr}`,
        `2/0/5 ${c2} by ${tr}`,
        ...[writer, invalid, inner, driver].map((a, i) => `3/${i + 1}/ ${hex(a)} by ${hex(B.address)}`),
      ]);
      expect(await internalRowsFromBlock(db)).toBe(0n);

      // An evm_revert-style rewind to block 1 removes block 2's rows with the block; replaying it writes them again.
      await rewindArchive(db, 1n);
      const after = await storedRows(db);
      expect(after.internal).toEqual([]);
      expect(after.creators).toEqual(stored.creators.slice(0, 3));
      await follow(chain, db);
      expect(await storedRows(db)).toEqual(stored);
    } finally {
      await db.close();
    }
  }, 120_000);

  it('an archive database of schema 1 is upgraded: rows from its cursor on, and it says so', async () => {
    const db = await openDb({ memory: true });
    try {
      await ensureArchiveSchema(db, CHAIN_ID);
      await db.exec('ALTER TABLE archive_meta DROP COLUMN internal_from_block');
      await db.query('UPDATE archive_meta SET schema_version = 1, cursor_block = 42 WHERE id = 1');
      await ensureArchiveSchema(db, CHAIN_ID);
      expect((await db.query<{ schema_version: number }>('SELECT schema_version FROM archive_meta')).rows[0]!.schema_version).toBe(ARCHIVE_SCHEMA_VERSION);
      expect(await internalRowsFromBlock(db)).toBe(42n);
      expect((await readMeta(db)).internalFromBlock).toBe(42n);
      // A rewind below it: the blocks replayed again get their rows, so the start moves down with the cursor.
      await db.query("INSERT INTO archive_blocks (number, hash, parent_hash, timestamp, base_fee, gas_limit, coinbase, state_root, tx_count) VALUES (10, '\\x01', '\\x00', 0, 0, 0, '\\x00', '\\x02', 0)");
      await rewindArchive(db, 10n);
      expect(await internalRowsFromBlock(db)).toBe(11n);
    } finally {
      await db.close();
    }
  });
});
