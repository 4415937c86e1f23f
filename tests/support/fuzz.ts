// Seeded fuzz generators and runners (docs/hardening.md, "Fuzzing"), shared by the bounded tests in `npm test`
// (tests/unit/fuzz.test.ts, tests/wasm/canister-fuzz.test.ts) and `npm run fuzz -- --count N` (scripts/fuzz.ts).
// Every input comes from a seed, so any failure is reproducible from the seed printed with it.
import { IDL } from '@dfinity/candid';
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import { argByteLimit, checkArgBytes } from '../../src/canister/arg_check.js';
import { parseRefusal } from '../../src/canister/refusal.js';
import { methodSignatures, type ArgBytes } from '../../src/canister/idl.js';
import type { EvmCore } from '../../src/core/index.js';
import type { IcHost, MessageStats } from '../../src/host/index.js';
import { handleBody } from '../../src/gateway/rpc.js';
import { senderPublicKey } from '../../src/gateway/sender_key.js';
import type { MethodContext } from '../../src/gateway/methods/index.js';

/** xorshift32: small, fast and deterministic. */
export class Rng {
  private x: number;
  constructor(seed: number) {
    this.x = seed | 1;
  }
  next(): number {
    let x = this.x;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.x = x;
    return x >>> 0;
  }
  int(n: number): number {
    return this.next() % n;
  }
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.next() & 0xff;
    return out;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
}

/** Flips, inserts, deletes, truncates or splices random bytes (a few edits). */
export function mutate(r: Rng, input: Uint8Array): Uint8Array {
  let b = Array.from(input);
  const edits = 1 + r.int(4);
  for (let i = 0; i < edits; i++) {
    const at = b.length === 0 ? 0 : r.int(b.length);
    switch (r.int(6)) {
      case 0:
        if (b.length > 0) b[at] = b[at]! ^ (1 << r.int(8));
        break;
      case 1:
        b.splice(at, 0, ...r.bytes(1 + r.int(8)));
        break;
      case 2:
        b.splice(at, 1 + r.int(8));
        break;
      case 3:
        b = b.slice(0, at);
        break;
      case 4:
        if (b.length > 0) b[at] = r.pick([0x00, 0x7f, 0x80, 0xff, 0xc0, 0xf8, 0xb8]);
        break;
      default:
        // A large LEB128 / length where a small one was.
        b.splice(at, 0, 0xff, 0xff, 0xff, 0xff, 0x0f);
    }
  }
  return Uint8Array.from(b);
}

export interface Tally {
  inputs: number;
  /** Outcome (error code, `ok`, `reply`, `reject`) -> count. */
  codes: Map<string, number>;
  /** Inputs that broke the property (a throw, a trap, a 500, a stack trace); each with its seed. */
  failures: string[];
  /** Messages of the real wasm that trapped (each is also a failure). */
  traps: number;
  /** Inputs that made the code under test throw, answer HTTP 500 or drop the connection (each is also a failure). */
  crashes: number;
}
export const newTally = (): Tally => ({ inputs: 0, codes: new Map(), failures: [], traps: 0, crashes: 0 });
const crash = (t: Tally, what: string): void => {
  t.crashes++;
  t.failures.push(what);
};
const count = (t: Tally, code: string): void => void t.codes.set(code, (t.codes.get(code) ?? 0) + 1);

// ---- Candid argument bytes ----

const SIGS = methodSignatures(IDL) as Record<string, { args: IDL.Type[]; ret: IDL.Type; mode: 'query' | 'update'; argBytes: ArgBytes }>;
export const METHOD_NAMES = Object.keys(SIGS);

/** Valid sample arguments per type shape, encoded, as the seeds for mutation. */
function sampleArgs(r: Rng, method: string): Uint8Array {
  const sig = SIGS[method]!;
  try {
    return new Uint8Array(IDL.encode(sig.args, sig.args.map((t) => sample(r, t, 0))));
  } catch {
    return new Uint8Array(IDL.encode([], []));
  }
}

