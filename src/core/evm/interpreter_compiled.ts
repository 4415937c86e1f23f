// Straight runs of pure stack operations compiled to JavaScript functions, for the fast loop (interpreter.ts).
//
// QuickJS compiles generated source (`new Function`) inside the canister. One interpreted step costs about
// `interp.step.instructions`, mostly bytecode dispatch; the same operations as straight-line code on locals
// cost a fraction of that (docs/performance.md, "Compiled code"). Compiling costs instructions in proportion
// to the source's characters (docs/performance.md), so it is done once per code array, outside every
// transaction: the engine calls `compileQueued` after a block is finalised (`afterBlock`), with a bound on the operations compiled
// per call; queries and transactions only use what is already compiled and interpret everything else.
//
// A segment is the longest run of operations that touch nothing but the stack, the frame's fixed values and
// memory already paid for (PUSH, DUP, SWAP, POP, JUMPDEST, the inline arithmetic, comparison and bit
// operations, ADDRESS, CALLER, CALLVALUE, CALLDATASIZE, CALLDATALOAD, and MLOAD, MSTORE, MSTORE8 at a pushed
// offset), starting after a JUMPDEST or after any other operation (the fast loop looks one up after each such
// operation). A JUMP or JUMPI right after a PUSH of a valid JUMPDEST, and any other JUMP (whose destination
// the run returns), ends the run as its last operation: the fast loop then makes the jump's budget count,
// destination check and JUMPDEST step itself and goes on with the run at the destination (or after a JUMPI
// not taken), so a loop of such runs does not go through the dispatch at all. A run ending in a JUMP or JUMPI
// to a pushed JUMPDEST is compiled a second time joined with the runs after its destination (a fused run, one
// call instead of several; it stops at an inner JUMPI not taken; the loop counts its inner jumps for the
// budget when it returns, `Segment.inner`).
// Running a segment whole is the same as stepping through it whenever no step of it can fail: the fast loop
// calls it only when the gas left covers the sum of its static fees, the stack height covers what it reads
// and what it pushes, and the memory paid for covers every offset its memory operations reach (so they cost
// their static fee only); otherwise it steps through the operations one by one, so every error (out of gas,
// underflow, overflow) comes at the same operation and with the same gas as without compiled code. The
// budget count is unchanged (code bytes at each JUMP or JUMPI; a fused run's inner ones counted when it returns).
//
// The stack is simulated at compile time: the entry items read are loaded into locals once, DUP and SWAP move
// names, PUSH values are literals, operations on two constants are folded, and only the stack slots whose
// value changed are written back. Entry items are loaded only when the run reads or moves them, and results
// of comparisons and ISZERO stay JavaScript booleans until a word is needed (a JUMPI or ISZERO on one tests it
// as it is).

const MAX = (1n << 256n) - 1n;
const TWO256 = 1n << 256n;
const SIGN = 1n << 255n;

/**
 * Static fees this compiler assumes (every hardfork with PUSH0, SHL and SHR, which the fast loop requires); a
 * fee table that differs makes `pureFeesMatch` false, and that EVM uses no compiled code.
 */
const PURE_FEES = new Int16Array(256).fill(-1);
for (const op of [0x01, 0x03, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1b, 0x1c]) PURE_FEES[op] = 3;
PURE_FEES[0x02] = 5; // MUL
PURE_FEES[0x04] = 5; // DIV
PURE_FEES[0x06] = 5; // MOD
PURE_FEES[0x50] = 2; // POP
PURE_FEES[0x5b] = 1; // JUMPDEST
PURE_FEES[0x5f] = 2; // PUSH0
for (let op = 0x60; op <= 0x9f; op++) PURE_FEES[op] = 3; // PUSH1..32, DUP1..16, SWAP1..16
// The frame's environment: ADDRESS, CALLER, CALLVALUE, CALLDATASIZE (values fixed for the frame), CALLDATALOAD
for (const op of [0x30, 0x33, 0x34, 0x36]) PURE_FEES[op] = 2;
PURE_FEES[0x35] = 3;
/** MLOAD, MSTORE, MSTORE8: in a run only at a pushed offset, inside memory already paid for (static fee only). */
const MEM_FEE = 3;
/** Highest byte a run's memory operation may reach (a pushed offset of at most 4 bytes, far below any memory paid for). */
const MEM_LIMIT = 1 << 24;

