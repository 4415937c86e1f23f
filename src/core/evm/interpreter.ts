// A synchronous run loop for EthereumJS's Interpreter (DESIGN rule 6).
//
// Stock `Interpreter.run` awaits an async `runStep` for every opcode, asks Common about EIPs several times
// a step, evaluates every dynamic gas handler through a promise, and runs jump analysis that turns every
// PUSH immediate into a bigint. Inside the canister (QuickJS) each promise job and each array
// destructuring costs thousands of instructions, which made a plain opcode step cost many times what this loop's
// does (interp.step.instructions).
//
// This loop replaces `run` for the EVM instances registered here (other EVM instances, such as the stock
// VM the differential tests compare against, keep the original). It:
// - steps in a plain `for` loop and awaits only when a handler actually returns a promise (state
//   access, calls, creates);
// - executes the hot opcodes inline (stack, arithmetic and comparison, PUSH/DUP/SWAP, JUMP/JUMPI,
//   MLOAD/MSTORE, CALLDATALOAD) and computes the pure dynamic gas (memory expansion, copies, EXP, LOG,
//   KECCAK256) synchronously; every other opcode runs EthereumJS's own handler;
// - runs SLOAD and SSTORE synchronously over FlatStateManager (Berlin and later): EthereumJS's versions
//   await four times per SSTORE and rebuild the slot's bytes and hex keys at each step, which cost about a
//   hundred interpreter steps (interp.step.instructions) each; the gas and refund rules are EthereumJS's and the warm
//   slots stay in its journal, so reverts and calls see them as before;
// - caches the JUMPDEST bitmap and PUSH values per code array (code arrays are never mutated);
// - keeps EthereumJS's order inside a step: stack peeks of the gas handler, gas (static + dynamic),
//   out-of-gas, program counter, budget tick, then the operation — so errors and gas are identical
//   (the inline opcodes' budget count is made at the next JUMP or JUMPI, in code bytes; code with straight
//   runs longer than MAX_UNCOUNTED_RUN_BYTES takes the stock loop).
// It only installs when the EIPs whose per-step hooks it leaves out are all inactive (EOF, Verkle and
// binary-tree witnesses, EIP-7928 block access lists, EIP-8037/8038 state gas, EIP-8024), and each frame
// falls back to the stock loop when a `step` listener, DEBUG or the profiler is on, or the frame carries
// an access witness (`chargeCodeAccesses` alone only matters with EIP-6800/7864, which are excluded). tests/unit/evm_differential*.test.ts check it against stock EthereumJS.

import { EVMError } from '@ethereumjs/evm';
import { type Address, bytesToHex } from '@ethereumjs/util';
import { bytesToBigint } from '../codec/bytes.js';
import { CODE_BYTES_PER_BUDGET_STEP, type InstructionBudget, keccakReserve, MAX_UNCOUNTED_RUN_BYTES } from './budget.js';
import { FlatStateManager, type StorageRef } from './state.js';
import { KeccakWordMemo, MEMO_MAX_INPUT } from './keccak_memo.js';
import { addressAccessGas, addressHex } from './account_ops.js';
import { type CodeSegments, compileNow, ENDS_JUMP_ANY, enqueue, type FrameValues, NO_JUMP, pureFeesMatch, type Segment } from './interpreter_compiled.js';
import { checkRunStateShapes, type CommonLike, type EvmLike, type InterpreterLike, type JournalLike, type MemGasState, type OpEntry, type RunResult, type RunState } from './internals.js';

const ERR = EVMError.errorMessages;
const MAX = (1n << 256n) - 1n;
const TWO256 = 1n << 256n;
const SIGN = 1n << 255n;
const BYTE_WORDS: readonly bigint[] = Array.from({ length: 256 }, (_, i) => BigInt(i));

/** EIPs whose per-step or per-frame hooks this loop does not run; any of them active keeps the stock loop. */
const UNSUPPORTED_EIPS = [3540, 4200, 4750, 6206, 6800, 7069, 7480, 7620, 7708, 7864, 7928, 8024, 8037, 8038];

const INLINE_OPS = [
  0x00, 0x01, 0x02, 0x03, 0x04, 0x06, 0x30, 0x33, 0x34, 0x36, 0x3d, 0x5a, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1b, 0x1c, 0x35, 0x50,
  0x51, 0x52, 0x56, 0x57, 0x5b, 0x5f, ...Array.from({ length: 64 }, (_, i) => 0x60 + i),
];

/** The operations compiled runs consist of (interpreter_compiled.ts PURE_FEES, and JUMP and JUMPI ending a run). */
const PURE_OPS = [0x56, 0x57, 0x30, 0x33, 0x34, 0x35, 0x36, 0x01, 0x02, 0x03, 0x04, 0x06, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1b, 0x1c, 0x50, 0x5b, 0x5f, ...Array.from({ length: 64 }, (_, i) => 0x60 + i)];

type SyncGas = (rs: RunState, gas: bigint) => bigint;

/**
 * SLOAD/SSTORE gas parameters (EIP-2200 as amended by EIP-2929 and EIP-3529), read once per EVM. Charges are
 * Numbers (each below 2^31 in every hard fork's table, checked in makeStorageGas), refunds stay bigints
 * (EthereumJS's gasRefund).
 */
interface StorageGas {
  /** SLOAD's whole charge (static fee included) on a warm and on a cold slot. */
  readonly loadWarm: number;
  readonly loadCold: number;
  readonly warmRead: number;
  readonly coldSload: number;
  readonly sentry: number;
  readonly noop: number;
  readonly init: number;
  readonly clean: number;
  readonly dirty: number;
  readonly clearRefund: bigint;
  readonly initRefund: bigint;
  readonly cleanRefund: bigint;
  /** The refunds of a slot set back to its original value while warm: init - warmRead, reset - coldSload - warmRead. */
  readonly initBackRefund: bigint;
  readonly resetBackRefund: bigint;
}

/**
 * A slot a frame's SLOAD or SSTORE used, kept for the rest of the frame: its journal key, its state reference,
 * whether it is warm, and the words of the last two value arrays read from it. A slot the frame found or made
 * warm stays warm while the frame runs: only reverting a checkpoint taken before the warming cools it, and the
 * frame's own checkpoint is reverted after it ends (inner frames' reverts stop at their own checkpoints). The
 * reference stays the slot's while its account keeps its generation (checked on use). Stored value arrays are
 * never written (state.ts replaces them), so an array's word is known again by identity.
 */
interface SlotEntry {
  readonly key: bigint;
  readonly hex: string;
  ref: StorageRef;
  gen: number;
  warm: boolean;
  curArr: Uint8Array | undefined;
  curWord: bigint;
  origArr: Uint8Array | undefined;
  origWord: bigint;
}

/** Slots a frame keeps (SlotEntry): looked up by a scan, so only a few; the oldest is replaced past this. */
const FRAME_SLOTS = 8;

/** What a frame's synchronous SLOAD/SSTORE needs; null when its state manager or journal is not ours. */
interface FrameStorage {
  readonly sm: FlatStateManager;
  readonly journal: JournalLike;
  readonly address: Uint8Array;
  readonly addrHex: string;
  readonly slots: SlotEntry[];
  /** Where the next entry goes once `slots` is full. */
  next: number;
}

interface FastConfig {
  readonly budget: InstructionBudget;
  /** Memory expansion prices as Numbers (EthereumJS's memoryGas and quadCoefficientDivGas). */
  readonly memFee: number;
  readonly memQuad: number;
  readonly keccak: (data: Uint8Array) => Uint8Array;
  /** KECCAK256 results of short inputs as words, shared by the EVMs with this `keccak` (wordMemos). */
  readonly wordMemo: KeccakWordMemo;
  readonly kind: Uint8Array;
  readonly fees: number[];
  /** The static fee of a plain inline opcode (K_INLINE), -1 for every other: one lookup for most steps. */
  readonly inlineFee: number[];
  readonly feeBig: bigint[];
  readonly syncGas: (SyncGas | undefined)[];
  /** Stack items the stock dynamic gas handler peeks (its underflow comes before any gas is charged). */
  readonly gasPeeks: number[];
  /** Set when SLOAD/SSTORE run here instead of through EthereumJS's two awaits per operation. */
  readonly storageGas: StorageGas | undefined;
  /** Whether compiled runs of pure operations (interpreter_compiled.ts) charge this EVM's fees. */
  readonly segments: boolean;
  /** The dynamic gas of the memory operations priced in Numbers (memNumbers); memWordFee -1 for every other. */
  readonly memWordFee: number[];
  readonly memByteFee: number[];
  readonly memExtra: number[];
  readonly memLenAt: number[];
}

