// Upgrades across releases (docs/lifecycle.md "Upgrades"): the current wasm is installed as an upgrade over a
// golden image, the stable memory a release's wasm wrote (tests/fixtures/golden/v<layout>/, made by the make.ts
// beside it). Every block, receipt, transaction, balance, nonce, code, storage slot, log and pending status
// recorded when the image was made must read the same after the upgrade; an older layout migrates in several
// timer messages in the Migration state; then the pending transactions are mined. One test file per image
// (tests/wasm/canister-upgrade-golden-v<N>.test.ts), so images run in parallel workers.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { WASM_PATH } from '../../src/devnet/build.js';
import { encodeInitArgs, HostClient } from '../../src/client/host.js';
import { IcHost, type MessageStats } from '../../src/host/index.js';
import { projectTempDir } from '../../src/host/paths.js';
import { LAYOUT_VERSION } from '../../src/core/store/layout.js';
import { MIGRATION_STEP_VISITS } from '../../src/core/ops/migration.js';
import { diff, readChain, toJson, unpackImage, type ChainSubject, type Json } from '../fixtures/golden/image.js';
import { unwrap, type CandidResult, type Receipt } from './canister.js';
import { transfer } from './eth.js';
import { B } from '../fixtures/golden/v1/make.js';
import { createHash } from 'node:crypto';

const here = dirname(fileURLToPath(import.meta.url));
export const GOLDEN = join(here, '../fixtures/golden');
const temp = projectTempDir('golden-');
afterAll(() => rmSync(temp, { recursive: true, force: true }));

export interface Expected {
  made_with: { layout: number; commit: string; wasm_sha256: string };
  subject: ChainSubject;
  pending_tx_ids: string[];
  head: Json;
  blocks: Json[];
  txs: Json[];
  accounts: Json[];
  logs: Json[];
  export: Json[];
  status: Json;
}

export const load = (v: string): Expected => JSON.parse(readFileSync(join(GOLDEN, v, 'expected.json'), 'utf8')) as Expected;
const big = (j: Json): bigint => BigInt((j as { $big: string }).$big);