/** JUMP and JUMPI, which may end a run (their fees). */
const JUMP_FEE = 8;
const JUMPI_FEE = 10;

/** Whether an EVM's static fees for the pure operations and the jumps are the ones compiled segments charge. */
export function pureFeesMatch(fees: readonly number[]): boolean {
  for (let op = 0; op < 256; op++) if (PURE_FEES[op]! >= 0 && fees[op] !== PURE_FEES[op]) return false;
  return fees[0x56] === JUMP_FEE && fees[0x57] === JUMPI_FEE && fees[0x51] === MEM_FEE && fees[0x52] === MEM_FEE && fees[0x53] === MEM_FEE;
}

/** A compiled run of pure operations; the fast loop reads these fields at a landing. */
export interface Segment {
  /**
   * Applies the run to the stack store `s` whose height is `sp` (the height afterwards is sp + delta); a run
   * ending in JUMPI returns whether the jump is taken, one ending in ENDS_JUMP_ANY the destination.
   * A fused run that ended at an inner JUMPI not taken returns the index of that exit (a number).
   */
  run: (s: bigint[], sp: number, x: FrameValues) => boolean | bigint | number | void;
  /** Sum of the static fees of its operations (with its JUMP or JUMPI, without the destination's JUMPDEST). */
  readonly gas: number;
  /** Stack items below the entry height it reads (the height must be at least this). */
  readonly need: number;
  /** Most items it has above the entry height at any point (the height plus this must stay within the limit). */
  readonly grow: number;
  readonly delta: number;
  /** Program counter after the run (after its JUMP or JUMPI, if it ends in one). */
  readonly end: number;
  /**
   * How the run ends: NO_JUMP (before an operation that is not pure), ENDS_JUMP or ENDS_JUMPI (the last
   * operation, to `dest`), ENDS_JUMP_ANY (the last operation, to the destination `run` returns).
   */
  readonly jump: number;
  /** A JUMP's or JUMPI's destination, a JUMPDEST (checked when the runs were found); -1 for the others. */
  readonly dest: number;
  /** Bytes of memory its MLOAD, MSTORE and MSTORE8 reach (0: none); memory paid for must cover them. */
  readonly mem: number;
  /**
   * A fused run (runs joined across JUMPs, and JUMPIs taken, to pushed destinations): the code bytes its inner
   * jumps count for the budget, plus the loop's `mark` at its entry (the first inner jump counts from there); 0
   * for a plain run. `counts` are the inner jumps' counts one by one (the first, too, plus the mark), for the
   * loop to replay when they reach a budget check; after the run `mark` is `mk` (its last JUMPDEST). `alt` is
   * its first run alone, taken when the fused run's gas, stack or memory check fails.
   */
  readonly inner: number;
  readonly counts: readonly number[];
  readonly mk: number;
  readonly alt: Segment | null;
  /** A fused run's inner JUMPIs that were not taken, by the index its function returns. */
  readonly exits: readonly SegmentExit[];
}

/** Where a fused run ended at an inner JUMPI not taken. */
export interface SegmentExit {
  /** Stack height change, program counter after the JUMPI, gas of the operations after it (given back). */
  readonly delta: number;
  readonly end: number;
  readonly back: number;
  /** The budget counts of the inner jumps up to it: their sum with the mark (as `Segment.inner`), and how many. */
  readonly inner: number;
  readonly n: number;
}

/** The frame's values and memory that runs read and write (the fast loop makes one per frame). */
export interface FrameValues {
  /** ADDRESS and CALLER as words. */
  A(): bigint;
  C(): bigint;
  /** CALLVALUE, CALLDATASIZE. */
  readonly v: bigint;
  readonly z: bigint;
  /** CALLDATALOAD. */
  l(pos: bigint): bigint;
  /** MLOAD, MSTORE, MSTORE8 at an offset inside memory paid for. */
  m(at: number): bigint;
  w(at: number, v: bigint): void;
  b(at: number, v: bigint): void;
}

