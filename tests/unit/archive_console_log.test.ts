// console.log on the devnet: the archive's re-execution of each transaction is watched (src/devnet/archive.ts
// consoleLogPrinter), and the console.log calls it makes, directly or from a contract, are printed under the
// transaction; the canister runs the same transactions without knowing (DESIGN rule 7). eth_call and
// eth_estimateGas are re-run on the archive after the gateway answered them (src/devnet/call_console.ts) and
// their lines printed under the call.
import { encodeFunctionData, parseAbiItem } from 'viem';
import { describe, expect, it } from 'vitest';
import { ArchiveFollower } from '../../src/archive/follower.js';
import { ArchiveReader } from '../../src/archive/reader.js';
import { CallConsolePrinter } from '../../src/devnet/call_console.js';
import { callObject } from '../../src/gateway/methods/common.js';
import { CONSOLE_ADDRESS } from '../../src/devnet/console_log.js';
import { consoleLogPrinter } from '../../src/devnet/archive.js';
import { fromHex, toHex } from '../../src/gateway/hex.js';
import { openDb } from '../../src/indexer/db.js';
import { A, ArchiveTestChain } from '../support/archive_chain.js';
import { asm, deployCode } from '../support/asm.js';

const CONSOLE = fromHex(CONSOLE_ADDRESS);
const logCall = (sig: string, args: unknown[]): Uint8Array => fromHex(encodeFunctionData({ abi: [parseAbiItem(`function ${sig}`)], args }));
/** Forwards its calldata to the console address, then stops. */
const FORWARDER = asm('CALLDATASIZE', 0, 0, 'CALLDATACOPY', 0, 0, 'CALLDATASIZE', 0, 0, Uint8Array.of(0x73, ...CONSOLE), 'GAS', 'CALL', 'POP', 'STOP');
/** The same, then reverts (Hardhat and anvil print the lines of a call that reverts). */
const REVERTING_FORWARDER = asm('CALLDATASIZE', 0, 0, 'CALLDATACOPY', 0, 0, 'CALLDATASIZE', 0, 0, Uint8Array.of(0x73, ...CONSOLE), 'GAS', 'CALL', 'POP', 0, 0, 'REVERT');
const hexOf = (b: Uint8Array): string => `0x${toHex(b)}`;

describe('console.log on the devnet', () => {
  it('prints the console.log calls of each replayed transaction under it, direct and from a contract', async () => {
    const chain = await ArchiveTestChain.create();
    const forwarder = chain.send(A, { to: null, data: deployCode(FORWARDER) });
    await chain.mine();
    chain.send(A, { to: CONSOLE, data: logCall('log(string,uint256)', ['x', 1n]) });
    chain.send(A, { to: forwarder, data: logCall('log(string,address)', ['from a contract', `0x${toHex(A.address)}`]) });
    await chain.mine();
    // A transaction that logs nothing prints nothing.
    chain.send(A, { to: forwarder, data: new Uint8Array(0) });
    await chain.mine();
    const db = await openDb({ memory: true });
    try {
      const printed: string[] = [];
      const f = new ArchiveFollower({ client: chain.client(), db, chainId: 4801360n, log: () => {}, observer: consoleLogPrinter((l) => printed.push(l)) });
      await f.run({ untilCaughtUp: true });
      expect(f.status().alarm).toBeUndefined();
      const blocks = chain.exportedBlocks();
      const txHash = (block: number, i: number) => `0x${toHex(blocks[block]!.txs[i]!.ethHash)}`;
      expect(printed).toEqual([
        `console.log (block 2, tx ${txHash(2, 0)}):`,
        '    x 1',
        `console.log (block 2, tx ${txHash(2, 1)}):`,
        `    from a contract 0x${toHex(A.address)}`,
      ]);
    } finally {
      await db.close();
    }
  });
});

describe('console.log of eth_call and eth_estimateGas on the devnet', () => {
  it('re-runs each call on the archive at the block it ran on and prints its lines under it', async () => {
    const chain = await ArchiveTestChain.create();
    const forwarder = chain.send(A, { to: null, data: deployCode(FORWARDER) });
    const reverting = chain.send(A, { to: null, data: deployCode(REVERTING_FORWARDER) });
    await chain.mine();
    chain.send(A, { to: forwarder, data: new Uint8Array(0) });
    await chain.mine();
    const db = await openDb({ memory: true });
    try {
      await new ArchiveFollower({ client: chain.client(), db, chainId: 4801360n, log: () => {} }).run({ untilCaughtUp: true });
      const reader = new ArchiveReader(db);
      const head = await reader.headBlock();
      expect(head).toBe(2n);
      const printed: string[] = [];
      const p = new CallConsolePrinter({ reader, head: () => head, log: (l) => printed.push(l), waitMs: 50 });
      const call = (to: Uint8Array, data: Uint8Array) => callObject({ to: hexOf(to), data: hexOf(data) });
      p.called('eth_call', call(CONSOLE, logCall('log(string,uint256)', ['x', 1n])), undefined);
      p.called('eth_estimateGas', call(forwarder, logCall('log(string,address)', ['from a contract', hexOf(A.address)])), undefined);
      p.called('eth_call', call(reverting, logCall('log(string)', ['then reverts'])), 1n);
      // Nothing logged: nothing printed. A block the archive does not hold (yet): skipped after the wait.
      p.called('eth_call', call(forwarder, new Uint8Array(0)), undefined);
      p.called('eth_call', call(CONSOLE, logCall('log(string)', ['not archived'])), head + 1n);
      await p.idle();
      expect(printed).toEqual([
        `console.log (eth_call to ${CONSOLE_ADDRESS}, block 2):`,
        '    x 1',
        `console.log (eth_estimateGas to ${hexOf(forwarder)}, block 2):`,
        `    from a contract ${hexOf(A.address)}`,
        `console.log (eth_call to ${hexOf(reverting)}, block 1):`,
        '    then reverts',
      ]);
      // After close nothing more is re-run.
      await p.close();
      p.called('eth_call', call(CONSOLE, logCall('log(string)', ['closed'])), undefined);
      await p.idle();
      expect(printed).toHaveLength(6);
    } finally {
      await db.close();
    }
  });

  it('re-runs nothing on a chain whose code never mentions the console address', async () => {
    const chain = await ArchiveTestChain.create();
    const plain = chain.send(A, { to: null, data: deployCode(asm(1, 0, 'SSTORE', 'STOP')) });
    await chain.mine();
    const db = await openDb({ memory: true });
    try {
      await new ArchiveFollower({ client: chain.client(), db, chainId: 4801360n, log: () => {} }).run({ untilCaughtUp: true });
      const reader = new ArchiveReader(db);
      let reruns = 0;
      const call = reader.call.bind(reader);
      reader.call = (...a) => {
        reruns++;
        return call(...a);
      };
      const printed: string[] = [];
      const p = new CallConsolePrinter({ reader, head: () => 1n, log: (l) => printed.push(l) });
      for (let i = 0; i < 5; i++) p.called('eth_call', callObject({ to: hexOf(plain), data: '0x1234' }), undefined);
      await p.idle();
      expect(reruns).toBe(0);
      // A direct call to the console address is still re-run (and printed).
      p.called('eth_call', callObject({ to: CONSOLE_ADDRESS, data: hexOf(logCall('log(uint256)', [7n])) }), undefined);
      await p.idle();
      expect(reruns).toBe(1);
      expect(printed).toEqual([`console.log (eth_call to ${CONSOLE_ADDRESS}, block 1):`, '    7']);
    } finally {
      await db.close();
    }
  });
});
