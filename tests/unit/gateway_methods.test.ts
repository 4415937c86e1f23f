// The gateway's methods with a fake canister: parameter decoding, Ethereum formatting, the error mapping,
// block tags, paging in eth_getLogs, hash resolution after submit, and the cache of immutable answers.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ErrorCode } from '../../src/core/errors.js';
import type { BlockView, ReceiptView, TxView } from '../../src/client/schema.js';
import { renderCompat } from '../../src/gateway/compat.js';
import { ERROR_MAP, fromCanisterError, RpcError } from '../../src/gateway/errors.js';
import { METHOD_TABLE, METHODS } from '../../src/gateway/methods/index.js';
import { GATEWAY_MAX_LOGS } from '../../src/gateway/methods/eth_getLogs.js';
import { PROJECT_ROOT } from '../../src/host/paths.js';
import { bytes, FakeClient, fakeContext, hx } from '../support/gateway_fake.js';

async function call(client: FakeClient, method: string, params: unknown[], ctx = fakeContext(client)): Promise<unknown> {
  return METHOD_TABLE.get(method)!.handler(params, ctx);
}
async function callErr(client: FakeClient, method: string, params: unknown[]): Promise<{ code: number; message: string; data?: string }> {
  try {
    await call(client, method, params);
  } catch (e) {
    if (e instanceof RpcError) return e.toJSON();
    throw e;
  }
  throw new Error('expected an error');
}
const err = (code: string, message = 'detail', data?: Uint8Array) => ({ Err: { code, message, data: data === undefined ? [] : [data] } });

const tx = (o: Partial<TxView> = {}): TxView => ({
  hash: bytes(32, 1),
  tx_id: bytes(8, 0),
  origin: { EthSigned: null },
  tx_type: 2,
  chain_id: 4801360n,
  nonce: 3n,
  from: bytes(20, 2),
  to: [bytes(20, 3)],
  value: 10n,
  input: new Uint8Array([1, 2]),
  gas: 21000n,
  gas_price: 500n,
  max_fee_per_gas: [750n],
  max_priority_fee_per_gas: [250n],
  access_list: [[]],
  v: 1n,
  r: 5n,
  s: 6n,
  y_parity: [1],
  block_hash: [bytes(32, 9)],
  block_number: [4n],
  transaction_index: [0],
  ...o,
});
const block = (n: bigint, txs: BlockView['transactions'] = { Hashes: [bytes(32, 1)] }): BlockView => ({
  number: n,
  hash: bytes(32, 9),
  parent_hash: bytes(32, 8),
  nonce: bytes(8, 0),
  sha3_uncles: bytes(32, 7),
  logs_bloom: bytes(256, 0),
  transactions_root: bytes(32, 6),
  state_root: bytes(32, 5),
  receipts_root: bytes(32, 4),
  miner: bytes(20, 0),
  difficulty: 0n,
  total_difficulty: 0n,
  extra_data: new Uint8Array(),
  size: 600n,
  gas_limit: 3_000_000n,
  gas_used: 21000n,
  timestamp: 1700000000n,
  base_fee_per_gas: 250_000_000_000n,
  mix_hash: bytes(32, 3),
  withdrawals_root: bytes(32, 2),
  blob_gas_used: 0n,
  excess_blob_gas: 0n,
  parent_beacon_block_root: bytes(32, 0),
  requests_hash: bytes(32, 1),
  transactions: txs,
});
const log = (i: number) => ({
  address: bytes(20, 3),
  topics: [bytes(32, 4)],
  data: new Uint8Array([i]),
  block_number: 4n,
  block_hash: bytes(32, 9),
  transaction_hash: bytes(32, 1),
  transaction_index: 0,
  log_index: i,
});
const receipt = (o: Partial<ReceiptView> = {}): ReceiptView => ({
  transaction_hash: bytes(32, 1),
  tx_id: bytes(8, 0),
  transaction_index: 0,
  block_hash: bytes(32, 9),
  block_number: 4n,
  from: bytes(20, 2),
  to: [bytes(20, 3)],
  tx_type: 2,
  status: 1,
  gas_used: 21000n,
  cumulative_gas_used: 21000n,
  effective_gas_price: 500n,
  contract_address: [],
  logs: [log(0)],
  logs_bloom: bytes(256, 0),
  failure_code: [],
  ...o,
});

