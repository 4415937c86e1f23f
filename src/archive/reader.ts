// ArchiveReader (shared interface C, docs/archive.md): the state after any archived block, its block context,
// and eth_call / eth_estimateGas there with stock EthereumJS. Only verified blocks are served: the highest is
// headBlock(); anything above it, or a block that is not archived, answers exec.state_unavailable.
// Calls follow the head's rules (src/core/query/call.ts: callObject defaults and checks, the gas cap = the
// block's gas limit, fees 0 = base fee 0, nonce and balance not checked) but run in the block's own context.
import { bigIntToBytes, generateAddress } from '@ethereumjs/util';
import { runTx, type VM } from '@ethereumjs/vm';
import type { StateManagerInterface } from '@ethereumjs/common';
import type { ExecTx, IncludedOutcome } from '../core/engine.js';
import { ErrorCode, err, ok, type Result } from '../core/errors.js';
import { callObjectToExecTx, type CallObject } from '../core/query/call.js';
import { estimateGas, failureResult } from '../core/query/estimate.js';
import { storageKey } from '../core/evm/encoding.js';
import type { Queryable } from '../indexer/db.js';
import { archiveTxCommon, createArchiveVm, ethBlockOf, type BlockContext } from './evm_context.js';
import { historySource, type StateSource } from './history_source.js';
import { HistoryStateManager } from './history_state.js';
import { OtsQueries } from './ots_queries.js';
import { ethTxOf } from './replay_tx.js';
import type { Mismatch } from './mismatch.js';

const ZERO_ADDRESS = new Uint8Array(20);
/** The precompiles' addresses (0x01..0x11), whose failures are exec.halt.precompile_error as at the head. */
const isPrecompile = (a: Uint8Array | undefined): boolean => a !== undefined && a.subarray(0, 19).every((b) => b === 0) && a[19]! >= 1 && a[19]! <= 0x11;

export interface ArchiveAccount {
  readonly balance: bigint;
  readonly nonce: bigint;
  readonly code: Uint8Array;
}

export class ArchiveReader {
  constructor(private readonly db: Queryable) {}

  /** Otterscan's lookups in the same database (the indexer's tables and the archive's internal transactions). */
  get ots(): OtsQueries {
    return (this.otsQueries ??= new OtsQueries(this.db));
  }
  private otsQueries: OtsQueries | undefined;

  /** The highest verified block (-1n when none). */
  async headBlock(): Promise<bigint> {
    const r = await this.db.query<{ cursor_block: bigint }>('SELECT cursor_block FROM archive_meta WHERE id = 1');
    const c = r.rows[0]?.cursor_block;
    return c === undefined ? -1n : BigInt(c) - 1n;
  }

  /** The lowest block served (genesis, or the retention floor; -1n when none). */
  async firstBlock(): Promise<bigint> {
    const r = await this.db.query<{ n: bigint | null; floor: bigint | null }>('SELECT (SELECT min(number) FROM archive_blocks) AS n, (SELECT floor FROM archive_retention WHERE id = 1) AS floor');
    const n = r.rows[0]?.n;
    if (n === null || n === undefined) return -1n;
    const floor = BigInt(r.rows[0]?.floor ?? 0n);
    return floor > BigInt(n) ? floor : BigInt(n);
  }

  /** The alarm text when the archive stopped at a mismatch. */
  async alarm(): Promise<string | undefined> {
    const r = await this.db.query<{ alarm: string | null }>('SELECT alarm FROM archive_meta WHERE id = 1');
    return r.rows[0]?.alarm ?? undefined;
  }

  /** The number of an archived block by hash (EIP-1898 blockHash), if held. */
  async numberOfHash(hash: Uint8Array): Promise<bigint | undefined> {
    const r = await this.db.query<{ number: bigint }>('SELECT number FROM archive_blocks WHERE hash = $1', [hash]);
    const n = r.rows[0]?.number;
    return n === undefined ? undefined : BigInt(n);
  }

  /** Whether the state after block n can be served (verified and archived). */
  async holds(n: bigint): Promise<boolean> {
    if (n < 0n || n > (await this.headBlock())) return false;
    // Block contexts are kept 256 blocks below the retention floor (for BLOCKHASH); their state is not.
    return (await this.db.query('SELECT 1 FROM archive_blocks WHERE number = $1 AND number >= coalesce((SELECT floor FROM archive_retention WHERE id = 1), 0)', [n])).rows.length === 1;
  }