export const NO_JUMP = 0;
export const ENDS_JUMP = 1;
export const ENDS_JUMPI = 2;
/** A JUMP to the destination the run returns (not known when compiled: the fast loop checks it). */
export const ENDS_JUMP_ANY = 3;

/** Candidate runs of one code array, and what of them is compiled. */
export interface CodeSegments {
  readonly code: Uint8Array;
  /** Start, end (exclusive) and operation count of each candidate run, in code order. */
  readonly starts: number[];
  readonly ends: number[];
  readonly ops: number[];
  /** How each ends (NO_JUMP, ENDS_JUMP, ENDS_JUMPI, ENDS_JUMP_ANY) and the jump's destination (-1 for none or unknown). */
  readonly jumps: number[];
  readonly dests: number[];
  /** Candidates compiled so far (a prefix of the list). */
  done: number;
  /**
   * Index + 1 into `list` of the compiled segment starting at each program counter, 0 for none; null until the
   * first segment is compiled (the fast loop then looks nothing up).
   */
  at: Uint16Array | null;
  readonly list: Segment[];
}

/** Runs shorter than this are left to the interpreter: a call costs about what two interpreted steps cost. */
const MIN_OPS = 2;

const isPure = (op: number): boolean => PURE_FEES[op]! >= 0;
/** Operations after which no code runs in the same frame (STOP, RETURN, REVERT, INVALID, SELFDESTRUCT): no run starts after them. */
const ENDS = new Uint8Array(256);
for (const op of [0x00, 0xf3, 0xfd, 0xfe, 0xff]) ENDS[op] = 1;

/** Finds the candidate runs of `code` (no compilation); null when there are none. */
export function findSegments(code: Uint8Array): CodeSegments | null {
  const n = code.length;
  const starts: number[] = [];
  const ends: number[] = [];
  const ops: number[] = [];
  const jumps: number[] = [];
  const dests: number[] = [];
  // JUMPDESTs outside PUSH data, as the interpreter's analysis finds them
  const valid = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const op = code[i]!;
    if (op >= 0x60 && op <= 0x7f) i += op - 0x5f;
    else if (op === 0x5b) valid[i] = 1;
  }
  const scan = (p: number): void => {
    let j = p;
    let count = 0;
    // value of the run's last operation when it is a PUSH of a JUMPDEST's position, else -1
    let pushed = -1;
    // value of the run's last operation when it is a PUSH of at most 4 bytes, else -1
    let offset = -1;
    let jump = NO_JUMP;
    while (j < n) {
      const op = code[j]!;
      if (op >= 0x51 && op <= 0x53 && offset >= 0 && offset + 32 <= MEM_LIMIT) {
        j++;
        count++;
        pushed = offset = -1;
        continue;
      }
      if (!isPure(op)) {
        // A JUMP or JUMPI right after a PUSH of a valid destination ends the run (PUSH2 tag JUMP in compiled
        // Solidity), and so does any other JUMP (a return to an address on the stack), whose destination the
        // fast loop checks as its JUMP case does: it then follows the jump to the next run itself.
        if ((op === 0x56 || op === 0x57) && pushed >= 0) {
          jump = op === 0x56 ? ENDS_JUMP : ENDS_JUMPI;
          j++;
          count++;
        } else if (op === 0x56) {
          jump = ENDS_JUMP_ANY;
          j++;
          count++;
        }
        break;
      }
      const next = op >= 0x60 && op <= 0x7f ? j + 1 + (op - 0x5f) : j + 1;
      if (next > n) break; // a PUSH cut by the end of the code: left to the interpreter
      pushed = offset = -1;
      if (op >= 0x5f && op <= 0x63) {
        let v = 0;
        for (let k = j + 1; k < next; k++) v = v * 256 + code[k]!;
        offset = v;
        if (v < n && valid[v] === 1) pushed = v;
      }
      j = next;
      count++;
    }
    if (count >= MIN_OPS && starts.length < 0xfffe) {
      starts.push(p);
      ends.push(j);
      ops.push(count);
      jumps.push(jump);
      dests.push(jump === NO_JUMP || jump === ENDS_JUMP_ANY ? -1 : pushed);
    }
  };
  for (let i = 0; i < n; i++) {
    const op = code[i]!;
    if (op >= 0x60 && op <= 0x7f) i += op - 0x5f;
    else if (op === 0x5b || (!isPure(op) && op !== 0x56 && !ENDS[op])) scan(i + 1);
  }
  if (starts.length === 0) return null;
  return { code, starts, ends, ops, jumps, dests, done: 0, at: null, list: [] };
}

