// The devnet's indexer on the real canister wasm through the host transport: value transfers and a deployment
// whose constructor emits an ERC-20 Transfer, an ERC-721 Transfer and a malformed Transfer-shaped log; the
// indexed rows match the canister's own answers (block hashes, receipts), the malformed log is skipped.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openDevnetDb, startDevnetIndexer } from '../../src/devnet/indexer.js';
import { projectTempDir } from '../../src/host/paths.js';
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
