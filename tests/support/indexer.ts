// Helpers for indexer tests: a configuration in a temporary folder and a canonical dump of every chain table
// (so two databases can be compared row for row).
import { DEFAULT_INDEXER_CONFIG, type IndexerConfig } from '../../src/indexer/config.js';
import type { Queryable } from '../../src/indexer/db.js';

export function testIndexerConfig(archiveDir: string, o: Partial<IndexerConfig> = {}): IndexerConfig {
  // Retention off: test chains may carry old timestamps (the host's manual clock); the retention test turns it on.
  return { ...DEFAULT_INDEXER_CONFIG, archiveDir, retentionEnabled: false, maxBytes: 1024, backoffInitialMs: 5, backoffMaxMs: 20, idlePollMs: 10, metricsPollMs: 60_000, prunePollMs: 60_000, ...o };
}

const TABLES: [string, string][] = [
  ['blocks', 'number'],
  ['txs', 'block_number, tx_index'],
  ['receipts', 'block_number, tx_hash'],
  ['logs', 'block_number, log_index'],
  ['token_transfers', 'block_number, log_index'],
  ['skipped_transfer_logs', 'block_number, log_index'],
  ['pruned_gaps', 'from_block'],
  ['archive_files', 'block_number'],
];

const norm = (v: unknown): unknown => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : typeof v === 'bigint' ? v.toString() : v);

export async function dumpTables(db: Queryable, opts: { withGapTimes?: boolean } = {}): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [t, order] of TABLES) {
    const r = await db.query<Record<string, unknown>>(`SELECT * FROM ${t} ORDER BY ${order}`);
    out[t] = r.rows.map((row) => Object.fromEntries(Object.entries(row).filter(([k]) => opts.withGapTimes === true || k !== 'seen_at').map(([k, v]) => [k, norm(v)])));
  }
  const s = await db.query<{ cursor_block: bigint; chain_id: bigint }>('SELECT chain_id, cursor_block FROM indexer_state');
  out.indexer_state = s.rows.map((r) => ({ chain_id: norm(r.chain_id), cursor_block: norm(r.cursor_block) }));
  return out;
}