/**
 * A simulated stack item: a constant, a local holding a word (`e1`.. entry items, `v1`.. results), or a local
 * holding a JavaScript boolean (`b1`..: a comparison's or ISZERO's result, turned into 1n or 0n only where a
 * word is needed, so ISZERO and JUMPI on it cost no bigint compare).
 */
type Val = bigint | string;

const lit = (v: bigint): string => `0x${v.toString(16)}n`;
const isBool = (v: Val): v is string => typeof v === 'string' && v.charCodeAt(0) === 0x62; // 'b'
const ref = (v: Val): string => (typeof v === 'bigint' ? lit(v) : isBool(v) ? `(${v}?1n:0n)` : v);

/** The value of a binary operation on two constants, with the fast loop's arithmetic (a is the top item). */
function fold(op: number, a: bigint, b: bigint): bigint {
  switch (op) {
    case 0x01: {
      const r = a + b;
      return r > MAX ? r - TWO256 : r;
    }
    case 0x02:
      return (a * b) & MAX;
    case 0x03:
      return a >= b ? a - b : a - b + TWO256;
    case 0x04:
      return b === 0n ? 0n : a / b;
    case 0x06:
      return b === 0n ? 0n : a % b;
    case 0x10:
      return a < b ? 1n : 0n;
    case 0x11:
      return a > b ? 1n : 0n;
    case 0x12:
      return (a >= SIGN ? a - TWO256 : a) < (b >= SIGN ? b - TWO256 : b) ? 1n : 0n;
    case 0x13:
      return (a >= SIGN ? a - TWO256 : a) > (b >= SIGN ? b - TWO256 : b) ? 1n : 0n;
    case 0x14:
      return a === b ? 1n : 0n;
    case 0x16:
      return a & b;
    case 0x17:
      return a | b;
    case 0x18:
      return a ^ b;
    case 0x1b:
      return a > 256n ? 0n : (b << a) & MAX;
    case 0x1c:
      return a > 256n ? 0n : b >> a;
    default:
      throw new Error(`compiled segments: no fold for opcode ${op}`);
  }
}

/** Comparisons (LT, GT, SLT, SGT, EQ), whose result is kept as a boolean. */
const isCompare = (op: number): boolean => (op >= 0x10 && op <= 0x14);

/** Source of the statements computing binary `op` into `r` from the expressions `a` (top) and `b` (a boolean for comparisons). */
function binary(op: number, r: string, a: string, b: string): string {
  switch (op) {
    case 0x01:
      return `var ${r}=${a}+${b};if(${r}>M)${r}-=T;`;
    case 0x02:
      return `var ${r}=(${a}*${b})&M;`;
    case 0x03:
      return `var ${r}=${a}>=${b}?${a}-${b}:${a}-${b}+T;`;
    case 0x04:
      return `var ${r}=${b}===0n?0n:${a}/${b};`;
    case 0x06:
      return `var ${r}=${b}===0n?0n:${a}%${b};`;
    case 0x10:
      return `var ${r}=${a}<${b};`;
    case 0x11:
      return `var ${r}=${a}>${b};`;
    case 0x12:
      return `var ${r}=(${a}>=S?${a}-T:${a})<(${b}>=S?${b}-T:${b});`;
    case 0x13:
      return `var ${r}=(${a}>=S?${a}-T:${a})>(${b}>=S?${b}-T:${b});`;
    case 0x14:
      return `var ${r}=${a}===${b};`;
    case 0x16:
      return `var ${r}=${a}&${b};`;
    case 0x17:
      return `var ${r}=${a}|${b};`;
    case 0x18:
      return `var ${r}=${a}^${b};`;
    case 0x1b:
      return `var ${r}=${a}>256n?0n:(${b}<<${a})&M;`;
    case 0x1c:
      return `var ${r}=${a}>256n?0n:${b}>>${a};`;
    default:
      throw new Error(`compiled segments: no operation for opcode ${op}`);
  }
}