describe('error mapping', () => {
  it('maps every canister code to SPEC’s JSON-RPC codes', () => {
    const want: Record<number, string[]> = {
      [-32602]: [ErrorCode.ArgAddressLength, ErrorCode.ArgInvalidCallObject, ErrorCode.ArgInvalidFeeParams, ErrorCode.ArgInvalidTxType, ErrorCode.ArgInvalidChainId, ErrorCode.ArgInvalidFilter, ErrorCode.UnsupportedFilter, ErrorCode.DecodeMalformed, ErrorCode.DecodeWrongChainId, ErrorCode.DecodeUnsupportedType, ErrorCode.DecodeLegacyChainIdMissing, ErrorCode.DecodeInvalidSignature],
      [-32000]: [ErrorCode.ExecStateUnavailable, ErrorCode.OpsWriteMigration, ErrorCode.OpsWriteCycle, ErrorCode.OpsWriteCriticalCorrupt, ErrorCode.ExecHalt, ErrorCode.ExecHaltPrecompileError, ErrorCode.ExecInstructionBudget, ErrorCode.SubmitNonceTooLow, ErrorCode.SubmitNonceGap, ErrorCode.SubmitNonceConflict, ErrorCode.SubmitInvalidFee, ErrorCode.SubmitInsufficientFunds, ErrorCode.ExecEstimateInstructionBudget],
      [-32001]: [ErrorCode.NotFound, ErrorCode.InvalidBlockRangeOutOfWindow],
      [-32005]: [ErrorCode.LogsRangeTooLarge, ErrorCode.LogsTooManyResults],
    };
    for (const [code, list] of Object.entries(want)) {
      for (const c of list) expect(fromCanisterError({ code: c, message: 'm', data: [] }, () => {}).code, c).toBe(Number(code));
    }
    // every code of src/core/errors.ts is mapped, except the ones that are never an RPC answer
    const unmapped = Object.values(ErrorCode).filter((c) => ERROR_MAP[c] === undefined);
    expect(unmapped.sort()).toEqual(
      // DevDisabled: the dev_* methods' answer on a production canister, which the gateway's cheat methods
      // (their own table) turn into anvil's errors.
      [ErrorCode.ExecReverted, ErrorCode.Internal, ErrorCode.PoolReplaced, ErrorCode.PoolDroppedFaulty, ErrorCode.PoolEvicted, ErrorCode.PoolExpired, ErrorCode.PoolPurged, ErrorCode.PoolDroppedDev, ErrorCode.DevDisabled].sort(),
    );
  });

  it('keeps geth’s phrases that ethers and viem classify by', () => {
    const m = (c: string) => fromCanisterError({ code: c, message: 'account nonce is 5', data: [] }, () => {}).message;
    expect(m(ErrorCode.SubmitNonceTooLow)).toBe('nonce too low: account nonce is 5');
    expect(m(ErrorCode.SubmitInsufficientFunds)).toMatch(/^insufficient funds for gas \* price \+ value/);
    expect(m(ErrorCode.SubmitNonceConflict)).toMatch(/^replacement transaction underpriced/);
    expect(m(ErrorCode.SubmitIntrinsicGas)).toMatch(/^intrinsic gas too low/);
  });

  it('shapes a revert as -32000 "execution reverted" with the data ethers and viem decode', () => {
    expect(fromCanisterError({ code: ErrorCode.ExecReverted, message: 'reverted', data: [new Uint8Array([0x08, 0xc3, 0x79, 0xa0])] }, () => {}).toJSON()).toEqual({
      code: -32000,
      message: 'execution reverted',
      data: '0x08c379a0',
    });
    expect(fromCanisterError({ code: ErrorCode.ExecReverted, message: '', data: [] }, () => {}).toJSON()).toEqual({ code: -32000, message: 'execution reverted', data: '0x' });
  });

  it('hides internal and unknown codes behind -32603, logging them', () => {
    const logged: string[] = [];
    const e = fromCanisterError({ code: ErrorCode.Internal, message: 'stable map 7 corrupt at key 0x..', data: [] }, (m) => logged.push(m));
    expect(e.toJSON()).toEqual({ code: -32603, message: 'internal error' });
    expect(fromCanisterError({ code: 'brand.new', message: 'x', data: [] }, (m) => logged.push(m)).code).toBe(-32603);
    expect(logged).toHaveLength(2);
  });
});