/** Per code array: JUMPDEST bitmap, PUSH immediates decoded on first use, longest straight-line span. */
interface CodeInfo {
  readonly jumps: Uint8Array;
  readonly pushes: (bigint | undefined)[];
  /**
   * Bytes of the longest run of code that execution can cross without a JUMP, JUMPI or a halting opcode
   * (STOP, RETURN, REVERT, INVALID, SELFDESTRUCT): the most code the fast loop runs between two budget counts.
   */
  readonly longestRun: number;
  readonly code: Uint8Array;
  /** Compiled runs of pure operations: undefined until the compile step looked at this code, null if it has none. */
  segs: CodeSegments | null | undefined;
  /** Whether it was put in the compilation queue (code only ever run as a creation's initcode is not). */
  queued: boolean;
}

const configs = new WeakMap<object, FastConfig>();
const MEMO_MAX_INPUT_BIG = BigInt(MEMO_MAX_INPUT);
/** One word memo per keccak function: the engine's EVMs share the chain's keccak, so their memo outlives a block's EVM. */
const wordMemos = new WeakMap<object, KeccakWordMemo>();
function wordMemoOf(keccak: (data: Uint8Array) => Uint8Array): KeccakWordMemo {
  let m = wordMemos.get(keccak);
  if (m === undefined) wordMemos.set(keccak, (m = new KeccakWordMemo()));
  return m;
}
const codeInfos = new WeakMap<Uint8Array, CodeInfo>();
let stockRun: InterpreterLike['run'] | undefined;
let interpreterProto: object | undefined;

/** EthereumJS's Interpreter.prototype (not exported by @ethereumjs/evm), once an EVM was installed. */
export function interpreterPrototype(): object | undefined {
  return interpreterProto;
}

const evmError = (msg: string): EVMError => new EVMError(msg as never);

function isEvmError(e: unknown): e is EVMError {
  return typeof e === 'object' && e !== null && (e as { errorType?: unknown }).errorType === 'EVMError';
}

/**
 * `code`'s analysis, made once per code array; `queue` puts the code in the compilation queue. A creation's
 * initcode is not queued: it runs once, so compiling it (the runtime code it carries as data included) would
 * spend the compile bound of the blocks after a deployment on code that never runs again, while the runtime
 * code the block stored waits behind it (docs/performance.md, "Compiled code, third pass").
 */
function analyse(code: Uint8Array, queue = true): CodeInfo {
  var info = codeInfos.get(code);
  if (info !== undefined) {
    if (queue && !info.queued) {
      info.queued = true;
      enqueue(info);
    }
    return info;
  }
  // instructions grow with the code's bytes (one pass over it): see analyseCode
  var n = code.length;
  var jumps = new Uint8Array(n);
  var runStart = 0;
  var longestRun = 0;
  for (var i = 0; i < n; i++) {
    var op = code[i]!;
    if (op >= 0x60) {
      if (op <= 0x7f) i += op - 0x5f;
      else if (op >= 0xfd || op === 0xf3) {
        if (i + 1 - runStart > longestRun) longestRun = i + 1 - runStart;
        runStart = i + 1;
      }
    } else if (op === 0x5b) jumps[i] = 1;
    else if (op === 0x56 || op === 0x57 || op === 0x00) {
      if (i + 1 - runStart > longestRun) longestRun = i + 1 - runStart;
      runStart = i + 1;
    }
  }
  if (n - runStart > longestRun) longestRun = n - runStart;
  info = { jumps, pushes: [], longestRun, code, segs: undefined, queued: queue };
  codeInfos.set(code, info);
  // compiled later, outside any transaction (the engine's afterBlock step)
  if (queue) enqueue(info);
  return info;
}

/**
 * Builds `code`'s JUMPDEST analysis now, kept for as long as this code array lives. The engine calls it for
 * code a block has just stored: the array stays in the state managers' shared code cache, so later blocks
 * and eth_call queries (whose own work is discarded with their heap) find the analysis done.
 */
export function analyseCode(code: Uint8Array): void {
  analyse(code);
}

/** Compiles `code`'s runs of pure operations now (tests: the engine compiles queued code after each block). */
export function compileCodeNow(code: Uint8Array): void {
  compileNow(analyse(code));
}

/** The DataView readWord / writeWord last made, and its array (memory's store is read and written many times in a row). */
var viewOf: Uint8Array | undefined;
var view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));

/** Big-endian word from `n` bytes at `at`, zero-padded on the right past the end of `src` (as PUSH reads code). */
function readWord(src: Uint8Array, at: number, n: number): bigint {
  const end = at + n;
  if (n === 32 && end <= src.length) {
    // A whole word (MLOAD, CALLDATALOAD, PUSH32): four native 64-bit reads.
    if (src !== viewOf) {
      viewOf = src;
      view = new DataView(src.buffer, src.byteOffset, src.byteLength);
    }
    const a = view.getBigUint64(at);
    const b = view.getBigUint64(at + 8);
    const c = view.getBigUint64(at + 16);
    const d = view.getBigUint64(at + 24);
    if (a === 0n && b === 0n) return c === 0n ? d : (c << 64n) | d;
    return (((((a << 64n) | b) << 64n) | c) << 64n) | d;
  }
  const avail = end <= src.length ? end : src.length;
  let i = at;
  while (i < avail && src[i] === 0) i++;
  let v = 0n;
  let chunk = 0;
  let bits = 0;
  for (; i < avail; i++) {
    chunk = chunk * 256 + src[i]!;
    if (++bits === 6) {
      v = (v << 48n) | BigInt(chunk);
      chunk = 0;
      bits = 0;
    }
  }
  if (bits > 0) v = v === 0n ? BigInt(chunk) : (v << BigInt(bits * 8)) | BigInt(chunk);
  if (avail < end) v <<= BigInt((end - avail) * 8);
  return v;
}

const EMPTY = new Uint8Array(0);
const EMPTY_SEGS: Segment[] = [];

/**
 * What compiled runs read of a frame (interpreter_compiled.ts FrameValues): its environment and memory. Memory
 * paid for may lie beyond the store (a call's output area is paid for whole but written only as far as the
 * return data reaches), so a write extends the store first when it must.
 */
function frameValues(rs: RunState): FrameValues {
  return new FrameVals(rs.env, rs.memory);
}

// One object of fields a frame, its reads as prototype methods (runs call them as `x.A()`): a frame's start then
// makes no closures (five closures and their captured variables cost more than the fields).
class FrameVals implements FrameValues {
  readonly v: bigint;
  readonly z: bigint;
  private readonly env: RunState['env'];
  private readonly data: Uint8Array;
  private readonly mem: RunState['memory'];
  private address: bigint | undefined = undefined;
  private caller: bigint | undefined = undefined;

  constructor(env: RunState['env'], mem: RunState['memory']) {
    this.env = env;
    this.data = env.callData;
    this.mem = mem;
    this.v = env.callValue;
    this.z = BigInt(env.callData.length);
  }

  A(): bigint {
    const a = this.address;
    return a === undefined ? (this.address = bytesToBigint(this.env.address.bytes)) : a;
  }

  C(): bigint {
    const c = this.caller;
    return c === undefined ? (this.caller = bytesToBigint(this.env.caller.bytes)) : c;
  }

  l(pos: bigint): bigint {
    return pos >= this.z ? 0n : readWord(this.data, Number(pos) | 0, 32);
  }

  m(at: number): bigint {
    return readWord(this.mem._store, at, 32);
  }

  w(at: number, v: bigint): void {
    const mem = this.mem;
    if (at + 32 > mem._store.length) mem.extend(at, 32);
    writeWord(mem._store, at, v);
  }

  b(at: number, v: bigint): void {
    const mem = this.mem;
    if (at >= mem._store.length) mem.extend(at, 1);
    mem._store[at] = Number(v & 0xffn);
  }
}
const NO_VALUES = {} as FrameValues;

/** Writes `v` (< 2^256) as 32 big-endian bytes at `at`. */
function writeWord(dst: Uint8Array, at: number, v: bigint): void {
  if (v < 0x100000000n) {
    dst.fill(0, at, at + 28);
    const n = Number(v);
    dst[at + 28] = n >>> 24;
    dst[at + 29] = (n >>> 16) & 0xff;
    dst[at + 30] = (n >>> 8) & 0xff;
    dst[at + 31] = n & 0xff;
    return;
  }
  // Four native 64-bit stores (setBigUint64 keeps the low 64 bits) instead of eight masks and shifts.
  if (dst !== viewOf) {
    viewOf = dst;
    view = new DataView(dst.buffer, dst.byteOffset, dst.byteLength);
  }
  view.setBigUint64(at + 24, v);
  view.setBigUint64(at + 16, v >> 64n);
  view.setBigUint64(at + 8, v >> 128n);
  view.setBigUint64(at, v >> 192n);
}

