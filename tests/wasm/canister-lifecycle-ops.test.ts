// Operational states through the real canister wasm: each state refuses writes with its ops.write.* code
// (before any decoding) and recovers. Migration is set by a controller and survives an upgrade; Cycle follows
// the host's cycle balance on the ops timer; CriticalCorrupt is raised by the post_upgrade integrity check on
// really broken stable memory (an entry removed by another wasm) and cleared once it is put back.
import { IDL } from '@dfinity/candid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WASM_PATH } from '../../src/devnet/build.js';
import { encodeInitArgs } from '../../src/client/host.js';
import { MemoryId } from '../../src/core/store/memory_ids.js';
import { OPS_CHECK_INTERVAL_MS, OPS_CYCLE_LOW_THRESHOLD, OPS_CYCLE_RESUME_THRESHOLD } from '../../src/core/ops/state.js';
import { buildAzleCanister } from '../fixtures/probe/build.js';
import { Evm, LATEST, errCode, unwrap, type CandidResult, type IcTxInput } from '../support/canister.js';
import { selfAuthenticating, syntheticSender } from '../support/ic.js';
import { ETH, GWEI } from '../support/eth.js';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const CONTROLLER = selfAuthenticating(0x61);
const USER = selfAuthenticating(0x62);
const SENDER = syntheticSender(USER);
const TO = new Uint8Array(20).fill(0x43);
const here = dirname(fileURLToPath(import.meta.url));

let evm: Evm;
let nonce = 0n;
const tx = (): IcTxInput => ({ to: [TO], value: 1n, gas_limit: 21000n, nonce: nonce++, max_fee_per_gas: 1000n * GWEI, max_priority_fee_per_gas: 250n * GWEI, data: new Uint8Array(0) });

beforeAll(async () => {
  evm = await Evm.start({ genesis: [{ address: SENDER, balance: 100n * ETH }], controllers: [CONTROLLER] });
  unwrap(await evm.submitIc(tx(), USER));
  await evm.mine();
}, 300_000);
afterAll(() => evm?.close());

const status = () => evm.query<{ mode: Record<string, null>; reason: [] | [string]; since_ns: bigint; writes_allowed: boolean }>('get_ops_status');
const mode = () => Object.keys(status().mode)[0];
const setMode = async (m: 'Normal' | 'Migration', reason?: string) =>
  unwrap((await evm.client.as({ caller: CONTROLLER }).update('set_ops_mode', [{ [m]: null } as { Normal: null } | { Migration: null }, reason === undefined ? [] : [reason]])));