describe('params and block tags', () => {
  const c = () => new FakeClient({ rpc_eth_get_balance: () => ({ Ok: 5n }), rpc_eth_get_block_number_by_hash: ([h]) => ((h as Uint8Array)[0] === 0xaa ? [3n] : []) });

  it('decodes addresses, tags and EIP-1898 objects', async () => {
    const f = c();
    const a = hx(20);
    expect(await call(f, 'eth_getBalance', [a])).toBe('0x5');
    for (const [tag, want] of [
      ['latest', { Latest: null }],
      ['pending', { Pending: null }],
      ['safe', { Safe: null }],
      ['finalized', { Finalized: null }],
      ['earliest', { Earliest: null }],
      ['0x10', { Number: 16n }],
      [{ blockNumber: '0x2' }, { Number: 2n }],
      [{ blockHash: hx(32, 'aa') }, { Number: 3n }],
    ] as const) {
      await call(f, 'eth_getBalance', [a, tag]);
      expect(f.calls.at(-1)!.args[1]).toEqual(want);
    }
    expect(await callErr(f, 'eth_getBalance', [a, { blockHash: hx(32, 'bb') }])).toMatchObject({ code: -32001 });
    for (const bad of ['0xabc', hx(19), hx(21), 'f39fd6e51aad88f6f4ce6ab8827279cfffb92266', 5, null]) {
      expect(await callErr(f, 'eth_getBalance', [bad, 'latest'])).toMatchObject({ code: -32602 });
    }
    for (const bad of ['newest', '0x', 12, '0xzz', [], { blockNumber: '0x1', x: 1 }, `0x${'f'.repeat(17)}`]) {
      expect(await callErr(f, 'eth_getBalance', [a, bad])).toMatchObject({ code: -32602 });
    }
    expect(await callErr(f, 'eth_getBalance', [])).toMatchObject({ code: -32602 });
    expect(await callErr(f, 'eth_getBalance', [a, 'latest', 1])).toMatchObject({ code: -32602 });
  });

  it('passes canister errors of state reads through the mapping', async () => {
    const f = new FakeClient({ rpc_eth_get_code: () => err(ErrorCode.ExecStateUnavailable, 'state of block 1 is not kept') });
    expect(await callErr(f, 'eth_getCode', [hx(20), '0x1'])).toEqual({ code: -32000, message: 'state unavailable: state of block 1 is not kept' });
  });

  it('takes a storage slot as QUANTITY or 32-byte DATA and answers 32 bytes', async () => {
    const f = new FakeClient({ rpc_eth_get_storage_at: () => ({ Ok: new Uint8Array([0x12]) }) });
    expect(await call(f, 'eth_getStorageAt', [hx(20), '0x1', 'latest'])).toBe(`0x${'00'.repeat(31)}12`);
    expect(f.calls[0]!.args[1]).toEqual(Uint8Array.from(Buffer.from(`${'00'.repeat(31)}01`, 'hex')));
    await call(f, 'eth_getStorageAt', [hx(20), hx(32, '07')]);
    expect(f.calls[1]!.args[1]).toEqual(bytes(32, 7));
    expect(await callErr(f, 'eth_getStorageAt', [hx(20), 'slot'])).toMatchObject({ code: -32602 });
  });

  it('checks callObject keys itself (Candid would drop unknown fields)', async () => {
    const f = new FakeClient({ rpc_eth_call_object: () => ({ Ok: new Uint8Array([0xbe, 0xef]) }), rpc_eth_estimate_gas_object: () => ({ Ok: 21000n }) });
    expect(await call(f, 'eth_call', [{ to: hx(20), data: '0x1234', value: '0x0', gas: '0x5208', type: '0x2', accessList: [{ address: hx(20), storageKeys: [hx(32)] }] }])).toBe('0xbeef');
    const sent = f.calls[0]!.args[0] as Record<string, unknown>;
    expect(sent).toMatchObject({ to: [bytes(20)], data: [new Uint8Array([0x12, 0x34])], value: [0n], gas: [21000n], tx_type: [2n], from: [], gas_price: [] });
    expect(f.calls[0]!.args[1]).toEqual({ Latest: null });
    // `input` is geth's alias of `data`; null values are absent
    expect(await call(f, 'eth_estimateGas', [{ to: hx(20), input: '0x12', from: null }])).toBe('0x5208');
    expect((f.calls[1]!.args[0] as Record<string, unknown>).data).toEqual([new Uint8Array([0x12])]);
    // web3.js v4's signing hints are ignored (it sends them with every estimate)
    expect(await call(f, 'eth_estimateGas', [{ to: hx(20), chain: 'mainnet', hardfork: 'london', networkId: '0x494350' }])).toBe('0x5208');
    for (const bad of [{ to: hx(20), blobVersionedHashes: [] }, { to: hx(20), stateOverride: {} }, { to: hx(20), data: '0x12', input: '0x34' }, { to: hx(19) }, { gas: 5 }, { accessList: [{ address: hx(20), keys: [] }] }, 'x']) {
      expect(await callErr(f, 'eth_call', [bad])).toMatchObject({ code: -32602 });
    }
  });

  it('returns revert data from eth_call and eth_estimateGas', async () => {
    const data = new Uint8Array([0x08, 0xc3, 0x79, 0xa0, 1]);
    const f = new FakeClient({ rpc_eth_call_object: () => err(ErrorCode.ExecReverted, 'x', data), rpc_eth_estimate_gas_object: () => err(ErrorCode.ExecReverted, 'x', data) });
    expect(await callErr(f, 'eth_call', [{ to: hx(20) }])).toEqual({ code: -32000, message: 'execution reverted', data: '0x08c379a001' });
    expect(await callErr(f, 'eth_estimateGas', [{ to: hx(20) }])).toEqual({ code: -32000, message: 'execution reverted', data: '0x08c379a001' });
  });

  it('tells the devnet\'s call watcher of each eth_call / eth_estimateGas it ran, answered or reverted', async () => {
    let revert = false;
    const f = new FakeClient({
      rpc_eth_call_object: () => (revert ? err(ErrorCode.ExecReverted, 'x', new Uint8Array([1])) : { Ok: new Uint8Array([0xbe]) }),
      rpc_eth_estimate_gas_object: () => ({ Ok: 21000n }),
    });
    const seen: [string, unknown, bigint | undefined][] = [];
    const ctx = { ...fakeContext(f), calls: { called: (m: string, c: unknown, b: bigint | undefined) => void seen.push([m, (c as { data: unknown }).data, b]) } };
    await call(f, 'eth_call', [{ to: hx(20), data: '0x12' }], ctx);
    await call(f, 'eth_estimateGas', [{ to: hx(20), data: '0x34' }, 'latest'], ctx);
    revert = true;
    await expect(call(f, 'eth_call', [{ to: hx(20), data: '0x56' }], ctx)).rejects.toThrow('execution reverted');
    // A request refused before it ran is not a call.
    await expect(call(f, 'eth_call', [{ to: hx(19) }], ctx)).rejects.toThrow();
    expect(seen).toEqual([
      ['eth_call', [new Uint8Array([0x12])], undefined],
      ['eth_estimateGas', [new Uint8Array([0x34])], undefined],
      ['eth_call', [new Uint8Array([0x56])], undefined],
    ]);
  });

  it('eth_feeHistory takes blockCount as number, QUANTITY or decimal string, at most 256', async () => {
    const f = new FakeClient({
      rpc_eth_fee_history: () => ({ Ok: { oldest_block: 1n, base_fee_per_gas: [5n, 6n], gas_used_ratio: [0.5], reward: [[7n]] } }),
      rpc_eth_max_priority_fee_per_gas: () => ({ Ok: 3n }),
    });
    for (const n of [4, '0x4', '4']) {
      expect(await call(f, 'eth_feeHistory', [n, 'latest', [50]])).toEqual({ oldestBlock: '0x1', baseFeePerGas: ['0x5', '0x6'], gasUsedRatio: [0.5], reward: [['0x7']] });
      expect(f.calls.at(-1)!.args.slice(0, 2)).toEqual([4n, { Latest: null }]);
    }
    expect(await call(f, 'eth_feeHistory', ['0x1', 'pending'])).not.toHaveProperty('reward');
    expect(f.calls.at(-1)!.args[1]).toEqual({ Pending: null });
    for (const bad of [257, '0x101', -1, 1.5, 'ten']) expect(await callErr(f, 'eth_feeHistory', [bad, 'latest'])).toMatchObject({ code: -32602 });
    expect(await callErr(f, 'eth_feeHistory', [1, 'latest', ['50']])).toMatchObject({ code: -32602 });
    // Rewards below the suggested priority fee (an empty block's 0, a low effective tip) are raised to it.
    f.handlers.rpc_eth_fee_history = () => ({ Ok: { oldest_block: 1n, base_fee_per_gas: [5n, 6n, 6n], gas_used_ratio: [0, 0.5], reward: [[0n, 0n], [2n, 9n]] } });
    expect(await call(f, 'eth_feeHistory', [2, 'latest', [20, 80]])).toMatchObject({ reward: [['0x3', '0x3'], ['0x3', '0x9']] });
  });
});

