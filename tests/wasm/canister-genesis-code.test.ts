// The `genesis_code` init argument: accounts hold the given runtime code from block 0 (the devnet's predeploys,
// or a production install's), readable by eth_getCode and callable in the first block; an account given a
// balance too keeps it; malformed entries make the install fail instead of starting a chain without them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATE2_DEPLOYER, MULTICALL3 } from '../../src/devnet/predeploys.js';
import { IcHost } from '../../src/host/index.js';
import { WASM_PATH } from '../../src/devnet/build.js';
import { CANISTER_ID, Evm, initArgs, LATEST } from '../support/canister.js';
import { account, cat, ETH, feeMarketTx, fromHex, GWEI, keccak } from '../support/eth.js';

const alice = account(41);
const both = fromHex('0x00000000000000000000000000000000000c0de1');
// Runtime that returns the word 42: PUSH1 42 PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN.
const answer = fromHex('0x602a60005260206000f3');
let evm: Evm;

beforeAll(async () => {
  evm = await Evm.start({
    genesis: [
      { address: alice.address, balance: 10n * ETH },
      { address: both, balance: 5n * ETH },
    ],
    genesisCode: [
      { address: fromHex(MULTICALL3.address), code: fromHex(MULTICALL3.code) },
      { address: fromHex(CREATE2_DEPLOYER.address), code: fromHex(CREATE2_DEPLOYER.code) },
      { address: both, code: answer },
    ],
  });
}, 120_000);
afterAll(() => evm?.close());

describe('genesis_code', () => {
  it('eth_getCode answers the code from block 0, byte for byte; balances given as well are kept', () => {
    expect(evm.blockNumber()).toBe(0n);
    for (const p of [MULTICALL3, CREATE2_DEPLOYER]) {
      const code = evm.ok<Uint8Array>('rpc_eth_get_code', fromHex(p.address), LATEST);
      expect(`0x${Buffer.from(keccak(code)).toString('hex')}`, p.name).toBe(p.codeHash);
      expect(Buffer.from(code).equals(Buffer.from(fromHex(p.code)))).toBe(true);
    }
    expect(Buffer.from(evm.ok<Uint8Array>('rpc_eth_get_code', both, LATEST)).equals(Buffer.from(answer))).toBe(true);
    expect(evm.balance(both)).toBe(5n * ETH);
    expect(evm.ok<bigint>('rpc_eth_get_transaction_count_at', both, LATEST)).toBe(1n);
  });

  it('the code runs: an eth_call gets its answer, and a CREATE2 through the deployer lands at the predicted address', async () => {
    const call = (to: Uint8Array, data: Uint8Array) =>
      evm.ok<Uint8Array>(
        'rpc_eth_call_object',
        { to: [to], from: [], gas: [], gas_price: [], value: [], data: [data], nonce: [], max_fee_per_gas: [], max_priority_fee_per_gas: [], chain_id: [], tx_type: [], access_list: [] },
        LATEST,
      );
    expect(BigInt(`0x${Buffer.from(call(both, new Uint8Array())).toString('hex')}`)).toBe(42n);
    // Multicall3.getChainId()
    expect(BigInt(`0x${Buffer.from(call(fromHex(MULTICALL3.address), fromHex('0x3408e470'))).toString('hex')}`)).toBe(4801360n);
    // Init code deploying `answer`: PUSH10 <answer> PUSH1 0 MSTORE PUSH1 10 PUSH1 22 RETURN.
    const init = cat(fromHex('0x69'), answer, fromHex('0x600052600a6016f3'));
    const salt = new Uint8Array(32).fill(7);
    const deployer = fromHex(CREATE2_DEPLOYER.address);
    const predicted = keccak(cat(fromHex('0xff'), deployer, salt, keccak(init))).subarray(12);
    expect(Buffer.from(call(deployer, cat(salt, init))).equals(Buffer.from(predicted))).toBe(true);
    const txId = await evm.submit(feeMarketTx(alice, { nonce: 0n, to: deployer, data: cat(salt, init), gasLimit: 200_000n, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI }));
    await evm.mine();
    expect(evm.receipt(txId)?.status).toBe(1);
    expect(Buffer.from(evm.ok<Uint8Array>('rpc_eth_get_code', predicted, LATEST)).equals(Buffer.from(answer))).toBe(true);
  });

  it('refuses an install with oversized, empty, or repeated code entries', async () => {
    const bad = [
      [{ address: both, code: new Uint8Array(24_577).fill(0x5b) }],
      [{ address: both, code: new Uint8Array() }],
      [
        { address: both, code: answer },
        { address: both, code: answer },
      ],
      [{ address: new Uint8Array(19), code: answer }],
    ];
    for (const genesisCode of bad) {
      const host = await IcHost.create({ wasm: WASM_PATH, canisterId: CANISTER_ID, debugPrint: () => {} });
      try {
        await expect(host.install(initArgs({ genesisCode }))).rejects.toThrow();
      } finally {
        host.close();
      }
    }
  });
});
