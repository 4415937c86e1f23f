// The development flag on the real wasm: a canister installed without it refuses every dev_* method with
// dev.disabled (for its controller, in the method and already at canister_inspect_message), an upgrade cannot
// turn it on, and non-controllers get auth.not_controller everywhere; a canister installed with it applies
// dev_set_account at once and runs an impersonated transaction, and an upgrade cannot turn it off.
import { afterAll, describe, expect, it } from 'vitest';
import { encodeInitArgs } from '../../src/client/host.js';
import { EXPORT_FORMAT_VERSION } from '../../src/core/export/format.js';
import { Evm, LATEST } from '../support/canister.js';
import { ETH } from '../support/eth.js';
import { selfAuthenticating } from '../support/ic.js';

const CONTROLLER = selfAuthenticating(0x91);
const STRANGER = selfAuthenticating(0x92);
const WHALE = Uint8Array.from({ length: 20 }, (_, i) => (i === 19 ? 0x5a : 0));
const TO = Uint8Array.from({ length: 20 }, (_, i) => (i === 19 ? 0x77 : 0));

const calls: [string, unknown[]][] = [
  ['dev_set_account', [{ address: WHALE, balance: [ETH], nonce: [], code: [], storage: [] }]],
  ['dev_submit_impersonated', [{ from: WHALE, to: [TO], value: 1n, data: new Uint8Array(), gas_limit: 21_000n, nonce: [], gas_price: [], max_fee_per_gas: [], max_priority_fee_per_gas: [], access_list: [] }]],
  ['dev_drop_transaction', [new Uint8Array(32)]],
  ['dev_set_next_block_base_fee', [300_000_000_000n]],
  ['dev_set_coinbase', [TO]],
];

type R = { Ok?: unknown; Err?: { code: string; message: string } };
const evms: Evm[] = [];
afterAll(() => evms.forEach((e) => e.close()));


async function evmWith(development: boolean | undefined): Promise<Evm> {
  const e = await Evm.start({ controllers: [CONTROLLER], ...(development === undefined ? {} : { development }) });
  evms.push(e);
  return e;
}

const call = async (e: Evm, method: string, args: unknown[], caller = CONTROLLER, fromCanister = false): Promise<R> =>
  (await e.client.as({ caller, fromCanister }).update(method as never, args as never)) as R;

async function refusedAtInspection(e: Evm, method: string, args: unknown[], caller = CONTROLLER): Promise<string> {
  try {
    await call(e, method, args, caller, false);
  } catch (err) {
    return String(err instanceof Error ? err.message : err);
  }
  return 'not refused';
}

describe('development flag', () => {
  it('without it every dev_* method answers dev.disabled; an upgrade cannot turn it on; strangers get auth.not_controller', async () => {
    const e = await evmWith(undefined);
    for (const upgraded of [false, true]) {
      if (upgraded) await e.host.upgrade({ arg: encodeInitArgs({ development: [true] }) });
      for (const [m, args] of calls) {
        const r = await call(e, m, args, CONTROLLER, true);
        expect(r.Err?.code, `${m} (upgraded: ${upgraded})`).toBe('dev.disabled');
        expect(await refusedAtInspection(e, m, args)).toMatch(/dev\.disabled/);
        expect((await call(e, m, args, STRANGER, true)).Err?.code).toBe('auth.not_controller');
        expect(await refusedAtInspection(e, m, args, STRANGER)).toMatch(/auth\.not_controller/);
      }
    }
    expect(e.balance(WHALE)).toBe(0n);
  }, 180_000);

  it('with it the cheats run (an impersonated transfer is mined), and an upgrade cannot turn it off', async () => {
    const e = await evmWith(true);
    await e.host.upgrade({ arg: encodeInitArgs({ development: [false] }) });
    expect((await call(e, 'dev_set_account', calls[0]![1])).Ok).toBeNull();
    expect(e.balance(WHALE)).toBe(ETH);
    const sub = await call(e, 'dev_submit_impersonated', calls[1]![1]);
    expect(sub.Err).toBeUndefined();
    const mined = await call(e, 'mine_block', [false]);
    expect(mined.Ok).toEqual([1n]);
    const receipt = e.client.querySync('get_receipt', [sub.Ok as Uint8Array]);
    expect(receipt[0]?.status).toBe(1);
    const tx = e.client.querySync('rpc_eth_get_transaction_by_tx_id', [sub.Ok as Uint8Array]);
    expect(tx[0]?.origin).toEqual({ Impersonated: null });
    expect(e.ok<bigint>('rpc_eth_get_balance', TO, LATEST)).toBe(1n);
    // Exported: block 1 carries the dev_set_account change.
    const exp = e.client.querySync('export_blocks', [[{ block_number: 1n, segment: 0, byte_offset: 0 }], 100_000]);
    expect('Ok' in exp && exp.Ok.format_version).toBe(EXPORT_FORMAT_VERSION);
  }, 180_000);
});
