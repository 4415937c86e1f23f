// What the archive reports when its re-execution disagrees with the canister: the block, the transaction (its
// index and hash when the difference is in one) and the first field that differs, with both values.
import { toHex } from '../core/codec/bytes.js';

export interface Mismatch {
  readonly block: bigint;
  readonly txIndex?: number;
  readonly txHash?: string;
  /** e.g. `receipt.gasUsed`, `receipt.logs[0].data`, `block.stateRoot`. */
  readonly field: string;
  /** What the canister exported. */
  readonly exported: string;
  /** What the archive's re-execution gives. */
  readonly replayed: string;
}

/** One log line: `archive: MISMATCH at block 12, tx 0 (0xab..): receipt.gasUsed exported 21000, replayed 21001`. */
export function describeMismatch(m: Mismatch): string {
  const tx = m.txIndex === undefined ? '' : `, tx ${m.txIndex}${m.txHash === undefined ? '' : ` (${m.txHash})`}`;
  return `archive: MISMATCH at block ${m.block}${tx}: ${m.field} exported ${m.exported}, replayed ${m.replayed}; the archive stopped at block ${m.block - 1n} and serves nothing past it`;
}

export const hex = (b: Uint8Array | undefined): string => (b === undefined ? 'none' : `0x${toHex(b)}`);