describe('formatting', () => {
  it('formats an EIP-1559 transaction with its type-specific fields', async () => {
    const f = new FakeClient({ rpc_eth_get_transaction_by_eth_hash: () => [tx()] });
    expect(await call(f, 'eth_getTransactionByHash', [hx(32, '01')])).toEqual({
      blockHash: hx(32, '09'),
      blockNumber: '0x4',
      from: hx(20, '02'),
      gas: '0x5208',
      gasPrice: '0x1f4',
      hash: hx(32, '01'),
      input: '0x0102',
      nonce: '0x3',
      to: hx(20, '03'),
      transactionIndex: '0x0',
      value: '0xa',
      type: '0x2',
      chainId: '0x494350',
      v: '0x1',
      r: '0x5',
      s: '0x6',
      maxFeePerGas: '0x2ee',
      maxPriorityFeePerGas: '0xfa',
      accessList: [],
      yParity: '0x1',
    });
  });

  it('formats a legacy transaction without accessList, yParity or 1559 fees, and a queued one with null block fields', async () => {
    const legacy = tx({ tx_type: 0, max_fee_per_gas: [], max_priority_fee_per_gas: [], access_list: [], y_parity: [], v: 9602755n, block_hash: [], block_number: [], transaction_index: [] });
    const f = new FakeClient({ rpc_eth_get_transaction_by_eth_hash: () => [legacy] });
    const out = (await call(f, 'eth_getTransactionByHash', [hx(32, '01')])) as Record<string, unknown>;
    expect(Object.keys(out)).not.toContain('accessList');
    expect(Object.keys(out)).not.toContain('yParity');
    expect(Object.keys(out)).not.toContain('maxFeePerGas');
    expect(out).toMatchObject({ type: '0x0', v: '0x9286c3', blockHash: null, blockNumber: null, transactionIndex: null });
    const created = tx({ tx_type: 1, to: [], max_fee_per_gas: [], max_priority_fee_per_gas: [] });
    f.handlers.rpc_eth_get_transaction_by_eth_hash = () => [created];
    expect(await call(f, 'eth_getTransactionByHash', [hx(32, '02')])).toMatchObject({ type: '0x1', to: null, accessList: [], yParity: '0x1' });
    f.handlers.rpc_eth_get_transaction_by_eth_hash = () => [];
    expect(await call(f, 'eth_getTransactionByHash', [hx(32, '03')])).toBeNull();
  });

  it('formats receipts with logs (removed: false), contractAddress null when none', async () => {
    const f = new FakeClient({ rpc_eth_get_transaction_receipt_with_status_by_eth_hash: () => ({ Found: receipt() }) });
    expect(await call(f, 'eth_getTransactionReceipt', [hx(32, '01')])).toEqual({
      transactionHash: hx(32, '01'),
      transactionIndex: '0x0',
      blockHash: hx(32, '09'),
      blockNumber: '0x4',
      from: hx(20, '02'),
      to: hx(20, '03'),
      cumulativeGasUsed: '0x5208',
      gasUsed: '0x5208',
      contractAddress: null,
      logs: [
        {
          address: hx(20, '03'),
          topics: [hx(32, '04')],
          data: '0x00',
          blockNumber: '0x4',
          blockHash: hx(32, '09'),
          transactionHash: hx(32, '01'),
          transactionIndex: '0x0',
          logIndex: '0x0',
          removed: false,
        },
      ],
      logsBloom: `0x${'00'.repeat(256)}`,
      type: '0x2',
      status: '0x1',
      effectiveGasPrice: '0x1f4',
    });
  });

  it('formats blocks with Prague header fields, hashes or full transactions', async () => {
    const f = new FakeClient({
      rpc_eth_block_number: () => 4n,
      rpc_eth_get_block_by_number_with_status: ([n, full]) => ({ Found: block(n as bigint, full === true ? { Full: [tx()] } : { Hashes: [bytes(32, 1)] }) }),
    });
    const b = (await call(f, 'eth_getBlockByNumber', ['latest', false])) as Record<string, unknown>;
    expect(f.calls.at(-1)!.args).toEqual([4n, false]);
    expect(b).toMatchObject({
      number: '0x4',
      baseFeePerGas: '0x3a35294400',
      withdrawalsRoot: hx(32, '02'),
      withdrawals: [],
      blobGasUsed: '0x0',
      excessBlobGas: '0x0',
      parentBeaconBlockRoot: hx(32, '00'),
      requestsHash: hx(32, '01'),
      totalDifficulty: '0x0',
      uncles: [],
      extraData: '0x',
      transactions: [hx(32, '01')],
    });
    const full = (await call(f, 'eth_getBlockByNumber', ['0x2', true])) as { transactions: { hash: string }[] };
    expect(full.transactions[0]!.hash).toBe(hx(32, '01'));
    await call(f, 'eth_getBlockByNumber', ['earliest']);
    expect(f.calls.at(-1)!.args).toEqual([0n, false]);
  });
});