/** Memory expansion gas, with the same bookkeeping as EthereumJS's subMemUsage (words counted in bigint); also call_frame.ts's. */
export function makeMemGas(common: { param(name: string): bigint }): (rs: MemGasState, offset: bigint, length: bigint) => bigint {
  const fee = common.param('memoryGas');
  const quad = common.param('quadCoefficientDivGas');
  return (rs, offset, length) => {
    if (length === 0n) return 0n;
    const words = (offset + length + 31n) / 32n;
    if (words <= rs.memoryWordCount) return 0n;
    let cost = words * fee + (words * words) / quad;
    if (cost > rs.highestMemCost) {
      const prev = rs.highestMemCost;
      rs.highestMemCost = cost;
      cost -= prev;
    }
    rs.memoryWordCount = words;
    return cost;
  };
}

const top = (rs: RunState, i: number): bigint => rs.stack._store[rs.stack._len - 1 - i]!;

/** Synchronous versions of the dynamic gas handlers that touch no state (same arithmetic as EthereumJS's). */
function makeSyncGas(common: CommonLike): { fns: (SyncGas | undefined)[]; peeks: number[] } {
  const mem = makeMemGas(common);
  const copy = common.param('copyGas');
  const keccakWord = common.param('keccak256WordGas');
  const expByte = common.param('expByteGas');
  const logTopic = common.param('logTopicGas');
  const logData = common.param('logDataGas');
  const fns: (SyncGas | undefined)[] = [];
  const peeks: number[] = [];
  const set = (op: number, n: number, fn: SyncGas): void => {
    fns[op] = fn;
    peeks[op] = n;
  };
  set(0x0a, 2, (rs, gas) => {
    const e = top(rs, 1);
    if (e === 0n) return gas;
    return gas + BigInt(Math.ceil(e.toString(2).length / 8)) * expByte;
  });
  set(0x20, 2, (rs, gas) => {
    const len = top(rs, 1);
    gas += mem(rs, top(rs, 0), len);
    return gas + keccakWord * ((len + 31n) / 32n);
  });
  const copyGas: SyncGas = (rs, gas) => {
    const len = top(rs, 2);
    gas += mem(rs, top(rs, 0), len);
    return len === 0n ? gas : gas + copy * ((len + 31n) / 32n);
  };
  set(0x37, 3, copyGas); // CALLDATACOPY
  set(0x39, 3, copyGas); // CODECOPY
  set(0x3e, 3, (rs, gas) => {
    // RETURNDATACOPY: reading past the return data is an exceptional halt (legacy code)
    if (top(rs, 1) + top(rs, 2) > rs.interpreter.getReturnDataSize()) throw evmError(ERR.OUT_OF_GAS);
    return copyGas(rs, gas);
  });
  set(0x51, 1, (rs, gas) => gas + mem(rs, top(rs, 0), 32n));
  set(0x52, 1, (rs, gas) => gas + mem(rs, top(rs, 0), 32n));
  set(0x53, 1, (rs, gas) => gas + mem(rs, top(rs, 0), 1n));
  set(0x5e, 3, (rs, gas) => {
    const len = top(rs, 2);
    gas += 3n * ((len + 31n) / 32n);
    gas += mem(rs, top(rs, 1), len);
    return gas + mem(rs, top(rs, 0), len);
  });
  for (let op = 0xa0; op <= 0xa4; op++) {
    const topics = BigInt(op - 0xa0);
    // LOG: the static check comes before the stack peek, as in EthereumJS
    fns[op] = (rs, gas) => {
      if (rs.interpreter.isStatic()) throw evmError(ERR.STATIC_STATE_CHANGE);
      if (rs.stack._len < 2) throw evmError(ERR.STACK_UNDERFLOW);
      const len = top(rs, 1);
      gas += mem(rs, top(rs, 0), len);
      return gas + logTopic * topics + len * logData;
    };
    peeks[op] = 0;
  }
  const access = addressAccessGas(common);
  if (access !== undefined) for (const op of [0x31, 0x3b, 0x3f]) set(op, 1, access); // BALANCE, EXTCODESIZE, EXTCODEHASH
  set(0xf3, 2, (rs, gas) => gas + mem(rs, top(rs, 0), top(rs, 1)));
  set(0xfd, 2, (rs, gas) => gas + mem(rs, top(rs, 0), top(rs, 1)));
  return { fns, peeks };
}

/** Offsets and lengths up to this are priced in Numbers: (2 * 2^30 + 31) / 32 words squared stays below 2^53. */
const MEM_NUMBERS_MAX = 0x3fffffffn;

/**
 * The dynamic gas of KECCAK256, RETURN, REVERT, LOG0..LOG4, CALLDATACOPY and CODECOPY as Numbers: memory expansion
 * at (stack top, stack item `memLenAt`) plus per word of the length, per byte of it and a constant. The step loop
 * prices these in Numbers when offset and length are at most MEM_NUMBERS_MAX and the gas left covers the charge,
 * and otherwise takes makeSyncGas's bigint handler (the same arithmetic), which also raises the errors.
 */
function memNumbers(common: CommonLike): { memWordFee: number[]; memByteFee: number[]; memExtra: number[]; memLenAt: number[] } {
  const memWordFee: number[] = [];
  const memByteFee: number[] = [];
  const memExtra: number[] = [];
  const memLenAt: number[] = [];
  for (let op = 0; op < 256; op++) {
    memWordFee[op] = -1;
    memByteFee[op] = memExtra[op] = 0;
    memLenAt[op] = 1;
  }
  const set = (op: number, wordFee: bigint, byteFee: bigint, extra: bigint, lenAt: number): void => {
    // small fees only, so that every sum stays an exact Number (at most 2^30 bytes or words of each)
    if ([wordFee, byteFee, extra].some((f) => f < 0n || f > 0xffffn)) return;
    memWordFee[op] = Number(wordFee);
    memByteFee[op] = Number(byteFee);
    memExtra[op] = Number(extra);
    memLenAt[op] = lenAt;
  };
  set(0x20, common.param('keccak256WordGas'), 0n, 0n, 1);
  set(0xf3, 0n, 0n, 0n, 1);
  set(0xfd, 0n, 0n, 0n, 1);
  for (let op = 0xa0; op <= 0xa4; op++) set(op, 0n, common.param('logDataGas'), common.param('logTopicGas') * BigInt(op - 0xa0), 1);
  set(0x37, common.param('copyGas'), 0n, 0n, 2);
  set(0x39, common.param('copyGas'), 0n, 0n, 2);
  return { memWordFee, memByteFee, memExtra, memLenAt };
}

/**
 * Registers `evm` for the fast loop (after its opcodes were instrumented with `budget`). Returns false,
 * leaving the stock loop in place, when an EIP it does not handle is active.
 */
export async function installFastInterpreter(evmObj: unknown, budget: InstructionBudget, compiled = true): Promise<boolean> {
  const evm = evmObj as EvmLike;
  const common = evm.common;
  if (UNSUPPORTED_EIPS.some((eip) => common.isActivatedEIP(eip))) return false;
  // The inline operations assume the standard opcode at each of these bytes.
  for (const op of INLINE_OPS) {
    const e = evm._opcodeMap[op];
    if (e === undefined || e.opcodeInfo.code !== op || e.opcodeInfo.isInvalid) return false;
  }
  if (stockRun === undefined) await patchPrototype(evm);
  const { fns, peeks } = makeSyncGas(common);
  const storageGas = makeStorageGas(evm);
  const keccak = common.customCrypto.keccak256;
  if (keccak === undefined) return false;
  const classified = classify(evm._opcodeMap, fns, storageGas !== undefined);
  configs.set(evm, {
    budget,
    memFee: Number(common.param('memoryGas')),
    memQuad: Number(common.param('quadCoefficientDivGas')),
    keccak,
    wordMemo: wordMemoOf(keccak),
    syncGas: fns,
    gasPeeks: peeks,
    storageGas,
    ...memNumbers(common),
    ...classified,
    segments:
      compiled &&
      pureFeesMatch(classified.fees) &&
      PURE_OPS.every((op) => classified.kind[op] === K_INLINE) &&
      classified.kind[0x53] === K_STOCK_SYNC &&
      evm._opcodeMap[0x53]!.opcodeInfo.code === 0x53,
  });
  return true;
}

/**
 * The gas rules below reproduce EthereumJS's for Berlin and later (opcodes/gas.js, EIP2200.js, EIP2929.js);
 * earlier rule sets (Constantinople's EIP-1283, pre-Istanbul) keep the stock handlers.
 */
