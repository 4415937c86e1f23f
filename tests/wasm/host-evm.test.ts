// The production canister (.azle/evm/evm.wasm, built by tests/build-wasm.setup.ts) through the Node IC host.
import { IDL } from '@dfinity/candid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WASM_PATH } from '../../src/devnet/build.js';
import { CHAIN_ID } from '../../src/core/constants.js';
import { IcHost } from '../../src/host/index.js';

describe('evm canister in the Node IC host', () => {
  let host: IcHost;
  beforeAll(async () => {
    host = await IcHost.create({ wasm: WASM_PATH, debugPrint: () => {} });
    // `opt InitArgs` = null: the no-argument install a deployer would do.
    await host.install(new Uint8Array(IDL.encode([IDL.Opt(IDL.Record({}))], [[]])));
  });
  afterAll(() => host.close());

  it('answers rpc_eth_chain_id = 4801360 and reports the instructions used', async () => {
    const r = host.query('rpc_eth_chain_id');
    expect(r.kind).toBe('reply');
    if (r.kind !== 'reply') return;
    expect(IDL.decode([IDL.Nat64], r.bytes)[0]).toBe(CHAIN_ID);
    expect(r.instructions).toBeGreaterThan(0n);
    // SPEC: query methods must be called as queries; as an update the call fails and says why.
    const u = await host.update('rpc_eth_chain_id');
    expect(u.kind).toBe('reject');
    expect(u.kind === 'reject' && u.message).toContain('rpc_eth_chain_id is a query method');
    expect(u.instructions).toBeGreaterThan(0n);
  });

  it('installs with no argument at all (as `dfx deploy` without --argument) and answers the block number', async () => {
    const bare = await IcHost.create({ wasm: WASM_PATH, debugPrint: () => {} });
    try {
      await bare.install();
      const chain = bare.query('rpc_eth_chain_id');
      const block = bare.query('rpc_eth_block_number');
      expect(chain.kind === 'reply' && IDL.decode([IDL.Nat64], chain.bytes)[0]).toBe(CHAIN_ID);
      expect(block.kind === 'reply' && IDL.decode([IDL.Nat64], block.bytes)[0]).toBe(0n);
    } finally {
      bare.close();
    }
  });
});
