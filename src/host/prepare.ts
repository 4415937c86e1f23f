// Turns a canister wasm into the module the host runs: optionally instrumented with ic-wasm (the IC's
// instruction-cost counter), then rewritten with binaryen so the host can see and restore its state.
// Results are cached on disk by the input's hash (instrumenting and rewriting a canister's wasm is slow next to loading the result).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import binaryen from 'binaryen';
import { HostSetupError } from './errors.js';
import { CACHE_DIR } from './paths.js';
import { functionNames } from './profile_names.js';
import {
  COUNTER_EXPORT,
  GLOBAL_EXPORT_PREFIX,
  LIMIT_EXPORT,
  LIMIT_IMPORT_MODULE,
  LIMIT_IMPORT_NAME,
  PROFILE_IMPORT_NAME,
  TABLE_EXPORT,
  sha256Hex,
} from './wasm_names.js';

export { COUNTER_EXPORT, GLOBAL_EXPORT_PREFIX, LIMIT_EXPORT, LIMIT_IMPORT_MODULE, LIMIT_IMPORT_NAME, PROFILE_IMPORT_NAME, TABLE_EXPORT, sha256Hex };

// Bump when the rewrite changes, so stale cache entries are not reused.
const PREPARE_VERSION = 3;

export interface PreparedWasm {
  /** The bytes to instantiate. */
  wasm: Uint8Array;
  /** sha256 of the original (plain) wasm, hex. */
  wasmHash: string;
  instrumented: boolean;
  /** Profiling build only: the plain wasm's function names by function index (ic-wasm's trace ids). */
  functionNames?: string[];
}

export interface PrepareOptions {
  instrument: boolean;
  /** Cache directory; default `node_modules/.cache/icp-evm/prepared` in the project. */
  cacheDir?: string;
  /** Path of the ic-wasm binary; default the one from @icp-sdk/ic-wasm-linux-x64. */
  icWasmPath?: string;
  /**
   * Profiling build (needs `instrument`): ic-wasm's trace calls at every function entry and exit reach the
   * host (`ic0_host.profile(id, counter)`) instead of a no-op. Counts are the same as without it (the trace
   * path is not metered); cached under its own key.
   */
  profile?: boolean;
}

function defaultIcWasmPath(): string {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve('@icp-sdk/ic-wasm-linux-x64/package.json');
  return join(dirname(pkg), 'bin', 'ic-wasm');
}