function makeStorageGas(evm: EvmLike): StorageGas | undefined {
  const common = evm.common;
  if (!common.isActivatedEIP(2929) || !common.gteHardfork('berlin')) return undefined;
  for (const op of [0x54, 0x55]) {
    const e = evm._opcodeMap[op];
    if (e === undefined || e.opcodeInfo.code !== op || e.opcodeInfo.isInvalid || !e.opcodeInfo.dynamicGas) return undefined;
  }
  const p = (name: string): bigint => common.param(name);
  const warmRead = p('warmstoragereadGas');
  const coldSload = p('coldsloadGas');
  const load = evm._opcodeMap[0x54]!.opcodeInfo.feeBigInt;
  const store = evm._opcodeMap[0x55]!.opcodeInfo.feeBigInt;
  const charges = [load + warmRead, load + coldSload, warmRead, coldSload, p('sstoreSentryEIP2200Gas'), p('sstoreNoopEIP2200Gas'), p('sstoreInitEIP2200Gas'), p('sstoreCleanEIP2200Gas'), p('sstoreDirtyEIP2200Gas')];
  // every SSTORE charge is a sum of the static fee, one of these and coldSload: all small, so Numbers are exact
  if (charges.some((c) => c < 0n || store + c + coldSload > 0x3fffffffn)) return undefined;
  const [loadWarm, loadCold, , , sentry, noop, init, clean, dirty] = charges.map((c) => small(Number(c)));
  return {
    loadWarm: loadWarm!,
    loadCold: loadCold!,
    warmRead: small(Number(warmRead)),
    coldSload: small(Number(coldSload)),
    sentry: sentry!,
    noop: noop!,
    init: init!,
    clean: clean!,
    dirty: dirty!,
    clearRefund: p('sstoreClearRefundEIP2200Gas'),
    initRefund: p('sstoreInitRefundEIP2200Gas'),
    cleanRefund: p('sstoreCleanRefundEIP2200Gas'),
    initBackRefund: p('sstoreInitEIP2200Gas') - warmRead,
    resetBackRefund: p('sstoreResetGas') - coldSload - warmRead,
  };
}

function frameStorage(it: InterpreterLike): FrameStorage | null {
  const sm = it._stateManager;
  const journal = it.journal;
  if (!(sm instanceof FlatStateManager) || !(journal?.journal instanceof Map) || !(journal.alwaysWarmJournal instanceof Map)) return null;
  const a = it._env.address;
  return { sm, journal, address: a.bytes, addrHex: addressHex(a as Address), slots: [], next: 0 };
}

/**
 * The frame's entry for `slot` (SlotEntry), made on first use; undefined when the account does not exist (the
 * callers then do what they did before entries were kept).
 */
function slotEntry(fs: FrameStorage, slot: bigint): SlotEntry | undefined {
  const slots = fs.slots;
  for (let i = 0; i < slots.length; i++) {
    const e = slots[i]!;
    if (e.key === slot) {
      // the account's generation is the one the reference was made for (a new one means other slots)
      const rec = e.ref.a.rec;
      if (rec !== null && rec.exists && rec.gen === e.gen) return e;
      const ref = fs.sm.storageRefSync(fs.address, fs.addrHex, e.hex, slot);
      if (ref === undefined) return undefined;
      e.ref = ref;
      e.gen = ref.a.rec!.gen;
      e.curArr = e.origArr = undefined;
      return e;
    }
  }
  const hex = slotHexOf(slot);
  const ref = fs.sm.storageRefSync(fs.address, fs.addrHex, hex, slot);
  if (ref === undefined) return undefined;
  const e: SlotEntry = { key: slot, hex, ref, gen: ref.a.rec!.gen, warm: false, curArr: undefined, curWord: 0n, origArr: undefined, origWord: 0n };
  if (slots.length < FRAME_SLOTS) slots.push(e);
  else {
    slots[fs.next] = e;
    fs.next = (fs.next + 1) % FRAME_SLOTS;
  }
  return e;
}

/** The word of `arr`, the entry's current or original value array, remembered by identity. */
function curWordOf(e: SlotEntry, arr: Uint8Array): bigint {
  if (arr === e.curArr) return e.curWord;
  if (arr === e.origArr) return e.origWord;
  const w = wordOf(arr);
  e.curArr = arr;
  e.curWord = w;
  return w;
}

function origWordOf(e: SlotEntry, arr: Uint8Array): bigint {
  if (arr === e.curArr) return e.curWord;
  if (arr === e.origArr) return e.origWord;
  const w = wordOf(arr);
  e.origArr = arr;
  e.origWord = w;
  return w;
}

// Journal.isWarmedStorage / addWarmedStorage on precomputed hex keys (the journal's own key format).
function isWarmSlot(j: JournalLike, addrHex: string, slotHex: string): boolean {
  const slots = j.journal.get(addrHex);
  if (slots !== undefined && slots.has(slotHex)) return true;
  const always = j.alwaysWarmJournal.get(addrHex);
  return always !== undefined && always.has(slotHex);
}

function warmSlot(j: JournalLike, address: Uint8Array, addrHex: string, slotHex: string): void {
  let slots = j.journal.get(addrHex);
  if (slots === undefined) {
    j.addWarmedAddress(address);
    slots = j.journal.get(addrHex)!;
  }
  if (!slots.has(slotHex)) {
    slots.add(slotHex);
    // recorded in the innermost checkpoint's diff, so a reverting frame cools the slot again; read afresh on
    // every use and never held: dropped entries are recycled (internals.ts spareEntries)
    const added = j.journalDiff[j.journalDiff.length - 1]![1][1];
    let set = added.get(addrHex);
    if (set === undefined) added.set(addrHex, (set = new Set()));
    set.add(slotHex);
  }
  j.accessList?.get(addrHex)!.add(slotHex);
}

// Stored values are unpadded big-endian bytes (state.ts). Both directions go through a scratch word and native
// 64-bit reads or writes: readWord's short path and encoding.ts's unpad are JavaScript loops over the bytes.
const SLOT_WORD = new Uint8Array(32);
const SLOT_VIEW = new DataView(SLOT_WORD.buffer);
const TWO64 = 1n << 64n;
const TWO128 = 1n << 128n;

function wordOf(b: Uint8Array): bigint {
  const n = b.length;
  if (n === 0) return 0n;
  if (n === 1) return BYTE_WORDS[b[0]!]!;
  if (n <= 8) {
    SLOT_WORD.fill(0, 24, 32 - n);
    SLOT_WORD.set(b, 32 - n);
    return SLOT_VIEW.getBigUint64(24);
  }
  SLOT_WORD.fill(0, 0, 32 - n);
  SLOT_WORD.set(b, 32 - n);
  const c = SLOT_VIEW.getBigUint64(16);
  const d = SLOT_VIEW.getBigUint64(24);
  if (n <= 16) return (c << 64n) | d;
  return (((((SLOT_VIEW.getBigUint64(0) << 64n) | SLOT_VIEW.getBigUint64(8)) << 64n) | c) << 64n) | d;
}

/** A word as FlatStateManager stores it: its big-endian bytes without leading zeros, in a fresh array. */
function storedBytesOf(v: bigint): Uint8Array {
  if (v === 0n) return EMPTY;
  SLOT_VIEW.setBigUint64(24, v);
  if (v >= TWO64) {
    SLOT_VIEW.setBigUint64(16, v >> 64n);
    if (v >= TWO128) {
      SLOT_VIEW.setBigUint64(8, v >> 128n);
      SLOT_VIEW.setBigUint64(0, v >> 192n);
    }
  }
  return SLOT_WORD.slice(32 - ((v.toString(16).length + 1) >> 1));
}
const slotHexOf = (key: bigint): string => key.toString(16).padStart(64, '0');

/** Whether `evm` runs on the fast loop (for tests). */
export function usesFastInterpreter(evm: unknown): boolean {
  return configs.has(evm as object);
}

/** Finds Interpreter.prototype (not exported by @ethereumjs/evm) by running STOP once, then patches `run`. */
async function patchPrototype(evm: EvmLike): Promise<void> {
  const map = evm._opcodeMap;
  const stop = map[0]!;
  let proto: { run: InterpreterLike['run'] } | undefined;
  map[0] = {
    ...stop,
    opHandler: (rs, c) => {
      proto ??= Object.getPrototypeOf(rs.interpreter) as { run: InterpreterLike['run'] };
      checkRunStateShapes(rs);
      return stop.opHandler(rs, c);
    },
  };
  try {
    await evm.runCode({ code: Uint8Array.of(0x00), gasLimit: 100_000n });
  } finally {
    map[0] = stop;
  }
  if (proto === undefined) throw new Error('fast interpreter: Interpreter prototype not found');
  if (stockRun !== undefined) return;
  interpreterProto = proto;
  const original = proto.run;
  stockRun = original;
  proto.run = function (this: InterpreterLike, code: Uint8Array, opts: { pc?: number } = {}): Promise<RunResult> {
    const cfg = configs.get(this._evm);
    if (
      cfg === undefined ||
      this._evm.DEBUG ||
      this.profilerOpts?.enabled === true ||
      this._evm.events.listenerCount('step') > 0 ||
      this._runState.env.accessWitness !== undefined
    ) {
      return original.call(this, code, opts);
    }
    return fastRun(this, cfg, code, opts);
  };
}

function invalidJump(rs: RunState, pc: number): EVMError {
  const keccak = rs.interpreter._evm.common.customCrypto.keccak256!;
  return evmError(`${ERR.INVALID_JUMP} at ${bytesToHex(keccak(rs.code))}/${rs.interpreter.getAddress().toString()}:${pc}`);
}

