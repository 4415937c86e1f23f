// Opening an archive's database for reading (the gateway's RPC_GATEWAY_ARCHIVE_DATABASE_URL): the gateway does
// not use the indexer's database layer directly, the archive does.
import { describeDbUrl, openDb } from '../indexer/db.js';
import { ArchiveReader } from './reader.js';

export async function openArchiveReader(url: string): Promise<{ reader: ArchiveReader; where: string; close: () => Promise<void> }> {
  const db = await openDb({ url, poolMax: 10 });
  return { reader: new ArchiveReader(db), where: describeDbUrl(url), close: () => db.close() };
}
