// The explorer's job table on PGlite: after a crash, running jobs are queued again until they run out of
// attempts; finished jobs are deleted after their retention (at start and periodically) while open ones stay;
// claiming takes the oldest; a failed job keeps no sources; one client cannot fill the queue. Contract creations
// are found for a transaction's own creation and, through the archive's table, for one a contract made.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompilerPool } from '../../src/explorer/compilers.js';
import { DEFAULT_LIMITS } from '../../src/explorer/config.js';
import { VerifyError } from '../../src/explorer/errors.js';
import { Verifier } from '../../src/explorer/jobs.js';
import type { VerifyRequest } from '../../src/explorer/request.js';
import { EXPLORER_COMPONENT, EXPLORER_MIGRATIONS, ExplorerStore, MAX_ATTEMPTS } from '../../src/explorer/store.js';
import { openDb, type Db } from '../../src/indexer/db.js';
import { migrate } from '../../src/indexer/migrate.js';
import { INDEXER_COMPONENT, INDEXER_MIGRATIONS } from '../../src/indexer/schema.js';
import { ensureArchiveSchema } from '../../src/archive/schema.js';
import { writeInternalRows } from '../../src/archive/internal_rows.js';

let db: Db;
let store: ExplorerStore;
beforeAll(async () => {
  db = await openDb({ memory: true });
  expect(await migrate(db, EXPLORER_COMPONENT, EXPLORER_MIGRATIONS)).toEqual([1, 2]);
  store = new ExplorerStore(db);
  // PGlite starts in seconds (longer on a busy machine).
}, 120_000);
afterAll(() => db.close());

const job = (id: string, status: string, attempts: number, finishedDaysAgo: number | null) =>
  db.query(
    `INSERT INTO explorer_verify_jobs (id, api, address, status, request, attempts, finished_at)
     VALUES ($1, 'spec', $2, $3, '{"contractName":"X"}', $4, CASE WHEN $5::int IS NULL THEN NULL ELSE now() - make_interval(days => $5::int) END)`,
    [id, new Uint8Array(20), status, attempts, finishedDaysAgo],
  );

describe('explorer job store', () => {
  it('requeues interrupted jobs, gives up after MAX_ATTEMPTS, prunes old finished jobs', async () => {
    await job('a-running', 'running', 1, null);
    await job('b-worn', 'running', MAX_ATTEMPTS, null);
    await job('c-old-verified', 'verified', 1, 40);
    await job('d-new-failed', 'failed', 1, 2);
    await job('e-queued', 'queued', 0, null);
    expect(await store.recover()).toEqual({ requeued: 1, abandoned: 1 });
    expect((await store.getJob('a-running'))!.status).toBe('queued');
    expect(await store.getJob('b-worn')).toMatchObject({ status: 'failed', errorCode: 'internal_error' });
    expect(await store.pruneFinished()).toBe(1);
    expect(await store.getJob('c-old-verified')).toBeUndefined();
    expect((await store.getJob('d-new-failed'))!.status).toBe('failed');
    expect(await store.openJobCount()).toBe(2);
    const first = await store.claimNext();
    expect(first).toMatchObject({ status: 'running' });
    expect(first!.attempts).toBeGreaterThanOrEqual(1);
  });
});

const request = (address: string): VerifyRequest => ({
  api: 'spec',
  address,
  compilerVersion: 'v0.8.37+commit.f401782d',
  input: { language: 'Solidity', sources: { 'A.sol': { content: 'x'.repeat(100_000) } }, settings: {} },
  contractName: 'A',
  constructorArgs: undefined,
  codeFormat: 'solidity-standard-json-input',
  licenseType: undefined,
});

