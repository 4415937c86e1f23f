// `npm run archive` as its own process (src/archive/main.ts) against the real canister wasm behind the IC HTTP
// interface, through the IC agent as against a canister on the IC: it starts, replays and verifies the chain
// from genesis, follows new blocks, stops cleanly on SIGTERM after committing, and a restart resumes from the
// block it stopped at with its history kept (read back from its PGlite folder). A bad variable stops it at start
// naming the variable.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArchiveReader } from '../../src/archive/reader.js';
import type { IcHttpServer } from '../../src/host/ic_http/index.js';
import { projectTempDir } from '../../src/host/paths.js';
import { openDb } from '../../src/indexer/db.js';
import { CANISTER_ID, type Evm } from '../support/canister.js';
import { account, ETH, plainAddress, transfer } from '../support/eth.js';
import { minedReceipt, startIcHttpEvm, type IcHttpEvm } from '../support/ic_http_evm.js';

const dir = projectTempDir('archive-process-');
const MAIN = join(import.meta.dirname, '../../src/archive/main.ts');
const alice = account(0x51);
let net: IcHttpEvm;
let evm: Evm;
let server: IcHttpServer;
let nonce = 0n;

/** Sends a transfer and waits until the wall-clock miner includes it; returns its block. */
async function mined(value: bigint): Promise<bigint> {
  const id = await evm.submit(transfer(alice, nonce++, plainAddress(7), value));
  return (await minedReceipt(evm, id)).block_number;
}

class Proc {
  readonly lines: string[] = [];
  private waiters: { re: RegExp; resolve: (l: string) => void }[] = [];
  readonly exited: Promise<number | null>;
  readonly child: ChildProcess;
  constructor(env: Record<string, string>) {
    this.child = spawn(process.execPath, ['--import', 'tsx', MAIN], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let buf = '';
    const onData = (d: Buffer): void => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const l of lines) {
        this.lines.push(l);
        this.waiters = this.waiters.filter((w) => (w.re.test(l) ? (w.resolve(l), false) : true));
      }
    };
    this.child.stdout!.on('data', onData);
    this.child.stderr!.on('data', onData);
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }
  /** The first line (already printed or to come) matching `re`. */
  line(re: RegExp, timeoutMs = 120_000): Promise<string> {
    const seen = this.lines.find((l) => re.test(l));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no line ${re} within ${timeoutMs} ms; output:\n${this.lines.join('\n')}`)), timeoutMs);
      this.waiters.push({ re, resolve: (l) => (clearTimeout(t), resolve(l)) });
    });
  }
}

beforeAll(async () => {
  net = await startIcHttpEvm(dir, { genesis: [{ address: alice.address, balance: 10n * ETH }] });
  ({ evm, server } = net);
});

afterAll(() => net?.close());

describe('npm run archive (its own process, over the IC agent)', () => {
  it('starts, follows, stops on SIGTERM with its state kept, and resumes', async () => {
    const pglite = join(dir, 'archive-db');
    const env = { EVM_CANISTER_ID: CANISTER_ID, ARCHIVE_IC_HOST: server.url, ARCHIVE_FETCH_ROOT_KEY: 'true', ARCHIVE_PGLITE_DIR: pglite, ARCHIVE_IDLE_POLL_MS: '50' };
    const first = await mined(1000n);
    const p = new Proc(env);
    await p.line(new RegExp(`^archive: canister ${CANISTER_ID} at ${server.url} into PGlite in ${pglite}; history from genesis$`));
    await p.line(new RegExp(`^archive: caught up at block ${first},`));
    // New blocks are followed while it runs.
    const second = await mined(2000n);
    await p.line(new RegExp(`^archive: caught up at block ${second},`));
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.lines).toContain(`archive: stopped (SIGTERM) at block ${second}; it resumes from block ${second + 1n}`);

    const db = await openDb({ dataDir: pglite });
    try {
      const r = new ArchiveReader(db);
      expect(await r.headBlock()).toBe(second);
      const bal = async (n: bigint): Promise<bigint> => {
        const a = await r.account(plainAddress(7), n);
        if (!a.ok) throw new Error(a.error.message);
        return a.value.balance;
      };
      expect(await bal(first)).toBe(1000n);
      expect(await bal(second)).toBe(3000n);
      expect(await bal(first - 1n)).toBe(0n);
    } finally {
      await db.close();
    }

    // Restarted: resumes after the block it stopped at (replays nothing again) and follows on.
    const third = await mined(4000n);
    const q = new Proc(env);
    await q.line(new RegExp(`^archive: caught up at block ${third}, every block re-executed and verified \\(${third - second} blocks, 1 txs this run\\)$`));
    q.child.kill('SIGINT');
    expect(await q.exited).toBe(0);
    expect(q.lines).toContain(`archive: stopped (SIGINT) at block ${third}; it resumes from block ${third + 1n}`);
  });

  it('a bad variable stops it at start, naming the variable', async () => {
    const p = new Proc({ EVM_CANISTER_ID: CANISTER_ID, ARCHIVE_IC_HOST: server.url, ARCHIVE_KEEP_BLOCKS: 'ten' });
    expect(await p.exited).toBe(1);
    expect(p.lines).toContain('configuration error: ARCHIVE_KEEP_BLOCKS: expected a whole number, got "ten"');
  });
});
