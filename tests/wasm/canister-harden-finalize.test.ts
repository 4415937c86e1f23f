// Block finalisation outside the budget (docs/hardening.md, "Block production") on the real wasm, at the highest block gas limit and
// instruction soft limit the admin methods allow: blocks of transactions at both log limits (64 logs, 64 KiB),
// each block's heaviest case (a transaction of about 17 B started just under the soft limit, after others whose
// finalisation is reserved), and a transaction one byte over the log-byte limit. No timer message traps, every
// block message stays under the IC's 40 B, every valid transaction is included, and each block's finalisation
// stays within what was reserved for it plus the fixed part. The scenario: tests/support/finalize.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { IC_UPDATE_INSTRUCTION_LIMIT, MAX_LOG_BYTES_PER_TX } from '../../src/core/constants.js';
import { FINALIZE_INSTRUCTIONS_FIXED, MAX_BLOCK_GAS_LIMIT } from '../../src/core/ops/limits.js';
import { parseBlockLine, unquote, type BlockReport } from '../../src/canister/block_line.js';
import { Evm } from '../support/canister.js';
import { MAX_LIMITS_GENESIS, runMaxLimits, type MaxLimitsRun } from '../support/finalize.js';
import { selfAuthenticating } from '../support/ic.js';

const CONTROLLER = selfAuthenticating(0x91);
const blocks: BlockReport[] = [];
let evm: Evm;
let run: MaxLimitsRun;

beforeAll(async () => {
  evm = await Evm.start(
    { genesis: MAX_LIMITS_GENESIS, controllers: [CONTROLLER] },
    {
      debugPrint: (raw) => {
        const b = parseBlockLine(unquote(raw));
        if (b !== undefined) blocks.push(b);
      },
    },
  );
  run = await runMaxLimits({ host: evm.host, client: evm.client, messages: evm.messages, blocks }, CONTROLLER);
}, 600_000);
afterAll(() => evm?.close());

describe('block finalisation at the highest limits', () => {
  it('the admin methods refuse anything above the highest limits', () => {
    expect(run.refusedAbove).toEqual(['arg.invalid', 'arg.invalid']);
  });

  it('no timer message traps and every one stays under the 40 B update limit', () => {
    const written = run.messages.filter((m) => m.kind !== 'query' && m.kind !== 'inspect');
    expect(written.length).toBeGreaterThan(0);
    expect(written.filter((m) => m.trapped)).toEqual([]);
    const peak = written.reduce((a, m) => (m.instructions! > a ? m.instructions! : a), 0n);
    const perBlock = run.blocks.map((b) => `block ${b.number}: ${b.txs.map((t) => t.instructions).join(' + ')}, finalisation ${b.finalize?.instructions} (reserved ${b.finalize?.reserved})`);
    console.log(`max-limits scenario: peak message ${peak} instructions; ${perBlock.join('; ')}`);
    expect(peak).toBeLessThan(IC_UPDATE_INSTRUCTION_LIMIT);
    // The scenario reaches the heavy case it is built for, not a light one: a block whose last transaction
    // started past 10 B (two fillers) and then ran most of a whole transaction budget (the burner). Measured in
    // shares of what the block ran, not in absolute figures, so cheaper execution does not make it vacuous.
    const heavy = run.blocks.some((b) => {
      const costs = b.txs.map((t) => t.instructions);
      const last = costs[costs.length - 1] ?? 0n;
      const before = costs.slice(0, -1).reduce((a, x) => a + x, 0n);
      return before > 10_000_000_000n && last > 15_000_000_000n;
    });
    expect(heavy, perBlock.join('; ')).toBe(true);
  });

  it('includes every valid transaction, and fails the one over the log-byte limit with all gas charged', () => {
    for (const t of run.txs) expect(t.receipt, `${t.kind} receipt`).toBeDefined();
    for (const t of run.txs.filter((x) => x.kind !== 'over')) {
      expect(t.receipt!.status, t.kind).toBe(1);
      expect(t.receipt!.logs.reduce((n, l) => n + l.data.length + 32 * l.topics.length, 0)).toBe(MAX_LOG_BYTES_PER_TX);
    }
    const over = run.txs.find((t) => t.kind === 'over')!;
    expect(over.receipt).toMatchObject({ status: 0, gas_used: over.gasLimit, logs: [], failure_code: ['exec.halt.too_many_log_bytes'] });
  });

  it('each burner started just under the soft limit, after two fillers, and blocks of plain log transactions filled the gas limit', () => {
    for (const b of run.txs.filter((t) => t.kind === 'burner')) {
      expect(b.receipt!.transaction_index).toBe(2);
      const same = run.txs.filter((t) => t.receipt!.block_number === b.receipt!.block_number).map((t) => t.kind);
      expect(same).toEqual(['filler', 'filler', 'burner']);
    }
    const fullest = run.blocks.reduce((a, b) => (b.gasUsed > a ? b.gasUsed : a), 0n);
    expect(fullest).toBeGreaterThan(MAX_BLOCK_GAS_LIMIT - 800_000n);
  });

  it("each block's finalisation stays within what was reserved for its transactions plus the fixed part", () => {
    expect(run.blocks.length).toBeGreaterThanOrEqual(4);
    for (const b of run.blocks) {
      expect(b.finalize, `block ${b.number}`).toBeDefined();
      expect(b.finalize!.instructions, `block ${b.number}`).toBeLessThanOrEqual(b.finalize!.reserved + FINALIZE_INSTRUCTIONS_FIXED);
    }
  });
});