// Per-opcode dispatch classes, resolved once per EVM from its opcode table.
const K_INLINE = 0; // executed inline, static gas only
const K_INLINE_MEM = 1; // executed inline, synchronous dynamic gas (MLOAD, MSTORE)
const K_STOCK = 2; // EthereumJS handler, static gas only
const K_STOCK_SYNC = 3; // EthereumJS handler, synchronous dynamic gas computed here
const K_STOCK_ASYNC = 4; // EthereumJS handler and EthereumJS's (async) dynamic gas handler
const K_INVALID = 5;
const K_SLOAD = 6; // synchronous SLOAD over FlatStateManager (falls back to K_STOCK_ASYNC)
const K_SSTORE = 7; // synchronous SSTORE, likewise


function classify(
  map: OpEntry[],
  syncGas: (SyncGas | undefined)[],
  storage: boolean,
): { kind: Uint8Array; fees: number[]; feeBig: bigint[]; inlineFee: number[] } {
  const kind = new Uint8Array(256);
  const fees: number[] = [];
  const inlineFee: number[] = [];
  const feeBig: bigint[] = [];
  const inline = new Set(INLINE_OPS);
  for (let op = 0; op < 256; op++) {
    const info = map[op]!.opcodeInfo;
    fees[op] = small(Number(info.feeBigInt));
    feeBig[op] = info.feeBigInt;
    if (info.isInvalid) kind[op] = K_INVALID;
    else if (inline.has(op)) kind[op] = info.dynamicGas ? K_INLINE_MEM : K_INLINE;
    else if (!info.dynamicGas) kind[op] = K_STOCK;
    else kind[op] = syncGas[op] !== undefined ? K_STOCK_SYNC : K_STOCK_ASYNC;
  }
  if (storage) {
    kind[0x54] = K_SLOAD;
    kind[0x55] = K_SSTORE;
  }
  for (let op = 0; op < 256; op++) inlineFee[op] = kind[op] === K_INLINE ? fees[op]! : -1;
  return { kind, fees, feeBig, inlineFee };
}

