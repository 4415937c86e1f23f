// console.log decoding (src/devnet/console_log.ts): the committed selector table is the one Hardhat's console.sol
// gives; every line is what Hardhat's own decoder prints for the same calldata (run side by side on generated
// calls); hostile calldata never throws; and the hook collects the lines of a contract compiled with
// hardhat/console.sol (solc-js) running on a stock EthereumJS VM.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';
import { Address, createAccount, hexToBytes } from '@ethereumjs/util';
import { createVM } from '@ethereumjs/vm';
import { encodeFunctionData, parseAbiItem, toFunctionSelector, type Abi, type AbiFunction, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { renderConsoleSignatures } from '../../scripts/gen-console-signatures.js';
import { attachConsoleLog, CONSOLE_ADDRESS, decodeConsoleArgs, formatConsoleLog, MAX_LINES } from '../../src/devnet/console_log.js';
import { CONSOLE_SIGNATURES } from '../../src/devnet/console_signatures.js';
import { rng } from '../support/random.js';

const require = createRequire(import.meta.url);
const ROOT = join(import.meta.dirname, '..', '..');
// Hardhat's decoder of console.sol calls (what `npx hardhat node` prints), for the side-by-side comparison.
const { ConsoleLogger } = require('hardhat/internal/hardhat-network/stack-traces/consoleLogger') as { ConsoleLogger: { getDecodedLogs(m: Buffer[]): string[] } };
const hardhatLine = (calldata: Hex): string | undefined => ConsoleLogger.getDecodedLogs([Buffer.from(calldata.slice(2), 'hex')])[0];
const bytes = (h: Hex): Uint8Array => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));

describe('console.log decoding', () => {
  it('the committed table is the signatures of the console.sol installed', () => {
    expect(readFileSync(join(ROOT, 'src', 'devnet', 'console_signatures.ts'), 'utf8')).toBe(renderConsoleSignatures());
    expect(CONSOLE_SIGNATURES.length).toBeGreaterThan(370);
  });

  it("prints every signature's calls as Hardhat's own decoder does", () => {
    const draw = rng(7);
    const next = () => draw(2 ** 32);
    const value = (t: string): unknown => {
      const r = next();
      if (t === 'uint256') return [0n, 1n, 42n, (1n << 256n) - 1n, BigInt(r)][r % 5];
      if (t === 'int256') return [0n, -1n, -(1n << 255n), (1n << 255n) - 1n, BigInt(r) - 2n ** 31n][r % 5];
      if (t === 'bool') return r % 2 === 0;
      if (t === 'address') return `0x${r.toString(16).padStart(8, '0').repeat(5)}`;
      if (t === 'string') return ['', 'x', 'value %d of %s', '100%% sure %i', 'ünïcødé ✓', 'a'.repeat(100)][r % 6];
      if (t === 'bytes') return `0x${'ab'.repeat(r % 70)}`;
      const n = Number(t.slice(5));
      return `0x${(r.toString(16).padStart(8, '0').repeat(8)).slice(0, 2 * n)}`;
    };
    let compared = 0;
    for (const sig of CONSOLE_SIGNATURES) {
      const item = parseAbiItem(`function ${sig}`) as AbiFunction;
      for (let k = 0; k < 3; k++) {
        const data = encodeFunctionData({ abi: [item] as Abi, args: item.inputs.map((i) => value(i.type)) });
        expect(formatConsoleLog(bytes(data)), `${sig} ${data}`).toBe(hardhatLine(data));
        compared++;
      }
    }
    expect(compared).toBe(CONSOLE_SIGNATURES.length * 3);
  });

  it('examples; the legacy uint/int selectors; unknown selectors', () => {
    const log = (sig: string, args: unknown[]) => formatConsoleLog(bytes(encodeFunctionData({ abi: [parseAbiItem(`function ${sig}`)] as Abi, args })));
    expect(log('log(string,uint256)', ['x', 1n])).toBe('x 1');
    expect(log('log(string,address,uint256)', ['sender %s value %d', '0x00000000000000000000000000000000000000AA', 10n ** 30n])).toBe('sender 0x00000000000000000000000000000000000000aa value 1000000000000000000000000000000');
    expect(log('log(int256)', [-7n])).toBe('-7');
    // console.sol before Hardhat 2.9 encoded `log(uint)`: the same argument, another selector.
    const legacy = `${toFunctionSelector('log(uint)')}${'0'.repeat(63)}9` as Hex;
    expect(formatConsoleLog(bytes(legacy))).toBe('9');
    expect(formatConsoleLog(bytes(`0x12345678${'0'.repeat(64)}`))).toBeUndefined();
    expect(formatConsoleLog(new Uint8Array([1, 2]))).toBeUndefined();
  });

  it('hostile calldata (short, offsets and lengths past the end, random bytes) is not a line and never throws', () => {
    const sel = toFunctionSelector('log(string)');
    const w = (n: bigint) => n.toString(16).padStart(64, '0');
    for (const tail of ['', w(32n), w(2n ** 255n), w(32n) + w(2n ** 64n), w(32n) + w(100n) + 'ab', w(0xffffffffn) + w(1n)]) {
      expect(decodeConsoleArgs(bytes(`${sel}${tail}` as Hex)), tail).toBeUndefined();
    }
    const draw = rng(11);
    const next = () => draw(2 ** 32);
    const sigs = CONSOLE_SIGNATURES.map((s) => toFunctionSelector(s).slice(2));
    for (let i = 0; i < 3000; i++) {
      const len = next() % 300;
      const body = Array.from({ length: len }, () => (next() % 256).toString(16).padStart(2, '0')).join('');
      const data = bytes(`0x${sigs[next() % sigs.length]}${body}` as Hex);
      expect(() => formatConsoleLog(data)).not.toThrow();
    }
  });
});

