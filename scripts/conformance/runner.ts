// Conformance runner: the Ethereum Foundation's GeneralStateTests over this project's own engine
// (src/core/evm: flat state, fast interpreter, instruction budget, precompile wrappers), as DESIGN rule 6 asks.
//
// Per vector (one post[fork] entry: a data/gas/value combination): the pre-state is written straight into
// the engine's flat maps, the transaction runs as the only one of a block (engine.beginBlock/runTx/
// commitBlock, exactly the canister's path minus the mempool), then the post-state root is computed as a
// Merkle-Patricia root over the flat maps (@ethereumjs/mpt; the engine itself keeps no trie) and the logs
// hash as keccak256(rlp(logs)). Both must equal the fixture's `hash` and `logs`.
//
// Counting rules (docs/conformance.md):
// - not applicable: blob (type 3) transactions; on Prague, set-code (type 4) transactions (this service
//   accepts types 0-2 only).
// - service limit: the transaction ran into one of the service's documented limits (more than
//   MAX_LOGS_PER_TX logs, more than MAX_LOG_BYTES_PER_TX bytes of log data and topics, the per-transaction
//   instruction budget): counted apart with its reason, never a pass.
// - everything else passes or fails. A vector with `expectException` passes when the engine refuses the
//   transaction and the state root is unchanged.
// The instruction counter is 0 under Node, so only the budget's up-front reservations (precompiles,
// frames, keccak) can exhaust it here; inside the canister the counter is real.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { BlockEnv, ExecTx, TxOutcome } from '../../src/core/engine.js';
import { ErrorCode } from '../../src/core/errors.js';
import { keccak256 } from '../../src/core/crypto.js';
import { type CoreHost, type KvMap, MemoryKvMap } from '../../src/core/host.js';
import { createChainCommon } from '../../src/core/evm/common.js';
import { type EvmEngine, createEvmEngine } from '../../src/core/evm/engine.js';
import { decodeAccount, encodeAccount, fromHex, storageKey, unpad } from '../../src/core/evm/encoding.js';
import { STATE_ROOT_KEY } from '../../src/core/evm/state.js';
import { MemoryId } from '../../src/core/store/memory_ids.js';

export type Fork = 'Cancun' | 'Prague';

/** Failure codes of the service's own limits (docs/conformance.md "Counting rules"). */
export const SERVICE_LIMITS: ReadonlySet<string> = new Set([ErrorCode.ExecTooManyLogs, ErrorCode.ExecTooManyLogBytes, ErrorCode.ExecInstructionBudget]);
export type Verdict = 'pass' | 'fail' | 'not_applicable' | 'service_limit';

export interface VectorResult {
  readonly file: string;
  readonly test: string;
  readonly index: number;
  readonly verdict: Verdict;
  /** Why: the mismatch, the limit hit, or why the vector does not apply. */
  readonly reason?: string;
}

export interface FileResult {
  readonly file: string;
  readonly results: VectorResult[];
  readonly ms: number;
}

// ---- fixture format (ethereum/tests GeneralStateTests, filled) ----

interface FixtureAccount {
  balance: string;
  nonce: string;
  code: string;
  storage: Record<string, string>;
}
interface FixturePost {
  hash: string;
  logs: string;
  txbytes?: string;
  indexes: { data: number; gas: number; value: number };
  expectException?: string;
}
interface FixtureTest {
  env: Record<string, string>;
  pre: Record<string, FixtureAccount>;
  transaction: {
    data: string[];
    gasLimit: string[];
    value: string[];
    nonce: string;
    to: string;
    secretKey: string;
    gasPrice?: string;
    maxFeePerGas?: string;
    maxPriorityFeePerGas?: string;
    accessLists?: (AccessListJson | null)[];
    blobVersionedHashes?: string[];
    authorizationList?: unknown[];
  };
  post: Record<string, FixturePost[]>;
}
type AccessListJson = { address: string; storageKeys: string[] }[];

const UINT256_MAX = (1n << 256n) - 1n;

