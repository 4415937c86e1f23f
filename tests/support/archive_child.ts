// A child process for the archive's crash test: follows a fixed chain (ArchiveTestChain's scenario, the same
// blocks in every run) into ARCHIVE_TEST_DATABASE_URL (or PGlite in ARCHIVE_TEST_PGLITE_DIR), printing
// "commit <cursor>" after each commit and "done" when caught up. The parent kills it with SIGKILL at random.
import { ArchiveFollower } from '../../src/archive/follower.js';
import { openDb } from '../../src/indexer/db.js';
import { ArchiveTestChain } from './archive_chain.js';


const chain = await ArchiveTestChain.create();
await chain.runScenario(30); // the parent test runs the same scenario for its clean run
const url = process.env.ARCHIVE_TEST_DATABASE_URL;
const db = await openDb(url !== undefined ? { url, poolMax: 2 } : { dataDir: process.env.ARCHIVE_TEST_PGLITE_DIR! });
const f = new ArchiveFollower({ client: chain.client(), db, chainId: 4801360n, maxBytes: 1024, backoffInitialMs: 5, backoffMaxMs: 20, log: () => {}, onCommit: (c) => console.log(`commit ${c}`) });
await f.run({ untilCaughtUp: true });
await db.close();
console.log(f.status().alarm === undefined ? 'done' : 'alarm');