function sample(r: Rng, t: IDL.Type, depth: number): unknown {
  if (t instanceof IDL.VecClass) {
    const inner = (t as unknown as { _type: IDL.Type })._type;
    if (inner instanceof IDL.FixedNatClass && inner._bits === 8) return r.bytes(r.int(40));
    return depth > 3 ? [] : Array.from({ length: r.int(3) }, () => sample(r, inner, depth + 1));
  }
  if (t instanceof IDL.OptClass) return r.int(2) === 0 || depth > 3 ? [] : [sample(r, (t as unknown as { _type: IDL.Type })._type, depth + 1)];
  if (t instanceof IDL.RecordClass) return Object.fromEntries(t._fields.map(([k, ft]) => [k, sample(r, ft, depth + 1)]));
  if (t instanceof IDL.VariantClass) {
    const [k, ft] = r.pick(t._fields);
    return { [k]: sample(r, ft, depth + 1) };
  }
  if (t instanceof IDL.FixedNatClass) return t._bits <= 32 ? r.int(2 ** Math.min(t._bits, 31)) : BigInt(r.next());
  if (t instanceof IDL.NatClass) return BigInt(r.next()) * BigInt(r.next());
  if (t instanceof IDL.BoolClass) return r.int(2) === 0;
  if (t instanceof IDL.TextClass) return 'x'.repeat(r.int(10));
  if (t instanceof IDL.FloatClass) return r.int(100);
  return null;
}

/** One Candid input for `method`: random bytes, a mutated valid argument, or a valid one with a bomb appended. */
export function candidInput(r: Rng, method: string): Uint8Array {
  switch (r.int(4)) {
    case 0:
      return r.bytes(r.int(64));
    case 1:
      return Uint8Array.from([0x44, 0x49, 0x44, 0x4c, ...r.bytes(r.int(48))]);
    default:
      return mutate(r, sampleArgs(r, method));
  }
}

/** The argument check never throws; what it accepts IDL.decode finishes on (with a value or an error). */
export function fuzzCandid(t: Tally, seed: number, n: number): void {
  const r = new Rng(seed);
  for (let i = 0; i < n; i++) {
    const method = r.pick(METHOD_NAMES);
    const bytes = candidInput(r, method);
    t.inputs++;
    try {
      const c = checkArgBytes(bytes, SIGS[method]!.args.length, argByteLimit(SIGS[method]!.argBytes));
      if (!c.ok) {
        count(t, c.code);
        continue;
      }
      try {
        IDL.decode(SIGS[method]!.args, bytes);
        count(t, 'ok');
      } catch {
        count(t, 'candid.args_decode');
      }
    } catch (e) {
      crash(t, `candid seed ${seed} input ${i} (${method}): ${String(e)}`);
    }
  }
}

// ---- raw transactions ----

const COMMON_SEEDS: Uint8Array[] = [];
/** Valid signed transactions (legacy, 1559, a deploy) to mutate. */
export function rawSeeds(common: unknown, key: Uint8Array): Uint8Array[] {
  if (COMMON_SEEDS.length > 0) return COMMON_SEEDS;
  const opts = { common } as never;
  COMMON_SEEDS.push(
    createFeeMarket1559Tx({ nonce: 0n, to: new Uint8Array(20).fill(1), value: 1n, gasLimit: 21000n, maxFeePerGas: 10n ** 12n, maxPriorityFeePerGas: 25n * 10n ** 10n }, opts).sign(key).serialize(),
    createLegacyTx({ nonce: 1n, to: new Uint8Array(20).fill(2), value: 0n, gasLimit: 60000n, gasPrice: 10n ** 12n, data: Uint8Array.of(1, 2, 3) }, opts).sign(key).serialize(),
    createFeeMarket1559Tx({ nonce: 2n, gasLimit: 200000n, maxFeePerGas: 10n ** 12n, maxPriorityFeePerGas: 25n * 10n ** 10n, data: new Uint8Array(64).fill(0x60) }, opts).sign(key).serialize(),
  );
  return COMMON_SEEDS;
}

export function rawInput(r: Rng, seeds: Uint8Array[]): Uint8Array {
  switch (r.int(4)) {
    case 0:
      return r.bytes(r.int(200));
    case 1:
      return Uint8Array.from([r.pick([0x01, 0x02, 0x03, 0x04, 0x05, 0xf8, 0xc0]), ...r.bytes(r.int(120))]);
    default:
      return mutate(r, r.pick(seeds));
  }
}

/** submitRawTx answers a Result for every input: never a throw. */
export function fuzzRawTx(t: Tally, core: EvmCore, seeds: Uint8Array[], seed: number, n: number): void {
  const r = new Rng(seed);
  for (let i = 0; i < n; i++) {
    const raw = rawInput(r, seeds);
    t.inputs++;
    try {
      const res = core.submitRawTx(raw);
      count(t, res.ok ? 'ok' : res.error.code);
    } catch (e) {
      crash(t, `rawtx seed ${seed} input ${i}: ${String(e)}`);
    }
  }
}

// ---- JSON-RPC bodies ----

