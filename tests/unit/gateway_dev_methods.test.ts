// The devnet-only development methods at the gateway's edge: -32601 without a DevControl (a gateway in front
// of a real canister), parameters decoded into typed values (-32602 otherwise), anvil's answer shapes.
import { describe, expect, it } from 'vitest';
import type { AccountEdit, DevControl, ImpersonatedTx, MineSpacing } from '../../src/gateway/methods/dev.js';
import { devAccounts, devSigner } from '../../src/devnet/accounts.js';
import { DEV_METHODS } from '../../src/gateway/methods/dev_table.js';
import { handleBody } from '../../src/gateway/rpc.js';
import { FakeClient, fakeContext } from '../support/gateway_fake.js';

const req = (method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

class RecordingDev implements DevControl {
  calls: unknown[][] = [];
  automining = true;
  miningInterval: number | undefined = undefined;
  instanceId = '0x' + '11'.repeat(32);
  private readonly imp = new Set<string>();
  auto = false;
  async mine(blocks: number, spacing?: MineSpacing) {
    this.calls.push(spacing === undefined ? ['mine', blocks] : ['mine', blocks, spacing]);
  }
  setAutomine(on: boolean) {
    this.calls.push(['setAutomine', on]);
  }
  async setIntervalMining(s: number) {
    this.calls.push(['setIntervalMining', s]);
  }
  async setBlockGasLimit(g: bigint) {
    this.calls.push(['setBlockGasLimit', g]);
  }
  snapshot() {
    this.calls.push(['snapshot']);
    return 10n;
  }
  async revert(id: bigint) {
    this.calls.push(['revert', id]);
    return id === 10n;
  }
  snapshots() {
    return [{ id: 10n, number: 3n, hash: '0x' + 'ab'.repeat(32) }];
  }
  async reset() {
    this.calls.push(['reset']);
    return undefined;
  }
  increaseTime(s: bigint) {
    this.calls.push(['increaseTime', s]);
    return s + 1n;
  }
  async setNextBlockTimestamp(ts: bigint) {
    this.calls.push(['setNextBlockTimestamp', ts]);
    return ts < 100n ? 'timestamp is not after the head block' : undefined;
  }
  async setAccount(e: AccountEdit) {
    this.calls.push(['setAccount', { ...e, address: hex(e.address), ...(e.code ? { code: hex(e.code) } : {}), ...(e.storage ? { storage: e.storage.map((x) => [hex(x.slot), hex(x.value)]) } : {}) }]);
  }
  impersonate(a: `0x${string}`) {
    this.imp.add(a);
  }
  stopImpersonating(a: `0x${string}`) {
    return this.imp.delete(a);
  }
  autoImpersonate(on: boolean) {
    this.auto = on;
  }
  isImpersonated(a: `0x${string}`) {
    return this.auto || this.imp.has(a);
  }
  impersonated() {
    return [...this.imp] as `0x${string}`[];
  }
  async submitImpersonated(tx: ImpersonatedTx) {
    this.calls.push(['submitImpersonated', hex(tx.from), tx.nonce, tx.gasLimit]);
    return new Uint8Array([7]);
  }
  async dropTransaction(h: Uint8Array) {
    this.calls.push(['dropTransaction', hex(h)]);
    return h[0] === 1;
  }
  async setNextBlockBaseFee(f: bigint) {
    this.calls.push(['setNextBlockBaseFee', f]);
  }
  async setCoinbase(a: Uint8Array) {
    this.calls.push(['setCoinbase', hex(a)]);
  }
}

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const withDev = (dev: DevControl) => ({ ...fakeContext(new FakeClient({})), dev });

describe('development methods', () => {
  it('are -32601 without the devnet', async () => {
    const ctx = fakeContext(new FakeClient({}));
    for (const m of ['evm_mine', 'evm_snapshot', 'evm_revert', 'evm_increaseTime', 'evm_setNextBlockTimestamp', 'evm_setAutomine']) {
      expect(await handleBody(req(m, []), ctx)).toMatchObject({ error: { code: -32601, message: expect.stringMatching(/devnet only/) } });
    }
  });

  it('decode their parameters and answer as anvil does', async () => {
    const dev = new RecordingDev();
    const ctx = withDev(dev);
    const result = async (m: string, p: unknown[]) => ((await handleBody(req(m, p), ctx)) as { result: unknown }).result;
    expect(await result('evm_mine', [])).toBe('0x0');
    expect(await result('evm_mine', [{ blocks: '0x3', timestamp: 200 }])).toBe('0x0');
    expect(await result('evm_mine', [300])).toBe('0x0');
    expect(await result('evm_setAutomine', [false])).toBe(null);
    expect(await result('evm_snapshot', [])).toBe('0xa');
    expect(await result('evm_revert', ['0xa'])).toBe(true);
    expect(await result('evm_revert', ['0xb'])).toBe(false);
    expect(await result('evm_increaseTime', ['0x10'])).toBe(17);
    expect(await result('evm_setNextBlockTimestamp', [1000])).toBe(null);
    expect(dev.calls).toEqual([
      ['mine', 1],
      ['setNextBlockTimestamp', 200n],
      ['mine', 3],
      ['setNextBlockTimestamp', 300n],
      ['mine', 1],
      ['setAutomine', false],
      ['snapshot'],
      ['revert', 10n],
      ['revert', 11n],
      ['increaseTime', 16n],
      ['setNextBlockTimestamp', 1000n],
    ]);
  });

  it('refuse bad parameters with -32602 before doing anything', async () => {
    const dev = new RecordingDev();
    const ctx = withDev(dev);
    for (const [m, p] of [
      ['evm_mine', [{ blocks: 0 }]],
      ['evm_mine', [{ blocks: 1001 }]],
      ['evm_mine', [{ block: 1 }]],
      ['evm_mine', [-1]],
      ['evm_mine', [1, 2]],
      ['evm_setAutomine', ['true']],
      ['evm_setAutomine', []],
      ['evm_snapshot', [1]],
      ['evm_revert', [{}]],
      ['evm_increaseTime', [-5]],
      ['evm_increaseTime', [1.5]],
      ['evm_increaseTime', ['0x' + 'f'.repeat(40)]],
      ['evm_setNextBlockTimestamp', ['soon']],
    ] as const) {
      expect(await handleBody(req(m, [...p]), ctx), `${m} ${JSON.stringify(p)}`).toMatchObject({ error: { code: -32602 } });
    }
    expect(dev.calls).toEqual([]);
    // A refused timestamp mines nothing.
    expect(await handleBody(req('evm_mine', [50]), ctx)).toMatchObject({ error: { code: -32602, message: expect.stringMatching(/not after/) } });
    expect(dev.calls).toEqual([['setNextBlockTimestamp', 50n]]);
  });
});

describe('anvil_* / hardhat_* development methods', () => {
  const A = '0x00000000000000000000000000000000000000aa';
  const W5 = '0x' + '00'.repeat(31) + '05';
  const outcome = async (ctx: ReturnType<typeof withDev>, m: string, p: unknown[]) => {
    const r = (await handleBody(req(m, p), ctx)) as { result?: unknown; error?: { code: number; message: string } };
    return 'error' in r ? { error: r.error } : r.result;
  };

  it('are all -32601 without the devnet, under both prefixes', async () => {
    const ctx = fakeContext(new FakeClient({}));
    const names = DEV_METHODS.map((m) => m.name);
    for (const suffix of ['setBalance', 'setCode', 'setNonce', 'setStorageAt', 'impersonateAccount', 'stopImpersonatingAccount', 'mine', 'dropTransaction', 'setNextBlockBaseFeePerGas', 'setCoinbase', 'setMinGasPrice', 'reset', 'getAutomine', 'metadata']) {
      for (const p of ['anvil', 'hardhat']) expect(names, `${p}_${suffix}`).toContain(`${p}_${suffix}`);
    }
    for (const m of ['anvil_nodeInfo', 'anvil_autoImpersonateAccount', 'anvil_setIntervalMining', 'evm_setIntervalMining', 'evm_setBlockGasLimit', 'anvil_snapshot', 'anvil_revert', 'anvil_increaseTime', 'anvil_setNextBlockTimestamp']) expect(names).toContain(m);
    for (const m of names) expect(await handleBody(req(m, []), ctx), m).toMatchObject({ error: { code: -32601 } });
  });

  it("state cheats: typed edits to the devnet, anvil's answers (null) and Hardhat's (true)", async () => {
    const dev = new RecordingDev();
    const ctx = withDev(dev);
    expect(await outcome(ctx, 'anvil_setBalance', [A, '0x10'])).toBe(null);
    expect(await outcome(ctx, 'hardhat_setBalance', [A, 1000])).toBe(true);
    expect(await outcome(ctx, 'anvil_setBalance', [A, '12345678901234567890'])).toBe(null);
    expect(await outcome(ctx, 'hardhat_setCode', [A, '0x6000'])).toBe(true);
    expect(await outcome(ctx, 'anvil_setNonce', [A, '0x5'])).toBe(null);
    expect(await outcome(ctx, 'hardhat_setStorageAt', [A, '0x1', W5])).toBe(true);
    expect(await outcome(ctx, 'anvil_setStorageAt', [A, '0x' + 'ff'.repeat(32), W5])).toBe(true);
    expect(await outcome(ctx, 'anvil_setNextBlockBaseFeePerGas', ['0x3b9aca00'])).toBe(null);
    expect(await outcome(ctx, 'hardhat_setCoinbase', [A])).toBe(true);
    expect(await outcome(ctx, 'anvil_dropTransaction', ['0x01' + '00'.repeat(31)])).toBe('0x01' + '00'.repeat(31));
    expect(await outcome(ctx, 'anvil_dropTransaction', ['0x02' + '00'.repeat(31)])).toBe(null);
    expect(await outcome(ctx, 'hardhat_dropTransaction', ['0x02' + '00'.repeat(31)])).toBe(false);
    expect(dev.calls).toEqual([
      ['setAccount', { address: A, balance: 16n }],
      ['setAccount', { address: A, balance: 1000n }],
      ['setAccount', { address: A, balance: 12345678901234567890n }],
      ['setAccount', { address: A, code: '0x6000' }],
      ['setAccount', { address: A, nonce: 5n }],
      ['setAccount', { address: A, storage: [['0x' + '00'.repeat(31) + '01', W5]] }],
      ['setAccount', { address: A, storage: [['0x' + 'ff'.repeat(32), W5]] }],
      ['setNextBlockBaseFee', 1_000_000_000n],
      ['setCoinbase', A],
      ['dropTransaction', '0x01' + '00'.repeat(31)],
      ['dropTransaction', '0x02' + '00'.repeat(31)],
      ['dropTransaction', '0x02' + '00'.repeat(31)],
    ]);
  });

  it("refuse bad parameters as anvil and Hardhat do, changing nothing", async () => {
    const dev = new RecordingDev();
    const ctx = withDev(dev);
    for (const [m, p] of [
      ['anvil_setBalance', [A]],
      ['anvil_setBalance', ['0xzz', '0x1']],
      ['hardhat_setBalance', [A, -1]],
      ['anvil_setCode', [A, '0x6']],
      ['anvil_setNonce', [A, '0x10000000000000000']],
      ['anvil_setStorageAt', [A, '0x1', '0x05']],
      ['anvil_setIntervalMining', ['0x0']],
      ['anvil_setIntervalMining', [86_401]],
      ['anvil_mine', ['0x3e9']],
      ['evm_setBlockGasLimit', []],
      ['anvil_setCoinbase', []],
      ['anvil_reset', [{ forking: { jsonRpcUrl: 'http://x' } }]],
      ['anvil_impersonateAccount', ['0x1']],
    ] as const) {
      expect(await outcome(ctx, m, [...p]), `${m} ${JSON.stringify(p)}`).toMatchObject({ error: { code: -32602 } });
    }
    expect(await outcome(ctx, 'hardhat_setStorageAt', [A, '0x1', '0x05'])).toEqual({ error: { code: -32000, message: 'Storage value must be exactly 32 bytes long. Received 0x05, which is 1 bytes long.' } });
    expect(await outcome(ctx, 'anvil_setMinGasPrice', ['0x1'])).toEqual({ error: { code: -32602, message: 'anvil_setMinGasPrice is not supported when EIP-1559 is active' } });
    expect(await outcome(ctx, 'hardhat_setMinGasPrice', ['0x1'])).toEqual({ error: { code: -32000, message: 'hardhat_setMinGasPrice is not supported when EIP-1559 is active' } });
    expect(dev.calls).toEqual([]);
  });

  it('mining: counts, intervals by each rule, automine and interval mining state, the gas limit, aliases', async () => {
    const dev = new RecordingDev();
    const ctx = withDev(dev);
    expect(await outcome(ctx, 'anvil_mine', [])).toBe(null);
    expect(await outcome(ctx, 'anvil_mine', ['0x2', '0x10'])).toBe(null);
    expect(await outcome(ctx, 'hardhat_mine', [])).toBe(true);
    expect(await outcome(ctx, 'hardhat_mine', ['0x3e8', '0x0'])).toBe(true);
    expect(await outcome(ctx, 'anvil_mine', ['0x0'])).toBe(null);
    expect(await outcome(ctx, 'anvil_getAutomine', [])).toBe(true);
    expect(await outcome(ctx, 'hardhat_getAutomine', [])).toBe(true);
    expect(await outcome(ctx, 'anvil_getIntervalMining', [])).toBe(null);
    expect(await outcome(ctx, 'evm_setIntervalMining', [5])).toBe(null);
    expect(await outcome(ctx, 'evm_setBlockGasLimit', ['0x1c9c380'])).toBe(true);
    expect(await outcome(ctx, 'anvil_snapshot', [])).toBe('0xa');
    expect(await outcome(ctx, 'anvil_revert', ['0xa'])).toBe(true);
    expect(await outcome(ctx, 'anvil_increaseTime', [10])).toBe(11);
    expect(await outcome(ctx, 'anvil_setNextBlockTimestamp', [500])).toBe(null);
    expect(await outcome(ctx, 'anvil_setAutomine', [true])).toBe(null);
    expect(dev.calls).toEqual([
      ['mine', 1, { rule: 'anvil', interval: undefined }],
      ['mine', 2, { rule: 'anvil', interval: 16n }],
      ['mine', 1, { rule: 'hardhat', interval: 1n }],
      ['mine', 1000, { rule: 'hardhat', interval: 0n }],
      ['setIntervalMining', 5],
      ['setBlockGasLimit', 30_000_000n],
      ['snapshot'],
      ['revert', 10n],
      ['increaseTime', 10n],
      ['setNextBlockTimestamp', 500n],
      ['setAutomine', true],
    ]);
  });

  it('reset, metadata and nodeInfo', async () => {
    const dev = new RecordingDev();
    const block = { number: 7n, hash: new Uint8Array(32).fill(0xcd), timestamp: 1_700_000_000n, gas_limit: 30_000_000n, base_fee_per_gas: 1_000_000_000n };
    const ctx = {
      ...fakeContext(
        new FakeClient({
          rpc_eth_block_number: () => 7n,
          rpc_eth_get_block_by_number: () => [block],
          rpc_eth_chain_id: () => 4801360n,
          rpc_eth_gas_price: () => ({ Ok: 2_000_000_000n }),
        }),
      ),
      dev,
    };
    expect(await outcome(ctx, 'anvil_reset', [])).toBe(null);
    expect(await outcome(ctx, 'hardhat_reset', [{}])).toBe(true);
    expect(dev.calls).toEqual([['reset'], ['reset']]);
    const common = { clientVersion: ctx.config.clientVersion, chainId: 4801360, instanceId: dev.instanceId, latestBlockNumber: 7, latestBlockHash: '0x' + 'cd'.repeat(32) };
    expect(await outcome(ctx, 'hardhat_metadata', [])).toEqual(common);
    expect(await outcome(ctx, 'anvil_metadata', [])).toEqual({ ...common, forkedNetwork: null, snapshots: { '0xa': [3, '0x' + 'ab'.repeat(32)] } });
    expect(await outcome(ctx, 'anvil_nodeInfo', [])).toEqual({
      currentBlockNumber: '0x7',
      currentBlockTimestamp: 1_700_000_000,
      currentBlockHash: '0x' + 'cd'.repeat(32),
      hardFork: 'Prague',
      transactionOrder: 'fees',
      environment: { baseFee: '0x3b9aca00', chainId: 4801360, gasLimit: '0x1c9c380', gasPrice: '0x77359400' },
      forkConfig: { forkUrl: null, forkBlockNumber: null, forkRetryBackoff: null },
    });
  });

  it('impersonation: eth_accounts lists the address; eth_sendTransaction from it is filled and sent unsigned; others keep No Signer available', async () => {
    const dev = new RecordingDev();
    const signer = devSigner(devAccounts());
    const client = new FakeClient({
      rpc_eth_chain_id: () => 4801360n,
      rpc_eth_get_transaction_count_at: () => ({ Ok: 3n }),
      rpc_eth_max_priority_fee_per_gas: () => ({ Ok: 1n }),
      rpc_eth_gas_price: () => ({ Ok: 2n }),
      rpc_eth_estimate_gas_object: () => ({ Ok: 21_000n }),
      rpc_eth_get_transaction_by_tx_id: () => [{ hash: new Uint8Array(32).fill(0xee) }],
    });
    const ctx = { ...fakeContext(client), dev, signer };
    const B = '0x00000000000000000000000000000000000000bb';
    const send = () => outcome(ctx, 'eth_sendTransaction', [{ from: B, to: A, value: '0x1' }]);
    expect(await send()).toEqual({ error: { code: -32602, message: 'No Signer available' } });
    expect(await outcome(ctx, 'hardhat_impersonateAccount', [B])).toBe(true);
    expect(((await outcome(ctx, 'eth_accounts', [])) as string[]).slice(10)).toEqual([B]);
    expect(await send()).toBe('0x' + 'ee'.repeat(32));
    expect(dev.calls).toEqual([['submitImpersonated', B, 3n, 21_000n]]);
    expect(await outcome(ctx, 'hardhat_stopImpersonatingAccount', [B])).toBe(true);
    expect(await outcome(ctx, 'hardhat_stopImpersonatingAccount', [B])).toBe(false);
    expect(await send()).toEqual({ error: { code: -32602, message: 'No Signer available' } });
    expect(await outcome(ctx, 'anvil_autoImpersonateAccount', [true])).toBe(null);
    expect(await send()).toBe('0x' + 'ee'.repeat(32));
  });
});
