// A child process for the crash test: indexes a fixed synthetic chain into the database given by
// INDEXER_DATABASE_URL (or PGlite in INDEXER_PGLITE_DIR) and the archive in INDEXER_ARCHIVE_DIR, printing
// "commit <cursor>" after each commit and "done" when caught up. The parent kills it with SIGKILL at random.
import { loadIndexerConfig } from '../../src/indexer/config.js';
import { openDb } from '../../src/indexer/db.js';
import { Indexer } from '../../src/indexer/indexer.js';
import { crashTestChain } from './crash_chain.js';

const config = loadIndexerConfig(process.env);
const chain = await crashTestChain();
const db = await openDb(config.databaseUrl === undefined ? { dataDir: config.pgliteDir } : { url: config.databaseUrl, poolMax: 2 });
const ix = new Indexer({ config, client: chain.client(), db, log: () => {}, onCommit: (s) => console.log(`commit ${s.cursorBlock}`) });
await ix.run({ untilCaughtUp: true });
await db.close();
console.log('done');