  private async require(n: bigint): Promise<Result<void>> {
    if (await this.holds(n)) return ok(undefined);
    const alarm = await this.alarm();
    const r = await this.db.query<{ unservable: string | null }>('SELECT unservable FROM archive_retention WHERE id = 1');
    const unservable = r.rows[0]?.unservable ?? undefined;
    const [first, head] = [await this.firstBlock(), await this.headBlock()];
    let why = alarm === undefined ? '' : `; it stopped at a mismatch: ${describeAlarm(alarm)}`;
    if (first > 0n && n < first) why += `; history below block ${first} is not kept (retention)`;
    if (unservable !== undefined) why += `; ${unservable}`;
    const holds = first < 0n || head < first ? 'it holds no block' : `it holds ${first}..${head}`;
    return err(ErrorCode.ExecStateUnavailable, `the archive does not hold block ${n} (${holds})${why}`);
  }

  /**
   * An answer read at block n, unless the retention floor passed n meanwhile: the floor is committed before any
   * history below it is pruned, so if it is still at or below n now, every row read was the one n sees.
   */
  private async stillHeld<T>(n: bigint, r: Result<T>): Promise<Result<T>> {
    if (await this.holds(n)) return r;
    const refused = await this.require(n);
    return refused.ok ? r : refused;
  }

  /** The state after block n, for stock EthereumJS (reads from the history tables, writes kept in memory). */
  stateAt(n: bigint): StateManagerInterface {
    return new HistoryStateManager(historySource(this.db, n));
  }

  source(n: bigint): StateSource {
    return historySource(this.db, n);
  }

  /** Block n's context as the replay used it (BLOCKHASH answers from the archived hashes of the 256 below). */
  async blockContext(n: bigint): Promise<BlockContext | undefined> {
    const r = await this.db.query<{ hash: Uint8Array; parent_hash: Uint8Array; timestamp: bigint; base_fee: string; gas_limit: bigint; coinbase: Uint8Array }>(
      'SELECT hash, parent_hash, timestamp, base_fee::text AS base_fee, gas_limit, coinbase FROM archive_blocks WHERE number = $1',
      [n],
    );
    const b = r.rows[0];
    if (b === undefined) return undefined;
    const hs = await this.db.query<{ number: bigint; hash: Uint8Array }>('SELECT number, hash FROM archive_blocks WHERE number >= $1 AND number < $2', [n - 256n, n]);
    const hashes = new Map(hs.rows.map((x) => [BigInt(x.number), x.hash] as const));
    return { number: n, hash: b.hash, parentHash: b.parent_hash, timestamp: BigInt(b.timestamp), baseFeePerGas: BigInt(b.base_fee), gasLimit: BigInt(b.gas_limit), coinbase: b.coinbase, prevRandao: b.parent_hash, blockHash: (k) => hashes.get(k) };
  }

  async account(address: Uint8Array, n: bigint): Promise<Result<ArchiveAccount>> {
    const g = await this.require(n);
    if (!g.ok) return g;
    const src = this.source(n);
    const rec = await src.account(address);
    if (rec === undefined) return this.stillHeld(n, ok({ balance: 0n, nonce: 0n, code: new Uint8Array(0) }));
    return this.stillHeld(n, ok({ balance: rec.balance, nonce: rec.nonce, code: rec.codeHash === undefined ? new Uint8Array(0) : await src.code(rec.codeHash) }));
  }

  async storageAt(address: Uint8Array, slot: Uint8Array, n: bigint): Promise<Result<Uint8Array>> {
    const g = await this.require(n);
    if (!g.ok) return g;
    const rec = await this.source(n).account(address);
    const out = new Uint8Array(32);
    if (rec === undefined || !rec.hasStorage) return this.stillHeld(n, ok(out));
    const r = await this.db.query<{ value: Uint8Array | null }>('SELECT value FROM archive_storage WHERE skey = $1 AND block <= $2 ORDER BY block DESC LIMIT 1', [storageKey(address, rec.gen, slot), n]);
    const v = r.rows[0]?.value;
    if (v !== undefined && v !== null) out.set(v, 32 - v.length);
    return this.stillHeld(n, ok(out));
  }

  /**
   * eth_call at block n: the return data, or the head's error shapes (exec.reverted with the revert data, ...).
   * `observe` gets the VM before the call runs (the devnet's console.log collector listens to its EVM).
   */
  async call(o: CallObject, n: bigint, observe?: (vm: VM) => void): Promise<Result<Uint8Array>> {
    const p = await this.prepare(o, n);
    if (!p.ok) return p;
    const out = await runCall(p.value.tx, p.value.ctx, this.stateAt(n), observe);
    return this.stillHeld(n, out.status === 1 ? ok(out.returnData) : failureResult(out));
  }

