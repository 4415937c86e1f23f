// The per-instance replacements of internals.ts (memoised Common lookups, the journal's warm-address entry)
// answer exactly what EthereumJS's own methods answer, also after the Common changes hardfork.
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { describe, expect, it } from 'vitest';
import { createChainCommon } from '../../src/core/evm/common.js';
import { EthereumJsShapeError, fastAlwaysWarmAddress, memoizeCommonLookups } from '../../src/core/evm/internals.js';
import { newEngine } from '../support/evm_fixtures.js';

const HARDFORKS = Object.values(Hardfork) as string[];
const EIPS = Array.from({ length: 8300 }, (_, i) => i);

function sameAnswers(memo: Common, plain: Common): void {
  for (const eip of EIPS) expect(memo.isActivatedEIP(eip)).toBe(plain.isActivatedEIP(eip));
  for (const hf of HARDFORKS) expect(memo.gteHardfork(hf)).toBe(plain.gteHardfork(hf));
  expect(memo.consensusType()).toBe(plain.consensusType());
}

describe('memoizeCommonLookups', () => {
  it('answers as the unmemoised Common, before and after setHardfork, and on copies', () => {
    const memo = createChainCommon();
    const plain = createChainCommon();
    memoizeCommonLookups(memo);
    sameAnswers(memo, plain);
    // London -> Paris -> London: the consensus type changes (pow, pos) and the memo must follow
    for (const hf of [Hardfork.Cancun, Hardfork.Berlin, Hardfork.London, Hardfork.Paris, Hardfork.London, Hardfork.Prague]) {
      memo.setHardfork(hf);
      plain.setHardfork(hf);
      sameAnswers(memo, plain);
    }
    const copy = memo.copy();
    memoizeCommonLookups(copy);
    copy.setHardfork(Hardfork.London);
    const plainLondon = plain.copy();
    plainLondon.setHardfork(Hardfork.London);
    sameAnswers(copy, plainLondon);
    expect(copy.consensusType()).toBe('pow');
    sameAnswers(memo, plain);
  });

  it('names the field when the Common no longer has it', () => {
    const c = new Common({ chain: Mainnet });
    Object.defineProperty(c, '_activatedEIPsCache', { value: undefined });
    expect(() => memoizeCommonLookups(c)).toThrow(EthereumJsShapeError);
    expect(() => memoizeCommonLookups(c)).toThrow(/_activatedEIPsCache/);
  });
});

describe('fastAlwaysWarmAddress', () => {
  it('adds the same keys as the original for prefixed and unprefixed addresses', async () => {
    const { engine } = await newEngine();
    const journal = (engine.vm.evm as unknown as { journal: { alwaysWarmJournal: Map<string, Set<string>>; accessList?: Map<string, Set<string>>; addAlwaysWarmAddress(a: string, b?: boolean): void; cleanJournal(): void } }).journal;
    fastAlwaysWarmAddress(engine.vm.evm);
    const proto = Object.getPrototypeOf(journal) as { addAlwaysWarmAddress(this: unknown, a: string, b?: boolean): void };
    const inputs = ['0000000000000000000000000000000000000001', '0xAbCd00000000000000000000000000000000ffff', '0x', 'x1', '0xzz'];
    const run = (add: (a: string, b?: boolean) => void): [string[], string[]] => {
      journal.cleanJournal();
      journal.accessList = new Map();
      for (const a of inputs) add(a, true);
      add('0000000000000000000000000000000000000002');
      const out: [string[], string[]] = [[...journal.alwaysWarmJournal.keys()], [...journal.accessList.keys()]];
      delete journal.accessList;
      return out;
    };
    const fast = run((a, b) => journal.addAlwaysWarmAddress(a, b));
    const orig = run((a, b) => proto.addAlwaysWarmAddress.call(journal, a, b));
    expect(fast).toEqual(orig);
    journal.cleanJournal();
  });
});
