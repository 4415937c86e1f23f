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
 * True when no reachable GAS is in `code`. The scan follows execution's instruction boundaries (PUSH data
 * skipped) and skips what cannot be reached: after STOP, JUMP, RETURN, REVERT, INVALID or SELFDESTRUCT, only a
 * JUMPDEST starts reachable code again (Solidity's metadata sits behind an INVALID; its bytes may still hold a
 * JUMPDEST and a GAS, which only costs the shortcut). An EIP-7702 delegation (code starting 0xef) runs other
 * code: false. Kept per code array; the engine scans code a block stores (noteCode), since what a query
 * computes is discarded with its heap.
 */
export function codeReadsNoGas(code: Uint8Array): boolean {
  let r = known.get(code);
  if (r === undefined) {
    r = code.length > 0 && code[0] === 0xef ? false : scan(code);
    known.set(code, r);
  }
  return r;
}

function scan(code: Uint8Array): boolean {
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

/** Scans `code` now (the engine's hook for code a block stores). */
export function noteCode(code: Uint8Array): void {
  codeReadsNoGas(code);
}
