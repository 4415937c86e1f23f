// rpc_eth_get_logs_filtered over 10,000 blocks of ERC-20 traffic (one transfer a block, mined on the real
// wasm): a selective filter (the token's address and an indexed `to` that 10 of the transfers go to), whose
// blocks the logsBloom rules out without reading their logs, and a non-selective one (every Transfer of the
// token) for comparison. Figures: the most instructions one page took, and the pages needed to read the range.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { encodeDeployData, encodeFunctionData, type Abi } from 'viem';
import { compileFixture } from '../tests/fixtures/solidity/compile.js';
import { logFilter } from '../tests/support/read.js';
import { account, BenchChain, signTx } from './support.js';
import type { Report } from './evm.js';
import type { Measured } from '../src/client/host.js';
import type { CandidResult, LogCursorView as LogCursor, LogPageView } from '../src/client/schema.js';
import { fromHex } from '../src/gateway/hex.js';

const BLOCKS = 10_000;
/** Every this-many-th transfer goes to the watched account: 10 of 10,000. */
const EVERY = 1000;
const addrHex = (a: Uint8Array): `0x${string}` => `0x${Buffer.from(a).toString('hex')}`;
const padTopic = (a: Uint8Array): Uint8Array => {
  const t = new Uint8Array(32);
  t.set(a, 12);
  return t;
};
const TRANSFER = keccak_256(new TextEncoder().encode('Transfer(address,address,uint256)'));

interface PageRun {
  readonly pages: number;
  readonly maxInstructions: bigint;
  readonly logs: number;
}

export async function benchLogFilters(report: Report): Promise<void> {
  const holder = account(300);
  const chain = await BenchChain.start({ accounts: [holder] });
  try {
    const token = compileFixture('Token.sol', 'Token');
    const abi = token.abi as Abi;
    const deploy = signTx(holder, { data: fromHex(encodeDeployData({ abi, bytecode: token.bytecode, args: ['Bench', 'BNCH', 10n ** 30n] })), gasLimit: 2_000_000n });
    await chain.submit(deploy);
    await chain.mine();
    const tokenAddress = chain.receipt(keccak_256(deploy)).contract_address[0]!;
    const me = account(301).address;
    const first = chain.blockNumber() + 1n;
    for (let i = 0; i < BLOCKS; i++) {
      // 999 other recipients in turn, and the watched account every EVERY-th block.
      const to = i % EVERY === EVERY - 1 ? me : account(1000 + (i % (EVERY - 1))).address;
      const data = fromHex(encodeFunctionData({ abi, functionName: 'transfer', args: [addrHex(to), BigInt(i + 1)] }));
      await chain.submit(signTx(holder, { to: tokenAddress, data, gasLimit: 100_000n }));
      await chain.mine();
    }
    const last = chain.blockNumber();

    const read = (topics: (Uint8Array[] | null)[]): PageRun => {
      const filter = logFilter({ from_block: { Number: first }, to_block: { Number: last }, address: [tokenAddress], topics: topics as never });
      let cursor: [] | [LogCursor] = [];
      let pages = 0;
      let maxInstructions = 0n;
      let logs = 0;
      for (;;) {
        const r: Measured<CandidResult<LogPageView>> = chain.evm.queryMeasured('rpc_eth_get_logs_filtered', [filter, cursor, []]);
        if ('Err' in r.value) throw new Error(`get_logs_filtered: ${r.value.Err.code} ${r.value.Err.message}`);
        pages++;
        logs += r.value.Ok.logs.length;
        if ((r.instructions ?? 0n) > maxInstructions) maxInstructions = r.instructions ?? 0n;
        cursor = r.value.Ok.next_cursor;
        if (cursor.length === 0) return { pages, maxInstructions, logs };
      }
    };
    // topics: [Transfer, any from, to = me]: an address condition and a topic condition the bloom tests.
    const selective = read([[TRANSFER], null, [padTopic(me)]]);
    if (selective.logs !== BLOCKS / EVERY) throw new Error(`selective filter: expected ${BLOCKS / EVERY} logs, got ${selective.logs}`);
    report('query.get_logs_filtered.selective_10k_blocks.instructions_per_page', selective.maxInstructions, 'instructions');
    report('query.get_logs_filtered.selective_10k_blocks.pages', selective.pages, 'pages');
    const all = read([[TRANSFER]]);
    if (all.logs !== BLOCKS) throw new Error(`non-selective filter: expected ${BLOCKS} logs, got ${all.logs}`);
    report('query.get_logs_filtered.all_transfers_10k_blocks.instructions_per_page', all.maxInstructions, 'instructions');
    report('query.get_logs_filtered.all_transfers_10k_blocks.pages', all.pages, 'pages');
  } finally {
    chain.close();
  }
}
