// The explorer's job table on PGlite: after a crash, running jobs are queued again until they run out of
// attempts; finished jobs are deleted after their retention while open ones stay; claiming takes the oldest.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPLORER_COMPONENT, EXPLORER_MIGRATIONS, ExplorerStore, MAX_ATTEMPTS } from '../../src/explorer/store.js';
import { openDb, type Db } from '../../src/indexer/db.js';
import { migrate } from '../../src/indexer/migrate.js';

let db: Db;
let store: ExplorerStore;
beforeAll(async () => {
  db = await openDb({ memory: true });
  expect(await migrate(db, EXPLORER_COMPONENT, EXPLORER_MIGRATIONS)).toEqual([1]);
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