/** A fixture number: hex or decimal, optionally written "0x:bigint 0x..." for values past 2^256. */
function num(s: string): bigint {
  const v = s.startsWith('0x:bigint ') ? s.slice('0x:bigint '.length) : s;
  return BigInt(v);
}
const bytes = (s: string): Uint8Array => fromHex(s.startsWith('0x') ? s.slice(2) : s);
const word = (v: bigint): Uint8Array => {
  const out = new Uint8Array(32);
  let x = v;
  for (let i = 31; i >= 0 && x > 0n; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
};
const hex = (b: Uint8Array): string => '0x' + Buffer.from(b).toString('hex');

// ---- a host whose maps are emptied between vectors, so one engine (one VM build) serves a whole run ----

class ResettableHost implements CoreHost {
  private readonly maps = new Map<number, ResettableMap>();
  openMap(id: number): KvMap {
    let m = this.maps.get(id);
    if (m === undefined) {
      m = new ResettableMap();
      this.maps.set(id, m);
    }
    return m;
  }
  reset(): void {
    for (const m of this.maps.values()) m.inner = new MemoryKvMap();
  }
  timeNs(): bigint {
    return 0n;
  }
  instructionCounter(): bigint {
    return 0n;
  }
}

class ResettableMap implements KvMap {
  inner = new MemoryKvMap();
  get(k: Uint8Array): Uint8Array | undefined {
    return this.inner.get(k);
  }
  insert(k: Uint8Array, v: Uint8Array): void {
    this.inner.insert(k, v);
  }
  remove(k: Uint8Array): void {
    this.inner.remove(k);
  }
  containsKey(k: Uint8Array): boolean {
    return this.inner.containsKey(k);
  }
  len(): bigint {
    return this.inner.len();
  }
  items(start?: number, length?: number): [Uint8Array, Uint8Array][] {
    return this.inner.items(start, length);
  }
}

// ---- the runner ----

export class ConformanceRunner {
  private constructor(
    readonly fork: Fork,
    private readonly host: ResettableHost,
    private readonly engine: EvmEngine,
  ) {}

  static async create(fork: Fork = 'Cancun'): Promise<ConformanceRunner> {
    const host = new ResettableHost();
    const engine = await createEvmEngine({
      host,
      common: createChainCommon({ hardfork: fork === 'Cancun' ? 'cancun' : 'prague', chainId: 1n }),
      // As the state tests' reference clients answer BLOCKHASH: keccak256 of the decimal block number.
      blockHash: (n) => keccak256(new TextEncoder().encode(n.toString())),
    });
    return new ConformanceRunner(fork, host, engine);
  }

  async runFile(path: string, label = path): Promise<FileResult> {
    const t0 = performance.now();
    const results: VectorResult[] = [];
    const json = JSON.parse(readFileSync(path, 'utf8')) as Record<string, FixtureTest>;
    for (const [name, test] of Object.entries(json)) {
      const posts = test.post?.[this.fork] ?? [];
      for (let i = 0; i < posts.length; i++) {
        let r: Omit<VectorResult, 'file' | 'test' | 'index'>;
        try {
          r = await this.runVector(test, posts[i]!);
        } catch (e) {
          r = { verdict: 'fail', reason: `runner error: ${(e as Error).message}` };
        }
        results.push({ file: label, test: name, index: i, ...r });
      }
    }
    return { file: label, results, ms: performance.now() - t0 };
  }

  private async runVector(test: FixtureTest, post: FixturePost): Promise<Omit<VectorResult, 'file' | 'test' | 'index'>> {
    const t = test.transaction;
    const txType = txTypeOf(t, post);
    if (txType === 3) return { verdict: 'not_applicable', reason: 'blob (type 3) transaction' };
    if (txType === 4) return { verdict: 'not_applicable', reason: 'set-code (type 4) transaction' };
    if (txType > 4) return { verdict: 'not_applicable', reason: `transaction type ${txType}` };

    this.host.reset();
    writePreState(this.host, test.pre);
    const preRoot = await mptRoot(this.host);

    const value = num(t.value[post.indexes.value]!);
    const nonce = num(t.nonce);
    let outcome: TxOutcome;
    if (value > UINT256_MAX || nonce >= 2n ** 64n - 1n) {
      // The transaction decoder refuses these (value past 256 bits; EIP-2681 nonce cap) before execution.
      outcome = { kind: 'rejected', code: ErrorCode.ArgInvalid, message: 'refused at decoding' };
    } else {
      const tx = buildExecTx(t, post, txType, value, nonce);
      this.engine.beginBlock(blockEnvOf(test.env));
      try {
        outcome = await this.engine.runTx(tx);
      } finally {
        await this.engine.commitBlock();
        // as the canister's block message: code the fast loop met is compiled (later vectors of a test run it)
        this.engine.afterBlock?.();
      }
    }

    const root = await mptRoot(this.host);
    const logsHash =
      outcome.kind === 'included'
        ? keccak256(RLP.encode(outcome.logs.map((l) => [l.address, [...l.topics], l.data])))
        : keccak256(RLP.encode([]));
    const rootOk = hex(root) === post.hash.toLowerCase();
    const logsOk = hex(logsHash) === post.logs.toLowerCase();

    if (outcome.kind === 'included' && outcome.failure !== undefined) {
      const code = outcome.failure.code;
      if (SERVICE_LIMITS.has(code)) {
        return { verdict: 'service_limit', reason: code };
      }
    }
    if (post.expectException !== undefined) {
      if (outcome.kind !== 'rejected') return { verdict: 'fail', reason: `expected ${post.expectException}, transaction was included` };
      if (hex(root) !== hex(preRoot)) return { verdict: 'fail', reason: 'refused transaction changed the state' };
      if (!rootOk) return { verdict: 'fail', reason: `state root ${hex(root)} != ${post.hash}` };
      return { verdict: 'pass' };
    }
    if (outcome.kind === 'rejected') return { verdict: 'fail', reason: `rejected: ${outcome.code} ${outcome.message}` };
    if (!rootOk) return { verdict: 'fail', reason: `state root ${hex(root)} != ${post.hash}` };
    if (!logsOk) return { verdict: 'fail', reason: `logs hash ${hex(logsHash)} != ${post.logs}` };
    return { verdict: 'pass' };
  }
}

function txTypeOf(t: FixtureTest['transaction'], post: FixturePost): number {
  if (post.txbytes !== undefined && post.txbytes.length >= 4) {
    const first = parseInt(post.txbytes.slice(2, 4), 16);
    if (first < 0x80) return first;
    if (first >= 0xc0) return 0;
  }
  if (t.blobVersionedHashes !== undefined) return 3;
  if (t.authorizationList !== undefined) return 4;
  if (t.maxFeePerGas !== undefined) return 2;
  if (t.accessLists !== undefined && t.accessLists[post.indexes.data] != null) return 1;
  return 0;
}

function buildExecTx(t: FixtureTest['transaction'], post: FixturePost, type: number, value: bigint, nonce: bigint): ExecTx {
  const key = bytes(t.secretKey);
  const pub = secp256k1.getPublicKey(key, false);
  const from = keccak256(pub.subarray(1)).subarray(12);
  const al = t.accessLists?.[post.indexes.data] ?? [];
  const maxFee = num(t.maxFeePerGas ?? t.gasPrice ?? '0');
  return {
    type: type as 0 | 1 | 2,
    from,
    to: t.to === '' || t.to === undefined ? undefined : bytes(t.to),
    nonce,
    value,
    data: bytes(t.data[post.indexes.data]!),
    gasLimit: num(t.gasLimit[post.indexes.gas]!),
    maxFeePerGas: maxFee,
    maxPriorityFeePerGas: t.maxPriorityFeePerGas !== undefined ? num(t.maxPriorityFeePerGas) : maxFee,
    accessList: al.map((e) => [bytes(e.address), e.storageKeys.map((k) => word(num(k)))] as const),
  };
}

function blockEnvOf(env: Record<string, string>): BlockEnv {
  return {
    number: num(env.currentNumber!),
    timestamp: num(env.currentTimestamp!),
    baseFeePerGas: num(env.currentBaseFee ?? '0'),
    gasLimit: num(env.currentGasLimit!),
    coinbase: bytes(env.currentCoinbase!),
    prevRandao: word(num(env.currentRandom ?? env.currentDifficulty ?? '0')),
    parentHash: new Uint8Array(32),
  };
}

function writePreState(host: CoreHost, pre: Record<string, FixtureAccount>): void {
  const accounts = host.openMap(MemoryId.Accounts);
  const code = host.openMap(MemoryId.Code);
  const storage = host.openMap(MemoryId.Storage);
  for (const [addrHex, acc] of Object.entries(pre)) {
    const address = bytes(addrHex);
    const c = bytes(acc.code);
    let codeHash: Uint8Array | undefined;
    if (c.length > 0) {
      codeHash = keccak256(c);
      code.insert(codeHash, c);
    }
    let hasStorage = false;
    for (const [slot, v] of Object.entries(acc.storage)) {
      const val = unpad(word(num(v)));
      if (val.length === 0) continue;
      storage.insert(storageKey(address, 0, word(num(slot))), val);
      hasStorage = true;
    }
    accounts.insert(
      address,
      encodeAccount({ exists: true, nonce: num(acc.nonce), balance: num(acc.balance), codeHash, codeSize: c.length, gen: 0, hasStorage }),
    );
  }
}

const KECCAK_EMPTY = keccak256(new Uint8Array(0));

/** The Merkle-Patricia state root of the flat maps (what an Ethereum client would compute for the same state). */
export async function mptRoot(host: CoreHost): Promise<Uint8Array> {
  const byPrefix = new Map<string, [Uint8Array, Uint8Array][]>();
  for (const [k, v] of host.openMap(MemoryId.Storage).items()) {
    const p = Buffer.from(k.subarray(0, 24)).toString('hex');
    let list = byPrefix.get(p);
    if (list === undefined) byPrefix.set(p, (list = []));
    list.push([k.subarray(24), v]);
  }
  const state = new MerklePatriciaTrie({ useKeyHashing: true });
  for (const [addr, raw] of host.openMap(MemoryId.Accounts).items()) {
    if (addr.length !== 20 || Buffer.from(addr).equals(Buffer.from(STATE_ROOT_KEY))) continue;
    const rec = decodeAccount(raw);
    if (!rec.exists) continue;
    const storageTrie = new MerklePatriciaTrie({ useKeyHashing: true });
    const gen = Buffer.from(Uint8Array.of(rec.gen >>> 24, (rec.gen >>> 16) & 0xff, (rec.gen >>> 8) & 0xff, rec.gen & 0xff)).toString('hex');
    for (const [slot, v] of byPrefix.get(Buffer.from(addr).toString('hex') + gen) ?? []) {
      await storageTrie.put(slot, RLP.encode(v));
    }
    await state.put(addr, RLP.encode([rec.nonce, rec.balance, storageTrie.root(), rec.codeHash ?? KECCAK_EMPTY]));
  }
  return state.root();
}

// ---- files and summaries ----

/** Where the fixtures are: ICP_EVM_CONFORMANCE_DIR, else ../shared/conformance beside the project root. */
export function defaultFixturesDir(projectRoot: string): string {
  return process.env.ICP_EVM_CONFORMANCE_DIR ?? join(projectRoot, '..', 'shared', 'conformance');
}

/** Every .json fixture under `dir`, sorted, as paths. */
export function fixtureFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.json')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** The folder a fixture file is counted under: its first path component below the fixtures' root test folder. */
export function folderOf(root: string, file: string): string {
  const parts = relative(root, file).split(sep);
  if (parts[0] === 'GeneralStateTests') parts.shift();
  return parts.length > 1 ? parts[0]! : '.';
}

export interface Counts {
  pass: number;
  fail: number;
  not_applicable: number;
  service_limit: number;
}
export const emptyCounts = (): Counts => ({ pass: 0, fail: 0, not_applicable: 0, service_limit: 0 });
export function addVerdict(c: Counts, v: Verdict): void {
  c[v]++;
}
