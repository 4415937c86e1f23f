// Block finalisation outside the budget (docs/hardening.md, "Block production"), in the core: the finalisation work of every
// included transaction (receipts commitment over its log bytes, bloom, stores) is reserved inside the soft
// limit before the next transaction starts, so a block of log-heavy transactions stops earlier than a block
// of log-free ones with the same execution cost; what is not reserved (the last transaction's own finalisation,
// the state commit) is bounded by the log limits and the highest block gas limit, and fits the message's
// finalisation reserve. The real wasm at the highest limits: tests/wasm/canister-harden-finalize.test.ts.
import { describe, expect, it } from 'vitest';
import { finalizeCost } from '../../src/core/chain/producer.js';
import { IC_UPDATE_INSTRUCTION_LIMIT, MAX_LOG_BYTES_PER_TX, MAX_LOGS_PER_TX, TX_INSTRUCTION_BUDGET } from '../../src/core/constants.js';
import { ErrorCode } from '../../src/core/errors.js';
import { COMMITMENT_VERSION, type CommitmentVersion } from '../../src/core/chain/commitments.js';
import {
  BLOCK_FINALIZATION_RESERVE,
  FINALIZE_INSTRUCTIONS_FIXED,
  FINALIZE_INSTRUCTIONS_PER_LOG,
  FINALIZE_INSTRUCTIONS_PER_LOG_BYTE_V1,
  FINALIZE_INSTRUCTIONS_PER_LOG_BYTE_V2,
  FINALIZE_INSTRUCTIONS_PER_TX,
  MAX_BLOCK_GAS_LIMIT,
  MAX_INSTRUCTION_SOFT_LIMIT,
  MIN_INSTRUCTION_SOFT_LIMIT,
  lastTxFinalizeBound,
  stateCommitBound,
} from '../../src/core/ops/limits.js';
import { ETH, FakeEngine, key, LOG_MARK, okValue, sign1559 } from '../support/chain_testkit.js';
import { MemoryCoreHost } from '../../src/core/host.js';
import { EvmCore } from '../../src/core/index.js';

async function chain(instructionsPerTx: bigint, commitmentVersion: CommitmentVersion = COMMITMENT_VERSION) {
  const host = new MemoryCoreHost();
  const engine = new FakeEngine(host, instructionsPerTx);
  const core = new EvmCore(host, engine);
  const senders = Array.from({ length: 20 }, (_, i) => key(100 + i));
  okValue(await core.init({ genesisAllocations: senders.map((k) => ({ address: k.address, balance: ETH })), instructionSoftLimit: 1_000_000_000n, blockGasLimit: 30_000_000n, commitmentVersion }));
  return { core, senders };
}

/** FakeEngine's logs for `data: [LOG_MARK, 64]`: 64 logs of 3 data bytes and 2 topics. */
const markedLogs = () => Array.from({ length: 64 }, () => ({ address: new Uint8Array(20), topics: [new Uint8Array(32), new Uint8Array(32)], data: new Uint8Array(3) }));