describe('the console.log hook on a stock EthereumJS EVM', () => {
  function compile(): { runtime: { ConsoleUser: Hex } ; abi: unknown[] } {
    const solc = require('solc') as { compile(input: string, opts: { import(p: string): { contents: string } | { error: string } }): string };
    const file = 'ConsoleUser.sol';
    const input = {
      language: 'Solidity',
      sources: { [file]: { content: readFileSync(join(ROOT, 'tests', 'fixtures', 'solidity', file), 'utf8') } },
      settings: { evmVersion: 'prague', outputSelection: { '*': { '*': ['abi', 'evm.deployedBytecode.object'] } } },
    };
    const out = JSON.parse(
      solc.compile(JSON.stringify(input), {
        import: (p) => (p === 'hardhat/console.sol' ? { contents: readFileSync(require.resolve('hardhat/console.sol'), 'utf8') } : { error: `not found: ${p}` }),
      }),
    ) as { errors?: { severity: string; formattedMessage: string }[]; contracts: Record<string, Record<string, { abi: unknown[]; evm: { deployedBytecode: { object: string } } }>> };
    const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
    if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
    const c = out.contracts[file]!.ConsoleUser!;
    return { runtime: { ConsoleUser: `0x${c.evm.deployedBytecode.object}` }, abi: c.abi };
  }

  it('collects each call\'s lines in order, nested calls and reverted ones included, and stops when detached', async () => {
    const { runtime, abi } = compile();
    const common = createCustomCommon({ chainId: 4801360 }, Mainnet, { hardfork: Hardfork.Prague });
    const vm = await createVM({ common });
    const at = new Address(hexToBytes('0x00000000000000000000000000000000000c0de1'));
    const caller = new Address(hexToBytes('0x00000000000000000000000000000000000000a1'));
    await vm.stateManager.putAccount(caller, createAccount({ balance: 10n ** 18n }));
    await vm.stateManager.putAccount(at, createAccount({ nonce: 1n }));
    await vm.stateManager.putCode(at, hexToBytes(runtime.ConsoleUser));
    const logs = attachConsoleLog(vm.evm as never);
    const call = (fn: 'run' | 'fails', args: unknown[] = []) =>
      vm.evm.runCall({ to: at, caller, origin: caller, gasLimit: 5_000_000n, data: hexToBytes(encodeFunctionData({ abi: abi as Abi, functionName: fn, args })) });

    const r = await call('run', [7n]);
    expect(r.execResult.exceptionError).toBeUndefined();
    expect(logs.take()).toEqual(['x 1', `sender ${caller.toString()} value 7`, 'true minus 5', '-5', '0xdeadbeef', 'inner deployed']);
    expect(logs.take()).toEqual([]);

    const f = await call('fails');
    expect(f.execResult.exceptionError).toBeDefined();
    expect(logs.take()).toEqual(['before the revert']);

    logs.detach();
    await call('run', [1n]);
    expect(logs.take()).toEqual([]);
    expect(CONSOLE_ADDRESS).toBe('0x000000000000000000636F6e736F6c652e6c6f67'.toLowerCase());
  });

  it('keeps at most MAX_LINES lines between takes and says how many it dropped', async () => {
    const listeners: ((m: { to?: { bytes: Uint8Array }; data: Uint8Array }) => void)[] = [];
    const evm = { events: { on: (_e: string, l: (typeof listeners)[number]) => listeners.push(l), off: () => {} } };
    const logs = attachConsoleLog(evm as never);
    const to = { bytes: bytes(CONSOLE_ADDRESS as Hex) };
    const data = bytes(encodeFunctionData({ abi: [parseAbiItem('function log(uint256)')], args: [5n] }));
    for (let i = 0; i < MAX_LINES + 3; i++) listeners[0]!({ to, data });
    const got = logs.take();
    expect(got.length).toBe(MAX_LINES + 1);
    expect(got.at(-1)).toBe('(3 more console.log lines not shown)');
  });
});