// `var`, not `let`/`const`, for the locals the step loop reads: QuickJS checks a lexical binding for its
// temporal dead zone on every read (see keccak.ts). Block-scoped declarations remain only off the hot path.
async function fastRun(it: InterpreterLike, cfg: FastConfig, code: Uint8Array, opts: { pc?: number }): Promise<RunResult> {
  var rs = it._runState;
  rs.code = code;
  rs.programCounter = opts.pc ?? rs.programCounter;
  var pc = rs.programCounter;
  if (pc !== 0 && (pc < 0 || pc >= code.length)) throw new Error('Internal error: program counter not in range');
  var common = it.common;
  var map = it._evm._opcodeMap;
  var info = analyse(code, (rs.env as { isCreate?: boolean }).isCreate !== true);
  // Budget counts happen at jumps (below): code with a longer straight run takes the stock loop, which counts every step.
  if (info.longestRun > MAX_UNCOUNTED_RUN_BYTES) return stockRun!.call(it, code, opts);
  var { budget, syncGas, gasPeeks, kind, fees, feeBig, storageGas, inlineFee, memFee, memQuad, keccak, wordMemo, memWordFee, memByteFee, memExtra, memLenAt } = cfg;
  var store: FrameStorage | null | undefined;
  var jumps = info.jumps;
  var pushes = info.pushes;
  // Compiled runs (interpreter_compiled.ts), looked up after every operation that is not pure.
  var segs = cfg.segments ? info.segs : undefined;
  var segAt = segs === undefined || segs === null ? null : segs.at;
  var segList = segAt === null ? EMPTY_SEGS : segs!.list;
  var seg: Segment;
  var q = 0;
  var taken: boolean | bigint | number | void;
  var fx = segAt === null ? NO_VALUES : frameValues(rs);
  rs.validJumps = jumps;
  // PUSH handlers (if ever called) then read immediates from code instead of a cached table
  rs.shouldDoJumpAnalysis = true;
  var stack = rs.stack;
  var s = stack._store;
  var maxHeight = stack._maxHeight;
  var codeLen = code.length;
  // Gas and stack height live in locals and are written back to the run state around every EthereumJS
  // handler, which reads them. Gas is an exact Number: a frame given more than GAS_WINDOW (only tests and
  // the conformance fixtures, whose gas limits reach 2^63) keeps the excess in the bigint `reserve`, drawn
  // on only when a charge exceeds the Number part (takeGas), so the hot path stays a Number compare.
  var gas = splitGas(rs.gasLeft);
  var reserve = splitReserve;
  var sp = stack._len;
  // The budget countdown is in code bytes, counted at each JUMP and JUMPI from `mark` (where the current
  // straight run began): no work on the other steps. A byte is at most one step, so this counts no fewer
  // steps than there were; what runs uncounted after the last jump is at most `longestRun` bytes.
  var interval = budget.interval * CODE_BYTES_PER_BUDGET_STEP;
  var tick = interval;
  var mark = pc;
  var jumpdestFee = fees[0x5b]!;
  // Bytes of memory already paid for (EthereumJS's memoryWordCount x 32) as far as this loop knows: never
  // more than that (it only grows); the MLOAD/MSTORE fast path reads it again when a word lies beyond.
  var memBytes = 0;
  var env = rs.env;
  var callerWord: bigint | undefined;
  var addressWord: bigint | undefined;
  var codeLenBig = BigInt(codeLen);
  var inStock = false;
  var err: EVMError | undefined;
  try {
    // Past the end of the code (an implicit STOP) `code[pc]` is undefined, whose inlineFee is undefined too:
    // the end is tested on the other path only, not on every step.
    steps: for (;;) {
      // Every operation that is not pure ends with `break look` (pure ones `continue`): a compiled run may start
      // at the next one (interpreter_compiled.ts). Nothing in a run can fail when it is taken, so where runs are
      // taken changes no outcome, only the instructions.
      look: {
        var op = code[pc]!;
        var cost = inlineFee[op]!;
        // Plain inline operations (most steps) take the shortest path: one lookup, the static charge.
        if (cost >= 0) {
          if ((gas -= cost) < 0) {
            gas += cost;
            if (reserve === 0n || (gas = takeGas(gas, reserve, BigInt(cost))) < 0) {
              gas = 0;
              throw evmError(ERR.OUT_OF_GAS);
            }
            reserve = splitReserve;
          }
          pc++;
        } else {
          if (pc >= codeLen) break steps;
          var k = kind[op]!;
          cost = fees[op]!;
          if (k === K_INLINE_MEM && sp >= 1) {
            // MLOAD, MSTORE: the static fee alone when the word is inside memory already paid for (most of
            // them); an expansion priced by makeMemGas's arithmetic in Numbers (exact: words^2 < 2^51 here).
            // Anything else (offsets from 2^30, out of gas) takes the gas step below.
            var at = Number(s[sp - 1]!);
            if (at + 32 > memBytes) memBytes = Number(rs.memoryWordCount) * 32; // memory may have grown in other steps
            var words = 0;
            var newCost = 0;
            var highest = 0;
            var total = cost;
            if (at + 32 > memBytes && at <= 0x3fffffff) {
              words = (at + 63) >>> 5;
              newCost = memFee * words + Math.floor((words * words) / memQuad);
              highest = Number(rs.highestMemCost);
              total = cost + (newCost > highest ? newCost - highest : newCost);
            }
            if ((words !== 0 || at + 32 <= memBytes) && total <= gas) {
              gas -= total;
              pc++;
              at |= 0;
              if (words !== 0) {
                if (newCost > highest) rs.highestMemCost = BigInt(newCost);
                rs.memoryWordCount = BigInt(words);
                memBytes = words * 32;
                rs.memory.extend(at, 32);
              } else if (at + 32 > rs.memory._store.length) rs.memory.extend(at, 32); // paid for, not yet stored (a call's output area)
              if (op === 0x51) {
                s[sp - 1] = readWord(rs.memory._store, at, 32);
                break look;
              }
              if (sp < 2) throw evmError(ERR.STACK_UNDERFLOW);
              writeWord(rs.memory._store, at, s[sp - 2]!);
              sp -= 2;
              break look;
            }
          }
          if (k >= K_SLOAD) {
            if (store === undefined) store = frameStorage(it);
            k = K_STOCK_ASYNC;
            // Same order as EthereumJS: static check, stack peek, gas (warming the slot), out-of-gas, pc, budget tick, operation.
            if (store !== null) {
              const g = storageGas!;
              if (op === 0x54) {
                if (sp < 1) throw evmError(ERR.STACK_UNDERFLOW);
                const slot = s[sp - 1]!;
                const e = slotEntry(store, slot);
                if (e === undefined) {
                  // no account: the slot is warmed and charged as any other and reads as zero
                  const slotHex = slotHexOf(slot);
                  if (isWarmSlot(store.journal, store.addrHex, slotHex)) cost = g.loadWarm;
                  else {
                    warmSlot(store.journal, store.address, store.addrHex, slotHex);
                    cost = g.loadCold;
                  }
                } else if (e.warm || isWarmSlot(store.journal, store.addrHex, e.hex)) {
                  e.warm = true;
                  cost = g.loadWarm;
                } else {
                  warmSlot(store.journal, store.address, store.addrHex, e.hex);
                  e.warm = true;
                  cost = g.loadCold;
                }
                if (cost > gas) {
                  if (reserve === 0n || (gas = takeGas(gas, reserve, BigInt(cost))) < 0) {
                    gas = 0;
                    throw evmError(ERR.OUT_OF_GAS);
                  }
                  reserve = splitReserve;
                  cost = 0;
                }
                gas -= cost;
                pc++;
                budget.tick();
                s[sp - 1] = e === undefined ? 0n : curWordOf(e, e.ref.s.value);
                break look;
              }
              if (it.isStatic()) throw evmError(ERR.STATIC_STATE_CHANGE);
              if (sp < 2) throw evmError(ERR.STACK_UNDERFLOW);
              // A missing account makes EthereumJS's putStorage throw: leave that to the stock path.
              const e = slotEntry(store, s[sp - 1]!);
              if (e !== undefined) {
                const { sm, journal, address, addrHex } = store;
                const ref = e.ref;
                const val = s[sp - 2]!;
                const cur = curWordOf(e, ref.s.value);
                const orig = origWordOf(e, sm.originalStorageOf(ref));
                // EIP-2200 sentry: gas left before this operation's charge
                if (gas <= g.sentry && (reserve === 0n || BigInt(gas) + reserve <= BigInt(g.sentry))) throw evmError(ERR.OUT_OF_GAS);
                const warm = e.warm || isWarmSlot(journal, addrHex, e.hex);
                let c: number;
                if (cur === val) c = warm ? g.warmRead : g.noop;
                else if (orig === cur) {
                  if (orig !== 0n && val === 0n) rs.gasRefund += g.clearRefund;
                  c = orig === 0n ? g.init : g.clean;
                } else {
                  if (orig !== 0n) {
                    if (cur === 0n) {
                      rs.gasRefund -= g.clearRefund;
                      if (rs.gasRefund < 0n) {
                        rs.gasRefund = 0n;
                        throw evmError(ERR.REFUND_EXHAUSTED);
                      }
                    } else if (val === 0n) rs.gasRefund += g.clearRefund;
                  }
                  if (orig === val) {
                    if (orig === 0n) rs.gasRefund += warm ? g.initBackRefund : g.initRefund;
                    else rs.gasRefund += warm ? g.resetBackRefund : g.cleanRefund;
                  }
                  c = g.dirty;
                }
                if (!warm) {
                  warmSlot(journal, address, addrHex, e.hex);
                  c += g.coldSload;
                }
                e.warm = true;
                cost = fees[op]! + c;
                if (cost > gas) {
                  if (reserve === 0n || (gas = takeGas(gas, reserve, BigInt(cost))) < 0) {
                    gas = 0;
                    throw evmError(ERR.OUT_OF_GAS);
                  }
                  reserve = splitReserve;
                  cost = 0;
                }
                gas -= cost;
                pc++;
                budget.tick();
                sp -= 2;
                // as Interpreter.storageStore, the frame's contract account is re-read after the write, when the write
                // changed its record (storage presence); otherwise the re-read gives the same nonce, balance and code.
                const bytes = storedBytesOf(val);
                if (sm.putStorageSync(ref, bytes, true)) it._env.contract = sm.getAccountSync(address)!;
                e.curArr = ref.s.value;
                e.curWord = val;
                break look;
              }
            }
          }
          if (k !== K_STOCK) {
            if (k === K_INVALID) throw evmError(ERR.INVALID_OPCODE);
            stack._len = sp;
            if (k === K_STOCK_ASYNC) {
              rs.opCode = op;
              rs.programCounter = pc;
              rs.gasLeft = reserve === 0n ? BigInt(gas) : BigInt(gas) + reserve;
              inStock = true;
              const total = await map[op]!.gasHandler!(rs, feeBig[op]!, common);
              inStock = false;
              gas = splitGas(rs.gasLeft);
              reserve = splitReserve;
              sp = stack._len;
              cost = Number(total);
              if (cost <= 0x7fffffff) cost |= 0;
              if (reserve !== 0n && cost > gas) {
                if ((gas = takeGas(gas, reserve, total)) < 0) {
                  gas = 0;
                  throw evmError(ERR.OUT_OF_GAS);
                }
                reserve = splitReserve;
                cost = 0;
              }
            } else {
              // Memory operations in Numbers (memNumbers), when offset and length are small and the gas left
              // covers the charge: the same arithmetic as the bigint handler below, whose bookkeeping (memory
              // words, highest cost) is written only once the charge is sure. LOG's static check and stack check
              // come first in EthereumJS, so a LOG in a static frame or on a short stack takes the handler.
              var wf = memWordFee[op]!;
              var numbered = false;
              if (wf >= 0 && sp > memLenAt[op]! && (op < 0xa0 || op > 0xa4 || !it.isStatic())) {
                var lenW = s[sp - 1 - memLenAt[op]!]!;
                var offW = s[sp - 1]!;
                if (lenW <= MEM_NUMBERS_MAX && (lenW === 0n || offW <= MEM_NUMBERS_MAX)) {
                  var ln = Number(lenW) | 0;
                  var fee = cost + memExtra[op]! + wf * ((ln + 31) >>> 5) + memByteFee[op]! * ln;
                  var words = 0;
                  var newCost = 0;
                  var highest = 0;
                  if (ln !== 0) {
                    words = (Number(offW) + ln + 31) >>> 5;
                    if (words * 32 > memBytes && words > (memBytes = Number(rs.memoryWordCount) * 32) / 32) {
                      newCost = memFee * words + Math.floor((words * words) / memQuad);
                      highest = Number(rs.highestMemCost);
                      fee += newCost > highest ? newCost - highest : newCost;
                    } else words = 0;
                  }
                  if (fee <= gas) {
                    if (words !== 0) {
                      if (newCost > highest) rs.highestMemCost = BigInt(newCost);
                      rs.memoryWordCount = BigInt(words);
                      memBytes = words * 32;
                    }
                    cost = small(fee);
                    numbered = true;
                  }
                }
              }
              if (!numbered) {
                if (sp < gasPeeks[op]!) throw evmError(ERR.STACK_UNDERFLOW);
                const total = syncGas[op]!(rs, feeBig[op]!);
                cost = Number(total);
                if (cost <= 0x7fffffff) cost |= 0;
                if (reserve !== 0n && cost > gas) {
                  if ((gas = takeGas(gas, reserve, total)) < 0) {
                    gas = 0;
                    throw evmError(ERR.OUT_OF_GAS);
                  }
                  reserve = splitReserve;
                  cost = 0;
                }
              }
            }
          }
          if (cost > gas) {
            if (reserve === 0n || (gas = takeGas(gas, reserve, BigInt(cost))) < 0) {
              gas = 0;
              throw evmError(ERR.OUT_OF_GAS);
            }
            reserve = splitReserve;
            cost = 0;
          }
          gas -= cost;
          pc++;
          if (op === 0x37) {
            // CALLDATACOPY (gas, memory expansion and the stack check done above by the synchronous gas step):
            // EthereumJS pads the slice with setLength, which spreads it through a JS array (seconds for a
            // large copy past the end of the call data); copy and zero-fill in place instead.
            budget.tick(); // as instrumentOpcodes' wrapper
            const memOff = s[sp - 1]!;
            const srcOff = s[sp - 2]!;
            const len = s[sp - 3]!;
            sp -= 3;
            if (len !== 0n) {
              const n = Number(len);
              const m = Number(memOff);
              rs.memory.extend(m, n);
              const store = rs.memory._store;
              const data = rs.env.callData;
              const start = srcOff >= BigInt(data.length) ? data.length : Number(srcOff);
              const avail = data.length - start < n ? data.length - start : n;
              store.set(data.subarray(start, start + avail), m);
              store.fill(0, m + avail, m + n);
            }
            break look;
          }
          if (op === 0x20) {
            // KECCAK256 (gas and memory done above): the budget reserve instrumentOpcodes' wrapper makes, the
            // Common's (memoizing) keccak, and the digest read as a word (readWord) without EthereumJS's hex string.
            const len = s[sp - 2]!;
            const off = s[sp - 1]!;
            if (len <= MEMO_MAX_INPUT_BIG) {
              // short inputs (mapping slots): the word memo first; the reserve only when the hash runs
              // (a view of memory, not a copy: neither the hash nor the memo keeps its input)
              const data = len === 0n ? EMPTY : rs.memory.read(Number(off), Number(len), true);
              var w = wordMemo.get(data);
              if (w === undefined) {
                budget.require(keccakReserve(Number(len)));
                w = readWord(keccak(data), 0, 32);
                wordMemo.set(data, w);
              }
              s[sp - 2] = w;
            } else {
              budget.require(keccakReserve(Number(len)));
              s[sp - 2] = readWord(keccak(rs.memory.read(Number(off), Number(len), true)), 0, 32);
            }
            sp--;
            break look;
          }
          if (op === 0xf3) {
            // RETURN (gas and memory done above): Interpreter.finish without its STOP exception.
            budget.tick();
            const off = s[sp - 1]!;
            const len = s[sp - 2]!;
            sp -= 2;
            it._result.returnValue = len === 0n ? new Uint8Array(0) : rs.memory.read(Number(off), Number(len));
            break steps;
          }
          if (op >= 0xa0 && op <= 0xa4) {
            // LOG0..LOG4 (gas, memory and the static check done above by the synchronous gas step):
            // EthereumJS's handler turns each topic into bytes through a hex string; writeWord does it directly.
            budget.tick();
            const nt = op - 0xa0;
            if (sp < 2 + nt) throw evmError(ERR.STACK_UNDERFLOW);
            const memOff = s[sp - 1]!;
            const memLen = s[sp - 2]!;
            // the topics as 32-byte views of one fresh array: one allocation and one DataView (writeWord's) a log
            const topics: Uint8Array[] = [];
            if (nt !== 0) {
              const buf = new Uint8Array(32 * nt);
              for (let i = 0; i < nt; i++) {
                writeWord(buf, 32 * i, s[sp - 3 - i]!);
                topics.push(buf.subarray(32 * i, 32 * i + 32));
              }
            }
            sp -= 2 + nt;
            it.log(memLen === 0n ? new Uint8Array(0) : rs.memory.read(Number(memOff), Number(memLen)), nt, topics);
            break look;
          }
          if (k >= K_STOCK) {
            rs.opCode = op;
            rs.programCounter = pc;
            rs.gasLeft = reserve === 0n ? BigInt(gas) : BigInt(gas) + reserve;
            stack._len = sp;
            inStock = true;
            const r = map[op]!.opHandler(rs, common);
            if (r !== undefined) await r;
            inStock = false;
            pc = rs.programCounter;
            gas = splitGas(rs.gasLeft);
            reserve = splitReserve;
            sp = stack._len;
            break look;
          }
        }
        // Inline operations (their budget count is the code bytes counted at the next JUMP or JUMPI).
        if (op >= 0x60) {
          if (op <= 0x7f) {
            // PUSH1..PUSH32 (PUSH1 from a dense table: a sparse array is a slow object in QuickJS)
            if (op === 0x60) {
              if (sp >= maxHeight) throw evmError(ERR.STACK_OVERFLOW);
              s[sp++] = BYTE_WORDS[code[pc]! | 0]!; // past the end: undefined | 0 is 0
              pc++;
              continue;
            }
            var n = op - 0x5f;
            var v = pushes[pc];
            if (v === undefined) {
              v = n === 1 ? BigInt(pc < codeLen ? code[pc]! : 0) : readWord(code, pc, n);
              pushes[pc] = v;
            }
            if (sp >= maxHeight) throw evmError(ERR.STACK_OVERFLOW);
            s[sp++] = v;
            pc += n;
            continue;
          }
          if (op <= 0x8f) {
            // DUP1..DUP16
            var d = op - 0x7f;
            if (sp < d) throw evmError(ERR.STACK_UNDERFLOW);
            if (sp >= maxHeight) throw evmError(ERR.STACK_OVERFLOW);
            s[sp] = s[sp - d]!;
            sp++;
            continue;
          }
          // SWAP1..SWAP16
          var d = op - 0x8f;
          var h = sp - 1;
          if (h < d) throw evmError(ERR.STACK_UNDERFLOW);
          var t = s[h]!;
          s[h] = s[h - d]!;
          s[h - d] = t;
          continue;
        }
        // Two switches by opcode range, each in rough order of frequency in compiled Solidity: QuickJS tests a
        // switch's cases one by one, so one range test first halves the cases a step goes through.
        if (op < 0x20) {
          switch (op) {
            case 0x01: {
              // ADD
              if (sp < 2) throw evmError(ERR.STACK_UNDERFLOW);
              var a = s[sp - 1]!;
              var b = s[sp - 2]!;
              var r = a + b;
              if (r > MAX) r -= TWO256;
              s[sp - 2] = r;
              sp--;
              continue;
            }
            case 0x16: {
              // AND
              if (sp < 2) throw evmError(ERR.STACK_UNDERFLOW);
              var a = s[sp - 1]!;
              var b = s[sp - 2]!;
              s[sp - 2] = a & b;
              sp--;
              continue;
            }
            case 0x15: // ISZERO
              if (sp < 1) throw evmError(ERR.STACK_UNDERFLOW);
              s[sp - 1] = s[sp - 1] === 0n ? 1n : 0n;
              continue;
            case 0x03: {
              // SUB
              if (sp < 2) throw evmError(ERR.STACK_UNDERFLOW);
              var a = s[sp - 1]!;
              var b = s[sp - 2]!;
              s[sp - 2] = a >= b ? a - b : a - b + TWO256;
              sp--;
              continue;
            }
            case 0x14: {
              // EQ
              if (sp < 2) throw evmError(ERR.STACK_UNDERFLOW);
              var a = s[sp - 1]!;
              var b = s[sp - 2]!;
              s[sp - 2] = a === b ? 1n : 0n;
              sp--;
              continue;
            }
            case 0x10: {
              // LT
              if (sp < 2) throw evmError(ERR.STACK_UNDERFLOW);
              var a = s[sp - 1]!;
              var b = s[sp - 2]!;
              s[sp - 2] = a < b ? 1n : 0n;
              sp--;
              continue;
            }
            case 0x11: {
              // GT
              if (sp < 2) throw evmError(ERR.STACK_UNDERFLOW);
              var a = s[sp - 1]!;
              var b = s[sp - 2]!;
              s[sp - 2] = a > b ? 1n : 0n;
              sp--;
              continue;
            }
            case 0x1c: {
              // SHR
              if (sp < 2) throw evmError(ERR.STACK_UNDERFLOW);
              var a = s[sp - 1]!;
              var b = s[sp - 2]!;
              s[sp - 2] = a > 256n ? 0n : b >> a;
              sp--;
              continue;
            }
            case 0x1b: {
              // SHL
              if (sp < 2) throw evmError(ERR.STACK_UNDERFLOW);
              var a = s[sp - 1]!;
              var b = s[sp - 2]!;
              s[sp - 2] = a > 256n ? 0n : (b << a) & MAX;
              sp--;
              continue;
            }
            case 0x02: {
              // MUL
              if (sp < 2) throw evmError(ERR.STACK_UNDERFLOW);
              var a = s[sp - 1]!;
              var b = s[sp - 2]!;
              s[sp - 2] = (a * b) & MAX;
              sp--;
              continue;
            }
            case 0x17: {
              // OR
              if (sp < 2) throw evmError(ERR.STACK_UNDERFLOW);
              var a = s[sp - 1]!;
              var b = s[sp - 2]!;
              s[sp - 2] = a | b;
              sp--;
              continue;
            }
            case 0x18: {
              // XOR
              if (sp < 2) throw evmError(ERR.STACK_UNDERFLOW);
              var a = s[sp - 1]!;
              var b = s[sp - 2]!;
              s[sp - 2] = a ^ b;
              sp--;
              continue;
            }
            case 0x19: // NOT
              if (sp < 1) throw evmError(ERR.STACK_UNDERFLOW);
              s[sp - 1] = MAX ^ s[sp - 1]!;
              continue;
            case 0x12: {
              // SLT
              if (sp < 2) throw evmError(ERR.STACK_UNDERFLOW);
              var a = s[sp - 1]!;
              var b = s[sp - 2]!;
              s[sp - 2] = (a >= SIGN ? a - TWO256 : a) < (b >= SIGN ? b - TWO256 : b) ? 1n : 0n;
              sp--;
              continue;
            }
            case 0x13: {
              // SGT
              if (sp < 2) throw evmError(ERR.STACK_UNDERFLOW);
              var a = s[sp - 1]!;
              var b = s[sp - 2]!;
              s[sp - 2] = (a >= SIGN ? a - TWO256 : a) > (b >= SIGN ? b - TWO256 : b) ? 1n : 0n;
              sp--;
              continue;
            }
            case 0x00: // STOP: the stock handler throws STOP, which ends the loop without an error
              break steps;
            case 0x04: {
              // DIV
              if (sp < 2) throw evmError(ERR.STACK_UNDERFLOW);
              var a = s[sp - 1]!;
              var b = s[sp - 2]!;
              s[sp - 2] = b === 0n ? 0n : a / b;
              sp--;
              continue;
            }
            case 0x06: {
              // MOD
              if (sp < 2) throw evmError(ERR.STACK_UNDERFLOW);
              var a = s[sp - 1]!;
              var b = s[sp - 2]!;
              s[sp - 2] = b === 0n ? 0n : a % b;
              sp--;
              continue;
            }
            default:
              throw new Error(`fast interpreter: opcode ${op} classified inline without an implementation`);
          }
        }
        switch (op) {
          case 0x5b: // JUMPDEST
            continue;
          case 0x50: // POP
            if (sp < 1) throw evmError(ERR.STACK_UNDERFLOW);
            sp--;
            continue;
          case 0x56:
          case 0x57: {
            // JUMP, JUMPI: the budget count of the code run since the last jump (`mark`), then the jump.
            if ((tick -= pc - mark) <= 0) {
              tick = interval;
              budget.require(0n);
            }
            var dest: bigint;
            if (op === 0x56) {
              if (sp < 1) throw evmError(ERR.STACK_UNDERFLOW);
              dest = s[--sp]!;
            } else {
              if (sp < 2) throw evmError(ERR.STACK_UNDERFLOW);
              dest = s[sp - 1]!;
              var cond = s[sp - 2]!;
              sp -= 2;
              if (cond === 0n) {
                mark = pc;
                break look;
              }
            }
            var to = 0;
            if (dest >= codeLenBig || jumps[(to = Number(dest) | 0)] !== 1) throw invalidJump(rs, pc - 1);
            // The destination is a JUMPDEST: its step (its fee, no operation) is taken here when the gas allows.
            mark = to;
            if (gas >= jumpdestFee) {
              gas -= jumpdestFee;
              pc = to + 1;
            } else pc = to;
            break look;
          }
          case 0x51: {
            // MLOAD (memory gas charged above; the gas step checked the stack)
            var at = Number(s[sp - 1]!);
            if (at <= 0x7fffffff) at |= 0;
            rs.memory.extend(at, 32);
            s[sp - 1] = readWord(rs.memory._store, at, 32);
            break look;
          }
          case 0x52: {
            // MSTORE
            if (sp < 2) throw evmError(ERR.STACK_UNDERFLOW);
            var at = Number(s[sp - 1]!);
            if (at <= 0x7fffffff) at |= 0;
            const v = s[sp - 2]!;
            sp -= 2;
            rs.memory.extend(at, 32);
            writeWord(rs.memory._store, at, v);
            break look;
          }
          case 0x5f: // PUSH0
            if (sp >= maxHeight) throw evmError(ERR.STACK_OVERFLOW);
            s[sp++] = 0n;
            continue;
          case 0x35: {
            // CALLDATALOAD
            if (sp < 1) throw evmError(ERR.STACK_UNDERFLOW);
            var data = rs.env.callData;
            var pos = s[sp - 1]!;
            s[sp - 1] = pos >= BigInt(data.length) ? 0n : readWord(data, Number(pos) | 0, 32);
            break look;
          }
          case 0x33: // CALLER
            if (sp >= maxHeight) throw evmError(ERR.STACK_OVERFLOW);
            s[sp++] = callerWord === undefined ? (callerWord = bytesToBigint(env.caller.bytes)) : callerWord;
            break look;
          case 0x34: // CALLVALUE
            if (sp >= maxHeight) throw evmError(ERR.STACK_OVERFLOW);
            s[sp++] = env.callValue;
            break look;
          case 0x36: // CALLDATASIZE
            if (sp >= maxHeight) throw evmError(ERR.STACK_OVERFLOW);
            s[sp++] = BigInt(env.callData.length);
            break look;
          case 0x30: // ADDRESS
            if (sp >= maxHeight) throw evmError(ERR.STACK_OVERFLOW);
            s[sp++] = addressWord === undefined ? (addressWord = bytesToBigint(env.address.bytes)) : addressWord;
            break look;
          case 0x3d: // RETURNDATASIZE
            if (sp >= maxHeight) throw evmError(ERR.STACK_OVERFLOW);
            s[sp++] = BigInt(rs.returnBytes.length);
            break look;
          case 0x5a: // GAS (what is left after this step's fee)
            if (sp >= maxHeight) throw evmError(ERR.STACK_OVERFLOW);
            s[sp++] = reserve === 0n ? BigInt(gas) : BigInt(gas) + reserve;
            break look;
          default:
            throw new Error(`fast interpreter: opcode ${op} classified inline without an implementation`);
        }
      }
      // Runs that end in a JUMP or JUMPI are followed here to the next run, so a loop of them does not go
      // through the dispatch above; the jump's budget count and JUMPDEST step are the ones the JUMP case makes.
      while (segAt !== null && (q = segAt[pc]!) !== 0) {
        seg = segList[q - 1]!;
        // Its gas, stack and memory (its memory operations inside memory paid for: no expansion, the static fee is
        // their gas); a fused run (interpreter_compiled.ts) that fails them gives way to its first run alone.
        if (gas < seg.gas || sp < seg.need || sp + seg.grow > maxHeight || (seg.mem > memBytes && seg.mem > (memBytes = Number(rs.memoryWordCount) * 32))) {
          if (seg.alt === null) break;
          seg = seg.alt;
          if (gas < seg.gas || sp < seg.need || sp + seg.grow > maxHeight || (seg.mem > memBytes && seg.mem > (memBytes = Number(rs.memoryWordCount) * 32))) break;
        }
        gas -= seg.gas;
        taken = seg.run(s, sp, fx);
        if (seg.inner !== 0) {
          // A fused run's inner jumps (to where it ended: all, or up to the JUMPI not taken whose exit it returned)
          // are counted for the budget here, one by one when they reach a check.
          var ex = typeof taken === 'number' ? seg.exits[taken]! : null;
          var inn = ex === null ? seg.inner : ex.inner;
          if ((tick -= inn - mark) <= 0) {
            tick += inn - mark;
            for (var ci = 0, cs = seg.counts, cn = ex === null ? cs.length : ex.n; ci < cn; ci++) {
              if ((tick -= ci === 0 ? cs[0]! - mark : cs[ci]!) <= 0) {
                tick = interval;
                budget.require(0n);
              }
            }
          }
          if (ex !== null) {
            sp += ex.delta;
            gas += ex.back;
            pc = mark = ex.end;
            continue;
          }
          mark = seg.mk;
        }
        sp += seg.delta;
        pc = seg.end;
        if (seg.jump === NO_JUMP) break;
        if ((tick -= pc - mark) <= 0) {
          tick = interval;
          budget.require(0n);
        }
        if (taken === false) {
          mark = pc;
          continue;
        }
        if (seg.jump === ENDS_JUMP_ANY) {
          if ((taken as bigint) >= codeLenBig || jumps[(to = Number(taken) | 0)] !== 1) throw invalidJump(rs, pc - 1);
        } else to = seg.dest;
        mark = to;
        if (gas >= jumpdestFee) {
          gas -= jumpdestFee;
          pc = to + 1;
        } else {
          pc = to;
          break;
        }
      }
    }
  } catch (e) {
    if (!inStock) {
      rs.gasLeft = reserve === 0n ? BigInt(gas) : BigInt(gas) + reserve;
      stack._len = sp;
    }
    rs.programCounter = pc;
    if (!isEvmError(e)) throw e;
    if (e.error !== ERR.STOP) err = e;
    return { runState: rs, exceptionError: err };
  }
  rs.gasLeft = reserve === 0n ? BigInt(gas) : BigInt(gas) + reserve;
  stack._len = sp;
  rs.programCounter = pc;
  return { runState: rs, exceptionError: err };
}