/** The body of one segment's function and its shape. */
function generate(
  code: Uint8Array,
  ranges: readonly number[],
  jump: number,
): { body: string; gas: number; need: number; grow: number; delta: number; mem: number; exits: { delta: number; gas: number; piece: number }[] } {
  // `ranges`: start, end pairs of the code run in order; every range but the last ends in a JUMP or JUMPI to a
  // pushed JUMPDEST, where the next range starts (a fused run); at such a JUMPI not taken the function writes
  // the stack back and returns the exit's index. A JUMP or JUMPI at the end (findSegments checked its
  // destination, the constant on top) pops its operands
  let cond: Val | undefined;
  let target: Val | undefined;
  let mem = 0;
  // vs: the simulated stack above the lowest entry item read so far (entry items are named e1, e2, ... from the top)
  const vs: Val[] = [];
  let pulled = 0;
  let grow = 0;
  let gas = 0;
  let out = '';
  let tmp = 0;
  const exits: { delta: number; gas: number; piece: number }[] = [];
  // entry items are loaded at the top of the function, only those the body uses (R notes them)
  const used = new Set<string>();
  const R = (v: Val): string => {
    if (typeof v === 'string' && v.charCodeAt(0) === 0x65) used.add(v); // 'e'
    return ref(v);
  };
  // every slot whose value is not the entry item already there
  const writeBack = (): string => {
    let w = '';
    for (let i = 0; i < vs.length; i++) {
      const v = vs[i]!;
      if (i < pulled && v === `e${pulled - i}`) continue;
      const off = i - pulled;
      w += `s[sp${off < 0 ? off : `+${off}`}]=${R(v)};`;
    }
    return w;
  };
  const ensure = (k: number): void => {
    while (vs.length < k) {
      pulled++;
      vs.unshift(`e${pulled}`);
    }
  };
  for (let ri = 0; ri < ranges.length; ri += 2) {
    const last = ri + 2 === ranges.length;
    for (let pc = ranges[ri]!, end = ranges[ri + 1]!; pc < end; ) {
      const op = code[pc]!;
      pc++;
      if (op === 0x56 || op === 0x57) {
        gas += op === 0x56 ? JUMP_FEE : JUMPI_FEE;
        ensure(op === 0x56 ? 1 : 2);
        const d = vs.pop()!;
        if (last && jump === ENDS_JUMP_ANY) target = d;
        else if (typeof d !== 'bigint') throw new Error('compiled segments: a jump without a constant destination');
        if (op === 0x57 && !last) {
          // a JUMPI inside a fused run: not taken, the run ends here
          const c = vs.pop()!;
          if (typeof c === 'bigint' && c !== 0n) continue;
          exits.push({ delta: vs.length - pulled, gas, piece: ri >> 1 });
          out += `if(${typeof c === 'bigint' ? 'true' : isBool(c) ? `!${c}` : `${R(c)}===0n`}){${writeBack()}return ${exits.length - 1};}`;
          continue;
        }
        if (op === 0x57) cond = vs.pop()!;
        continue;
      }
      if (op >= 0x51 && op <= 0x53) {
        // at the offset pushed just before (findSegments), inside memory paid for (the fast loop's check)
        gas += MEM_FEE;
        ensure(op === 0x51 ? 1 : 2);
        const at = vs.pop();
        if (typeof at !== 'bigint') throw new Error('compiled segments: a memory operation without a constant offset');
        const o = Number(at);
        const reach = o + (op === 0x53 ? 1 : 32);
        if (reach > mem) mem = reach;
        if (op === 0x51) {
          const r = `v${++tmp}`;
          out += `var ${r}=x.m(${o});`;
          vs.push(r);
        } else out += `x.${op === 0x52 ? 'w' : 'b'}(${o},${R(vs.pop()!)});`;
        continue;
      }
      gas += PURE_FEES[op]!;
      if (op >= 0x5f && op <= 0x7f) {
        const len = op - 0x5f;
        let v = 0n;
        for (let i = 0; i < len; i++) v = (v << 8n) | BigInt(code[pc + i]!);
        pc += len;
        vs.push(v);
      } else if (op >= 0x80 && op <= 0x8f) {
        const d = op - 0x7f;
        ensure(d);
        vs.push(vs[vs.length - d]!);
      } else if (op >= 0x90 && op <= 0x9f) {
        const d = op - 0x8f;
        ensure(d + 1);
        const h = vs.length - 1;
        const t = vs[h]!;
        vs[h] = vs[h - d]!;
        vs[h - d] = t;
      } else if (op === 0x50) {
        ensure(1);
        vs.pop();
      } else if (op === 0x5b) {
        // JUMPDEST: its fee only
      } else if (op === 0x30 || op === 0x33 || op === 0x34 || op === 0x36) {
        const r = `v${++tmp}`;
        out += `var ${r}=${op === 0x30 ? 'x.A()' : op === 0x33 ? 'x.C()' : op === 0x34 ? 'x.v' : 'x.z'};`;
        vs.push(r);
      } else if (op === 0x35) {
        ensure(1);
        const r = `v${++tmp}`;
        out += `var ${r}=x.l(${R(vs.pop()!)});`;
        vs.push(r);
      } else if (op === 0x15 || op === 0x19) {
        ensure(1);
        const a = vs.pop()!;
        if (typeof a === 'bigint') vs.push(op === 0x15 ? (a === 0n ? 1n : 0n) : MAX ^ a);
        else if (op === 0x15) {
          const r = `b${++tmp}`;
          out += isBool(a) ? `var ${r}=!${a};` : `var ${r}=${R(a)}===0n;`;
          vs.push(r);
        } else {
          const r = `v${++tmp}`;
          out += `var ${r}=M^${R(a)};`;
          vs.push(r);
        }
      } else {
        ensure(2);
        const a = vs.pop()!;
        const b = vs.pop()!;
        if (typeof a === 'bigint' && typeof b === 'bigint') vs.push(fold(op, a, b));
        else if (isBool(a) && isBool(b) && (op === 0x16 || op === 0x17 || op === 0x18 || op === 0x14)) {
          // AND, OR, XOR, EQ of two 0/1 words: a boolean again
          const r = `b${++tmp}`;
          out += `var ${r}=${op === 0x16 ? `${a}&&${b}` : op === 0x17 ? `${a}||${b}` : op === 0x18 ? `${a}!==${b}` : `${a}===${b}`};`;
          vs.push(r);
        } else {
          const r = `${isCompare(op) ? 'b' : 'v'}${++tmp}`;
          out += binary(op, r, R(a), R(b));
          vs.push(r);
        }
      }
      if (vs.length - pulled > grow) grow = vs.length - pulled;
    }
  }
  out += writeBack();
  if (cond !== undefined) out += typeof cond === 'bigint' ? `return ${cond !== 0n};` : isBool(cond) ? `return ${cond};` : `return ${R(cond)}!==0n;`;
  if (target !== undefined) out += `return ${R(target)};`;
  // load the entry items the body reads or moves (all loads before any write-back)
  let loads = '';
  for (let k = 1; k <= pulled; k++) if (used.has(`e${k}`)) loads += `var e${k}=s[sp-${k}];`;
  return { body: loads + out, gas, need: pulled, grow, delta: vs.length - pulled, mem, exits };
}