  /** eth_estimateGas at block n: the head's search (src/core/query/estimate.ts), each run on a fresh state. */
  async estimateGas(o: CallObject, n: bigint): Promise<Result<bigint>> {
    const p = await this.prepare(o, n);
    if (!p.ok) return p;
    const { tx, ctx } = p.value;
    const r = await estimateGas({
      run: (gas) => runCall({ ...tx, gasLimit: gas }, ctx, this.stateAt(n)),
      counter: () => 0n,
      deadline: 1n,
      cap: tx.gasLimit,
    });
    return this.stillHeld(n, r.ok ? ok(r.value.gas) : r);
  }

  /** Whether the code of any contract the archive has seen contains `bytes` (content-addressed code is never removed). */
  async anyCodeContains(bytes: Uint8Array): Promise<boolean> {
    return (await this.db.query('SELECT 1 FROM archive_code WHERE position($1::bytea in code) > 0 LIMIT 1', [bytes])).rows.length > 0;
  }

  private async prepare(o: CallObject, n: bigint): Promise<Result<{ tx: ExecTx; ctx: BlockContext }>> {
    const g = await this.require(n);
    if (!g.ok) return g;
    const ctx = (await this.blockContext(n))!;
    const from = o.from ?? ZERO_ADDRESS;
    const nonce = from.length === 20 ? ((await this.source(n).account(from))?.nonce ?? 0n) : 0n;
    const tx = callObjectToExecTx(o, { blockGasLimit: ctx.gasLimit, nonceOf: () => nonce });
    return tx.ok ? ok({ tx: tx.value, ctx }) : tx;
  }
}

/** Runs one call with stock EthereumJS on `sm` in block context `ctx` (base fee 0 when the call pays no fee). */
export async function runCall(tx: ExecTx, ctx: BlockContext, sm: StateManagerInterface, observe?: (vm: VM) => void): Promise<IncludedOutcome> {
  const c = tx.maxFeePerGas === 0n ? { ...ctx, baseFeePerGas: 0n } : ctx;
  const vm: VM = await createArchiveVm(sm, () => c);
  observe?.(vm);
  const common = archiveTxCommon();
  const ethTx = ethTxOf({ ...tx, chainId: BigInt(common.chainId()) }, tx.from, common);
  try {
    const res = await runTx(vm, { tx: ethTx, block: ethBlockOf(c), skipHardForkValidation: true, skipBlockGasLimitValidation: true, skipNonce: true, skipBalance: true });
    const e = res.execResult.exceptionError;
    let failure: IncludedOutcome['failure'];
    if (e !== undefined) {
      if (e.error === 'revert') failure = { code: ErrorCode.ExecReverted, message: 'execution reverted' };
      else if (isPrecompile(tx.to)) failure = { code: ErrorCode.ExecHaltPrecompileError, message: e.error };
      else failure = { code: ErrorCode.ExecHalt, message: e.error };
    }
    return {
      kind: 'included',
      status: e === undefined ? 1 : 0,
      gasUsed: res.totalGasSpent,
      logs: [],
      contractAddress: tx.to === undefined ? generateAddress(tx.from, bigIntToBytes(tx.nonce)) : undefined,
      returnData: res.execResult.returnValue,
      failure,
      instructions: 0n,
      gasRefund: res.gasRefund ?? 0n,
    };
  } catch (e) {
    const msg = (e as Error).message ?? String(e);
    const code = msg.includes('INTRINSIC_GAS_TOO_LOW') || msg.includes('intrinsic') ? ErrorCode.SubmitIntrinsicGas : ErrorCode.ExecRejected;
    return { kind: 'included', status: 0, gasUsed: 0n, logs: [], contractAddress: undefined, returnData: new Uint8Array(0), failure: { code, message: msg.split('\n')[0]! }, instructions: 0n };
  }
}


/** The stored alarm (JSON of a Mismatch) as one phrase for error messages. */
function describeAlarm(json: string): string {
  const m = JSON.parse(json) as Mismatch & { block: string };
  return `block ${m.block}${m.txIndex === undefined ? '' : `, tx ${m.txIndex}`}: ${m.field} exported ${m.exported}, replayed ${m.replayed}`;
}