export function prepareWasm(plain: Uint8Array, opts: PrepareOptions): PreparedWasm {
  const wasmHash = sha256Hex(plain);
  const cacheDir = opts.cacheDir ?? join(CACHE_DIR, 'prepared');
  mkdirSync(cacheDir, { recursive: true });
  const profile = opts.profile === true;
  if (profile && !opts.instrument) throw new HostSetupError('profiling needs the instrumented wasm');
  const key = `${wasmHash.slice(0, 32)}-${opts.instrument ? (profile ? 'prof' : 'instr') : 'plain'}-v${PREPARE_VERSION}.wasm`;
  const cached = join(cacheDir, key);
  const namesFile = `${cached}.names.json`;
  if (existsSync(cached) && (!profile || existsSync(namesFile))) {
    const names = profile ? { functionNames: JSON.parse(readFileSync(namesFile, 'utf8')) as string[] } : {};
    return { wasm: readFileSync(cached), wasmHash, instrumented: opts.instrument, ...names };
  }
  let input = plain;
  if (opts.instrument) {
    const src = join(cacheDir, `${key}.${process.pid}.in.wasm`);
    const dst = join(cacheDir, `${key}.${process.pid}.out.wasm`);
    writeFileSync(src, plain);
    try {
      execFileSync(opts.icWasmPath ?? defaultIcWasmPath(), [src, '-o', dst, 'instrument'], { stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      throw new HostSetupError(`ic-wasm instrument failed: ${(e as { stderr?: Buffer }).stderr?.toString() ?? String(e)}`);
    }
    input = readFileSync(dst);
  }
  const out = rewrite(input, opts.instrument, profile);
  let names: string[] | undefined;
  if (profile) {
    names = functionNames(plain);
    writeFileSync(`${namesFile}.${process.pid}.tmp`, JSON.stringify(names));
    renameSync(`${namesFile}.${process.pid}.tmp`, namesFile);
  }
  const tmp = `${cached}.${process.pid}.tmp`;
  writeFileSync(tmp, out);
  renameSync(tmp, cached); // atomic, so concurrent test workers never read a half-written file
  return { wasm: out, wasmHash, instrumented: opts.instrument, ...(names === undefined ? {} : { functionNames: names }) };
}

function rewrite(bytes: Uint8Array, instrumented: boolean, profile: boolean): Uint8Array {
  const m = binaryen.readBinary(bytes);
  try {
    // Keep the feature set the module was read with: enabling everything emits encodings V8 rejects.
    const globals: { name: string; mutable: boolean; type: number; imported: boolean }[] = [];
    for (let i = 0; i < m.getNumGlobals(); i++) {
      const g = binaryen.getGlobalInfo(m.getGlobalByIndex(i));
      globals.push({ name: g.name, mutable: g.mutable, type: g.type, imported: g.module !== '' && g.module !== null });
    }
    let counterName: string | undefined;
    if (instrumented) {
      // ic-wasm appends six globals: total_counter (i64), log_size, page_size, is_init, is_entry, heap_base.
      const c = globals[globals.length - 6];
      if (c === undefined || c.type !== binaryen.i64 || !c.mutable || m.getExport('canister_query __get_cycles') === 0) {
        throw new HostSetupError('unexpected ic-wasm instrument output: counter global not found');
      }
      counterName = c.name;
      neutraliseTracing(m, profile ? counterName : undefined);
    }
    // Export every mutable global (e.g. __stack_pointer) so a trap's half-finished state can be restored.
    globals.forEach((g, i) => {
      if (g.mutable && !g.imported && g.name !== counterName) m.addGlobalExport(g.name, `${GLOBAL_EXPORT_PREFIX}${i}`);
    });
    // The function table holds the reply/reject/cleanup callbacks given to call_new / call_on_cleanup.
    if (m.getNumTables() > 0) {
      const t = binaryen.getTableInfo(m.getTableByIndex(0));
      m.addTableExport(t.name, TABLE_EXPORT);
    }
    if (counterName !== undefined) {
      m.addGlobalExport(counterName, COUNTER_EXPORT);
      addLimitCheck(m, counterName);
    }
    if (!m.validate()) throw new HostSetupError('rewritten wasm does not validate');
    return m.emitBinary();
  } finally {
    m.dispose();
  }
}

// ic-wasm's profiler logs every function entry/exit into stable memory after canister_init and keeps its
// own metadata at stable offset 0..24 across upgrades. That would overwrite the canister's stable memory
// (Azle's memory manager lives at offset 0), so: the trace printer becomes a no-op (it is not metered, so
// counts do not change), and the metadata save/load in pre/post_upgrade is removed. In a profiling build
// the printer instead hands the host its argument (the function's id at entry, minus it at exit: ic-wasm
// turns every `return` into a branch to the exit call) and the counter as an f64 (exact below 2^53).
function neutraliseTracing(m: binaryen.Module, profileCounter: string | undefined): void {
  // Every instrumented function starts with `i32.const <id>; call $printer`; find it via a known export.
  const probe = binaryen.getExportInfo(m.getExport('canister_query __get_cycles')).value;
  let printer: string | undefined;
  for (let i = 0; i < m.getNumExports() && printer === undefined; i++) {
    const e = binaryen.getExportInfo(m.getExportByIndex(i));
    if (e.kind !== binaryen.ExternalFunction || e.value === probe || !e.name.startsWith('canister_')) continue;
    const body = binaryen.getFunctionInfo(m.getFunction(e.value)).body;
    const first = firstInstr(body);
    if (first !== 0 && binaryen.getExpressionId(first) === binaryen.CallId) {
      const call = binaryen.getExpressionInfo(first) as binaryen.CallInfo;
      const op = call.operands[0];
      if (call.operands.length === 1 && op !== undefined && binaryen.getExpressionId(op) === binaryen.ConstId) printer = call.target;
    }
  }
  if (printer === undefined) throw new HostSetupError('unexpected ic-wasm instrument output: trace printer not found');
  const pf = binaryen.getFunctionInfo(m.getFunction(printer));
  m.removeFunction(printer);
  if (profileCounter === undefined) m.addFunction(printer, pf.params, pf.results, [], m.nop());
  else {
    const hook = '__host_profile';
    m.addFunctionImport(hook, LIMIT_IMPORT_MODULE, PROFILE_IMPORT_NAME, binaryen.createType([binaryen.i32, binaryen.f64]), binaryen.none);
    const counter = m.f64.convert_u.i64(m.global.get(profileCounter, binaryen.i64));
    m.addFunction(printer, pf.params, pf.results, [], m.call(hook, [m.local.get(0, binaryen.i32), counter], binaryen.none));
  }

  for (const exp of ['canister_pre_upgrade', 'canister_post_upgrade']) {
    if (m.getExport(exp) === 0) continue;
    const fname = binaryen.getExportInfo(m.getExport(exp)).value;
    const f = binaryen.getFunctionInfo(m.getFunction(fname));
    const replaced = replaceMetadataCalls(m, f.body);
    if (replaced === 0) throw new HostSetupError(`unexpected ic-wasm instrument output: no profiler metadata access in ${exp}`);
  }
}

function firstInstr(expr: number): number {
  let e = expr;
  while (e !== 0 && binaryen.getExpressionId(e) === binaryen.BlockId) {
    const b = binaryen.getExpressionInfo(e) as binaryen.BlockInfo;
    const c = b.children[0];
    if (c === undefined) return 0;
    e = c;
  }
  return e;
}

// binaryen 132 takes an i64 constant as one bigint (its .d.ts still says (low, high)).
const i64c = (m: binaryen.Module, v: bigint): number => (m.i64.const as unknown as (x: bigint) => number)(v);

const isConst = (e: number | undefined, v: number): boolean => {
  if (e === undefined || binaryen.getExpressionId(e) !== binaryen.ConstId) return false;
  const c = binaryen.getExpressionInfo(e) as binaryen.ConstInfo;
  const val = c.value as unknown;
  return typeof val === 'bigint' ? val === BigInt(v) : Number(val) === v;
};

// The injected code sits at the top level of the exported function's body (walrus builds it as a flat
// sequence): `call stable64_write/read (i64 0, i64 0, i64 24)`. Replace those calls with a nop (write) or
// with zero stores (read), so the restored globals become 0 (counter reset, tracing flag off).
function replaceMetadataCalls(m: binaryen.Module, body: number): number {
  let count = 0;
  const visit = (e: number): void => {
    if (e === 0) return;
    const id = binaryen.getExpressionId(e);
    if (id === binaryen.BlockId) {
      const b = binaryen.getExpressionInfo(e) as binaryen.BlockInfo;
      b.children.forEach((c, i) => {
        if (binaryen.getExpressionId(c) === binaryen.CallId) {
          const call = binaryen.getExpressionInfo(c) as binaryen.CallInfo;
          const imp = binaryen.getFunctionInfo(m.getFunction(call.target));
          const [a, o, s] = call.operands;
          if (imp.module === 'ic0' && call.operands.length === 3 && isConst(a, 0) && isConst(o, 0) && isConst(s, 24)) {
            let repl: number;
            if (imp.base === 'stable64_write') repl = m.nop();
            else if (imp.base === 'stable64_read')
              repl = m.block(null, [0, 8, 16].map((off) => m.i64.store(off, 8, m.i32.const(0), i64c(m, 0n))));
            else return;
            (binaryen as unknown as { Block: { setChildAt(b: number, i: number, c: number): void } }).Block.setChildAt(e, i, repl);
            count++;
          }
        } else visit(c);
      });
    }
  };
  visit(body);
  return count;
}

// IC limits must stop a loop that makes no system calls. binaryen's log-execution pass inserts a call to an
// import at every function entry and loop header; that import is replaced by a local function comparing
// the counter with a limit global, calling the host (which throws) only when the limit is passed.
function addLimitCheck(m: binaryen.Module, counterName: string): void {
  const before = new Set<string>();
  for (let i = 0; i < m.getNumFunctions(); i++) before.add(binaryen.getFunctionInfo(m.getFunctionByIndex(i)).name);
  m.runPasses(['log-execution']);
  let logFn: string | undefined;
  for (let i = 0; i < m.getNumFunctions(); i++) {
    const f = binaryen.getFunctionInfo(m.getFunctionByIndex(i));
    if (!before.has(f.name) && f.base === 'log_execution') logFn = f.name;
  }
  if (logFn === undefined) throw new HostSetupError('binaryen log-execution pass added no import');
  const limitName = '__host_limit';
  m.addGlobal(limitName, binaryen.i64, true, i64c(m, 0x7fffffffffffffffn));
  m.addGlobalExport(limitName, LIMIT_EXPORT);
  const exceeded = '__host_limit_exceeded';
  m.addFunctionImport(exceeded, LIMIT_IMPORT_MODULE, LIMIT_IMPORT_NAME, binaryen.none, binaryen.none);
  m.removeFunction(logFn);
  m.addFunction(
    logFn,
    binaryen.i32,
    binaryen.none,
    [],
    m.if(
      m.i64.gt_u(m.global.get(counterName, binaryen.i64), m.global.get(limitName, binaryen.i64)),
      m.call(exceeded, [], binaryen.none),
    ),
  );
}
