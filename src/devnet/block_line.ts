// The canister's debug line for a produced block (src/canister/runtime.ts), parsed for the devnet's block log,
// the bench and the wasm tests.

/**
 * The canister's debug line for a produced block (src/canister/runtime.ts): totals, the finalisation it took and
 * the part reserved for it (absent from older canisters), then `; tx <hash> <instructions>` per transaction.
 */
const BLOCK_LINE = /^\[debug\] block (\d+): (\d+) txs, (\d+) gas, \d+ instructions(?:, finalisation (\d+) \(reserved (\d+)\))?((?:; tx 0x[0-9a-f]{64} \d+)*)$/;
const TX_PART = /; tx (0x[0-9a-f]{64}) (\d+)/g;

export interface BlockReport {
  readonly number: bigint;
  readonly gasUsed: bigint;
  readonly txs: readonly { readonly hash: string; readonly instructions: bigint }[];
  /** Instructions from the end of transaction selection to the block's return, and the finalisation reserved for its transactions. */
  readonly finalize?: { readonly instructions: bigint; readonly reserved: bigint };
}

export function parseBlockLine(line: string): BlockReport | undefined {
  const m = BLOCK_LINE.exec(line);
  if (m === null) return undefined;
  const txs = [...m[6]!.matchAll(TX_PART)].map((t) => ({ hash: t[1]!, instructions: BigInt(t[2]!) }));
  const finalize = m[4] === undefined ? {} : { finalize: { instructions: BigInt(m[4]), reserved: BigInt(m[5]!) } };
  return { number: BigInt(m[1]!), gasUsed: BigInt(m[3]!), txs, ...finalize };
}

/** azle's console.log prints a string argument JSON-quoted. */
export function unquote(m: string): string {
  if (m.length < 2 || !m.startsWith('"') || !m.endsWith('"')) return m;
  try {
    const v: unknown = JSON.parse(m);
    return typeof v === 'string' ? v : m;
  } catch {
    return m;
  }
}
