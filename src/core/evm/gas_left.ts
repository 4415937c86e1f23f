// What a call's run tells about a run of the same call with a gas limit of exactly its gasUsed, for
// eth_estimateGas (src/core/query/estimate.ts): when the top-level frame cannot observe the gas it was given,
// that run takes the same path and succeeds, so the search need not run it to prove it.
//
// What reads the gas left, or state that depends on the gas limit, in this engine's EVM:
// - GAS pushes it. The fast loop runs GAS inline, so it is found in the code (codeReadsNoGas).
// - The CALL family and CREATE/CREATE2 give an inner frame 63/64 of it (EIP-150), and an inner frame's unused
//   gas comes back, so gas left is no longer monotone in the frame; BALANCE and SELFBALANCE can read the
//   sender's balance, which runTx lowers by gasLimit * gasPrice first; SELFDESTRUCT reads none but is left
//   out too. All run EthereumJS's handlers, so their handlers note that they ran (watchGasReaders).
// - SSTORE's EIP-2200 stipend check (fails with gas left <= 2300): the state manager watches the writes
//   (FlatStateManager.storeWatch).

/** What a watched run saw (EvmEngine.execute sets it as FlatStateManager.storeWatch for the run). */
export interface GasWatch {
  /** An operation of READER_OPS ran. */
  reader: boolean;
  /** A write through EthereumJS's async putStorage (its own SSTORE, where the gas left is not known here). */
  unknownStore: boolean;
  /**
   * Whether the last write through putStorageSync was the slot's first change in the transaction (true
   * before any write): EIP-2200 charges such a write SSTORE_SET or SSTORE_RESET, which the engine checks
   * are above the stipend.
   */
  lastIsFirstChange: boolean;
}

/**
 * BALANCE, SELFBALANCE, CREATE, CALL, CALLCODE, DELEGATECALL, CREATE2, STATICCALL, SELFDESTRUCT, and the EOF
 * calls and creations (invalid in this EVM, where their handlers never run; listed so that enabling EOF
 * cannot make an answer wrong).
 */
const READER_OPS = [0x31, 0x47, 0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xfa, 0xff, 0xec, 0xf8, 0xf9, 0xfb];

interface OpTableEntry {
  readonly opHandler: (rs: never, c: unknown) => unknown;
}

/**
 * Wraps the handlers of READER_OPS in `map` (an EVM's opcode table, after every other wrapper) so that a run
 * with `watch()` set notes them. For the eth_call executor only: one closure call per such operation.
 */
export function watchGasReaders(map: OpTableEntry[], watch: () => GasWatch | undefined): void {
  for (const op of READER_OPS) {
    const e = map[op];
    if (e === undefined) continue;
    const fn = e.opHandler;
    map[op] = {
      ...e,
      opHandler: (rs: never, c: unknown): unknown => {
        const w = watch();
        if (w !== undefined) w.reader = true;
        return fn(rs, c);
      },
    };
  }
}

const known = new WeakMap<Uint8Array, boolean>();

/**
 * Whether `code` is known to have no reachable GAS: scanned when a block stored or loaded it (noteCode,
 * scanQueued). Code not scanned yet answers false (the estimate then takes its full search): scanning in the
 * query itself would cost more than the run it saves for large code, and be discarded with the query's heap.
 */
export function knownReadsNoGas(code: Uint8Array): boolean {
  return code.length === 0 || known.get(code) === true;
}

/**
 * True when no reachable GAS is in `code`. The scan follows execution's instruction boundaries (PUSH data
 * skipped) and skips what cannot be reached: after STOP, JUMP, RETURN, REVERT, INVALID or SELFDESTRUCT, only a
 * JUMPDEST starts reachable code again (Solidity's metadata sits behind an INVALID; its bytes may still hold a
 * JUMPDEST and a GAS, which only costs the shortcut). An EIP-7702 delegation (code starting 0xef) runs other
 * code: false.
 */
export function codeReadsNoGas(code: Uint8Array): boolean {
  if (code.length > 0 && code[0] === 0xef) return false;
  const n = code.length;
  let live = true;
  for (let i = 0; i < n; i++) {
    const op = code[i]!;
    if (op === 0x5b) live = true;
    else if (live) {
      if (op === 0x5a) return false;
      if (op === 0x00 || op === 0x56 || op === 0xf3 || op === 0xfd || op === 0xfe || op === 0xff) live = false;
    }
    if (op >= 0x60 && op <= 0x7f) i += op - 0x5f;
  }
  return true;
}

/** Scans `code` now (the engine's hook for code a block stores, outside transactions' budgets). */
export function noteCode(code: Uint8Array): void {
  if (!known.has(code)) known.set(code, codeReadsNoGas(code));
}

/** Code read from the stable map (after an upgrade, or evicted from the code cache), to scan after the next block. */
const queue: Uint8Array[] = [];
const QUEUE_MAX = 256;

/** The state managers' hook for code they loaded: scanned after the block (scanQueued), not inside a transaction. */
export function queueCode(code: Uint8Array): void {
  if (!known.has(code) && queue.length < QUEUE_MAX) queue.push(code);
}

/** Scans queued code, at most about `maxBytes` of it (the engine's afterBlock step); the rest waits for the next block. */
export function scanQueued(maxBytes = 64 * 1024): void {
  let bytes = 0;
  while (queue.length > 0 && bytes < maxBytes) {
    const code = queue.shift()!;
    if (known.has(code)) continue;
    noteCode(code);
    bytes += code.length;
  }
}
