// The devnet's indexer on the real canister wasm through the host transport: value transfers and a deployment
// whose constructor emits an ERC-20 Transfer, an ERC-721 Transfer and a malformed Transfer-shaped log; the
// indexed rows match the canister's own answers (block hashes, receipts), the malformed log is skipped. Then an
// evm_revert: the indexer forgets the undone blocks (rows, archive files) and indexes the replacing ones.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { Principal } from '@dfinity/principal';
import { DevnetControl } from '../../src/devnet/dev.js';
import { openDevnetDb, startDevnetIndexer } from '../../src/devnet/indexer.js';
import { projectTempDir } from '../../src/host/paths.js';
import { Archive } from '../../src/indexer/archive.js';
import { TRANSFER_TOPIC } from '../../src/indexer/rows.js';
import { Evm, unwrap, type Opt, type Receipt } from '../support/canister.js';
import { testIndexerConfig } from '../support/indexer.js';
import { selfAuthenticating, syntheticSender } from '../support/ic.js';

const dir = projectTempDir('indexer-devnet-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const GWEI = 10n ** 9n;
const USER = selfAuthenticating(0x51);

/** Constructor: LOG3 Transfer(1 -> 2, 42), LOG4 Transfer(1 -> 2, id 42) with no data, LOG3 Transfer with no data (malformed). */
function emitterInitCode(): Uint8Array {
  const t = Buffer.from(TRANSFER_TOPIC).toString('hex');
  const hex = `602a600052` + `60026001` + `7f${t}` + `60206000a3` + `602a60026001` + `7f${t}` + `60006000a4` + `60026001` + `7f${t}` + `60006000a3` + `00`;
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

it('indexes the devnet chain through the host transport', async () => {
  const evm = await Evm.start({ genesis: [{ address: syntheticSender(USER), balance: 10n ** 24n }] });
  try {
    const ids: Uint8Array[] = [];
    for (let nonce = 0n; nonce < 4n; nonce++) {
      const data = nonce === 3n ? emitterInitCode() : new Uint8Array();
      const to: Opt<Uint8Array> = nonce === 3n ? [] : [new Uint8Array(20).fill(0x44)];
      ids.push(unwrap(await evm.submitIc({ to, value: nonce === 3n ? 0n : 1000n, gas_limit: nonce === 3n ? 300_000n : 21_000n, nonce, max_fee_per_gas: 1000n * GWEI, max_priority_fee_per_gas: 250n * GWEI, data }, USER)));
    }
    while (evm.query<{ pending_txs: bigint }>('health').pending_txs > 0n) await evm.mine();
    const head = evm.blockNumber();
    const deploy = evm.query<Opt<Receipt>>('get_receipt', ids[3]!)[0]!;
    expect(deploy.status).toBe(1);
    expect(deploy.logs).toHaveLength(3);

    const logs: string[] = [];
    const config = testIndexerConfig(join(dir, 'archive'), { pgliteDir: join(dir, 'db') });
    const { db } = await openDevnetDb(config);
    const ix = startDevnetIndexer({ evm: evm.client, config, db, log: (l) => logs.push(l) });
    try {
      for (let i = 0; i < 600 && ix.indexer.cursor !== head + 1n; i++) await new Promise((r) => setTimeout(r, 100));
      expect(ix.indexer.cursor).toBe(head + 1n);
      const blocks = (await db.query<{ number: bigint; hash: Uint8Array }>('SELECT number, hash FROM blocks ORDER BY number')).rows;
      expect(blocks.map((b) => b.number)).toEqual(Array.from({ length: Number(head) + 1 }, (_, i) => BigInt(i)));
      for (const b of blocks) expect(Buffer.from(b.hash)).toEqual(Buffer.from(evm.block(b.number)!.hash));
      const txs = (await db.query<{ tx_id: Uint8Array; origin: string; receipt_status: number }>('SELECT tx_id, origin, receipt_status FROM txs ORDER BY block_number, tx_index')).rows;
      expect(txs.map((t) => Buffer.from(t.tx_id).toString('hex'))).toEqual(ids.map((i) => Buffer.from(i).toString('hex')));
      expect(txs.every((t) => t.origin === 'IcSynthetic' && t.receipt_status === 1)).toBe(true);
      const r = (await db.query<{ contract_address: Uint8Array; gas_used: bigint }>('SELECT contract_address, gas_used FROM receipts WHERE contract_address IS NOT NULL')).rows;
      expect(r).toHaveLength(1);
      expect(Buffer.from(r[0]!.contract_address)).toEqual(Buffer.from(deploy.contract_address[0]!));
      expect(r[0]!.gas_used).toBe(deploy.gas_used);
      const transfers = (await db.query<{ amount: string; token_id: string | null; token_address: Uint8Array }>('SELECT amount, token_id, token_address FROM token_transfers ORDER BY log_index')).rows;
      expect(transfers.map((t) => [t.amount, t.token_id])).toEqual([
        ['42', null],
        ['1', '42'],
      ]);
      expect(Buffer.from(transfers[0]!.token_address)).toEqual(Buffer.from(deploy.contract_address[0]!));
      expect((await db.query('SELECT * FROM skipped_transfer_logs')).rows).toHaveLength(1);
      expect(logs.some((l) => /Transfer-shaped log skipped/.test(l))).toBe(true);
      const samples = (await db.query<{ head_block: bigint }>('SELECT head_block FROM ops_metrics_samples')).rows;
      expect(samples.length).toBeGreaterThan(0);
    } finally {
      await ix.stop();
      await db.close();
    }
  } finally {
    evm.close();
  }
});

it('forgets the blocks an evm_revert undid and indexes the chain that replaced them', async () => {
  const user = selfAuthenticating(0x52);
  const evm = await Evm.start({ genesis: [{ address: syntheticSender(user), balance: 10n ** 24n }] });
  const dev = new DevnetControl(evm.host, evm.client, Principal.anonymous(), 2);
  const send = async (nonce: bigint, value: bigint): Promise<Uint8Array> => {
    const id = unwrap(await evm.submitIc({ to: [new Uint8Array(20).fill(0x45)], value, gas_limit: 21_000n, nonce, max_fee_per_gas: 1000n * GWEI, max_priority_fee_per_gas: 250n * GWEI, data: new Uint8Array() }, user));
    await evm.mine();
    return id;
  };
  const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
  const config = testIndexerConfig(join(dir, 'archive-revert'), { pgliteDir: join(dir, 'db-revert') });
  const { db } = await openDevnetDb(config);
  const ix = startDevnetIndexer({ evm: evm.client, config, db, log: () => {}, dev });
  const until = async (what: string, ok: () => Promise<boolean> | boolean): Promise<void> => {
    for (let i = 0; i < 600; i++) {
      if (await ok()) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${what}`);
  };
  const indexed = async () => (await db.query<{ number: bigint; hash: Uint8Array }>('SELECT number, hash FROM blocks ORDER BY number')).rows;
  try {
    await send(0n, 1n);
    const base = evm.blockNumber();
    await until('the first blocks', () => ix.indexer.cursor === base + 1n);
    const snap = dev.snapshot();
    const undone = [await send(1n, 2n), await send(2n, 3n)];
    await until('the blocks after the snapshot', () => ix.indexer.cursor === base + 3n);
    expect((await indexed()).map((b) => b.number).at(-1)).toBe(base + 2n);

    expect(await dev.revert(snap)).toBe(true);
    expect(evm.blockNumber()).toBe(base);
    await until('the rewind', async () => (await indexed()).every((b) => b.number <= base));
    const replacement = await send(1n, 5n);
    await until('the replacing block', () => ix.indexer.cursor === base + 2n);

    const blocks = await indexed();
    expect(blocks.map((b) => b.number)).toEqual(Array.from({ length: Number(base) + 2 }, (_, i) => BigInt(i)));
    for (const b of blocks) expect(hex(b.hash)).toBe(hex(evm.block(b.number)!.hash));
    // tx_ids are a counter, restored by the revert: the replacement reuses the first undone one's, and the
    // values tell the transactions apart (1 before the snapshot, 2 and 3 undone, 5 replacing them).
    const txs = (await db.query<{ tx_id: Uint8Array; value: string }>('SELECT tx_id, value FROM txs ORDER BY block_number')).rows;
    expect(txs.map((t) => t.value)).toEqual(['1', '5']);
    expect(hex(txs[1]!.tx_id)).toBe(hex(replacement));
    expect(hex(undone[0]!)).toBe(hex(replacement));
    const archived = (await db.query<{ block_number: bigint }>('SELECT block_number FROM archive_files ORDER BY block_number')).rows.map((r) => r.block_number);
    expect(archived).toEqual(blocks.map((b) => b.number));
    const files = (await Archive.open(config.archiveDir, config.chainId, config.zstdLevel)).blockFiles().map((f) => f.blockNumber);
    expect(files).toEqual(archived);
  } finally {
    await ix.stop();
    await db.close();
    evm.close();
  }
});

it('finds a revert it was not told about (indexer stopped meanwhile): a shorter chain and a longer one', async () => {
  const user = selfAuthenticating(0x53);
  const evm = await Evm.start({ genesis: [{ address: syntheticSender(user), balance: 10n ** 24n }] });
  const dev = new DevnetControl(evm.host, evm.client, Principal.anonymous(), 2);
  let nonce = 0n;
  const send = async (value: bigint): Promise<void> => {
    unwrap(await evm.submitIc({ to: [new Uint8Array(20).fill(0x46)], value, gas_limit: 21_000n, nonce: nonce++, max_fee_per_gas: 1000n * GWEI, max_priority_fee_per_gas: 250n * GWEI, data: new Uint8Array() }, user));
    await evm.mine();
  };
  const config = testIndexerConfig(join(dir, 'archive-restart'), { pgliteDir: join(dir, 'db-restart') });
  const { db } = await openDevnetDb(config);
  const logs: string[] = [];
  // Indexes to the canister's head with a fresh indexer that no revert hook reaches, then stops it.
  const indexToHead = async (): Promise<void> => {
    const ix = startDevnetIndexer({ evm: evm.client, config, db, log: (l) => logs.push(l) });
    try {
      const head = evm.blockNumber();
      for (let i = 0; i < 600 && ix.indexer.cursor !== head + 1n; i++) await new Promise((r) => setTimeout(r, 50));
      expect(ix.indexer.cursor).toBe(head + 1n);
    } finally {
      await ix.stop();
    }
  };
  const expectSameChain = async (): Promise<void> => {
    const rows = (await db.query<{ number: bigint; hash: Uint8Array }>('SELECT number, hash FROM blocks ORDER BY number')).rows;
    expect(rows.map((b) => b.number)).toEqual(Array.from({ length: Number(evm.blockNumber()) + 1 }, (_, i) => BigInt(i)));
    for (const b of rows) expect(Buffer.from(b.hash)).toEqual(Buffer.from(evm.block(b.number)!.hash));
    const values = (await db.query<{ value: string }>('SELECT value FROM txs ORDER BY block_number')).rows.map((t) => t.value);
    expect(values).toEqual(sent);
  };
  let sent: string[] = [];
  try {
    await send(1n);
    const snap = dev.snapshot();
    await send(2n);
    await send(3n);
    await indexToHead();
    // Shorter: the cursor is past the new head (export_blocks answers InvalidCursor).
    await dev.revert(snap);
    nonce = 1n;
    await send(4n);
    sent = ['1', '4'];
    await indexToHead();
    await expectSameChain();
    expect(logs.some((l) => /past the canister's head .*rewinding to block/.test(l))).toBe(true);
    // Longer: the next block's parent is not the indexed one.
    const snap2 = dev.snapshot();
    await send(5n);
    await indexToHead();
    await dev.revert(snap2);
    nonce = 2n;
    await send(6n);
    await send(7n);
    sent = ['1', '4', '6', '7'];
    await indexToHead();
    await expectSameChain();
    expect(logs.some((l) => /does not follow the indexed block .*rewinding to block/.test(l))).toBe(true);
  } finally {
    await db.close();
    evm.close();
  }
});
