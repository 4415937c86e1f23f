// Field-by-field comparison of two JSON answers: every path where they differ, with both values.
export interface Difference {
  readonly path: string;
  readonly anvil: unknown;
  readonly ours: unknown;
}

export function jsonDiff(anvil: unknown, ours: unknown, path = '$'): Difference[] {
  if (anvil === ours) return [];
  if (typeof anvil !== 'object' || typeof ours !== 'object' || anvil === null || ours === null || Array.isArray(anvil) !== Array.isArray(ours)) {
    return [{ path, anvil, ours }];
  }
  const out: Difference[] = [];
  if (Array.isArray(anvil) && Array.isArray(ours)) {
    for (let i = 0; i < Math.max(anvil.length, ours.length); i++) out.push(...jsonDiff(anvil[i], ours[i], `${path}[${i}]`));
    return out;
  }
  const a = anvil as Record<string, unknown>;
  const o = ours as Record<string, unknown>;
  for (const k of new Set([...Object.keys(a), ...Object.keys(o)])) out.push(...jsonDiff(a[k], o[k], `${path}.${k}`));
  return out;
}

/** What the deviations need to know about the transaction compared. */
export interface DiffContext {
  /** The transaction's gas limit, 0x-hex. */
  readonly txGas: string;
  /** anvil's receipt of it. */
  readonly receipt: { gasUsed: string; cumulativeGasUsed: string };
  /** Logs emitted by the block's earlier transactions. */
  readonly priorLogs: number;
  readonly anvilRoot: any;
  readonly oursRoot: any;
  /** The struct logger's `limit`, when given. */
  readonly limit?: number;
}

/**
 * Where anvil (its tracers, revm-inspectors) answers differently from geth, whose shapes the tracers follow.
 * Each difference between anvil's answer and ours must be one of these, named, or the test fails; none of
 * them comes from the chain (both ran the same transactions on the same state). docs/traces.md lists them.
 */
export interface Deviation {
  readonly name: string;
  readonly why: string;
  readonly matches: (d: Difference, ctx: DiffContext) => boolean;
}

const last = (path: string) => path.slice(path.lastIndexOf('.') + 1);
const isStructLogField = (d: Difference, field: string) => /\.structLogs\[\d+\]\.[a-zA-Z]+$/.test(d.path) && last(d.path) === field;

