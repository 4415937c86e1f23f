// The canister's debug line for a produced block, written by the mining path (runtime.ts) and read back by the
// devnet's block log, the bench and the wasm tests: one module for both sides, as refusal.ts for refusals. No
// azle import, so Node code reads it too.
import { toHex } from '../core/codec/bytes.js';

/** What a produced block's line carries (core's produceBlock result, the fields the line prints). */
export interface ProducedBlockFacts {
  readonly number: bigint;
  readonly txCount: number;
  readonly gasUsed: bigint;
  readonly finalizeInstructions: bigint;
  readonly finalizeReserved: bigint;
  readonly txInstructions: readonly { readonly ethHash: Uint8Array; readonly instructions: bigint }[];
}

/**
 * The line (without the log's `[debug] ` prefix): totals, the finalisation the block took and the part reserved
 * for it, then `; tx <hash> <instructions>` per transaction, which the devnet prints for each transaction.
 * `instructions` is read after the per-transaction part is built, so the total counts building it.
 */
export function formatBlockLine(b: ProducedBlockFacts, instructions: () => bigint): string {
  const txs = b.txInstructions.map((t) => `; tx 0x${toHex(t.ethHash)} ${t.instructions}`).join('');
  return `block ${b.number}: ${b.txCount} txs, ${b.gasUsed} gas, ${instructions()} instructions, finalisation ${b.finalizeInstructions} (reserved ${b.finalizeReserved})${txs}`;
}

/** The finalisation part is absent from older canisters' lines. */
const BLOCK_LINE = /^\[debug\] block (\d+): (\d+) txs, (\d+) gas, \d+ instructions(?:, finalisation (\d+) \(reserved (\d+)\))?((?:; tx 0x[0-9a-f]{64} \d+)*)$/;
const TX_PART = /; tx (0x[0-9a-f]{64}) (\d+)/g;

export interface BlockReport {
  readonly number: bigint;
  readonly gasUsed: bigint;
  readonly txs: readonly { readonly hash: string; readonly instructions: bigint }[];
  /** Instructions from the end of transaction selection to the block's return, and the finalisation reserved for its transactions. */
  readonly finalize?: { readonly instructions: bigint; readonly reserved: bigint };
}

/** A printed line (`[debug] block ...`) back into its facts; undefined for any other line. */
export function parseBlockLine(line: string): BlockReport | undefined {
  const m = BLOCK_LINE.exec(line);
  if (m === null) return undefined;
  const txs = [...m[6]!.matchAll(TX_PART)].map((t) => ({ hash: t[1]!, instructions: BigInt(t[2]!) }));
  const finalize = m[4] === undefined ? {} : { finalize: { instructions: BigInt(m[4]), reserved: BigInt(m[5]!) } };
  return { number: BigInt(m[1]!), gasUsed: BigInt(m[3]!), txs, ...finalize };
}

/** azle's console.log prints a string argument JSON-quoted: the line as the host's debug print receives it. */
export function unquote(m: string): string {
  if (m.length < 2 || !m.startsWith('"') || !m.endsWith('"')) return m;
  try {
    const v: unknown = JSON.parse(m);
    return typeof v === 'string' ? v : m;
  } catch {
    return m;
  }
}