describe('lookups, pruning and caching', () => {
  it('eth_getBlockByNumber: null above the head, -32001 when pruned, found blocks cached', async () => {
    const f = new FakeClient({
      rpc_eth_get_block_by_number_with_status: ([n]) => ((n as bigint) > 10n ? { NotFound: null } : (n as bigint) < 3n ? { Pruned: { pruned_before_block: 3n } } : { Found: block(n as bigint) }),
    });
    const ctx = fakeContext(f);
    expect(await call(f, 'eth_getBlockByNumber', ['0xb', false], ctx)).toBeNull();
    await expect(call(f, 'eth_getBlockByNumber', ['0x1', false], ctx)).rejects.toMatchObject({ code: -32001, message: expect.stringMatching(/pruned.*first available block is 3/) });
    await call(f, 'eth_getBlockByNumber', ['0x5', false], ctx);
    await call(f, 'eth_getBlockByNumber', ['0x5', false], ctx);
    expect(f.count('rpc_eth_get_block_by_number_with_status')).toBe(3);
    expect(await callErr(f, 'eth_getBlockByNumber', [{ blockHash: hx(32) }, false])).toMatchObject({ code: -32602 });
  });

  it('eth_getTransactionReceipt: null while not included, -32001 for Pruned and PossiblyPruned, cached once found', async () => {
    let state: unknown = { NotFound: null };
    const f = new FakeClient({ rpc_eth_get_transaction_receipt_with_status_by_eth_hash: () => state });
    const ctx = fakeContext(f);
    expect(await call(f, 'eth_getTransactionReceipt', [hx(32)], ctx)).toBeNull();
    state = { Pruned: { pruned_before_block: 100n } };
    await expect(call(f, 'eth_getTransactionReceipt', [hx(32)], ctx)).rejects.toMatchObject({ code: -32001, message: expect.stringMatching(/pruned.*100/) });
    state = { PossiblyPruned: { pruned_before_block: 100n } };
    await expect(call(f, 'eth_getTransactionReceipt', [hx(32)], ctx)).rejects.toMatchObject({ code: -32001, message: expect.stringMatching(/unknown or its block was pruned/) });
    state = { Found: receipt() };
    await call(f, 'eth_getTransactionReceipt', [hx(32)], ctx);
    state = { NotFound: null };
    expect(await call(f, 'eth_getTransactionReceipt', [hx(32)], ctx)).not.toBeNull();
    expect(f.count('rpc_eth_get_transaction_receipt_with_status_by_eth_hash')).toBe(4);
  });

  it('caches a transaction only once it is included', async () => {
    let view = tx({ block_hash: [], block_number: [], transaction_index: [] });
    const f = new FakeClient({ rpc_eth_get_transaction_by_eth_hash: () => [view] });
    const ctx = fakeContext(f);
    await call(f, 'eth_getTransactionByHash', [hx(32)], ctx);
    view = tx();
    expect(await call(f, 'eth_getTransactionByHash', [hx(32)], ctx)).toMatchObject({ blockNumber: '0x4' });
    await call(f, 'eth_getTransactionByHash', [hx(32)], ctx);
    expect(f.count('rpc_eth_get_transaction_by_eth_hash')).toBe(2);
  });

  it('eth_sendRawTransaction resolves eth_tx_hash from tx_id; -32000 when that fails', async () => {
    const f = new FakeClient({ rpc_eth_send_raw_transaction: () => ({ Ok: bytes(8, 0) }), rpc_eth_get_transaction_by_tx_id: () => [tx()] });
    expect(await call(f, 'eth_sendRawTransaction', ['0x02f8'])).toBe(hx(32, '01'));
    expect(f.calls[0]).toMatchObject({ mode: 'update', method: 'rpc_eth_send_raw_transaction', args: [new Uint8Array([0x02, 0xf8])] });
    f.handlers.rpc_eth_get_transaction_by_tx_id = () => [];
    expect(await callErr(f, 'eth_sendRawTransaction', ['0x02f8'])).toMatchObject({ code: -32000, message: expect.stringMatching(/accepted.*hash is unavailable/) });
    f.handlers.rpc_eth_send_raw_transaction = () => err(ErrorCode.SubmitNonceTooLow, 'nonce 1 < account nonce 2');
    expect(await callErr(f, 'eth_sendRawTransaction', ['0x02f8'])).toEqual({ code: -32000, message: 'nonce too low: nonce 1 < account nonce 2' });
    f.handlers.rpc_eth_send_raw_transaction = () => err(ErrorCode.DecodeUnsupportedType, 'type 3');
    expect(await callErr(f, 'eth_sendRawTransaction', ['0x03'])).toMatchObject({ code: -32602 });
    expect(await callErr(f, 'eth_sendRawTransaction', ['0x0'])).toMatchObject({ code: -32602 });
  });

  it("eth_sendRawTransaction passes a signed transaction's sender key as a hint (rpc_eth_send_raw_transaction_with_key)", async () => {
    const sk = new Uint8Array(32).fill(7);
    const signed = createFeeMarket1559Tx({ chainId: 4801360n, nonce: 3n, to: new Uint8Array(20).fill(1), value: 5n, gasLimit: 21000n, maxFeePerGas: 10n ** 12n, maxPriorityFeePerGas: 10n ** 9n }, { common: createCustomCommon({ chainId: 4801360 }, Mainnet, { hardfork: Hardfork.Prague }) }).sign(sk);
    const raw = signed.serialize();
    const f = new FakeClient({ rpc_eth_send_raw_transaction_with_key: () => ({ Ok: bytes(8, 0) }), rpc_eth_get_transaction_by_tx_id: () => [tx()] });
    expect(await call(f, 'eth_sendRawTransaction', [`0x${Buffer.from(raw).toString('hex')}`])).toBe(hx(32, '01'));
    expect(f.calls[0]).toMatchObject({ mode: 'update', method: 'rpc_eth_send_raw_transaction_with_key', args: [raw, secp256k1.getPublicKey(sk, false).subarray(1)] });
    // Refusals come back as from the plain method.
    f.handlers.rpc_eth_send_raw_transaction_with_key = () => err(ErrorCode.SubmitSenderKeyMismatch, 'not made by the key');
    expect(await callErr(f, 'eth_sendRawTransaction', [`0x${Buffer.from(raw).toString('hex')}`])).toMatchObject({ code: -32602, message: expect.stringMatching(/^invalid sender/) });
    // Another chain's transaction does not parse here: no hint, the canister says what is wrong.
    const other = createFeeMarket1559Tx({ chainId: 1n, nonce: 0n, gasLimit: 21000n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }, { common: createCustomCommon({ chainId: 1 }, Mainnet, { hardfork: Hardfork.Prague }) }).sign(sk);
    f.handlers.rpc_eth_send_raw_transaction = () => err(ErrorCode.DecodeWrongChainId, 'chain id 1');
    await callErr(f, 'eth_sendRawTransaction', [`0x${Buffer.from(other.serialize()).toString('hex')}`]);
    expect(f.calls.at(-1)).toMatchObject({ method: 'rpc_eth_send_raw_transaction' });
  });
});