export async function hostOver(image: string, wasm: string, onMessage?: (m: MessageStats) => void, prints?: string[]): Promise<IcHost> {
  const dir = join(temp, `${image}-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'stable.bin');
  unpackImage(join(GOLDEN, image), file);
  return IcHost.create({ wasm, stableMemoryFile: file, fsync: false, debugPrint: (m) => prints?.push(m), ...(onMessage === undefined ? {} : { onMessage }) });
}

/**
 * The export stream from the first available block, turned back into format 1 and paged as the format 1
 * canister paged it for readChain (64 KiB responses): every segment's version byte set to 1, and segment 0's
 * state changes, which must be the empty list, cut off. Fails if a segment is not of that form.
 */
function exportAsFormat1(client: HostClient): Json[] {
  const q = (cursor: unknown, max: number) =>
    client.transport.querySync('export_blocks', [[cursor], max]).value as {
      Ok?: { chunks: { block_number: bigint; segment: number; byte_offset: number; segment_len: number; data: Uint8Array }[]; next_cursor: unknown; head_block: bigint; first_available_block: bigint };
    };
  const first = client.querySync('get_prune_status', []).pruned_before_block;
  const segments: { block: bigint; segment: number; bytes: Uint8Array }[] = [];
  let cursor: unknown = { block_number: first, segment: 0, byte_offset: 0 };
  let head = 0n;
  let parts: Uint8Array[] = [];
  for (;;) {
    const r = q(cursor, 2 * 1024 * 1024).Ok!;
    head = r.head_block;
    if (r.chunks.length === 0) break;
    for (const c of r.chunks) {
      parts.push(c.data);
      if (c.byte_offset + c.data.length < c.segment_len) continue;
      const bytes = Buffer.concat(parts);
      parts = [];
      expect(bytes[0]).toBe(3);
      let v1 = Uint8Array.from(bytes);
      v1[0] = 1;
      if (c.segment === 0) {
        // The chain was installed before commitment versions: its blocks, old and new, are version 1 (keccak256).
        expect([...v1.subarray(v1.length - 5)], `commitment version and state changes of block ${c.block_number}`).toEqual([1, 0, 0, 0, 0]);
        v1 = v1.subarray(0, v1.length - 5);
      }
      segments.push({ block: c.block_number, segment: c.segment, bytes: v1 });
    }
    cursor = r.next_cursor;
  }
  const out: Json[] = [];
  let i = 0;
  let off = 0;
  for (;;) {
    const chunks: Json[] = [];
    let used = 0;
    while (used < 65536 && i < segments.length) {
      const s = segments[i]!;
      const take = Math.min(s.bytes.length - off, 65536 - used);
      const data = s.bytes.subarray(off, off + take);
      chunks.push(toJson({ block_number: s.block, segment: s.segment, byte_offset: off, segment_len: s.bytes.length, data_len: take, data_sha256: createHash('sha256').update(data).digest('hex') }));
      used += take;
      off += take;
      if (off === s.bytes.length) {
        i++;
        off = 0;
      }
    }
    const next = i < segments.length ? { block_number: segments[i]!.block, segment: segments[i]!.segment, byte_offset: off } : { block_number: head + 1n, segment: 0, byte_offset: 0 };
    out.push(toJson({ format_version: 1, chunks, next_cursor: next, head_block: head, first_available_block: first }));
    if (chunks.length === 0) return out;
  }
}

/** Fails with every differing record and field (up to 20), named by section and index. */
export function expectSame(section: string, exp: Json[], act: Json[]): void {
  const out: string[] = [];
  if (exp.length !== act.length) out.push(`${section}: expected ${exp.length} records, got ${act.length}`);
  exp.forEach((e, i) => diff(`${section}[${i}]`, e, act[i] ?? null, out));
  expect(out, `${section} differs after the upgrade:\n${out.join('\n')}`).toEqual([]);
}

/** The upgrade over one golden image: migration (older layouts) or none (the current one), every record, then mining. */
export function describeGoldenUpgrade(image: string): void {
  const expected = load(image);
  const made = expected.made_with;
  const migrates = made.layout < LAYOUT_VERSION;
  // The 1 -> 2 step walks every block and transaction (history_bytes gains the index maps, Meta the layout
  // key); the later steps rewrite nothing (src/core/ops/migration.ts).
  const fromLayout1 = made.layout < 2;
  describe(`upgrade over golden image ${image} (layout ${made.layout}, made from ${made.commit})`, () => {
  let host: IcHost;
  afterAll(() => host?.close());

  it(migrates ? `migrates layout ${made.layout} -> ${LAYOUT_VERSION} in timer messages in the Migration state, then reads every record as recorded` : 'reads every record as recorded, with no migration', async () => {
    // Status after every timer message of the upgrade (queries between messages change nothing).
    const seen: { mode: string; reason: string; writesAllowed: boolean; healthMode: string; instructions: bigint | undefined }[] = [];
    let client: HostClient | undefined;
    let inside = false;
    const prints: string[] = [];
    host = await hostOver(image, WASM_PATH, (m) => {
      if (inside || client === undefined || m.kind === 'query' || m.kind === 'post_upgrade') return;
      inside = true;
      try {
        // (Updates cannot run between the messages of a drain; the refusal of writes in this state is the
        // same guard as a controller's Migration, tested in canister-lifecycle-ops and unit/layout_migration.)
        const s = client.querySync('get_ops_status', []);
        const health = client.querySync('health', []);
        seen.push({ mode: Object.keys(s.mode)[0]!, reason: s.reason[0] ?? '', writesAllowed: s.writes_allowed, healthMode: Object.keys(health.mode)[0]!, instructions: m.instructions });
      } finally {
        inside = false;
      }
    }, prints);
    client = new HostClient(host);
    await host.resume(encodeInitArgs(undefined));

    const migrating = seen.filter((s) => s.mode === 'Migration');
    const status = client.querySync('get_ops_status', []);
    expect(status).toMatchObject({ mode: { Normal: null }, writes_allowed: true });
    // Nothing was mined during the upgrade (production paused while migrating; the clock did not move).
    expect(client.querySync('rpc_eth_block_number', [])).toBe(big(expected.head));
    if (!migrates) {
      expect(migrating, 'no migration for the current layout').toEqual([]);
    } else {
      expect(prints.some((p) => p.includes('stable layout migration done'))).toBe(true);
      for (const s of migrating) {
        expect(s.reason).toMatch(new RegExp(`^stable layout migration \\d+ -> ${LAYOUT_VERSION}: \\d+ records visited in \\d+ steps, at (block|tx) \\d+$`));
        expect(s).toMatchObject({ writesAllowed: false, healthMode: 'Migration' });
      }
      if (fromLayout1) {
        const steps = new Set(migrating.map((s) => /(\d+) records visited/.exec(s.reason)?.[1]));
        // ~270 blocks and ~330 tx_ids at MIGRATION_STEP_VISITS a step.
        expect(steps.size, `statuses seen: ${JSON.stringify(seen.map((s) => [s.mode, s.reason]))}`).toBeGreaterThanOrEqual(2);
        // The migration's own messages: those after which its progress (or the mode) changed.
        const stepInstructions = seen.filter((s, i) => i > 0 && seen[i - 1]!.mode === 'Migration' && s.reason !== seen[i - 1]!.reason).map((s) => s.instructions ?? 0n);
        expect(stepInstructions.length).toBe(steps.size);
        const maxStep = stepInstructions.reduce((a, b) => (b > a ? b : a), 0n);
        console.log(`layout migration ${made.layout} -> ${LAYOUT_VERSION}: ${steps.size} steps of at most ${MIGRATION_STEP_VISITS} records, at most ${maxStep} instructions a step`);
        expect(maxStep).toBeLessThan(2_000_000_000n);
      }
    }

    const actual = readChain(client, expected.subject);
    expect(actual.head).toEqual(expected.head);
    expectSame('blocks', expected.blocks, actual.blocks);
    expectSame('txs', expected.txs, actual.txs);
    expectSame('accounts', expected.accounts, actual.accounts);
    expectSame('logs', expected.logs, actual.logs);
    // The images recorded export format 1; the stream now is format 3: the same segments with version byte 3
    // and, at the end of segment 0, the block's commitment version (1) and state changes (none in these images).
    for (const r of actual.export) if (r !== null && typeof r === 'object' && 'format_version' in r) expect(r.format_version).toBe(3);
    // Images from layout 3 on recorded format 3 themselves (and their chain's own commitment version).
    expectSame('export', expected.export, made.layout >= 3 ? actual.export : exportAsFormat1(client));

    // Entries per stable map, by name: a later release may add maps (new memory ids); every recorded map must
    // hold as many entries as before (the Meta map one more after 1 -> 2: the layout key).
    const entries = (s: Json) => new Map(((s as { metrics: { stable_map_entries: Json } }).metrics.stable_map_entries as { name: string; entries: Json }[]).map((e) => [e.name, big(e.entries)]));
    const e0 = entries(expected.status);
    const e1 = entries(actual.status);
    expect(e0.size).toBeGreaterThan(0);
    for (const [name, n] of e0) expect(e1.get(name), `entries of ${name}`).toBe(name === 'Meta' && fromLayout1 ? n + 1n : n);
    // Status: the same, except (after a 1 -> 2 migration) history_bytes, which gains the index and status maps.
    const strip = (s: Json): Json => {
      const j = JSON.parse(JSON.stringify(s)) as { prune: { history_bytes?: Json }; metrics: { history_bytes?: Json; prune: { history_bytes?: Json }; stable_map_entries?: Json } };
      if (fromLayout1) {
        delete j.prune.history_bytes;
        delete j.metrics.history_bytes;
        delete j.metrics.prune.history_bytes;
      }
      delete j.metrics.stable_map_entries;
      return j as unknown as Json;
    };
    expectSame('status', [strip(expected.status)], [strip(actual.status)]);
    if (!fromLayout1) return;
    const historyBytes = (s: Json): bigint => big((s as { prune: { history_bytes: Json } }).prune.history_bytes);
    // At least 40 bytes a kept block (hash index) and 40 + 9 a kept transaction (hash index, status).
    const keptBlocks = BigInt(expected.blocks.filter((b) => JSON.stringify(b).includes('"Found"')).length);
    const keptTxs = BigInt(expected.txs.filter((t) => !JSON.stringify((t as { pending: Json }).pending).includes('Unknown')).length);
    expect(historyBytes(actual.status) - historyBytes(expected.status)).toBeGreaterThanOrEqual(keptBlocks * 40n + keptTxs * 49n);
    // Exact: the image of the current layout holds the same chain built by the current layout's code.
    if (existsSync(join(GOLDEN, `v${LAYOUT_VERSION}`, 'expected.json'))) {
      const current = load(`v${LAYOUT_VERSION}`);
      if (JSON.stringify(current.subject) === JSON.stringify(expected.subject)) {
        expect(historyBytes(actual.status), `history_bytes after the migration vs image v${LAYOUT_VERSION}`).toBe(historyBytes(current.status));
      }
    }
  }, 1_800_000); // thousands of queries: minutes on a loaded two-core machine

  it('then mines the pending transactions: the queued ones, the replacement, and the gapped one once its gap is filled', async () => {
    const client = new HostClient(host);
    const ids = expected.pending_tx_ids.map((h) => Uint8Array.from(Buffer.from(h, 'hex')));
    const pendingBefore = ids.map((id) => toJson(client.querySync('get_pending', [id])));
    expect(pendingBefore.map((p) => Object.keys(p as object)[0])).toEqual(['Queued', 'Queued', 'Queued', 'Dropped', 'Queued']);
    const head = big(expected.head);
    await host.advanceTime(2000);
    expect(client.querySync('rpc_eth_block_number', [])).toBe(head + 1n);
    const [a1, a2, gapped, replaced, replacement] = ids as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array];
    for (const id of [a1, a2, replacement]) {
      const r = client.querySync('get_receipt', [id])[0];
      expect(r, 'receipt of a pending transaction after the upgrade').toMatchObject({ status: 1, block_number: head + 1n });
    }
    expect(toJson(client.querySync('get_pending', [replaced]))).toEqual({ Dropped: { code: 'pool.replaced' } });
    expect(toJson(client.querySync('get_pending', [gapped]))).toEqual({ Queued: null });
    // The new block continues the recorded chain.
    const found = (n: bigint) => {
      const r = client.querySync('rpc_eth_get_block_by_number_with_status', [n, false]);
      if (!('Found' in r)) throw new Error(`block ${n} not found`);
      return r.Found;
    };
    const [last, next] = [found(head), found(head + 1n)];
    expect(Buffer.from(next.parent_hash).toString('hex')).toBe(Buffer.from(last.hash).toString('hex'));
    // Fill B's gap: both are mined in the next block.
    const nonce = unwrap(client.querySync('expected_nonce_by_address', [B.address]));
    const fill = unwrap((await client.update('rpc_eth_send_raw_transaction', [transfer(B, nonce, B.address, 0n).serialize()])));
    await host.advanceTime(2000);
    for (const id of [fill, gapped]) expect(client.querySync('get_receipt', [id])[0]).toMatchObject({ status: 1, block_number: head + 2n });
  });
});
}
