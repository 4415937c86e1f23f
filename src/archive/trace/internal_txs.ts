// The indexer's view of a transaction's internal transactions: one row per frame below the top call (calls,
// creates, self-destructs), depth first, with its trace address, as the indexer stores them.
import { walk, type Frame } from './frames.js';

export interface InternalTx {
  /** Child indexes from the top call (Parity's traceAddress); never empty. */
  readonly traceAddress: number[];
  readonly type: Frame['type'];
  readonly from: Uint8Array;
  /** The callee, the created contract (also when its creation failed), or the self-destruct's beneficiary. */
  readonly to: Uint8Array | undefined;
  readonly value: bigint;
  readonly gas: bigint;
  readonly gasUsed: bigint;
  /** geth's error text, when the frame failed. */
  readonly error: string | undefined;
  /** The first four bytes of a call's input (undefined for creates and self-destructs, or shorter input). */
  readonly selector: Uint8Array | undefined;
  /** True when this frame or one above it failed: its effects (value moved, contract created) did not last. */
  readonly reverted: boolean;
}

export function internalTransactions(root: Frame): InternalTx[] {
  const out: InternalTx[] = [];
  const failedAt = new Map<Frame, boolean>();
  for (const { frame: f, path } of walk(root)) {
    const parent = path.length === 0 ? false : failedAt.get(parentOf(root, path)!) === true;
    const reverted = parent || f.error !== undefined;
    failedAt.set(f, reverted);
    if (path.length === 0) continue;
    const isCall = f.type !== 'CREATE' && f.type !== 'CREATE2' && f.type !== 'SELFDESTRUCT';
    out.push({
      traceAddress: path,
      type: f.type,
      from: f.from,
      to: f.type === 'CREATE' || f.type === 'CREATE2' ? f.created : f.to,
      value: f.value ?? 0n,
      gas: f.gas,
      gasUsed: f.gasUsed,
      error: f.error,
      selector: isCall && f.input.length >= 4 ? f.input.slice(0, 4) : undefined,
      reverted,
    });
  }
  return out;
}

function parentOf(root: Frame, path: readonly number[]): Frame | undefined {
  let f: Frame | undefined = root;
  for (const i of path.slice(0, -1)) f = f?.calls[i];
  return f;
}
