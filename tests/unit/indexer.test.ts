// The indexer on both database back ends, against a chain served by the canister's own export code: blocks,
// transactions (both origins, a deployment, a failed one), receipts, logs, ERC-20 and ERC-721 transfers, a
// malformed Transfer-shaped log (skipped, counted, pipeline continues), pulls split mid-block, resumption
// without duplicates, retries, a pruned gap, chain-id mismatch, retention, the archive and a rebuild from it.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/client/errors.js';
import { CanisterClient } from '../../src/client/index.js';
import { loadIndexerConfig } from '../../src/indexer/config.js';
import { openDb, type Db } from '../../src/indexer/db.js';
import { Indexer } from '../../src/indexer/indexer.js';
import { SchemaTooNewError } from '../../src/indexer/migrate.js';
import { rebuildFromArchive } from '../../src/indexer/rebuild.js';
import { classifyTransfer, TRANSFER_TOPIC } from '../../src/indexer/rows.js';
import { projectTempDir } from '../../src/host/paths.js';
import { dumpTables, testIndexerConfig } from '../support/indexer.js';
import { backendDbs, dbBackends } from '../support/postgres.js';
import { NFT, SyntheticChain, TOKEN } from '../support/synthetic_chain.js';

const dir = projectTempDir('indexer-test-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshDir = (): string => join(dir, `run${n++}`);

const backends = dbBackends('indexer');

async function chainWithEverything(): Promise<SyntheticChain> {
  const c = new SyntheticChain();
  await c.prepareSigned(2);
  c.addBlock({});
  c.addBlock({ transfers: 3, signed: true });
  c.addBlock({ deployment: true, erc20: 2 });
  c.addBlock({ erc721: true, malformedTransfer: true, erc20: 1 });
  c.addBlock({ transfers: 1, erc20: 4, signed: true });
  for (let i = 0; i < 5; i++) c.addBlock({ transfers: 2, erc20: 1 });
  return c;
}

const logs: string[] = [];
const log = (l: string): void => void logs.push(l);

describe.each(backends)('indexer on %s', (name, open) => {
  const openOrSkip = backendDbs(name, open, afterAll);

  it('indexes blocks, txs, receipts, logs and token transfers; skips a malformed Transfer; resumes without duplicates; rebuilds from the archive', async (t) => {
    const db = await openOrSkip(t);
    if (db === undefined) return;
    const chain = await chainWithEverything();
    const archiveDir = freshDir();
    const config = testIndexerConfig(archiveDir);
    const ix = new Indexer({ config, client: chain.client(), db, log });
    await ix.run({ untilCaughtUp: true });
    expect(ix.stats.skippedTransfers).toBe(1);
    // 1024-byte pulls: blocks arrive in several calls and are committed whole.
    expect(chain.calls).toBeGreaterThan(10);

    const count = async (table: string): Promise<number> => Number((await db.query<{ n: bigint }>(`SELECT count(*)::bigint AS n FROM ${table}`)).rows[0]!.n);
    expect(await count('blocks')).toBe(10);
    expect(await count('txs')).toBe(31);
    expect(await count('receipts')).toBe(31);
    expect(await count('logs')).toBe(14);
    expect(await count('token_transfers')).toBe(13);
    expect(await count('skipped_transfer_logs')).toBe(1);
    expect(await count('archive_files')).toBe(10);

    const erc721 = (await db.query<{ token_address: Uint8Array; amount: string; token_id: string | null }>('SELECT token_address, amount, token_id FROM token_transfers WHERE token_id IS NOT NULL')).rows;
    expect(erc721).toHaveLength(1);
    expect(Buffer.from(erc721[0]!.token_address)).toEqual(Buffer.from(NFT));
    expect(erc721[0]!.token_id).toBe('77');
    const erc20 = (await db.query<{ amount: string }>('SELECT amount FROM token_transfers WHERE token_address = $1 ORDER BY block_number, log_index', [TOKEN])).rows.map((r) => r.amount);
    expect(erc20).toEqual(['1000', '1001', '1000', '1000', '1001', '1002', '1003', '1000', '1000', '1000', '1000', '1000']);
    const skipped = (await db.query<{ block_number: bigint; reason: string }>('SELECT block_number, reason FROM skipped_transfer_logs')).rows[0]!;
    expect(skipped.block_number).toBe(3n);
    expect(skipped.reason).toMatch(/64 data bytes/);
    expect(logs.some((l) => /block 3 log \d+: Transfer-shaped log skipped/.test(l))).toBe(true);

    const deploy = (await db.query<{ to_address: Uint8Array | null; contract_address: Uint8Array | null; origin: string; caller_principal: string | null }>(
      'SELECT t.to_address, r.contract_address, t.origin, t.caller_principal FROM txs t JOIN receipts r ON r.tx_hash = t.eth_tx_hash WHERE t.to_address IS NULL',
    )).rows;
    expect(deploy).toHaveLength(1);
    expect(deploy[0]!.contract_address).toHaveLength(20);
    expect(deploy[0]!.origin).toBe('IcSynthetic');
    expect(deploy[0]!.caller_principal).toMatch(/^[a-z2-7-]+$/);
    const signed = (await db.query<{ type: number; receipt_status: number; caller_principal: string | null; value: string; nonce: bigint }>("SELECT type, receipt_status, caller_principal, value, nonce FROM txs WHERE origin = 'EthSigned' ORDER BY block_number")).rows;
    expect(signed).toEqual([
      { type: 0, receipt_status: 0, caller_principal: null, value: '5', nonce: 0n },
      { type: 0, receipt_status: 0, caller_principal: null, value: '5', nonce: 1n },
    ]);
    const state = (await db.query<{ cursor_block: bigint; head_block: bigint }>('SELECT cursor_block, head_block FROM indexer_state')).rows[0]!;
    expect(state).toEqual({ cursor_block: 10n, head_block: 9n });

    // Archive: every file is recorded with the sha256 of its bytes.
    const files = (await db.query<{ path: string; sha256: Uint8Array }>('SELECT path, sha256 FROM archive_files')).rows;
    for (const f of files) expect(createHash('sha256').update(readFileSync(join(archiveDir, String(chain.chainId), f.path))).digest().equals(Buffer.from(f.sha256))).toBe(true);

    // A second indexer on the same database resumes at the cursor: new blocks only, nothing doubled.
    chain.addBlock({ erc20: 2, transfers: 1 });
    chain.fail = 2; // two failed calls: retried with backoff
    const again = new Indexer({ config, client: chain.client(), db, log });
    await again.run({ untilCaughtUp: true });
    expect(again.stats.blocks).toBe(1);
    expect(again.stats.retried).toBe(2);
    expect(await count('blocks')).toBe(11);
    expect(await count('txs')).toBe(34);

    // Rebuild from the archive alone gives the same tables.
    const before = await dumpTables(db);
    await rebuildFromArchive({ config, db, log });
    expect(await dumpTables(db)).toEqual(before);
  });

  it('records a pruned gap and continues after it', async (t) => {
    const db = await openOrSkip(t);
    if (db === undefined) return;
    const chain = new SyntheticChain();
    for (let i = 0; i < 8; i++) chain.addBlock({ transfers: 1 });
    chain.prune(5n);
    const ix = new Indexer({ config: testIndexerConfig(freshDir()), client: chain.client(), db, log });
    await ix.run({ untilCaughtUp: true });
    expect(ix.stats.gaps).toBe(1);
    const gaps = (await db.query<{ from_block: bigint; to_block: bigint }>('SELECT from_block, to_block FROM pruned_gaps')).rows;
    expect(gaps).toEqual([{ from_block: 0n, to_block: 4n }]);
    expect((await db.query<{ number: bigint }>('SELECT number FROM blocks ORDER BY number')).rows.map((r) => r.number)).toEqual([5n, 6n, 7n]);
    expect(logs.some((l) => /blocks 0\.\.4 were pruned/.test(l))).toBe(true);
  });

  it('stops on a chain-id mismatch and refuses a database of another chain', async (t) => {
    const db = await openOrSkip(t);
    if (db === undefined) return;
    const chain = new SyntheticChain();
    chain.addBlock({});
    const wrong = new Indexer({ config: testIndexerConfig(freshDir(), { chainId: 1n }), client: chain.client(), db, log });
    await expect(wrong.run()).rejects.toThrow(ConfigError);
    await expect(wrong.run()).rejects.toThrow(/INDEXER_CHAIN_ID: is 1 but the canister's chain id is 4801360/);
    // Index chain 4801360, then point a canister with another chain id (and config) at the same database.
    await new Indexer({ config: testIndexerConfig(freshDir()), client: chain.client(), db, log }).run({ untilCaughtUp: true });
    const other = new SyntheticChain();
    other.chainId = 5n;
    other.addBlock({});
    await expect(new Indexer({ config: testIndexerConfig(freshDir(), { chainId: 5n }), client: other.client(), db, log }).run()).rejects.toThrow(/database holds chain 4801360, not 5/);
  });

  it('retention removes (or in dry run counts) old blocks in batches; the archive keeps them', async (t) => {
    const db = await openOrSkip(t);
    if (db === undefined) return;
    const chain = new SyntheticChain();
    const now = BigInt(Math.floor(Date.now() / 1000));
    for (let i = 0; i < 6; i++) chain.addBlock({ transfers: 1, erc20: 1 }, now - 100n * 86_400n + BigInt(i));
    for (let i = 0; i < 3; i++) chain.addBlock({ transfers: 1 }, now - 10n + BigInt(i));
    const archiveDir = freshDir();
    const dry = new Indexer({ config: testIndexerConfig(archiveDir, { retentionDryRun: true }), client: chain.client(), db, log });
    await dry.run({ untilCaughtUp: true });
    expect(await dry.retention()).toEqual({ blocks: 6, txs: 12, dryRun: true });
    expect(Number((await db.query<{ n: bigint }>('SELECT count(*)::bigint AS n FROM blocks')).rows[0]!.n)).toBe(9);
    const real = new Indexer({ config: testIndexerConfig(archiveDir), client: chain.client(), db, log });
    await real.prepare();
    expect(await real.retention()).toEqual({ blocks: 6, txs: 12, dryRun: false });
    expect((await db.query<{ number: bigint }>('SELECT number FROM blocks ORDER BY number')).rows.map((r) => r.number)).toEqual([6n, 7n, 8n]);
    expect(Number((await db.query<{ n: bigint }>('SELECT count(*)::bigint AS n FROM token_transfers')).rows[0]!.n)).toBe(0);
    expect(Number((await db.query<{ n: bigint }>('SELECT count(*)::bigint AS n FROM archive_files')).rows[0]!.n)).toBe(9);
  });

  it('stops on a malformed export chunk with a message naming the cursor, writing nothing of it', async (t) => {
    const db = await openOrSkip(t);
    if (db === undefined) return;
    const chain = new SyntheticChain();
    chain.addBlock({ transfers: 1 });
    chain.addBlock({ transfers: 2 });
    const good = chain.transport();
    // Block 1's transaction segment is corrupted in flight (its format version byte).
    const client = new CanisterClient({
      kind: 'host',
      async call(mode, method, args) {
        const r = (await good.call(mode, method, args)) as { Ok?: { chunks: { block_number: bigint; segment: number; byte_offset: number; data: Uint8Array }[] } };
        for (const c of r.Ok?.chunks ?? []) if (c.block_number === 1n && c.segment === 1 && c.byte_offset === 0) c.data = Uint8Array.of(9, ...c.data.subarray(1));
        return r;
      },
    });
    const ix = new Indexer({ config: testIndexerConfig(freshDir(), { maxBytes: 1_200_000 }), client, db, log });
    await expect(ix.run()).rejects.toThrow(/malformed export data at cursor \(block 0, segment 0, offset 0\): unsupported export format version 9.*nothing of it was written/);
    expect(Number((await db.query<{ n: bigint }>('SELECT count(*)::bigint AS n FROM blocks')).rows[0]!.n)).toBe(0);
    expect((await db.query<{ cursor_block: bigint }>('SELECT cursor_block FROM indexer_state')).rows[0]!.cursor_block).toBe(0n);
  });

  it('keeps archive files without a record unless INDEXER_ARCHIVE_GC_DELETE_ORPHANS, then deletes them', async (t) => {
    const db = await openOrSkip(t);
    if (db === undefined) return;
    const chain = new SyntheticChain();
    chain.addBlock({ transfers: 1 });
    const archiveDir = freshDir();
    await new Indexer({ config: testIndexerConfig(archiveDir), client: chain.client(), db, log }).run({ untilCaughtUp: true });
    const root = join(archiveDir, String(chain.chainId));
    mkdirSync(join(root, '0'), { recursive: true });
    writeFileSync(join(root, '0', '7.zst'), 'left by a crash');
    writeFileSync(join(root, '0', '8.zst.tmp'), 'half written');
    const keep = new Indexer({ config: testIndexerConfig(archiveDir), client: chain.client(), db, log });
    await keep.prepare();
    expect(existsSync(join(root, '0', '7.zst'))).toBe(true);
    expect(logs.some((l) => /2 archive file\(s\) without a database record kept/.test(l))).toBe(true);
    const gc = new Indexer({ config: testIndexerConfig(archiveDir, { archiveGcDeleteOrphans: true }), client: chain.client(), db, log });
    await gc.prepare();
    expect(existsSync(join(root, '0', '7.zst'))).toBe(false);
    expect(existsSync(join(root, '0', '8.zst.tmp'))).toBe(false);
    expect(existsSync(join(root, '0', '0.zst'))).toBe(true);
  });

  it('refuses a database whose schema is newer than it knows', async (t) => {
    const db = await openOrSkip(t);
    if (db === undefined) return;
    const chain = new SyntheticChain();
    await new Indexer({ config: testIndexerConfig(freshDir()), client: chain.client(), db, log }).prepare();
    await db.query("INSERT INTO schema_migrations (component, version, name) VALUES ('indexer', 99, 'future')");
    await expect(new Indexer({ config: testIndexerConfig(freshDir()), client: chain.client(), db, log }).prepare()).rejects.toBeInstanceOf(SchemaTooNewError);
  });
});

describe('Transfer classification', () => {
  const addrTopic = new Uint8Array(32).fill(0, 0, 12).fill(7, 12);
  it('takes ERC-20 (3 topics, 32 data bytes) and ERC-721 (4 topics, no data); everything else Transfer-shaped is malformed', () => {
    expect(classifyTransfer([TRANSFER_TOPIC, addrTopic, addrTopic], new Uint8Array(32).fill(0).fill(1, 31))).toMatchObject({ kind: 'erc20', amount: 1n, tokenId: null });
    expect(classifyTransfer([TRANSFER_TOPIC, addrTopic, addrTopic, new Uint8Array(32).fill(0).fill(2, 31)], new Uint8Array())).toMatchObject({ kind: 'erc721', tokenId: 2n });
    expect(classifyTransfer([TRANSFER_TOPIC, addrTopic, addrTopic], new Uint8Array(31)).kind).toBe('malformed');
    expect(classifyTransfer([TRANSFER_TOPIC, addrTopic], new Uint8Array(32)).kind).toBe('malformed');
    expect(classifyTransfer([TRANSFER_TOPIC, addrTopic, addrTopic, addrTopic], new Uint8Array(32)).kind).toBe('malformed');
    expect(classifyTransfer([TRANSFER_TOPIC, new Uint8Array(32).fill(9), addrTopic], new Uint8Array(32)).kind).toBe('malformed');
    expect(classifyTransfer([new Uint8Array(32), addrTopic, addrTopic], new Uint8Array(32)).kind).toBe('none');
    expect(classifyTransfer([], new Uint8Array()).kind).toBe('none');
  });
});

describe('indexer configuration', () => {
  it('has SPEC’s defaults and names the variable of a bad value', () => {
    const c = loadIndexerConfig({});
    expect(c).toMatchObject({ dbPoolMax: 10, retentionDays: 90, retentionEnabled: true, retentionDryRun: false, archiveGcDeleteOrphans: false, maxBytes: 1_200_000, backoffInitialMs: 200, backoffMaxMs: 5000, idlePollMs: 1000, prunePollMs: 30_000, metricsPollMs: 30_000, fetchRootKey: false, chainId: 4801360n, zstdLevel: 3, maxSegment: 2, databaseUrl: undefined, icHost: 'https://icp-api.io' });
    expect(() => loadIndexerConfig({ INDEXER_MAX_SEGMENT: '3' })).toThrow(/^INDEXER_MAX_SEGMENT: is 3 but the export format's segment limit is 2/);
    expect(() => loadIndexerConfig({ INDEXER_ZSTD_LEVEL: 'fast' })).toThrow(/^INDEXER_ZSTD_LEVEL: expected a whole number/);
    expect(() => loadIndexerConfig({ INDEXER_RETENTION_ENABLED: 'maybe' })).toThrow(/^INDEXER_RETENTION_ENABLED: expected true or false/);
    expect(() => loadIndexerConfig({ INDEXER_DATABASE_URL: 'mysql://x' })).toThrow(/^INDEXER_DATABASE_URL: must be a postgres or postgresql URL/);
    expect(() => loadIndexerConfig({ INDEXER_BACKOFF_INITIAL_MS: '500', INDEXER_BACKOFF_MAX_MS: '100' })).toThrow(/^INDEXER_BACKOFF_MAX_MS/);
    expect(() => loadIndexerConfig({ INDEXER_CHAIN_ID: '0x10' })).toThrow(/^INDEXER_CHAIN_ID/);
    expect(() => loadIndexerConfig({}, { requireCanisterId: true })).toThrow(/^EVM_CANISTER_ID: required/);
    expect(() => loadIndexerConfig({ EVM_CANISTER_ID: 'nope!' })).toThrow(/^EVM_CANISTER_ID/);
  });
});