describe('operational states', () => {
  it('Migration: writes refused with ops.write.migration before decoding, mining paused, kept across an upgrade, left by a controller', async () => {
    const queued = unwrap(await evm.submitIc(tx(), USER));
    await setMode('Migration', 'moving subnet');
    expect(status()).toMatchObject({ mode: { Migration: null }, reason: ['moving subnet'], writes_allowed: false });
    expect(evm.query<{ mode: object }>('health').mode).toEqual({ Migration: null });
    expect(errCode(await evm.submitIc(tx(), USER))).toBe('ops.write.migration');
    nonce--;
    // Not even decoded: garbage bytes get the ops code, not a decode error.
    expect(errCode(await evm.sendRaw(Uint8Array.of(1, 2, 3)))).toBe('ops.write.migration');
    const head = evm.blockNumber();
    await evm.mine();
    expect(evm.blockNumber()).toBe(head);
    expect(evm.pending(queued)).toEqual({ Queued: null });
    await evm.host.upgrade({ arg: encodeInitArgs(undefined) });
    expect(mode()).toBe('Migration');
    await setMode('Normal');
    expect(status()).toMatchObject({ mode: { Normal: null }, reason: [], writes_allowed: true });
    await evm.mine();
    expect(evm.pending(queued)).toMatchObject({ Included: {} });
  });

  it('Cycle: below the low threshold the ops timer refuses writes (ops.write.cycle); above the resume threshold it recovers', async () => {
    evm.host.cycleBalance = OPS_CYCLE_LOW_THRESHOLD - 1n;
    await evm.mine(OPS_CHECK_INTERVAL_MS);
    expect(status()).toMatchObject({ mode: { Cycle: null }, writes_allowed: false });
    expect(status().reason[0]).toMatch(/cycle balance/);
    expect(evm.query<{ cycles_balance: bigint }>('metrics').cycles_balance).toBe(OPS_CYCLE_LOW_THRESHOLD - 1n);
    expect(errCode(await evm.submitIc(tx(), USER))).toBe('ops.write.cycle');
    nonce--;
    evm.host.cycleBalance = OPS_CYCLE_RESUME_THRESHOLD - 1n;
    await evm.mine(OPS_CHECK_INTERVAL_MS);
    expect(mode()).toBe('Cycle');
    evm.host.cycleBalance = OPS_CYCLE_RESUME_THRESHOLD;
    await evm.mine(OPS_CHECK_INTERVAL_MS);
    expect(mode()).toBe('Normal');
    unwrap(await evm.submitIc(tx(), USER));
    await evm.mine();
  });

  it('CriticalCorrupt: the post_upgrade integrity check finds the head block missing; writes and state reads refused; repaired by an upgrade', async () => {
    const corruptor = buildAzleCanister('corruptor', join(here, '../fixtures/corruptor/index.ts'));
    const head = evm.blockNumber();
    const key = new Uint8Array(8);
    new DataView(key.buffer).setBigUint64(0, head);
    const noArgs = new Uint8Array(IDL.encode([], []));
    await evm.host.upgrade({ wasm: corruptor, arg: noArgs });
    const removed = await evm.host.update('remove', new Uint8Array(IDL.encode([IDL.Nat8, IDL.Vec(IDL.Nat8)], [MemoryId.Blocks, key])), { caller: CONTROLLER });
    if (removed.kind !== 'reply') throw new Error('corruptor remove failed');
    const [old] = IDL.decode([IDL.Opt(IDL.Vec(IDL.Nat8))], removed.bytes) as unknown as [[Uint8Array]];
    expect(old.length).toBe(1);
    await evm.host.upgrade({ wasm: WASM_PATH, arg: encodeInitArgs(undefined) });
    expect(status()).toMatchObject({ mode: { CriticalCorrupt: null }, reason: [`head block ${head} is missing`], writes_allowed: false });
    expect(errCode(await evm.submitIc(tx(), USER))).toBe('ops.write.critical_corrupt');
    nonce--;
    expect(errCode(evm.query<CandidResult<bigint>>('rpc_eth_get_balance', TO, LATEST))).toBe('exec.state.unavailable');
    const set = (await evm.client.as({ caller: CONTROLLER }).update('set_block_gas_limit', [4_000_000n]));
    expect(errCode(set)).toBe('ops.write.critical_corrupt');
    // The ops timer keeps finding it broken.
    await evm.mine(OPS_CHECK_INTERVAL_MS);
    expect(mode()).toBe('CriticalCorrupt');
    // Repair: put the entry back from another wasm, upgrade again.
    await evm.host.upgrade({ wasm: corruptor, arg: noArgs });
    const put = await evm.host.update('insert', new Uint8Array(IDL.encode([IDL.Nat8, IDL.Vec(IDL.Nat8), IDL.Vec(IDL.Nat8)], [MemoryId.Blocks, key, old[0]!])), { caller: CONTROLLER });
    expect(put.kind).toBe('reply');
    await evm.host.upgrade({ wasm: WASM_PATH, arg: encodeInitArgs(undefined) });
    expect(status()).toMatchObject({ mode: { Normal: null }, writes_allowed: true });
    expect(unwrap(evm.query<CandidResult<bigint>>('rpc_eth_get_balance', TO, LATEST))).toBeGreaterThan(0n);
    unwrap(await evm.submitIc(tx(), USER));
    await evm.mine();
    expect(evm.blockNumber()).toBe(head + 1n);
  });
});
