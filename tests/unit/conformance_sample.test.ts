// A fixed sample of the Ethereum Foundation's state tests through the engine (scripts/conformance/runner.ts);
// CI runs the whole suite with `npm run conformance`. The fixtures live outside the repository
// (../shared/conformance, or ICP_EVM_CONFORMANCE_DIR): without them the test says why it is skipped.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConformanceRunner, type VectorResult, defaultFixturesDir, fixtureFiles } from '../../scripts/conformance/runner.js';

const ROOT = join(import.meta.dirname, '..', '..');
const DIR = join(defaultFixturesDir(ROOT), 'GeneralStateTests');
const missing = existsSync(DIR) ? undefined : `no conformance fixtures at ${DIR} (set ICP_EVM_CONFORMANCE_DIR)`;
if (missing !== undefined) console.warn(`conformance sample skipped: ${missing}`);

/** Folders and files of the sample: opcodes, fees, transaction rules, creation, logs, precompile edge cases. */
const SAMPLE = [
  'stExample',
  'VMTests/vmArithmeticTest',
  'VMTests/vmBitwiseLogicOperation',
  'VMTests/vmLogTest',
  'Cancun/stEIP5656-MCOPY',
  'Cancun/stEIP1153-transientStorage/10_revertUndoesStoreAfterReturn.json',
  'Cancun/stEIP1153-transientStorage/17_tstoreGas.json',
  'Cancun/stEIP1153-transientStorage/transStorageOK.json',
  'stEIP1559',
  'stEIP3607',
  'stChainId',
  'stSelfBalance',
  'stShift',
  'stRefundTest',
  'stLogTests',
  'stTransactionTest',
  'stEIP2930',
  'stInitCodeTest',
  'stCreate2',
  'stPreCompiledContracts/modexp.json',
  'stPreCompiledContracts/idPrecomps.json',
  'stReturnDataTest/modexp_modsize0_returndatasize.json',
  'stSystemOperationsTest/CallRecursiveBombLog.json',
  'stRandom/randomStatetest36.json',
];

describe.skipIf(missing !== undefined)('conformance sample (Cancun)', () => {
  it('passes every applicable vector; limits are counted apart; huge precompile prices just fail the call', async () => {
    const runner = await ConformanceRunner.create('Cancun');
    const results: VectorResult[] = [];
    for (const entry of SAMPLE) {
      const files = entry.endsWith('.json') ? [join(DIR, entry)] : fixtureFiles(join(DIR, entry));
      expect(files.length, entry).toBeGreaterThan(0);
      for (const f of files) results.push(...(await runner.runFile(f, f.slice(DIR.length + 1))).results);
    }
    const failures = results.filter((r) => r.verdict === 'fail').map((r) => `${r.file} ${r.test} #${r.index}: ${r.reason}`);
    expect(failures).toEqual([]);
    expect(results.filter((r) => r.verdict === 'pass').length).toBeGreaterThan(3000);
    // More than 64 logs in one transaction: the service's limit, never a pass.
    const bomb = results.filter((r) => r.file.endsWith('CallRecursiveBombLog.json'));
    expect(bomb.map((r) => [r.verdict, r.reason])).toEqual([['service_limit', 'exec.halt.too_many_logs']]);
    // More than 64 KiB of log data and topics in one transaction: also the service's limit.
    const bytes = results.filter((r) => r.file.endsWith('randomStatetest36.json'));
    expect(bytes.map((r) => [r.verdict, r.reason])).toEqual([['service_limit', 'exec.halt.too_many_log_bytes']]);
    // MODEXP priced about 3.9e76 gas, or with empty operands: the call fails or returns at once, no halt.
    const modexp = results.filter((r) => r.file.endsWith('modexp.json') || r.file.endsWith('modexp_modsize0_returndatasize.json'));
    expect(modexp.length).toBe(157);
    expect(modexp.every((r) => r.verdict === 'pass')).toBe(true);
  }, 300_000);
});
