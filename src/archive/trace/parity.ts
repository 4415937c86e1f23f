// Parity/OpenEthereum trace entries (trace_transaction, trace_block, trace_replayBlockTransactions' "trace"),
// read from the call tree of one transaction: one entry per call, create and self-destruct, depth first, with
// its trace address and the count of its direct sub-traces. The top entry's gas is what the execution was
// given (the limit less the intrinsic cost) and its gasUsed what the execution used, as Parity counts them.
import { walk, type Frame } from './frames.js';
import { addressHex, bytesHex, quantity } from './hex.js';

/** Where a transaction sits (trace_transaction and trace_block add these to each entry). */
export interface ParityTxMeta {
  readonly blockHash: Uint8Array;
  readonly blockNumber: bigint;
  readonly transactionHash: Uint8Array;
  readonly transactionPosition: number;
}

export interface ParityTrace {
  type: 'call' | 'create' | 'suicide';
  action: Record<string, string>;
  result: Record<string, string> | null;
  error?: string;
  subtraces: number;
  traceAddress: number[];
}

export type LocatedParityTrace = ParityTrace & {
  blockHash: string;
  blockNumber: number;
  transactionHash: string;
  transactionPosition: number;
};

const PARITY_ERRORS: Record<string, string> = {
  revert: 'Reverted',
  'out of gas': 'Out of gas',
  'code store out of gas': 'Out of gas',
  'invalid opcode': 'Bad instruction',
  'invalid JUMP': 'Bad jump destination',
  'stack underflow': 'Stack underflow',
  'stack overflow': 'Out of stack',
  'static state change': 'Mutable Call In Static Context',
  'value out of range': 'Out of bounds',
  'insufficient balance': 'Insufficient balance for transfer',
};

function entry(f: Frame, path: number[]): ParityTrace {
  const gas = f.execGas ?? f.gas;
  const gasUsed = f.execGasUsed ?? f.gasUsed;
  const error = f.rawError === undefined ? undefined : (PARITY_ERRORS[f.rawError] ?? f.error);
  const base = { subtraces: f.calls.length, traceAddress: path };
  if (f.type === 'SELFDESTRUCT') {
    return {
      type: 'suicide',
      action: { address: addressHex(f.from), balance: quantity(f.value ?? 0n), refundAddress: addressHex(f.to!) },
      result: null,
      ...base,
    };
  }
  const keepResult = f.rawError === undefined || f.rawError === 'revert';
  if (f.type === 'CREATE' || f.type === 'CREATE2') {
    const out: ParityTrace = {
      type: 'create',
      action: { from: addressHex(f.from), gas: quantity(gas), init: bytesHex(f.input), value: quantity(f.value ?? 0n), creationMethod: f.type.toLowerCase() },
      result: keepResult && f.created !== undefined ? { address: addressHex(f.created), code: bytesHex(f.output), gasUsed: quantity(gasUsed) } : null,
      ...base,
    };
    if (error !== undefined) out.error = error;
    return out;
  }
  const out: ParityTrace = {
    type: 'call',
    action: {
      from: addressHex(f.from),
      callType: f.type.toLowerCase(),
      gas: quantity(gas),
      input: bytesHex(f.input),
      to: addressHex(f.to!),
      value: quantity(f.value ?? 0n),
    },
    result: keepResult ? { gasUsed: quantity(gasUsed), output: bytesHex(f.output) } : null,
    ...base,
  };
  if (error !== undefined) out.error = error;
  return out;
}

/** trace_replayBlockTransactions' "trace" list of one transaction. */
export function parityTraces(root: Frame): ParityTrace[] {
  return [...walk(root)].map(({ frame, path }) => entry(frame, path));
}

/** trace_transaction's (and trace_block's) entries: each located in its block. */
export function parityLocatedTraces(root: Frame, meta: ParityTxMeta): LocatedParityTrace[] {
  return parityTraces(root).map((t) => ({
    ...t,
    blockHash: bytesHex(meta.blockHash),
    blockNumber: Number(meta.blockNumber),
    transactionHash: bytesHex(meta.transactionHash),
    transactionPosition: meta.transactionPosition,
  }));
}

/** One element of trace_replayBlockTransactions with ["trace"]: the output and the trace list. */
export function parityReplay(root: Frame, transactionHash: Uint8Array): { output: string; stateDiff: null; trace: ParityTrace[]; vmTrace: null; transactionHash: string } {
  const output = root.rawError === undefined || root.rawError === 'revert' ? bytesHex(root.output) : '0x';
  return { output, stateDiff: null, trace: parityTraces(root), vmTrace: null, transactionHash: bytesHex(transactionHash) };
}
