// Otterscan's shapes (ots_getInternalOperations, ots_traceTransaction, ots_getTransactionError) as anvil
// serves them, read from the call tree of one transaction.
import { walk, type Frame } from './frames.js';
import { addressHex, bytesHex, quantity } from './hex.js';

/** Otterscan's operation kinds. */
export const OtsOperation = { Transfer: 0, SelfDestruct: 1, Create: 2, Create2: 3 } as const;

export interface OtsInternalOperation {
  type: number;
  from: string;
  to: string;
  value: string;
}

/** Value moved by a CALL (the top call included), every create, and every self-destruct, in execution order. */
export function otsInternalOperations(root: Frame): OtsInternalOperation[] {
  const out: OtsInternalOperation[] = [];
  for (const { frame: f } of walk(root)) {
    const value = f.value ?? 0n;
    let type: number | undefined;
    let to = f.to;
    if (f.type === 'CALL' && value > 0n) type = OtsOperation.Transfer;
    else if (f.type === 'SELFDESTRUCT') type = OtsOperation.SelfDestruct;
    else if (f.type === 'CREATE' || f.type === 'CREATE2') {
      type = f.type === 'CREATE' ? OtsOperation.Create : OtsOperation.Create2;
      to = f.created;
    }
    if (type === undefined || to === undefined) continue;
    out.push({ type, from: addressHex(f.from), to: addressHex(to), value: quantity(value) });
  }
  return out;
}

export interface OtsTraceEntry {
  type: string;
  depth: number;
  from: string;
  to: string;
  value: string;
  input: string;
  output: string;
}

const CALL_KINDS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL']);

/** Every call (creates and self-destructs are not listed), depth 0 at the top, in execution order. */
export function otsTraceTransaction(root: Frame): OtsTraceEntry[] {
  const out: OtsTraceEntry[] = [];
  for (const { frame: f } of walk(root)) {
    if (!CALL_KINDS.has(f.type) || f.to === undefined) continue;
    out.push({
      type: f.type,
      depth: f.depth,
      from: addressHex(f.from),
      to: addressHex(f.to),
      value: quantity(f.value ?? 0n),
      input: bytesHex(f.input),
      output: bytesHex(f.output),
    });
  }
  return out;
}

/** The top call's revert data, or "0x" when it did not revert. */
export function otsTransactionError(root: Frame): string {
  return root.rawError === 'revert' ? bytesHex(root.output) : '0x';
}