/** Most runs joined into one fused run (each extra one's operations are compiled a second time). */
const MAX_FUSED = 3;
/**
 * Most code bytes of the runs a fused run joins after its first: the loop counts its inner jumps for the budget
 * when it returns, so this is how far past an inner jump its budget check can come (docs/execution.md).
 */
export const MAX_FUSED_BYTES = 256;
const NO_COUNTS: readonly number[] = [];
const NO_EXITS: readonly SegmentExit[] = [];

/**
 * The candidate runs a fused run starting with candidate `i` joins: `i`, then while the last ends in a JUMP or
 * JUMPI to a pushed JUMPDEST d, the candidate starting at d + 1 (none, or one already in the chain, ends it).
 * A JUMPI is followed where it jumps: Solidity's checks jump when they pass (the swap's JUMPIs: 94 of 126.5 taken).
 */
function fusedChain(segs: CodeSegments, i: number): number[] {
  const chain = [i];
  let c = i;
  let bytes = 0;
  while ((segs.jumps[c] === ENDS_JUMP || segs.jumps[c] === ENDS_JUMPI) && chain.length < MAX_FUSED) {
    const k = startIndex(segs, segs.dests[c]! + 1);
    if (k < 0 || chain.includes(k)) break;
    bytes += segs.ends[k]! - segs.starts[k]! + 1;
    if (bytes > MAX_FUSED_BYTES) break;
    chain.push(k);
    c = k;
  }
  return chain;
}

