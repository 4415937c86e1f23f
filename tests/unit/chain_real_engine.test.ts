// The chain over the real EVM engine (src/core/evm): transfers, a creation emitting a log, a revert.
import { describe, expect, it } from 'vitest';
import { createEvmEngine } from '../../src/core/evm/index.js';
import { MemoryCoreHost } from '../../src/core/host.js';
import { EvmCore } from '../../src/core/index.js';
import { toHex } from '../../src/core/codec/bytes.js';
import { addr, ETH, key, okValue, PRICE, sign1559, signLegacy, TOPIC_A } from '../support/chain_testkit.js';

const A = key(11);
const B = key(12);

describe('chain with the real engine', () => {
  it('executes transfers, a log-emitting creation and a revert; receipts and balances agree', async () => {
    const host = new MemoryCoreHost();
    let core: EvmCore | undefined;
    const engine = await createEvmEngine({ host, blockHash: (n) => core?.getBlockHash(n) });
    core = new EvmCore(host, engine);
    okValue(await core.init({ genesisAllocations: [{ address: A.address, balance: 10n * ETH }, { address: B.address, balance: ETH }] }));
    expect(engine.getBalance(A.address)).toBe(10n * ETH);

    const t0 = okValue(core.submitRawTx(sign1559(A, { nonce: 0n, to: addr(5), value: 1234n })));
    // initcode: PUSH32 topic, PUSH1 0, PUSH1 0, LOG1, STOP
    const logInit = Uint8Array.of(0x7f, ...TOPIC_A, 0x60, 0, 0x60, 0, 0xa1, 0x00);
    const t1 = okValue(core.submitRawTx(sign1559(A, { nonce: 1n, to: null, value: 0n, data: logInit, gasLimit: 100000n })));
    // initcode: PUSH1 0, PUSH1 0, REVERT
    const t2 = okValue(core.submitRawTx(signLegacy(B, { nonce: 0n, to: null, value: 0n, data: Uint8Array.of(0x60, 0, 0x60, 0, 0xfd), gasLimit: 100000n })));
    const r = await core.produceBlock();
    expect(r.kind).toBe('Produced');

    const r0 = core.getReceipt(t0)!;
    expect(r0.status).toBe(1);
    expect(r0.gasUsed).toBe(21000n);
    expect(engine.getBalance(addr(5))).toBe(1234n);
    const r1 = core.getReceipt(t1)!;
    expect(r1.status).toBe(1);
    expect(r1.contractAddress).toBeDefined();
    expect(r1.logs.length).toBe(1);
    expect(r1.logs[0]!.address).toEqual(r1.contractAddress);
    expect(r1.logs[0]!.topics[0]).toEqual(TOPIC_A);
    const r2 = core.getReceipt(t2)!;
    expect(r2.status).toBe(0);
    expect(r2.failureCode).toBeDefined();
    expect(r0.cumulativeGasUsed + r1.gasUsed + r2.gasUsed).toBe(r2.cumulativeGasUsed);
    const block = core.getBlockByNumber(1n, false)!;
    expect(block.gasUsed).toBe(r2.cumulativeGasUsed);
    expect(toHex(block.stateRoot)).not.toBe(toHex(core.getBlockByNumber(0n, false)!.stateRoot));
    // A paid value + gas at the effective price (type 2: min(2P, P + P) = 2P).
    expect(r0.effectiveGasPrice).toBe(2n * PRICE);
    expect(engine.getBalance(A.address)).toBe(10n * ETH - 1234n - (r0.gasUsed + r1.gasUsed) * 2n * PRICE);
    expect(okValue(core.expectedNonceByAddress(A.address))).toBe(2n);
    expect(okValue(core.expectedNonceByAddress(B.address))).toBe(1n);
  }, 60_000);
});
