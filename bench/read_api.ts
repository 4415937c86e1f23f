// Read API costs (query methods), measured with the host's instruction counter on the real wasm: eth_call of
// an ERC-20 balanceOf, eth_estimateGas of an ERC-20 transfer (the whole search in one query), and a page of
// 1000 logs (LOG3 with 32 bytes of data, the shape of an ERC-20 Transfer event); then log filters over 10,000
// blocks (bench/log_filters.ts).
import { keccak_256 } from '@noble/hashes/sha3.js';
import { encodeDeployData, encodeFunctionData, type Abi } from 'viem';
import { compileFixture } from '../tests/fixtures/solidity/compile.js';
import { EMITTER_RUNTIME, callObject, logFilter } from '../tests/support/read.js';
import { benchLogFilters } from './log_filters.js';
import { account, BenchChain, deployCode, median, signTx, u256 } from './support.js';
import type { Report } from './evm.js';
import { fromHex } from '../src/gateway/hex.js';

const addrHex = (a: Uint8Array): `0x${string}` => `0x${Buffer.from(a).toString('hex')}`;
const LATEST = { Latest: null };

export async function benchReadApi(report: Report): Promise<void> {
  const holder = account(100);
  const chain = await BenchChain.start({ accounts: [holder] });
  try {
    const token = compileFixture('Token.sol', 'Token');
    const abi = token.abi as Abi;
    const deploy = signTx(holder, { data: fromHex(encodeDeployData({ abi, bytecode: token.bytecode, args: ['Bench', 'BNCH', 10n ** 30n] })), gasLimit: 2_000_000n });
    const emitterDeploy = signTx(holder, { data: deployCode(EMITTER_RUNTIME), gasLimit: 200_000n });
    await chain.submit(deploy);
    await chain.submit(emitterDeploy);
    await chain.mine();
    const tokenAddress = chain.receipt(keccak_256(deploy)).contract_address[0]!;
    const emitter = chain.receipt(keccak_256(emitterDeploy)).contract_address[0]!;

    const query = (method: 'rpc_eth_call_object' | 'rpc_eth_estimate_gas_object', data: Uint8Array): bigint => {
      const r = chain.evm.queryMeasured(method, [callObject({ from: holder.address, to: tokenAddress, data }), LATEST]);
      if ('Err' in r.value) throw new Error(`${method}: ${r.value.Err.code}`);
      return r.instructions ?? 0n;
    };
    const balanceOf = fromHex(encodeFunctionData({ abi, functionName: 'balanceOf', args: [addrHex(holder.address)] }));
    report('query.eth_call.erc20_balance_of.instructions', median([0, 1, 2].map(() => query('rpc_eth_call_object', balanceOf))), 'instructions');
    const transfer = fromHex(encodeFunctionData({ abi, functionName: 'transfer', args: [addrHex(account(101).address), 1000n] }));
    report('query.estimate_gas.erc20_transfer.instructions', median([0, 1, 2].map(() => query('rpc_eth_estimate_gas_object', transfer))), 'instructions');

    // The receipt of a reverted transaction (its failure code is stored text): a transfer above the balance.
    const tooMuch = fromHex(encodeFunctionData({ abi, functionName: 'transfer', args: [addrHex(account(101).address), 10n ** 31n] }));
    const reverted = signTx(holder, { to: tokenAddress, data: tooMuch, gasLimit: 100_000n });
    await chain.submit(reverted);
    await chain.mine();
    const receipt = chain.evm.queryMeasured('rpc_eth_get_transaction_receipt_by_eth_hash', [keccak_256(reverted)]);
    if (receipt.value.length === 0 || receipt.value[0].status !== 0) throw new Error('expected the receipt of a reverted transaction');
    report('query.get_receipt.reverted.instructions', receipt.instructions ?? 0n, 'instructions');

    // 16 transactions of 64 logs each (1024 logs; two blocks, the instruction soft limit splits them), then
    // the first page (1000 logs, the maximum).
    for (let i = 0; i < 16; i++) await chain.submit(signTx(holder, { to: emitter, data: u256(64n), gasLimit: 400_000n }));
    while (chain.evm.querySync('health', []).pending_txs > 0n) await chain.mine();
    const page = chain.evm.queryMeasured('rpc_eth_get_logs_paged', [logFilter({ from_block: { Number: 0n } }), [], []]);
    if ('Err' in page.value || page.value.Ok.logs.length !== 1000) throw new Error('get_logs: expected a page of 1000 logs');
    report('query.get_logs.1000_logs.instructions', page.instructions ?? 0n, 'instructions');
  } finally {
    chain.close();
  }
  await benchLogFilters(report);
}