/**
 * `n` as QuickJS's int32 tag when it fits. `Number(bigint)` always yields a float64-tagged value, and QuickJS's
 * fast paths (typed-array and array indexing, `<`, `+`, `++`) take int32 operands only: a float index is
 * turned into a string property key (dtoa, atom lookup: each read a sizeable part of interp.step.instructions), a float compare or
 * increment goes through the slow generic path. So the loop's pc, gas, fees and offsets are kept int32.
 */
function small(n: number): number {
  return n <= 0x7fffffff ? n | 0 : n;
}

/** The Number part of a frame's gas; at most GAS_WINDOW, the rest is left in splitReserve. */
const GAS_WINDOW = 2 ** 52;
const GAS_WINDOW_BIG = BigInt(GAS_WINDOW);
let splitReserve = 0n;
function splitGas(g: bigint): number {
  if (g <= GAS_WINDOW_BIG) {
    splitReserve = 0n;
    return small(Number(g));
  }
  splitReserve = g - GAS_WINDOW_BIG;
  return GAS_WINDOW;
}

/** Charges `cost` against gas + reserve: the new Number part (splitReserve holds the rest), or -1 when it does not fit. */
function takeGas(gas: number, reserve: bigint, cost: bigint): number {
  const left = BigInt(gas) + reserve - cost;
  if (left < 0n) return -1;
  return splitGas(left);
}