describe('finalisation work counts against the soft limit', () => {
  it('a block of log-heavy transactions reserves their finalisation before starting the next one', async () => {
    expect(MIN_INSTRUCTION_SOFT_LIMIT).toBeLessThan(1_000_000_000n);
    const perTx = 100_000_000n;
    const plain = await chain(perTx);
    for (const k of plain.senders) okValue(plain.core.submitRawTx(sign1559(k, { gasLimit: 100_000n })));
    const a = await plain.core.produceBlock();
    const heavy = await chain(perTx);
    // 64 logs each (3 data bytes, 2 topics): about 0.1 B of finalisation a transaction.
    for (const k of heavy.senders) okValue(heavy.core.submitRawTx(sign1559(k, { gasLimit: 100_000n, data: Uint8Array.of(LOG_MARK, 64) })));
    const b = await heavy.core.produceBlock();
    expect(a.kind === 'Produced' && b.kind === 'Produced').toBe(true);
    if (a.kind !== 'Produced' || b.kind !== 'Produced') return;
    const reserve = finalizeCost(markedLogs(), COMMITMENT_VERSION);
    // Plain: 10 transactions reach 1 B. Heavy: each one also reserves its finalisation.
    expect(a.txCount).toBe(10);
    expect(b.txCount).toBe(Number((1_000_000_000n + perTx + reserve - 1n) / (perTx + reserve)));
    expect(b.txCount).toBeLessThan(a.txCount);
    expect(b.stop).toBe('soft_limit');
    expect(a.finalizeReserved).toBe(BigInt(a.txCount) * finalizeCost([], COMMITMENT_VERSION));
    expect(b.finalizeReserved).toBe(BigInt(b.txCount) * reserve);
  });

  it('a log byte reserves by the chain\'s commitment version: a version-2 (BLAKE3) block takes more log-heavy transactions, a version-1 (keccak256) chain keeps its reserve', async () => {
    const perTx = 100_000_000n;
    const blocks = [];
    for (const v of [1, 2] as const) {
      const c = await chain(perTx, v);
      for (const k of c.senders) okValue(c.core.submitRawTx(sign1559(k, { gasLimit: 100_000n, data: Uint8Array.of(LOG_MARK, 64) })));
      const b = await c.core.produceBlock();
      if (b.kind !== 'Produced') throw new Error(`version ${v}: no block`);
      blocks.push(b);
    }
    const [v1, v2] = blocks as [(typeof blocks)[0], (typeof blocks)[0]];
    const bytes = 64n * (3n + 2n * 32n);
    // Version 1 reserves what it did before versions existed: 16,000 a byte.
    expect(finalizeCost(markedLogs(), 1)).toBe(FINALIZE_INSTRUCTIONS_PER_TX + 64n * FINALIZE_INSTRUCTIONS_PER_LOG + 16_000n * bytes);
    expect(finalizeCost(markedLogs(), 2)).toBe(FINALIZE_INSTRUCTIONS_PER_TX + 64n * FINALIZE_INSTRUCTIONS_PER_LOG + FINALIZE_INSTRUCTIONS_PER_LOG_BYTE_V2 * bytes);
    expect(FINALIZE_INSTRUCTIONS_PER_LOG_BYTE_V2).toBeLessThan(FINALIZE_INSTRUCTIONS_PER_LOG_BYTE_V1);
    for (const [b, v] of [[v1, 1], [v2, 2]] as const) {
      const reserve = finalizeCost(markedLogs(), v);
      expect(b.stop).toBe('soft_limit');
      expect(b.txCount).toBe(Number((1_000_000_000n + perTx + reserve - 1n) / (perTx + reserve)));
      expect(b.finalizeReserved).toBe(BigInt(b.txCount) * reserve);
    }
    expect(v1.txCount).toBe(5);
    expect(v2.txCount).toBe(6);
  });
});

describe('what is not reserved fits the finalisation reserve at the highest limits', () => {
  it('soft limit + one whole transaction + the last one\'s finalisation + the state commit + the fixed part stay within 40 B', () => {
    const unreserved = lastTxFinalizeBound() + stateCommitBound(MAX_BLOCK_GAS_LIMIT) + FINALIZE_INSTRUCTIONS_FIXED;
    expect(unreserved).toBeLessThan(BLOCK_FINALIZATION_RESERVE);
    expect(MAX_INSTRUCTION_SOFT_LIMIT + TX_INSTRUCTION_BUDGET + BLOCK_FINALIZATION_RESERVE).toBeLessThanOrEqual(IC_UPDATE_INSTRUCTION_LIMIT);
    // The bound is what the producer reserves for a transaction at both log limits.
    const perLog = MAX_LOG_BYTES_PER_TX / MAX_LOGS_PER_TX - 128;
    const atLimits = Array.from({ length: MAX_LOGS_PER_TX }, () => ({ address: new Uint8Array(20), topics: Array.from({ length: 4 }, () => new Uint8Array(32)), data: new Uint8Array(perLog) }));
    expect(finalizeCost(atLimits, 1)).toBe(lastTxFinalizeBound());
    expect(finalizeCost(atLimits, 1)).toBe(lastTxFinalizeBound(1));
    expect(finalizeCost(atLimits, 2)).toBe(lastTxFinalizeBound(2));
    // Version 1's is the largest: the one the reserve must hold.
    expect(lastTxFinalizeBound(2)).toBeLessThan(lastTxFinalizeBound());
  });

  it('set_block_gas_limit refuses a limit above MAX_BLOCK_GAS_LIMIT', async () => {
    const { core } = await chain(1n);
    const refused = core.setBlockGasLimit(MAX_BLOCK_GAS_LIMIT + 1n);
    expect(!refused.ok && refused.error.code).toBe(ErrorCode.ArgInvalid);
    expect(core.getConfig().blockGasLimit).toBe(30_000_000n);
    okValue(core.setBlockGasLimit(MAX_BLOCK_GAS_LIMIT));
    expect(core.getConfig().blockGasLimit).toBe(MAX_BLOCK_GAS_LIMIT);
  });
});
