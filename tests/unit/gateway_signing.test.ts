// The development accounts' methods in the gateway with a fake canister: without a signer (a gateway in front of a
// canister on the IC) they answer as before; with the devnet's signer, what the caller left out is filled from
// the canister's own answers and the signed bytes go the eth_sendRawTransaction path. Also the devnet's client
// version and its override.
import { parseTransaction, recoverTransactionAddress, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { devAccounts, devSigner } from '../../src/devnet/accounts.js';
import { DEVNET_CLIENT_VERSION, devnetGatewayConfig } from '../../src/devnet/config.js';
import { RpcError } from '../../src/gateway/errors.js';
import { METHOD_TABLE } from '../../src/gateway/methods/index.js';
import { FakeClient, fakeContext } from '../support/gateway_fake.js';

const GWEI = 10n ** 9n;
const accounts = devAccounts();
const signer = devSigner(accounts);

async function outcome(method: string, params: unknown[], ctx: ReturnType<typeof fakeContext>): Promise<unknown> {
  try {
    return await METHOD_TABLE.get(method)!.handler(params, ctx);
  } catch (e) {
    if (e instanceof RpcError) return e.toJSON();
    throw e;
  }
}

function chain(): FakeClient {
  return new FakeClient({
    rpc_eth_chain_id: () => 4801360n,
    rpc_eth_get_transaction_count_at: () => ({ Ok: 5n }),
    rpc_eth_max_priority_fee_per_gas: () => ({ Ok: 250n * GWEI }),
    rpc_eth_gas_price: () => ({ Ok: 500n * GWEI }),
    rpc_eth_estimate_gas_object: () => ({ Ok: 21_000n }),
    rpc_eth_block_number: () => 7n,
    rpc_eth_get_block_by_number: () => [{ gas_limit: 3_000_000n }],
  });
}

describe('gateway: development accounts', () => {
  it('without a signer: eth_accounts is [] and every signing method is -32601, touching no canister method', async () => {
    const f = chain();
    const ctx = fakeContext(f);
    expect(await outcome('eth_accounts', [], ctx)).toEqual([]);
    for (const [m, p] of [
      ['eth_sendTransaction', [{ from: accounts[0]!.address, to: accounts[1]!.address }]],
      ['eth_signTransaction', [{ from: accounts[0]!.address }]],
      ['eth_sign', [accounts[0]!.address, '0x00']],
      ['personal_sign', ['0x00', accounts[0]!.address]],
      ['eth_signTypedData_v4', [accounts[0]!.address, {}]],
    ] as const) {
      const e = (await outcome(m, [...p], ctx)) as { code: number; message: string };
      expect(e.code, m).toBe(-32601);
      expect(e.message).toContain('holds no keys');
    }
    expect(f.calls).toEqual([]);
  });

  it('with the devnet signer: eth_signTransaction fills nonce (pending), gas (estimate), fees and chain id', async () => {
    const f = chain();
    const ctx = { ...fakeContext(f), signer };
    const from = accounts[4]!.address.toLowerCase();
    expect(await outcome('eth_accounts', [], ctx)).toEqual(accounts.map((a) => a.address.toLowerCase()));
    const raw = (await outcome('eth_signTransaction', [{ from, to: accounts[5]!.address, value: '0x9' }], ctx)) as Hex;
    const tx = parseTransaction(raw);
    expect(tx).toMatchObject({ type: 'eip1559', chainId: 4801360, nonce: 5, gas: 21_000n, maxFeePerGas: 500n * GWEI, maxPriorityFeePerGas: 250n * GWEI, value: 9n });
    expect((await recoverTransactionAddress({ serializedTransaction: raw as never })).toLowerCase()).toBe(from);
    const count = f.calls.find((c) => c.method === 'rpc_eth_get_transaction_count_at')!;
    expect(count.args[1]).toEqual({ Pending: null });
    // A gas price (no type) is a legacy transaction; given fields are kept and not asked for (a given gas is
    // only compared with the head block's gas limit).
    const before = f.calls.length;
    const legacy = parseTransaction((await outcome('eth_signTransaction', [{ from, to: from, gasPrice: '0x1', nonce: '0x0', gas: '0x5208' }], ctx)) as Hex);
    expect(legacy).toMatchObject({ type: 'legacy', gasPrice: 1n, nonce: 0, gas: 21_000n });
    expect(f.calls.slice(before).map((c) => [c.method, c.args])).toEqual([
      ['rpc_eth_block_number', []],
      ['rpc_eth_get_block_by_number', [7n, false]],
    ]);
    // A gas above the block gas limit (hardhat-ethers' 2^24 for a node answering hardhat_metadata) is lowered to it.
    const hardhat = parseTransaction((await outcome('eth_signTransaction', [{ from, to: from, gas: '0x1000000' }], ctx)) as Hex);
    expect(hardhat).toMatchObject({ type: 'eip1559', gas: 3_000_000n });
    // Bad combinations and unknown accounts are -32602.
    expect(((await outcome('eth_signTransaction', [{ from, type: '0x2', gasPrice: '0x1' }], ctx)) as { code: number }).code).toBe(-32602);
    expect(await outcome('eth_sign', ['0x2222222222222222222222222222222222222222', '0x00'], ctx)).toEqual({ code: -32602, message: 'No Signer available' });
  });

  it('the devnet names itself HardhatNetwork unless RPC_GATEWAY_CLIENT_VERSION says otherwise', () => {
    expect(devnetGatewayConfig({}).clientVersion).toBe(DEVNET_CLIENT_VERSION);
    expect(DEVNET_CLIENT_VERSION.toLowerCase().startsWith('hardhatnetwork')).toBe(true);
    expect(devnetGatewayConfig({ RPC_GATEWAY_CLIENT_VERSION: 'mine/1' }).clientVersion).toBe('mine/1');
  });
});