export const ANVIL_DEVIATIONS: readonly Deviation[] = [
  {
    name: 'callTracer: gas of the top call',
    why: "geth gives the transaction's gas limit (call.go sets the top frame's gas to tx.Gas()); anvil gives the gas left after the intrinsic cost",
    matches: (d, c) => /^\$(\.callTracer)?\.gas$/.test(d.path) && d.ours === c.txGas && typeof d.anvil === 'string' && BigInt(d.anvil) < BigInt(c.txGas),
  },
  {
    name: 'gas used by a later transaction of a block',
    why: "geth gives the transaction's own gas used (callTracer's top gasUsed, the struct logger's gas); anvil gives the block's cumulative gas used up to it",
    matches: (d, c) =>
      BigInt(c.receipt.cumulativeGasUsed) !== BigInt(c.receipt.gasUsed) &&
      ((/^\$(\.callTracer)?\.gasUsed$/.test(d.path) && d.anvil === c.receipt.cumulativeGasUsed && d.ours === c.receipt.gasUsed) ||
        (d.path === '$.gas' && d.anvil === Number(c.receipt.cumulativeGasUsed) && d.ours === Number(c.receipt.gasUsed))),
  },
  {
    name: 'callTracer withLog: log index',
    why: "geth's log index counts from the block's first log (log.Index); anvil's from the transaction's first",
    matches: (d, c) =>
      /\.logs\[\d+\]\.index$/.test(d.path) && typeof d.anvil === 'string' && typeof d.ours === 'string' && BigInt(d.ours) - BigInt(d.anvil) === BigInt(c.priorLogs),
  },
  {
    name: 'prestateTracer: codeHash',
    why: 'geth (since 1.16) reports each account\'s codeHash next to its code; anvil does not',
    matches: (d) => last(d.path) === 'codeHash' && d.anvil === undefined && typeof d.ours === 'string',
  },
  {
    name: 'prestateTracer: empty accounts',
    why: 'geth leaves out accounts with no balance, nonce or code when first looked up (unless includeEmpty); anvil lists them',
    matches: (d) =>
      /^\$(\.pre)?\.0x[0-9a-f]{40}$/.test(d.path) &&
      d.ours === undefined &&
      typeof d.anvil === 'object' &&
      d.anvil !== null &&
      (d.anvil as { balance?: string }).balance === '0x0' &&
      (d.anvil as { nonce?: number }).nonce === undefined &&
      (d.anvil as { code?: string }).code === undefined,
  },
  {
    name: 'callTracer withLog: logs of a failed frame',
    why: "geth drops the logs of a frame that failed and of its sub-calls (clearFailedLogs); anvil keeps the failed top frame's logs",
    matches: (d, c) => d.path === '$.logs' && d.ours === undefined && c.oursRoot.error !== undefined,
  },
  {
    name: 'callTracer onlyTopCall: SELFDESTRUCT of the top frame',
    why: 'geth reports a self-destruct as a call one level down, which onlyTopCall leaves out; anvil keeps it',
    matches: (d) => d.path === '$.calls' && d.ours === undefined && Array.isArray(d.anvil) && d.anvil.every((x: { type?: string }) => x.type === 'SELFDESTRUCT'),
  },
  {
    name: 'struct logger: empty fields',
    why: 'geth omits an empty returnData, an empty memory and a zero refund counter (omitempty); anvil writes "0x", [] and 0',
    matches: (d) =>
      d.ours === undefined &&
      ((isStructLogField(d, 'returnData') && d.anvil === '0x') ||
        (isStructLogField(d, 'memory') && Array.isArray(d.anvil) && d.anvil.length === 0) ||
        (isStructLogField(d, 'refund') && d.anvil === 0)),
  },
  {
    name: 'struct logger: gasCost of CREATE and CREATE2',
    why: "geth's cost of a create is its own (32000, memory, init code words); anvil adds the gas handed to the new contract",
    matches: (d, c) => {
      const m = /^\$\.structLogs\[(\d+)\]\.gasCost$/.exec(d.path);
      const op = m === null ? undefined : c.oursRoot.structLogs[Number(m[1])]?.op;
      return (op === 'CREATE' || op === 'CREATE2') && typeof d.anvil === 'number' && typeof d.ours === 'number' && d.anvil > d.ours;
    },
  },
  {
    name: 'struct logger: the failing step',
    why: 'geth writes its error text ("out of gas: not enough gas for reentrancy sentry") and, for SSTORE, the value it tried to store; anvil writes revm\'s error name ("Some(ReentrancySentryOOG)") and the value left in the slot',
    matches: (d, c) => {
      const m = /^\$\.structLogs\[(\d+)\]\.(error|storage\.0x[0-9a-f]{64})$/.exec(d.path);
      if (m === null) return false;
      const i = Number(m[1]);
      const failing = c.oursRoot.structLogs[i]?.error !== undefined && i === c.oursRoot.structLogs.length - 1;
      return failing && (m[2] === 'error' ? typeof d.anvil === 'string' && /^Some\(/.test(d.anvil) : c.oursRoot.structLogs[i].op === 'SSTORE');
    },
  },
  {
    name: 'struct logger: limit',
    why: "geth's `limit` bounds the entries' JSON bytes (the log stops once they pass it); anvil counts entries",
    matches: (d, c) => {
      const m = /^\$\.structLogs\[(\d+)\]$/.exec(d.path);
      return m !== null && d.ours === undefined && c.limit !== undefined && Number(m[1]) >= c.oursRoot.structLogs.length;
    },
  },
];

/** The differences no deviation explains, and how many each deviation explained. */
export function classify(diffs: readonly Difference[], ctx: DiffContext): { unexplained: Difference[]; counts: Map<string, number> } {
  const counts = new Map<string, number>();
  const unexplained: Difference[] = [];
  for (const d of diffs) {
    const dev = ANVIL_DEVIATIONS.find((x) => x.matches(d, ctx));
    if (dev === undefined) unexplained.push(d);
    else counts.set(dev.name, (counts.get(dev.name) ?? 0) + 1);
  }
  return { unexplained, counts };
}
