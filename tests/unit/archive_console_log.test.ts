// console.log on the devnet: the archive's re-execution of each transaction is watched (src/devnet/archive.ts
// consoleLogPrinter), and the console.log calls it makes, directly or from a contract, are printed under the
// transaction; the canister runs the same transactions without knowing (DESIGN rule 7).
import { encodeFunctionData, parseAbiItem } from 'viem';
import { describe, expect, it } from 'vitest';
import { ArchiveFollower } from '../../src/archive/follower.js';
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