/** Index of the candidate run starting at `pc`, or -1 (binary search: `starts` is in code order). */
function startIndex(segs: CodeSegments, pc: number): number {
  let lo = 0;
  let hi = segs.starts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = segs.starts[mid]!;
    if (v === pc) return mid;
    if (v < pc) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * Compiles the next candidate runs of `segs`, at most about `maxOps` operations (at least one run); returns the
 * operations compiled. One `new Function` per call.
 */
export function compileSome(segs: CodeSegments, maxOps: number): number {
  const from = segs.done;
  if (from >= segs.starts.length) return 0;
  let to = from;
  let ops = 0;
  // a run and its fused run, whose operations (all of its runs') count too
  const chains: number[][] = [];
  while (to < segs.starts.length) {
    const chain = fusedChain(segs, to);
    let n = segs.ops[to]!;
    if (chain.length > 1) for (const c of chain) n += segs.ops[c]!;
    if (to > from && ops + n > maxOps) break;
    chains.push(chain);
    ops += n;
    to++;
  }
  const shapes: ReturnType<typeof generate>[] = [];
  let src = 'return [';
  for (let i = from; i < to; i++) {
    const g = generate(segs.code, [segs.starts[i]!, segs.ends[i]!], segs.jumps[i]!);
    shapes.push(g);
    src += `function(s,sp,x){${g.body}},`;
    const chain = chains[i - from]!;
    if (chain.length > 1) {
      const ranges = [segs.starts[i]!, segs.ends[i]!];
      for (let c = 1; c < chain.length; c++) ranges.push(segs.starts[chain[c]!]! - 1, segs.ends[chain[c]!]!);
      const f = generate(segs.code, ranges, segs.jumps[chain[chain.length - 1]!]!);
      shapes.push(f);
      src += `function(s,sp,x){${f.body}},`;
    }
  }
  src += '];';
  const fns = new Function('M', 'T', 'S', src)(MAX, TWO256, SIGN) as Segment['run'][];
  let at = segs.at;
  if (at === null) at = new Uint16Array(segs.code.length + 1);
  for (let i = from, f = 0; i < to; i++) {
    const sh = shapes[f]!;
    let seg: Segment = { run: fns[f++]!, gas: sh.gas, need: sh.need, grow: sh.grow, delta: sh.delta, end: segs.ends[i]!, jump: segs.jumps[i]!, dest: segs.dests[i]!, mem: sh.mem, inner: 0, counts: NO_COUNTS, mk: 0, alt: null, exits: NO_EXITS };
    const chain = chains[i - from]!;
    if (chain.length > 1) {
      const fh = shapes[f]!;
      const l = chain[chain.length - 1]!;
      // bytes the inner jumps count: the first from the entry mark to after its JUMP, each later one from its JUMPDEST
      const counts = [segs.ends[i]!];
      for (let c = 1; c < chain.length - 1; c++) counts.push(segs.ends[chain[c]!]! - (segs.starts[chain[c]!]! - 1));
      const inner = counts.reduce((a, b) => a + b, 0);
      const exits = fh.exits.map((e): SegmentExit => {
        let sum = 0;
        for (let c = 0; c <= e.piece; c++) sum += counts[c]!;
        return { delta: e.delta, end: segs.ends[chain[e.piece]!]!, back: fh.gas - e.gas, inner: sum, n: e.piece + 1 };
      });
      seg = { run: fns[f++]!, gas: fh.gas, need: fh.need, grow: fh.grow, delta: fh.delta, end: segs.ends[l]!, jump: segs.jumps[l]!, dest: segs.dests[l]!, mem: fh.mem, inner, counts, mk: segs.starts[l]! - 1, alt: seg, exits };
    }
    segs.list.push(seg);
    at[segs.starts[i]!] = segs.list.length;
  }
  segs.at = at;
  segs.done = to;
  compiledHook?.(segs, from, to);
  holdCompiled(segs, ops);
  return ops;
}

/**
 * Most operations kept compiled in the heap, over all code (each costs a function's share of bytecode, constants
 * and closure: a few hundred bytes, estimated). Past it the code compiled first is dropped and interpreted
 * from then on.
 */
export const MAX_COMPILED_OPS = 100_000;
let maxCompiledOps = MAX_COMPILED_OPS;

/** Tests: a smaller bound (undefined restores MAX_COMPILED_OPS). */
export function setMaxCompiledOps(n: number | undefined): void {
  maxCompiledOps = n ?? MAX_COMPILED_OPS;
}
/** Code with compiled runs, first compiled first, and their operations. */
const held: CodeSegments[] = [];
const heldOps: number[] = [];
let heldTotal = 0;

function holdCompiled(segs: CodeSegments, ops: number): void {
  const i = held.lastIndexOf(segs);
  if (i >= 0) heldOps[i]! += ops;
  else {
    held.push(segs);
    heldOps.push(ops);
  }
  heldTotal += ops;
  while (heldTotal > maxCompiledOps && held.length > 1) {
    const old = held.shift()!;
    heldTotal -= heldOps.shift()!;
    // frames read `at` when they start, and none runs while code is compiled
    old.at = null;
    old.list.length = 0;
    old.done = old.starts.length;
  }
}

/** Operations held compiled (tests). */
export function compiledOps(): number {
  return heldTotal;
}

let compiledHook: ((segs: CodeSegments, from: number, to: number) => void) | undefined;

/** Tests: `hook` sees every batch of runs compiled (list entries from..to-1), e.g. to count their calls. */
export function onCompiled(hook: ((segs: CodeSegments, from: number, to: number) => void) | undefined): void {
  compiledHook = hook;
}

/** Compiles every candidate run of `segs` now (tests, and code stored in the same block message). */
export function compileAll(segs: CodeSegments): void {
  while (segs.done < segs.starts.length) compileSome(segs, 1 << 30);
}

/** A code array and its runs, found when it is first compiled (null: it has none). */
export interface Compilable {
  readonly code: Uint8Array;
  segs: CodeSegments | null | undefined;
}

/** Code arrays waiting for compilation, oldest first (bounded: code seen while the queue is full waits to be seen again). */
const queue: Compilable[] = [];
const QUEUE_MAX = 64;

/** Puts `c` in the compilation queue (no effect once full, queued or compiled). Cheap: nothing is analysed here. */
export function enqueue(c: Compilable): void {
  if (c.segs === null || (c.segs !== undefined && c.segs.done >= c.segs.starts.length)) return;
  if (queue.length < QUEUE_MAX && !queue.includes(c)) queue.push(c);
}

/** Finds (once) and compiles all of `c`'s runs now (tests). */
export function compileNow(c: Compilable): void {
  if (c.segs === undefined) c.segs = findSegments(c.code);
  if (c.segs !== null) compileAll(c.segs);
}

/**
 * Operations compiled per `compileQueued` call (their cost measured in docs/performance.md, "Compiled code"):
 * inside the block message's finalisation reserve.
 */
export const COMPILE_OPS_PER_CALL = 2_500;

/** Compiles queued code, oldest first, up to about `maxOps` operations; returns the operations compiled. */
export function compileQueued(maxOps = COMPILE_OPS_PER_CALL): number {
  let total = 0;
  while (queue.length > 0 && total < maxOps) {
    const c = queue[0]!;
    try {
      if (c.segs === undefined) c.segs = findSegments(c.code);
      if (c.segs !== null) total += compileSome(c.segs, maxOps - total);
    } catch {
      // Compiling is an optimisation and runs after a block: a failure (e.g. the heap) leaves this
      // code interpreted instead of failing the block.
      c.segs = null;
    }
    if (c.segs === null || c.segs.done >= c.segs.starts.length) queue.shift();
  }
  return total;
}

/** Code arrays waiting (tests). */
export function queuedCount(): number {
  return queue.length;
}

/** Empties the queue (tests). */
export function clearQueue(): void {
  queue.length = 0;
}
