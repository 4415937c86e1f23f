// Genesis code in the core over the real EVM engine: the account holds the code from block 0 (and the state
// root commits to it), it runs in the first block (a CREATE2 through the predeployed deployer), an account with
// a genesis balance keeps it, and malformed entries are refused before anything is stored.
import { describe, expect, it } from 'vitest';
import { createEvmEngine } from '../../src/core/evm/index.js';
import { MemoryCoreHost } from '../../src/core/host.js';
import { EvmCore } from '../../src/core/index.js';
import { keccak256 } from '../../src/core/crypto.js';
import { fromHex, toHex } from '../../src/core/codec/bytes.js';
import { CREATE2_DEPLOYER, MULTICALL3 } from '../../src/devnet/predeploys.js';
import { ETH, key, okValue, sign1559 } from '../support/chain_testkit.js';

const A = key(21);
const deployer = fromHex(CREATE2_DEPLOYER.address.slice(2));
const multicall = fromHex(MULTICALL3.address.slice(2));
const runtime = Uint8Array.of(0x60, 0x2a, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3); // returns the word 42

async function chain(genesisCode: { address: Uint8Array; code: Uint8Array }[]) {
  const host = new MemoryCoreHost();
  let core: EvmCore | undefined;
  const engine = await createEvmEngine({ host, blockHash: (n) => core?.getBlockHash(n) });
  core = new EvmCore(host, engine);
  const r = await core.init({ genesisAllocations: [{ address: A.address, balance: 10n * ETH }, { address: multicall, balance: 3n }], genesisCode });
  return { core, engine, r };
}

describe('genesis code', () => {
  it('is held from block 0, committed by the state root, and runs in the first block', async () => {
    const withCode = await chain([
      { address: deployer, code: fromHex(CREATE2_DEPLOYER.code.slice(2)) },
      { address: multicall, code: fromHex(MULTICALL3.code.slice(2)) },
    ]);
    okValue(withCode.r);
    const { core, engine } = withCode;
    expect(`0x${toHex(keccak256(engine.getCode(multicall)))}`).toBe(MULTICALL3.codeHash);
    expect(`0x${toHex(keccak256(engine.getCode(deployer)))}`).toBe(CREATE2_DEPLOYER.codeHash);
    expect(engine.getBalance(multicall)).toBe(3n);
    expect(engine.getNonce(multicall)).toBe(1n);
    const without = await chain([]);
    expect(toHex(core.getBlockByNumber(0n, false)!.stateRoot)).not.toBe(toHex(without.core.getBlockByNumber(0n, false)!.stateRoot));

    // Init code returning `runtime`: PUSH10 runtime, PUSH1 0, MSTORE, PUSH1 10, PUSH1 22, RETURN.
    const init = Uint8Array.of(0x69, ...runtime, 0x60, 0x00, 0x52, 0x60, 0x0a, 0x60, 0x16, 0xf3);
    const salt = new Uint8Array(32).fill(9);
    const predicted = keccak256(Uint8Array.of(0xff, ...deployer, ...salt, ...keccak256(init))).subarray(12);
    const t = okValue(core.submitRawTx(sign1559(A, { nonce: 0n, to: deployer, value: 0n, data: Uint8Array.of(...salt, ...init), gasLimit: 200_000n })));
    expect((await core.produceBlock()).kind).toBe('Produced');
    expect(core.getReceipt(t)!.status).toBe(1);
    expect(toHex(engine.getCode(predicted))).toBe(toHex(runtime));
  }, 60_000);

  it('refuses oversized, empty, repeated and mis-sized entries', async () => {
    const a = new Uint8Array(20).fill(1);
    for (const bad of [
      [{ address: a, code: new Uint8Array(24_577) }],
      [{ address: a, code: new Uint8Array() }],
      [{ address: a, code: runtime }, { address: a, code: runtime }],
      [{ address: new Uint8Array(19), code: runtime }],
      Array.from({ length: 65 }, (_, i) => ({ address: new Uint8Array(20).fill(i + 1), code: runtime })),
    ]) {
      const { core, r } = await chain(bad);
      expect(r.ok).toBe(false);
      expect(core.isInitialized()).toBe(false);
    }
  }, 60_000);
});
