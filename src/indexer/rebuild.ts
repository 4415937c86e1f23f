// Rebuilds the database from the archive alone (no canister needed): every archived block, in order, through
// the same decoder, rows and commits as the pull loop. Files are checked against the sha256 the database
// recorded when there is one; a missing block number is recorded as a gap. The indexer then resumes pulling
// after the last archived block.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Archive, type ArchivedBlock } from './archive.js';
import type { IndexerConfig } from './config.js';
import type { Db } from './db.js';
import { decodeBlock } from '../core/export/decode.js';
import { blockRows, type BlockRows } from './rows.js';
import { commitBlocks, ensureSchema, openState } from './store.js';

const BATCH = 200;
const CHAIN_TABLES = ['token_balances', 'token_transfers', 'skipped_transfer_logs', 'logs', 'receipts', 'txs', 'blocks', 'pruned_gaps', 'archive_files', 'indexer_state'];

export async function rebuildFromArchive(o: { config: IndexerConfig; db: Db; log?: (line: string) => void }): Promise<{ blocks: number; txs: number; gaps: number }> {
  const log = o.log ?? ((l: string) => console.log(l));
  const { config, db } = o;
  await ensureSchema(db);
  const archive = await Archive.open(config.archiveDir, config.chainId, config.zstdLevel);
  const recorded = new Map((await db.query<{ block_number: bigint; sha256: Uint8Array }>('SELECT block_number, sha256 FROM archive_files')).rows.map((r) => [r.block_number, r.sha256]));
  const files = archive.blockFiles();
  log(`rebuild: ${files.length} archived block(s) under ${archive.root}`);
  await db.exec(`TRUNCATE ${CHAIN_TABLES.join(', ')}`);
  if (files.length === 0) return { blocks: 0, txs: 0, gaps: 0 };
  let cursor = (await openState(db, config.chainId, files[0]!.blockNumber)).cursorBlock;
  let blocks = 0;
  let txs = 0;
  let gaps = 0;
  for (let i = 0; i < files.length; i += BATCH) {
    const rows: BlockRows[] = [];
    const archived: ArchivedBlock[] = [];
    const flush = async (): Promise<void> => {
      if (rows.length === 0) return;
      await commitBlocks(db, { fromBlock: cursor, blocks: rows, archived, head: rows.at(-1)!.number, firstAvailable: files[0]!.blockNumber });
      cursor = rows.at(-1)!.number + 1n;
      rows.length = 0;
      archived.length = 0;
    };
    for (const f of files.slice(i, i + BATCH)) {
      if (f.blockNumber !== cursor + BigInt(rows.length)) {
        await flush();
        await db.transaction(async (tx) => {
          await tx.query('INSERT INTO pruned_gaps (from_block, to_block) VALUES ($1, $2)', [cursor, f.blockNumber - 1n]);
          await tx.query('UPDATE indexer_state SET cursor_block = $1 WHERE id = 1', [f.blockNumber]);
        });
        log(`rebuild: blocks ${cursor}..${f.blockNumber - 1n} are not in the archive; recorded as a gap`);
        cursor = f.blockNumber;
        gaps++;
      }
      const stored = readFileSync(join(archive.root, f.path));
      const sha256 = createHash('sha256').update(stored).digest();
      const want = recorded.get(f.blockNumber);
      if (want !== undefined && Buffer.compare(want, sha256) !== 0) throw new Error(`rebuild: archive file ${f.path} differs from its recorded sha256`);
      const segments = archive.read(f.path);
      const b = decodeBlock(segments);
      if (b.block.number !== f.blockNumber) throw new Error(`rebuild: archive file ${f.path} holds block ${b.block.number}`);
      const r = blockRows(b);
      rows.push(r);
      archived.push({ blockNumber: f.blockNumber, path: f.path, sha256, rawBytes: segments.reduce((n, s) => n + 4 + s.length, 0), storedBytes: stored.length });
      blocks++;
      txs += r.txs.length;
    }
    await flush();
  }
  log(`rebuild: ${blocks} block(s), ${txs} tx(s) restored${gaps > 0 ? `, ${gaps} gap(s)` : ''}; indexing resumes at block ${cursor}`);
  return { blocks, txs, gaps };
}