const RPC_METHODS = [
  'eth_chainId', 'eth_blockNumber', 'eth_getBalance', 'eth_call', 'eth_estimateGas', 'eth_getLogs', 'eth_sendRawTransaction',
  'eth_getTransactionReceipt', 'eth_getBlockByNumber', 'eth_feeHistory', 'eth_getCode', 'eth_getStorageAt', 'net_version', 'web3_clientVersion', 'nope',
];

function jsonValue(r: Rng, depth: number): unknown {
  switch (r.int(depth > 2 ? 6 : 9)) {
    case 0: return null;
    case 1: return r.int(2) === 0;
    case 2: return r.next() - 2 ** 31;
    case 3: return `0x${Buffer.from(r.bytes(r.int(40))).toString('hex')}`;
    case 4: return r.pick(['latest', 'pending', 'earliest', '0x', '0x0', '0xzz', '', '1e400', '-0x1']);
    case 5: return 'x'.repeat(r.int(20));
    case 6: return Array.from({ length: r.int(4) }, () => jsonValue(r, depth + 1));
    case 7: {
      const keys = ['to', 'from', 'data', 'input', 'gas', 'value', 'fromBlock', 'toBlock', 'address', 'topics', 'blockHash', '__proto__', 'constructor'];
      return Object.fromEntries(Array.from({ length: r.int(4) }, () => [r.pick(keys), jsonValue(r, depth + 1)]));
    }
    default: return 1.5;
  }
}

export function rpcBody(r: Rng): string {
  const one = (): unknown => {
    const req: Record<string, unknown> = { jsonrpc: r.int(10) === 0 ? '1.0' : '2.0', method: r.pick(RPC_METHODS), params: r.int(8) === 0 ? jsonValue(r, 0) : Array.from({ length: r.int(4) }, () => jsonValue(r, 1)) };
    if (r.int(6) !== 0) req.id = r.int(5) === 0 ? jsonValue(r, 2) : r.int(1000);
    return req;
  };
  const valid = JSON.stringify(r.int(5) === 0 ? Array.from({ length: r.int(6) }, one) : one());
  switch (r.int(6)) {
    case 0: return Buffer.from(mutate(r, Buffer.from(valid))).toString('utf8');
    case 1: return '['.repeat(r.int(200)) + ']'.repeat(r.int(200));
    default: return valid;
  }
}

const STACK = /\n\s+at |\.ts:\d+|\.js:\d+/;

/** handleBody answers every body without rejecting (no 500), and no answer carries a stack trace. */
export async function fuzzRpc(t: Tally, ctx: MethodContext, seed: number, n: number): Promise<void> {
  const r = new Rng(seed);
  for (let i = 0; i < n; i++) {
    const body = rpcBody(r);
    t.inputs++;
    try {
      const out = await handleBody(body, ctx);
      const text = out === undefined ? '' : JSON.stringify(out);
      if (STACK.test(text)) t.failures.push(`rpc seed ${seed} input ${i}: stack trace in ${text.slice(0, 300)}`);
      const first = Array.isArray(out) ? out[0] : out;
      count(t, first === undefined ? 'no-answer' : first.error !== undefined ? `rpc ${first.error.code}` : 'result');
    } catch (e) {
      crash(t, `rpc seed ${seed} input ${i}: rejected (would be a 500): ${String(e)} body ${body.slice(0, 200)}`);
    }
  }
}

// ---- the real wasm and the real gateway over HTTP ----

/** The canister wasm in the Node IC host, with the log of every message it ran (tests/support/canister.ts's Evm). */
export interface WasmTarget {
  readonly host: IcHost;
  readonly messages: MessageStats[];
}

/**
 * A trap in any message the input caused (inspection, the method, callbacks) is a failure, except the trap
 * by which canister_inspect_message refuses ingress with an error code (src/canister/refusal.ts).
 */
export const isFailureTrap = (m: MessageStats): boolean => m.trapped && !(m.kind === 'inspect' && parseRefusal(m.trapMessage ?? '') !== undefined);

function trapsSince(t: Tally, w: WasmTarget, from: number, what: string): void {
  const trapped = w.messages.slice(from).filter(isFailureTrap);
  if (trapped.length === 0) return;
  t.traps += trapped.length;
  t.failures.push(`${what}: trapped in ${trapped.map((m) => `${m.kind} ${m.method}`).join(', ')}`);
}

/** A reject by its cause: the argument check's code, a screening refusal's error code (inspection), or the IC reject code. */
const rejectKey = (message: string, code: number): string => `reject ${/candid\.[a-z_]+/.exec(message)?.[0] ?? parseRefusal(message)?.code ?? code}`;

/**
 * Candid argument bytes to every method of the real wasm: queries as queries, updates as ingress (through
 * canister_inspect_message) or as calls from another canister, alternately. Property: a reply or a clean
 * reject for every input, no message traps.
 */
