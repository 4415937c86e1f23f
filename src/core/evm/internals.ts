// The EthereumJS internals this engine reaches into (private fields of EVM 10.1.3), in one place, with a
// check of every shape it relies on, run when an engine is created (createEvmEngine). An EthereumJS upgrade
// that moves one of them fails there, with a message naming what changed, instead of misbehaving later.
//
// Reached from here:
// - EVM._opcodeMap (256 entries of { opcodeInfo, opHandler, gasHandler }): budget.ts wraps the handlers;
// - EVM._precompiles (Map of 40-hex-digit address -> function): budget.ts wraps them, engine.ts lists them;
// - EVM.runCall (patched by engine.ts for the top-level checks), EVM.journal.cleanJournal() and
//   EVM.transientStorage.clear() (engine.ts, after an aborted transaction);
// - EVM.journal.journal / alwaysWarmJournal (Maps of hex address -> Set of hex slots): interpreter.ts.
// Also outside this module, each with its own start-up check: the Interpreter prototype's run
// (interpreter.ts patchPrototype) and the transaction constructors' Common (engine.ts sharedTxCommon).

export interface OpEntry {
  opcodeInfo: { code: number; feeBigInt: bigint; dynamicGas: boolean; isInvalid: boolean };
  opHandler: ((runState: never, common: unknown) => unknown) | undefined;
  gasHandler: unknown;
}
export type PrecompileFn = (opts: { data: Uint8Array; gasLimit: bigint }) => unknown;

interface EvmInternals {
  _opcodeMap: OpEntry[];
  _precompiles: Map<string, PrecompileFn>;
  runCall: unknown;
  journal: { cleanJournal: unknown; journal: unknown; alwaysWarmJournal: unknown };
  transientStorage: { clear: unknown };
}

export class EthereumJsShapeError extends Error {
  constructor(what: string) {
    super(`EthereumJS internals changed (src/core/evm/internals.ts): ${what}`);
  }
}

/** Throws EthereumJsShapeError naming the first assumption an EVM instance breaks. */
export function checkEvmInternals(evm: unknown): void {
  const e = evm as Partial<EvmInternals>;
  const fail = (what: string): never => {
    throw new EthereumJsShapeError(what);
  };
  const map = e._opcodeMap;
  if (!Array.isArray(map) || map.length !== 256) fail('EVM._opcodeMap is no longer a 256-entry array');
  for (let op = 0; op < 256; op++) {
    const entry = map![op];
    if (entry === undefined || typeof entry.opcodeInfo !== 'object' || typeof entry.opcodeInfo.feeBigInt !== 'bigint') {
      fail(`EVM._opcodeMap[${op}] has no opcodeInfo with feeBigInt`);
    }
    if (!entry!.opcodeInfo.isInvalid && typeof entry!.opHandler !== 'function') fail(`EVM._opcodeMap[${op}].opHandler is not a function`);
  }
  const pcs = e._precompiles;
  if (!(pcs instanceof Map) || pcs.size === 0) fail('EVM._precompiles is no longer a non-empty Map');
  for (const [k, v] of pcs!) {
    if (typeof k !== 'string' || !/^[0-9a-f]{40}$/.test(k) || typeof v !== 'function') {
      fail('EVM._precompiles no longer maps 40-hex-digit addresses to functions');
    }
  }
  if (typeof e.runCall !== 'function') fail('EVM.runCall is not a function');
  const j = e.journal;
  if (j === undefined || typeof j.cleanJournal !== 'function') fail('EVM.journal.cleanJournal is not a function');
  if (!(j!.journal instanceof Map) || !(j!.alwaysWarmJournal instanceof Map)) {
    fail('EVM.journal.journal / alwaysWarmJournal are no longer Maps (warm storage slots)');
  }
  if (typeof e.transientStorage?.clear !== 'function') fail('EVM.transientStorage.clear is not a function');
}

export function opcodeMap(evm: unknown): OpEntry[] {
  return (evm as EvmInternals)._opcodeMap;
}

export function precompileMap(evm: unknown): Map<string, PrecompileFn> {
  return (evm as EvmInternals)._precompiles;
}

/** Clears what an aborted runTx leaves in the EVM: open journal levels and transient storage. */
export function resetEvmAfterAbort(evm: unknown): void {
  const e = evm as { journal: { cleanJournal(): void }; transientStorage: { clear(): void } };
  e.journal.cleanJournal();
  e.transientStorage.clear();
}