describe('verification queue bounds', () => {
  it("a failed job's sources are dropped when it finishes", async () => {
    await store.insertJob('f-sources', request(`0x${'11'.repeat(20)}`), '10.0.0.1');
    await store.failJob('f-sources', 'bytecode_mismatch', 'no');
    const j = (await store.getJob('f-sources'))!;
    expect(j).toMatchObject({ status: 'failed', errorCode: 'bytecode_mismatch' });
    expect(j.request.input.sources).toEqual({});
    expect(j.request.contractName).toBe('A');
  });

  it('one client cannot fill the queue: a per-client quota below the global limit', async () => {
    await db.query("DELETE FROM explorer_verify_jobs WHERE status IN ('queued', 'running')");
    // No job runs (no concurrency): the queue only fills.
    const limits = { ...DEFAULT_LIMITS, maxConcurrentJobs: 0, maxQueuedJobs: 5, maxQueuedJobsPerClient: 2 };
    const v = new Verifier({ store, pool: new CompilerPool({ compileTimeoutMs: 1000 }), compilers: [], limits, getCode: async () => '' });
    const submit = (client: string, i: number) => v.submit(request(`0x${i.toString(16).padStart(40, '0')}`), client);
    await submit('10.0.0.1', 1);
    await submit('10.0.0.1', 2);
    const refused = await submit('10.0.0.1', 3).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(VerifyError);
    expect((refused as VerifyError).code).toBe('queue_full');
    expect((refused as VerifyError).message).toMatch(/2 verification jobs of yours/);
    // Others are still served, up to the global limit.
    await submit('10.0.0.2', 4);
    await submit('10.0.0.2', 5);
    await submit('10.0.0.3', 6);
    expect(await store.openJobCount()).toBe(5);
    expect(await store.openJobCount('10.0.0.1')).toBe(2);
    expect(((await submit('10.0.0.4', 7).catch((e: unknown) => e)) as VerifyError).message).toMatch(/^5 verification jobs are waiting/);
    await v.close(0);
  });

  it('finished jobs past their retention are pruned while running, not only at start', async () => {
    const v = new Verifier({ store, pool: new CompilerPool({ compileTimeoutMs: 1000 }), compilers: [], limits: { ...DEFAULT_LIMITS, maxConcurrentJobs: 0 }, getCode: async () => '', pruneIntervalMs: 50 });
    await v.start();
    await job('g-old-failed', 'failed', 1, 31);
    expect(await store.getJob('g-old-failed')).toBeDefined();
    const until = Date.now() + 10_000;
    while ((await store.getJob('g-old-failed')) !== undefined && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(await store.getJob('g-old-failed')).toBeUndefined();
    await v.close(0);
  });
});

describe('contract creation lookups (Etherscan getcontractcreation)', () => {
  it("answers a transaction's own creation from the receipts, and a contract's creation from the archive's creators table with the factory", async () => {
    const d = await openDb({ memory: true });
    try {
      await migrate(d, INDEXER_COMPONENT, INDEXER_MIGRATIONS);
      const s = new ExplorerStore(d);
      const eoa = new Uint8Array(20).fill(0xaa);
      const factory = new Uint8Array(20).fill(0xfa);
      const child = new Uint8Array(20).fill(0xc1);
      const h = (b: number) => new Uint8Array(32).fill(b);
      await d.query(
        `INSERT INTO blocks (number, hash, parent_hash, timestamp, gas_used, gas_limit, base_fee, tx_count, miner, state_root, transactions_root, receipts_root, logs_bloom, size)
         VALUES (1, $1, $2, 0, 0, 3000000, 0, 2, $3, $2, $2, $2, $4, 0)`,
        [h(1), h(0), new Uint8Array(20), new Uint8Array(256)],
      );
      const tx = (hash: Uint8Array, index: number, to: Uint8Array | null) =>
        d.query(
          `INSERT INTO txs (eth_tx_hash, tx_id, block_number, tx_index, type, origin, from_address, to_address, value, nonce, gas_limit, input, receipt_status)
           VALUES ($1, $1, 1, $2, 2, 'EthSigned', $3, $4, 0, $6, 100000, $5, 1)`,
          [hash, index, eoa, to, new Uint8Array([0x60, 0x00]), BigInt(index)],
        );
      await tx(h(0x10), 0, null);
      await d.query('INSERT INTO receipts (tx_hash, block_number, status, gas_used, cumulative_gas_used, effective_gas_price, contract_address) VALUES ($1, 1, 1, 1, 1, 0, $2)', [h(0x10), factory]);
      await tx(h(0x11), 1, factory);
      await d.query('INSERT INTO receipts (tx_hash, block_number, status, gas_used, cumulative_gas_used, effective_gas_price) VALUES ($1, 1, 1, 1, 2, 0)', [h(0x11)]);
      const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
      // Without the archive's tables only the direct creation is known.
      expect(await s.contractCreation(hex(factory))).toEqual({ contractCreator: hex(eoa), txHash: hex(h(0x10)), blockNumber: 1n });
      expect(await s.contractCreation(hex(child))).toBeUndefined();
      await ensureArchiveSchema(d, 4801360n);
      await writeInternalRows(d, [], [{ address: child, block: 1n, txIndex: 1, txHash: h(0x11), traceAddress: [0], creator: factory }]);
      expect(await s.contractCreation(hex(child))).toEqual({ contractCreator: hex(eoa), txHash: hex(h(0x11)), blockNumber: 1n, contractFactory: hex(factory) });
      expect(await s.contractCreation(hex(new Uint8Array(20).fill(0x99)))).toBeUndefined();
    } finally {
      await d.close();
    }
  }, 120_000);
});
