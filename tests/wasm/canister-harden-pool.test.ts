// A pool that never drains (docs/hardening.md, "The pool") on the real wasm, at a scale a wasm test can run (the full
// 8,192-slot flood runs through the core in tests/unit/mempool_pool_rules.test.ts): a sender cannot park
// more than its share of transactions behind a nonce gap, waiting ones expire, a transaction whose gas
// limit no longer fits the block is dropped with a reason, pending transactions must be affordable
// together, a controller can purge the pool (anyone else gets auth.not_controller), the statuses of dropped
// transactions are removed after their lifetime, and a flood of transactions behind nonce gaps from
// many funded senders stops at the global limit while executable transactions still get in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DROPPED_STATUS_LIFETIME_NS, MAX_NOT_EXECUTABLE_GLOBAL, MAX_NOT_EXECUTABLE_PER_SENDER, NOT_EXECUTABLE_LIFETIME_NS } from '../../src/core/constants.js';
import { Evm, errCode, unwrap, type CandidResult } from '../support/canister.js';
import { ETH, GWEI, account, feeMarketTx, plainAddress, transfer } from '../support/eth.js';
import { selfAuthenticating } from '../support/ic.js';

const CONTROLLER = selfAuthenticating(0x81);
const A = account(51);
const B = account(52);
const POOR = account(53);
const EACH = 21000n * 1000n * GWEI + 1n;
let evm: Evm;

beforeAll(async () => {
  evm = await Evm.start({
    genesis: [{ address: A.address, balance: 10n * ETH }, { address: B.address, balance: 10n * ETH }, { address: POOR.address, balance: 2n * EACH }],
    controllers: [CONTROLLER],
  });
});
afterAll(() => evm?.close());

describe('pool rules on the real wasm', () => {
  it('caps waiting transactions per sender, expires them, and mines the rest', async () => {
    const waiting: Uint8Array[] = [];
    for (let n = 1; n <= MAX_NOT_EXECUTABLE_PER_SENDER; n++) waiting.push(await evm.submit(transfer(A, BigInt(n), plainAddress(1), 1n)));
    expect(errCode(await evm.sendRaw(transfer(A, BigInt(MAX_NOT_EXECUTABLE_PER_SENDER + 1), plainAddress(1), 1n)))).toBe('submit.not_executable_limit');
    const runs = await evm.submit(transfer(B, 0n, plainAddress(1), 1n));
    await evm.mine();
    expect(evm.pending(runs)).toMatchObject({ Included: {} });
    expect(evm.pending(waiting[0]!)).toEqual({ Queued: null });
    evm.host.setTime(evm.host.now() + NOT_EXECUTABLE_LIFETIME_NS);
    await evm.mine();
    for (const id of waiting) expect(evm.pending(id)).toEqual({ Dropped: { code: 'pool.expired' } });
    expect(evm.query<{ pending_txs: bigint }>('health').pending_txs).toBe(0n);
  });

  it('drops a transaction whose gas limit no longer fits a lowered block gas limit', async () => {
    const big = await evm.submit(feeMarketTx(B, { nonce: 1n, to: plainAddress(2), value: 1n, gasLimit: 500_000n, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI }));
    unwrap((await evm.client.as({ caller: CONTROLLER }).update('set_block_gas_limit', [100_000n])));
    await evm.mine();
    expect(evm.pending(big)).toEqual({ Dropped: { code: 'submit.gas_limit_exceeds_block' } });
    unwrap((await evm.client.as({ caller: CONTROLLER }).update('set_block_gas_limit', [3_000_000n])));
  });

  it("a sender's pending transactions must be affordable together", async () => {
    await evm.submit(transfer(POOR, 0n, plainAddress(3), 1n));
    await evm.submit(transfer(POOR, 1n, plainAddress(3), 1n));
    expect(errCode(await evm.sendRaw(transfer(POOR, 2n, plainAddress(3), 1n)))).toBe('submit.insufficient_funds');
  });

  it('purge_pool: controllers only; drops every pending transaction with pool.purged', async () => {
    const ids = [await evm.submit(transfer(A, 0n, plainAddress(4), 1n)), await evm.submit(transfer(A, 5n, plainAddress(4), 1n))];
    const stranger = await evm.client.as({ caller: selfAuthenticating(0x82), fromCanister: true }).update('purge_pool', []);
    expect(errCode(stranger)).toBe('auth.not_controller');
    const n = unwrap((await evm.client.as({ caller: CONTROLLER }).update('purge_pool', [])));
    expect(n).toBe(4n); // A's two and POOR's two
    for (const id of ids) expect(evm.pending(id)).toEqual({ Dropped: { code: 'pool.purged' } });
    expect(evm.query<{ pending_txs: bigint }>('health').pending_txs).toBe(0n);
  });

  it('the status of a dropped transaction is kept for its lifetime, then removed; included ones stay', async () => {
    const dropped = [await evm.submit(transfer(A, 5n, plainAddress(5), 1n))];
    unwrap((await evm.client.as({ caller: CONTROLLER }).update('purge_pool', [])));
    const droppedAt = evm.host.now();
    expect(evm.pending(dropped[0]!)).toEqual({ Dropped: { code: 'pool.purged' } });
    const included = await evm.submit(transfer(B, await nonceOf(B.address), plainAddress(5), 1n));
    await evm.mine();
    expect(evm.pending(included)).toMatchObject({ Included: {} });
    // A day less a second later the status is still there (a block is produced, so the pruning pass runs;
    // mine() moves the clock by one 2 s interval).
    evm.host.setTime(droppedAt + DROPPED_STATUS_LIFETIME_NS - 3_000_000_000n);
    await evm.submit(transfer(B, await nonceOf(B.address), plainAddress(5), 1n));
    await evm.mine();
    expect(evm.pending(dropped[0]!)).toEqual({ Dropped: { code: 'pool.purged' } });
    evm.host.setTime(droppedAt + DROPPED_STATUS_LIFETIME_NS);
    await evm.submit(transfer(B, await nonceOf(B.address), plainAddress(5), 1n));
    await evm.mine();
    expect(evm.pending(dropped[0]!)).toEqual({ Unknown: null });
    expect(evm.pending(included)).toMatchObject({ Included: {} });
  });
});

