// The canister's block debug line: what runtime.ts writes (formatBlockLine, printed with the log's `[debug] `
// prefix and JSON-quoted by azle's console.log) is what the devnet, the bench and the wasm tests read back.
import { describe, expect, it } from 'vitest';
import { formatBlockLine, parseBlockLine, unquote } from '../../src/canister/block_line.js';

describe('block debug line', () => {
  it('reads back what it writes, per transaction and with the finalisation figures', () => {
    const hash = (b: number): Uint8Array => new Uint8Array(32).fill(b);
    let read = 0;
    const line = formatBlockLine(
      {
        number: 42n,
        txCount: 2,
        gasUsed: 63_000n,
        finalizeInstructions: 1_234_567n,
        finalizeReserved: 2_000_000n,
        txInstructions: [
          { ethHash: hash(0xab), instructions: 8_000_000n },
          { ethHash: hash(0x01), instructions: 9_500_000n },
        ],
      },
      () => BigInt(++read * 77),
    );
    expect(read).toBe(1);
    expect(line).toBe(
      `block 42: 2 txs, 63000 gas, 77 instructions, finalisation 1234567 (reserved 2000000); tx 0x${'ab'.repeat(32)} 8000000; tx 0x${'01'.repeat(32)} 9500000`,
    );
    const printed = JSON.stringify(`[debug] ${line}`);
    expect(parseBlockLine(unquote(printed))).toEqual({
      number: 42n,
      gasUsed: 63_000n,
      txs: [
        { hash: `0x${'ab'.repeat(32)}`, instructions: 8_000_000n },
        { hash: `0x${'01'.repeat(32)}`, instructions: 9_500_000n },
      ],
      finalize: { instructions: 1_234_567n, reserved: 2_000_000n },
    });
  });

  it('reads an older canister line without finalisation, and nothing else', () => {
    expect(parseBlockLine('[debug] block 7: 0 txs, 0 gas, 5 instructions')).toEqual({ number: 7n, gasUsed: 0n, txs: [] });
    expect(parseBlockLine('[info] block 7: 0 txs, 0 gas, 5 instructions')).toBeUndefined();
    expect(parseBlockLine('[debug] block 7: 0 txs')).toBeUndefined();
    expect(unquote('"not json')).toBe('"not json');
  });
});