export async function fuzzCandidWasm(t: Tally, w: WasmTarget, seed: number, n: number): Promise<void> {
  const r = new Rng(seed);
  for (let i = 0; i < n; i++) {
    const method = r.pick(METHOD_NAMES);
    const bytes = candidInput(r, method);
    const from = w.messages.length;
    t.inputs++;
    try {
      const res = SIGS[method]!.mode === 'query' ? w.host.query(method, bytes) : await w.host.update(method, bytes, { fromCanister: i % 2 === 0 });
      count(t, res.kind === 'reject' ? rejectKey(res.message, res.code) : 'reply');
    } catch (e) {
      crash(t, `candid-wasm seed ${seed} input ${i} (${method}): the host threw ${String(e)}`);
    }
    trapsSince(t, w, from, `candid-wasm seed ${seed} input ${i} (${method})`);
  }
}

/**
 * A sender key hint for a raw input: the key that signed it (when it recovers), a random point-sized blob, or
 * a blob of the wrong length.
 */
function keyHintInput(r: Rng, raw: Uint8Array): Uint8Array {
  const k = r.int(4);
  if (k < 2) return senderPublicKey(raw) ?? r.bytes(64);
  return k === 2 ? r.bytes(64) : r.bytes(r.int(70));
}

/**
 * Raw transactions to rpc_eth_send_raw_transaction of the real wasm, every third one to
 * rpc_eth_send_raw_transaction_with_key with a key hint: an Ok or a coded Err for each, no trap.
 */
export async function fuzzRawTxWasm(t: Tally, w: WasmTarget, seeds: Uint8Array[], seed: number, n: number): Promise<void> {
  const r = new Rng(seed);
  for (let i = 0; i < n; i++) {
    const raw = rawInput(r, seeds);
    const method = i % 3 === 2 ? 'rpc_eth_send_raw_transaction_with_key' : 'rpc_eth_send_raw_transaction';
    const T = SIGS[method]!;
    const from = w.messages.length;
    t.inputs++;
    try {
      const args = method === 'rpc_eth_send_raw_transaction' ? [raw] : [raw, keyHintInput(r, raw)];
      const res = await w.host.update(method, new Uint8Array(IDL.encode(T.args, args)));
      if (res.kind === 'reject') count(t, rejectKey(res.message, res.code));
      else {
        const [v] = IDL.decode([T.ret], res.bytes) as unknown as [{ Ok?: unknown; Err?: { code: string } }];
        count(t, v.Err !== undefined ? v.Err.code : 'ok');
      }
    } catch (e) {
      crash(t, `rawtx-wasm seed ${seed} input ${i}: the host threw ${String(e)}`);
    }
    trapsSince(t, w, from, `rawtx-wasm seed ${seed} input ${i}`);
  }
}

/**
 * JSON-RPC bodies POSTed to a running gateway (in front of the real wasm). Property: every body gets an HTTP
 * answer that is not a 500, carries no stack trace, and the connection is never dropped.
 */
export async function fuzzRpcHttp(t: Tally, url: string, seed: number, n: number): Promise<void> {
  const r = new Rng(seed);
  for (let i = 0; i < n; i++) {
    const body = rpcBody(r);
    t.inputs++;
    let status: number;
    let text: string;
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      status = res.status;
      text = await res.text();
    } catch (e) {
      crash(t, `rpc-http seed ${seed} input ${i}: no answer (${String(e)}) body ${body.slice(0, 200)}`);
      continue;
    }
    if (status >= 500) crash(t, `rpc-http seed ${seed} input ${i}: HTTP ${status} body ${body.slice(0, 200)}`);
    if (STACK.test(text)) t.failures.push(`rpc-http seed ${seed} input ${i}: stack trace in ${text.slice(0, 300)}`);
    let code = `http ${status}`;
    try {
      const out = text === '' ? undefined : (JSON.parse(text) as { error?: { code: number } } | { error?: { code: number } }[]);
      const first = Array.isArray(out) ? out[0] : out;
      if (first !== undefined) code = first.error !== undefined ? `rpc ${first.error.code}` : 'result';
    } catch {
      // A non-JSON answer (e.g. 413 text) keeps its HTTP status as the outcome.
    }
    count(t, code);
  }
}

export function formatTally(name: string, t: Tally): string {
  const codes = [...t.codes.entries()].sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c}=${n}`).join(' ');
  return `${name}: ${t.inputs} inputs, ${t.failures.length} failures (traps ${t.traps}, crashes ${t.crashes}); ${codes}`;
}
