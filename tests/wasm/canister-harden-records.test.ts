// Broken stored records (docs/hardening.md) against the real wasm. Stored records are broken from another wasm (the corruptor
// fixture edits the stable maps by memory id, as a storage fault would). A broken transaction: the next block still comes;
// each broken transaction is dropped with pool.dropped.faulty, the others are mined, nothing is retried
// forever. A broken invariant: in CriticalCorrupt every head-state read, eth_call, eth_estimateGas and
// expected_nonce_by_address included, answers exec.state.unavailable.
import { IDL } from '@dfinity/candid';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { WASM_PATH } from '../../src/devnet/build.js';
import { MemoryId } from '../../src/core/store/memory_ids.js';
import { encodeInitArgs } from '../../src/client/host.js';
import { buildAzleCanister } from '../fixtures/probe/build.js';
import { Evm, LATEST, errCode, type CandidResult } from '../support/canister.js';
import { ETH, account, plainAddress, transfer } from '../support/eth.js';
import { selfAuthenticating } from '../support/ic.js';

const here = dirname(fileURLToPath(import.meta.url));
const CONTROLLER = selfAuthenticating(0x71);
const SENDERS = [account(41), account(42), account(43)];
let evm: Evm;

beforeAll(async () => {
  evm = await Evm.start({ genesis: SENDERS.map((a) => ({ address: a.address, balance: 10n * ETH })), controllers: [CONTROLLER] });
});
afterAll(() => evm?.close());

async function overwrite(edits: { id: number; key: Uint8Array; value: Uint8Array | undefined }[]): Promise<void> {
  const corruptor = buildAzleCanister('corruptor', join(here, '../fixtures/corruptor/index.ts'));
  await evm.host.upgrade({ wasm: corruptor, arg: new Uint8Array(IDL.encode([], [])) });
  for (const e of edits) {
    const r =
      e.value === undefined
        ? await evm.host.update('remove', new Uint8Array(IDL.encode([IDL.Nat8, IDL.Vec(IDL.Nat8)], [e.id, e.key])), { caller: CONTROLLER })
        : await evm.host.update('insert', new Uint8Array(IDL.encode([IDL.Nat8, IDL.Vec(IDL.Nat8), IDL.Vec(IDL.Nat8)], [e.id, e.key, e.value])), { caller: CONTROLLER });
    if (r.kind !== 'reply') throw new Error(`corruptor edit failed: ${r.kind === 'reject' ? r.message : ''}`);
  }
  await evm.host.upgrade({ wasm: WASM_PATH, arg: encodeInitArgs(undefined) });
}

describe('one bad record does not halt mining', () => {
  it('drops a truncated stored transaction and one whose bytes no longer parse, and mines the rest', async () => {
    const ids = [];
    for (const a of SENDERS) ids.push(await evm.submit(transfer(a, 0n, plainAddress(1), 1n)));
    const [truncated, garbage, good] = ids as [Uint8Array, Uint8Array, Uint8Array];
    // A StoredTx record cut short, and one with a valid frame whose raw bytes are not a transaction:
    // u8 origin 0 || from[20] || hash[32] || u8 0 (no principal) || u32 len || raw.
    const frame = Uint8Array.from([0, ...SENDERS[1]!.address, ...new Uint8Array(32), 0, 0, 0, 0, 3, 0x02, 0xc1, 0x80]);
    await overwrite([
      { id: MemoryId.Txs, key: truncated, value: Uint8Array.of(0, 1, 2) },
      { id: MemoryId.Txs, key: garbage, value: frame },
    ]);
    await evm.mine();
    expect(evm.blockNumber()).toBe(1n);
    expect(evm.pending(good)).toMatchObject({ Included: { block_number: 1n } });
    expect(evm.pending(truncated)).toEqual({ Dropped: { code: 'pool.dropped.faulty' } });
    expect(evm.pending(garbage)).toEqual({ Dropped: { code: 'pool.dropped.faulty' } });
    expect(evm.query<{ pending_txs: bigint }>('health').pending_txs).toBe(0n);
    // The senders of the broken records can go on (their nonce was never used).
    await evm.submit(transfer(SENDERS[0]!, 0n, plainAddress(2), 1n));
    await evm.mine();
    expect(evm.blockNumber()).toBe(2n);
  });

  it('drops a pending summary that no longer decodes, and mines the others', async () => {
    const a = await evm.submit(transfer(SENDERS[1]!, 0n, plainAddress(3), 1n));
    const b = await evm.submit(transfer(SENDERS[2]!, 1n, plainAddress(3), 1n));
    await overwrite([{ id: MemoryId.Pending, key: a, value: Uint8Array.of(9, 9) }]);
    await evm.mine();
    expect(evm.pending(a)).toEqual({ Dropped: { code: 'pool.dropped.faulty' } });
    expect(evm.pending(b)).toMatchObject({ Included: { block_number: 3n } });
  });
});

describe('CriticalCorrupt: every head-state read is refused by the core', () => {
  it('eth_call, eth_estimateGas, expected_nonce_by_address and the other head reads answer exec.state.unavailable', async () => {
    const head = evm.blockNumber();
    const key = new Uint8Array(8);
    new DataView(key.buffer).setBigUint64(0, head);
    await overwrite([{ id: MemoryId.Blocks, key, value: undefined }]);
    expect(evm.query<{ mode: Record<string, null> }>('get_ops_status').mode).toEqual({ CriticalCorrupt: null });
    const call = { to: [plainAddress(1)], from: [], gas: [], gas_price: [], value: [], data: [], nonce: [], max_fee_per_gas: [], max_priority_fee_per_gas: [], chain_id: [], tx_type: [], access_list: [] };
    const unavailable = 'exec.state.unavailable';
    expect(errCode(evm.query<CandidResult<Uint8Array>>('rpc_eth_call_object', call, LATEST))).toBe(unavailable);
    expect(errCode(evm.query<CandidResult<bigint>>('rpc_eth_estimate_gas_object', call, LATEST))).toBe(unavailable);
    expect(errCode(evm.query<CandidResult<bigint>>('expected_nonce_by_address', SENDERS[0]!.address))).toBe(unavailable);
    expect(errCode(evm.query<CandidResult<bigint>>('rpc_eth_get_transaction_count_at', SENDERS[0]!.address, { Pending: null }))).toBe(unavailable);
    expect(errCode(evm.query<CandidResult<bigint>>('rpc_eth_get_balance', SENDERS[0]!.address, LATEST))).toBe(unavailable);
    const raw = transfer(SENDERS[0]!, 5n, plainAddress(1), 1n).serialize();
    expect(errCode(evm.query<CandidResult<Uint8Array>>('rpc_eth_call_rawtx', raw, [LATEST]))).toBe(unavailable);
  });
});