async function nonceOf(address: Uint8Array): Promise<bigint> {
  return unwrap(evm.query<CandidResult<bigint>>('expected_nonce_by_address', address));
}

describe('a flood of waiting transactions on the real wasm', () => {
  const FLOOD = Array.from({ length: MAX_NOT_EXECUTABLE_GLOBAL / MAX_NOT_EXECUTABLE_PER_SENDER + 1 }, (_, i) => account(120 + i));
  const HONEST = account(119);
  let flood: Evm;
  beforeAll(async () => {
    flood = await Evm.start({ genesis: [...FLOOD, HONEST].map((a) => ({ address: a.address, balance: ETH })) });
  });
  afterAll(() => flood?.close());

  it('stops at the global limit of transactions that cannot run, and executable ones still get in and are mined', async () => {
    // Each flooding sender parks its share behind a gap (nonce 0 never sent): 64 senders fill the global limit.
    for (const a of FLOOD.slice(0, -1)) {
      for (let n = 1; n <= MAX_NOT_EXECUTABLE_PER_SENDER; n++) await flood.submit(transfer(a, BigInt(n), plainAddress(6), 1n));
    }
    expect(flood.query<{ pending_txs: bigint }>('health').pending_txs).toBe(BigInt(MAX_NOT_EXECUTABLE_GLOBAL));
    const late = FLOOD[FLOOD.length - 1]!;
    expect(errCode(await flood.sendRaw(transfer(late, 1n, plainAddress(6), 1n)))).toBe('submit.not_executable_limit');
    const honest = await flood.submit(transfer(HONEST, 0n, plainAddress(7), 1n));
    const lateRuns = await flood.submit(transfer(late, 0n, plainAddress(7), 1n));
    await flood.mine();
    expect(flood.pending(honest)).toMatchObject({ Included: {} });
    expect(flood.pending(lateRuns)).toMatchObject({ Included: {} });
    // The flood expires and leaves the pool empty.
    flood.host.setTime(flood.host.now() + NOT_EXECUTABLE_LIFETIME_NS);
    await flood.submit(transfer(HONEST, 1n, plainAddress(7), 1n));
    await flood.mine();
    expect(flood.query<{ pending_txs: bigint }>('health').pending_txs).toBe(0n);
  });
});