describe('eth_getLogs', () => {
  it('builds the canister filter and reads every page', async () => {
    let pages = 0;
    const f = new FakeClient({
      rpc_eth_block_number: () => 50n,
      rpc_eth_get_logs_filtered: ([, cursor]) => {
        pages++;
        return (cursor as unknown[]).length === 0 ? { Ok: { logs: [log(0)], next_cursor: [{ block_number: 9n, log_index: 0 }] } } : { Ok: { logs: [log(1)], next_cursor: [] } };
      },
    });
    const out = (await call(f, 'eth_getLogs', [{ fromBlock: 'earliest', toBlock: 'latest', address: hx(20), topics: [hx(32), null, [hx(32, '01')]] }])) as { logIndex: string }[];
    expect(out.map((l) => l.logIndex)).toEqual(['0x0', '0x1']);
    expect(pages).toBe(2);
    const first = f.calls.find((c) => c.method === 'rpc_eth_get_logs_filtered')!;
    expect(first.args[0]).toEqual({
      from_block: [{ Number: 0n }],
      to_block: [{ Number: 50n }],
      block_hash: [],
      address: [[bytes(20)]],
      topics: [[[[bytes(32)]], [], [[bytes(32, 1)]]]],
    });
    expect(f.calls.filter((c) => c.method === 'rpc_eth_get_logs_filtered')[1]!.args[1]).toEqual([{ block_number: 9n, log_index: 0 }]);
  });

  it('refuses unsupported keys and blockHash with a range; maps canister filter errors', async () => {
    const f = new FakeClient({ rpc_eth_block_number: () => 1n, rpc_eth_get_logs_filtered: () => err(ErrorCode.ArgInvalidFilter, 'topics: at most 4 positions, got 5') });
    expect(await callErr(f, 'eth_getLogs', [{ limit: 5 }])).toMatchObject({ code: -32602 });
    expect(await callErr(f, 'eth_getLogs', [{ blockHash: hx(32), fromBlock: '0x1' }])).toMatchObject({ code: -32602 });
    expect(await callErr(f, 'eth_getLogs', [{ topics: [null, null, null, null, null] }])).toEqual({ code: -32602, message: 'topics: at most 4 positions, got 5' });
    // Oversized lists are refused before any entry is decoded or the canister is asked.
    const before = f.count('rpc_eth_get_logs_filtered');
    const many = Array.from({ length: 1001 }, () => hx(20));
    expect(await callErr(f, 'eth_getLogs', [{ address: many }])).toEqual({ code: -32602, message: 'address: at most 1000 addresses, got 1001' });
    expect(await callErr(f, 'eth_getLogs', [{ topics: [null, Array.from({ length: 1001 }, () => hx(32))] }])).toEqual({ code: -32602, message: 'topics[1]: at most 1000 alternatives, got 1001' });
    expect(f.count('rpc_eth_get_logs_filtered')).toBe(before);
    f.handlers.rpc_eth_get_logs_filtered = () => err(ErrorCode.LogsRangeTooLarge, 'range 20000 > 10000');
    expect(await callErr(f, 'eth_getLogs', [{ fromBlock: '0x0' }])).toMatchObject({ code: -32005 });
  });

  it('answers -32005 past the gateway’s own result limit', async () => {
    const page = Array.from({ length: 1000 }, (_, i) => log(i % 256));
    const f = new FakeClient({ rpc_eth_get_logs_filtered: ([, , limit]) => ({ Ok: { logs: page.slice(0, (limit as number[])[0]), next_cursor: [{ block_number: 1n, log_index: 0 }] } }) });
    expect(await callErr(f, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x1' }])).toMatchObject({ code: -32005, message: expect.stringMatching(`more than ${GATEWAY_MAX_LOGS}`) });
    // it stops asking once the limit is passed: 10 full pages and one log more
    expect(f.count('rpc_eth_get_logs_filtered')).toBe(11);
  });
});

describe('the other methods', () => {
  it('answers the fixed ones', async () => {
    const f = new FakeClient({ rpc_eth_chain_id: () => 4801360n, rpc_eth_gas_price: () => ({ Ok: 500n }), rpc_eth_max_priority_fee_per_gas: () => ({ Ok: 250n }), rpc_eth_get_transaction_count_at: () => ({ Ok: 3n }) });
    const ctx = fakeContext(f, { clientVersion: 'x/y' });
    expect(await call(f, 'web3_clientVersion', [], ctx)).toBe('x/y');
    expect(await call(f, 'net_version', [], ctx)).toBe('4801360');
    expect(await call(f, 'eth_chainId', [], ctx)).toBe('0x494350');
    expect(f.count('rpc_eth_chain_id')).toBe(1); // cached
    expect(await call(f, 'eth_syncing', [])).toBe(false);
    expect(await call(f, 'eth_accounts', [])).toEqual([]);
    expect(await call(f, 'net_listening', [])).toBe(true);
    expect(await call(f, 'eth_gasPrice', [])).toBe('0x1f4');
    expect(await call(f, 'eth_maxPriorityFeePerGas', [])).toBe('0xfa');
    expect(await call(f, 'eth_getTransactionCount', [hx(20), 'pending'])).toBe('0x3');
    expect(f.calls.at(-1)!.args[1]).toEqual({ Pending: null });
  });

  it('lists every SPEC method once', () => {
    const spec = ['web3_clientVersion', 'net_version', 'eth_chainId', 'eth_blockNumber', 'eth_gasPrice', 'eth_maxPriorityFeePerGas', 'eth_feeHistory', 'eth_syncing', 'eth_getBlockByNumber', 'eth_getTransactionByHash', 'eth_getTransactionReceipt', 'eth_getBalance', 'eth_getTransactionCount', 'eth_getCode', 'eth_getStorageAt', 'eth_getLogs', 'eth_call', 'eth_estimateGas', 'eth_sendRawTransaction'];
    for (const m of spec) expect(METHOD_TABLE.has(m), m).toBe(true);
    expect(new Set(METHODS.map((m) => m.name)).size).toBe(METHODS.length);
  });
});

describe('docs/compatibility.md', () => {
  it('is generated from the method table (run `npx tsx scripts/gen-compat.ts` when this fails)', () => {
    expect(readFileSync(`${PROJECT_ROOT}/docs/compatibility.md`, 'utf8')).toBe(renderCompat());
  });
});
