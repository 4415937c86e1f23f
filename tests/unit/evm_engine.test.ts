import { bls12_381 } from '@noble/curves/bls12-381.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bigIntToBytes, generateAddress } from '@ethereumjs/util';
import { describe, expect, it, vi } from 'vitest';
import * as crypto from '../../src/core/crypto.js';
import { keccak256 } from '../../src/core/crypto.js';
import { MemoryCoreHost } from '../../src/core/host.js';
import { MemoryId } from '../../src/core/store/memory_ids.js';
import {
  KZG_POINT_EVALUATION_INPUT,
  bls12G1Bytes,
  bls12PairingInput,
  bn254PairingInput,
} from '../../src/core/evm/warmup.js';
import { asm, bytes, deployCode, hex, word } from '../support/asm.js';
import { ALICE, BASE_FEE, BOB, COINBASE, ETH, TIP, env, included, newEngine, tx } from '../support/evm_fixtures.js';

const pc = (id: number): Uint8Array => {
  const a = new Uint8Array(20);
  a[19] = id & 0xff;
  a[18] = id >> 8;
  return a;
};

describe('value transfer', () => {
  it('moves value, bumps the nonce, burns the base fee and pays the tip to the coinbase', async () => {
    const { engine } = await newEngine();
    engine.setGenesisBalance(ALICE, 10n * ETH);
    engine.beginBlock(env());
    const o = included(await engine.runTx(tx({ nonce: 0n, value: ETH, gasLimit: 21000n })));
    expect(o).toMatchObject({ status: 1, gasUsed: 21000n, failure: undefined, logs: [] });
    await engine.commitBlock();
    expect(engine.getBalance(BOB)).toBe(ETH);
    expect(engine.getBalance(ALICE)).toBe(9n * ETH - 21000n * (BASE_FEE + TIP));
    expect(engine.getBalance(COINBASE)).toBe(21000n * TIP);
    expect(engine.getNonce(ALICE)).toBe(1n);
  });

  it('caps the effective price at maxFeePerGas', async () => {
    const { engine } = await newEngine();
    engine.setGenesisBalance(ALICE, 10n * ETH);
    engine.beginBlock(env());
    included(await engine.runTx(tx({ nonce: 0n, gasLimit: 21000n, maxFeePerGas: BASE_FEE + 7n, maxPriorityFeePerGas: TIP })));
    await engine.commitBlock();
    expect(engine.getBalance(COINBASE)).toBe(21000n * 7n);
    expect(engine.getBalance(ALICE)).toBe(10n * ETH - 21000n * (BASE_FEE + 7n));
  });

  it('rejects what cannot be included, with stable codes, and changes nothing', async () => {
    const { engine } = await newEngine();
    engine.setGenesisBalance(ALICE, ETH);
    engine.beginBlock(env(1n, { gasLimit: 100_000n }));
    const cases: [Parameters<typeof tx>[0], string][] = [
      [{ nonce: 1n, gasLimit: 21000n }, 'submit.nonce_gap'],
      [{ nonce: 0n, gasLimit: 21000n, value: ETH }, 'submit.insufficient_funds'],
      [{ nonce: 0n, gasLimit: 200_000n }, 'submit.gas_limit_exceeds_block'],
      [{ nonce: 0n, gasLimit: 20_000n }, 'submit.intrinsic_gas_too_low'],
      [{ nonce: 0n, gasLimit: 21000n, maxFeePerGas: BASE_FEE - 1n, maxPriorityFeePerGas: 0n }, 'submit.invalid_fee'],
      [{ nonce: 0n, gasLimit: 21000n, maxFeePerGas: BASE_FEE, maxPriorityFeePerGas: BASE_FEE + 1n }, 'submit.invalid_fee'],
    ];
    for (const [t, code] of cases) {
      const o = await engine.runTx(tx(t));
      expect(o.kind, code).toBe('rejected');
      if (o.kind === 'rejected') expect(o.code).toBe(code);
    }
    included(await engine.runTx(tx({ nonce: 0n, gasLimit: 21000n })));
    const again = await engine.runTx(tx({ nonce: 0n, gasLimit: 21000n }));
    expect(again).toMatchObject({ kind: 'rejected', code: 'submit.nonce_too_low' });
    // Block gas left: 100000 - 21000 = 79000.
    expect(await engine.runTx(tx({ nonce: 1n, gasLimit: 80_000n }))).toMatchObject({ code: 'submit.gas_limit_exceeds_block' });
    await engine.commitBlock();
    expect(engine.getNonce(ALICE)).toBe(1n);
  });

  it('rejects a sender with code (EIP-3607)', async () => {
    const { engine } = await newEngine();
    engine.setGenesisBalance(ALICE, ETH);
    engine.beginBlock(env());
    const created = included(await engine.runTx(tx({ nonce: 0n, to: undefined, data: deployCode(asm('STOP', 'STOP')) })));
    const c = created.contractAddress!;
    await engine.commitBlock();
    engine.setGenesisBalance(c, ETH);
    engine.beginBlock(env(2n));
    expect(await engine.runTx(tx({ from: c, nonce: 1n, gasLimit: 21000n }))).toMatchObject({
      kind: 'rejected',
      code: 'exec.rejected.sender_not_eoa',
    });
    engine.abortBlock();
  });

  it('never recovers a sender during execution', async () => {
    const { engine } = await newEngine();
    // Transactions copy their Common, sharing this customCrypto object: count every recovery through it.
    const cc = engine.common.customCrypto as { ecrecover?: (...a: never[]) => Uint8Array };
    const real = cc.ecrecover!;
    const spy = vi.fn(real);
    cc.ecrecover = spy;
    engine.setGenesisBalance(ALICE, ETH);
    engine.beginBlock(env());
    for (const type of [0, 1, 2] as const) {
      included(await engine.runTx(tx({ type, nonce: BigInt(type), gasLimit: 21000n, maxPriorityFeePerGas: type === 2 ? TIP : BASE_FEE + TIP })));
    }
    expect(spy).not.toHaveBeenCalled();
    // The hook is live: the ECRECOVER precompile goes through it.
    const input = new Uint8Array(128);
    input[63] = 27;
    input[95] = 1;
    input[127] = 1;
    included(await engine.runTx(tx({ nonce: 3n, to: pc(1), data: input })));
    expect(spy).toHaveBeenCalledTimes(1);
    cc.ecrecover = real;
  });
});

describe('contracts', () => {
  const STORE = asm(32, 'CALLDATALOAD', 0, 'CALLDATALOAD', 'SSTORE', 0, 'CALLDATALOAD', 'SLOAD', 0, 'MSTORE', 32, 0, 'RETURN');

  it('deploys at the CREATE address and stores the code', async () => {
    const { engine } = await newEngine();
    engine.setGenesisBalance(ALICE, ETH);
    engine.beginBlock(env());
    const o = included(await engine.runTx(tx({ nonce: 0n, to: undefined, data: deployCode(STORE) })));
    expect(o.status).toBe(1);
    expect(hex(o.contractAddress!)).toBe(hex(generateAddress(ALICE, bigIntToBytes(0n))));
    expect(hex(engine.getCode(o.contractAddress!))).toBe(''); // not committed yet: head reads
    await engine.commitBlock();
    expect(hex(engine.getCode(o.contractAddress!))).toBe(hex(STORE));
    expect(engine.getNonce(o.contractAddress!)).toBe(1n);
  });

  it('SSTORE gas matches Ethereum by hand: fresh slot, then clear with refund', async () => {
    const { engine } = await newEngine();
    engine.setGenesisBalance(ALICE, ETH);
    engine.beginBlock(env());
    const c = included(await engine.runTx(tx({ nonce: 0n, to: undefined, data: deployCode(STORE) }))).contractAddress!;
    const set = included(await engine.runTx(tx({ nonce: 1n, to: c, data: new Uint8Array([...word(1n), ...word(5n)]) })));
    // 21000 + calldata (2 non-zero bytes * 16 + 62 zero * 4 = 280) + execution by hand:
    // PUSH1 3, CALLDATALOAD 3, PUSH0 2, CALLDATALOAD 3, SSTORE cold fresh 22100, PUSH0 2, CALLDATALOAD 3,
    // SLOAD warm 100, PUSH0 2, MSTORE 3 + 3 (memory), PUSH1 3, PUSH0 2, RETURN 0 = 22229
    expect(set.gasUsed).toBe(21000n + 280n + 22229n);
    const clear = included(await engine.runTx(tx({ nonce: 2n, to: c, data: new Uint8Array([...word(1n), ...word(0n)]) })));
    // calldata 1 non-zero: 16 + 63 * 4 = 268; SSTORE cold, 5 -> 0: 2100 + 2900 = 5000, so execution 5129;
    // refund min(4800, used / 5).
    const used = 21000n + 268n + 5129n;
    // After the refund the EIP-7623 calldata floor binds: (1 * 4 + 63) tokens * 10 + 21000 = 21670.
    expect(used - 4800n).toBe(21597n);
    expect(clear.gasUsed).toBe(21670n);
    await engine.commitBlock();
    expect(hex(engine.getStorage(c, word(1n)))).toBe(hex(word(0n)));
  });

  it('returns revert data and keeps the sender charged', async () => {
    const { engine } = await newEngine();
    engine.setGenesisBalance(ALICE, ETH);
    engine.beginBlock(env());
    const c = included(
      await engine.runTx(tx({ nonce: 0n, to: undefined, data: deployCode(asm(0xdeadbeefn << 224n, 0, 'MSTORE', 4, 0, 'REVERT')) })),
    ).contractAddress!;
    const o = included(await engine.runTx(tx({ nonce: 1n, to: c })));
    expect(o.status).toBe(0);
    expect(o.failure?.code).toBe('exec.reverted');
    expect(hex(o.returnData)).toBe('deadbeef');
    expect(o.gasUsed).toBeGreaterThan(21000n);
    expect(o.gasUsed).toBeLessThan(30000n);
  });

  it('reports logs, and halts on INVALID with all gas used', async () => {
    const { engine } = await newEngine();
    engine.setGenesisBalance(ALICE, ETH);
    engine.beginBlock(env());
    const logger = included(
      await engine.runTx(tx({ nonce: 0n, to: undefined, data: deployCode(asm(0x6869, 0, 'MSTORE', 0xbeef, 0xcafe, 2, 30, 'LOG2', 'STOP')) })),
    ).contractAddress!;
    const o = included(await engine.runTx(tx({ nonce: 1n, to: logger })));
    expect(o.logs).toHaveLength(1);
    expect(hex(o.logs[0]!.address)).toBe(hex(logger));
    expect(o.logs[0]!.topics.map(hex)).toEqual([hex(word(0xcafen)), hex(word(0xbeefn))]);
    expect(hex(o.logs[0]!.data)).toBe('6869');
    const bad = included(await engine.runTx(tx({ nonce: 2n, to: undefined, data: asm('INVALID'), gasLimit: 100_000n })));
    expect(bad).toMatchObject({ status: 0, gasUsed: 100_000n, failure: { code: 'exec.halt' } });
  });

  it('BLOCKHASH answers from the blockHash callback for the last 256 blocks', async () => {
    const hashOf = (n: bigint): Uint8Array => keccak256(word(n));
    const { engine } = await newEngine(new MemoryCoreHost(), { blockHash: hashOf });
    engine.setGenesisBalance(ALICE, ETH);
    // Returns BLOCKHASH(calldata[0]).
    const code = asm(0, 'CALLDATALOAD', 'BLOCKHASH', 0, 'MSTORE', 32, 0, 'RETURN');
    engine.beginBlock(env(300n));
    const c = included(await engine.runTx(tx({ nonce: 0n, to: undefined, data: deployCode(code) }))).contractAddress!;
    const ask = async (n: bigint, nonce: bigint) => hex(included(await engine.runTx(tx({ nonce, to: c, data: word(n) }))).returnData);
    expect(await ask(299n, 1n)).toBe(hex(hashOf(299n)));
    expect(await ask(44n, 2n)).toBe(hex(hashOf(44n)));
    expect(await ask(43n, 3n)).toBe(hex(word(0n))); // older than 256 blocks
    expect(await ask(300n, 4n)).toBe(hex(word(0n))); // the current block
  });
});

describe('block lifecycle', () => {
  it('abortBlock discards every write; commitBlock persists for a new engine over the same maps', async () => {
    const host = new MemoryCoreHost();
    const { engine } = await newEngine(host);
    engine.setGenesisBalance(ALICE, 10n * ETH);
    const genesisRoot = engine.headStateRoot();
    engine.beginBlock(env());
    included(await engine.runTx(tx({ nonce: 0n, value: ETH, gasLimit: 21000n })));
    engine.abortBlock();
    expect(engine.getBalance(BOB)).toBe(0n);
    expect(engine.headStateRoot()).toEqual(genesisRoot);

    engine.beginBlock(env());
    const sstore = asm(0x2a, 7, 'SSTORE', 'STOP');
    const c = included(await engine.runTx(tx({ nonce: 0n, to: undefined, data: deployCode(sstore) }))).contractAddress!;
    included(await engine.runTx(tx({ nonce: 1n, to: c })));
    const { stateRoot } = await engine.commitBlock();
    expect(stateRoot).not.toEqual(genesisRoot);

    const { engine: fresh } = await newEngine(host);
    expect(fresh.getNonce(ALICE)).toBe(2n);
    expect(hex(fresh.getCode(c))).toBe(hex(sstore));
    expect(hex(fresh.getStorage(c, word(7n)))).toBe(hex(word(0x2an)));
    expect(fresh.headStateRoot()).toEqual(stateRoot);
    fresh.beginBlock(env(2n));
    included(await fresh.runTx(tx({ nonce: 2n, value: 1n, gasLimit: 21000n })));
    await fresh.commitBlock();
    expect(fresh.getBalance(BOB)).toBe(1n);
  });

  it('the state root is deterministic and an empty block keeps it', async () => {
    const run = async () => {
      const { engine, host } = await newEngine();
      engine.setGenesisBalance(ALICE, 10n * ETH);
      engine.beginBlock(env());
      included(await engine.runTx(tx({ nonce: 0n, value: 3n, gasLimit: 21000n })));
      const r1 = (await engine.commitBlock()).stateRoot;
      engine.beginBlock(env(2n));
      const r2 = (await engine.commitBlock()).stateRoot;
      return { r1, r2, host };
    };
    const a = await run();
    const b = await run();
    expect(hex(a.r1)).toBe(hex(b.r1));
    expect(hex(a.r2)).toBe(hex(a.r1));
    // Only the net state reaches the maps: 3 accounts + the root entry.
    expect(a.host.openMap(MemoryId.Accounts).len()).toBe(4n);
  });

  it('eth_call executes at head, returns data and discards its writes', async () => {
    const { engine } = await newEngine();
    engine.setGenesisBalance(ALICE, ETH);
    engine.beginBlock(env());
    const code = asm(1, 0, 'SLOAD', 'ADD', 'DUP1', 0, 'SSTORE', 0, 'MSTORE', 32, 0, 'RETURN');
    const c = included(await engine.runTx(tx({ nonce: 0n, to: undefined, data: deployCode(code) }))).contractAddress!;
    await engine.commitBlock();
    const call = tx({ nonce: 0n, to: c, from: BOB, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n });
    const r1 = await engine.call(call, env(2n));
    const r2 = await engine.call(call, env(2n));
    expect(r1.status).toBe(1);
    expect(hex(r1.returnData)).toBe(hex(word(1n)));
    expect(hex(r2.returnData)).toBe(hex(word(1n)));
    expect(hex(engine.getStorage(c, word(0n)))).toBe(hex(word(0n)));
    const reverting = asm(0xabn << 248n, 0, 'MSTORE', 1, 0, 'REVERT');
    const r3 = await engine.call(tx({ nonce: 0n, to: undefined, from: BOB, data: reverting, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n }), env(2n));
    expect(r3).toMatchObject({ status: 0, failure: { code: 'exec.reverted' } });
    expect(hex(r3.returnData)).toBe('ab');
    const low = await engine.call(tx({ nonce: 0n, to: c, gasLimit: 1000n }), env(2n));
    expect(low).toMatchObject({ status: 0, gasUsed: 0n, failure: { code: 'submit.intrinsic_gas_too_low' } });
  });
});

describe('precompiles', () => {
  async function callPrecompile(id: number, data: Uint8Array, gasLimit = 1_000_000n) {
    const { engine } = await newEngine();
    engine.setGenesisBalance(ALICE, ETH);
    engine.beginBlock(env());
    return included(await engine.runTx(tx({ nonce: 0n, to: pc(id), data, gasLimit })));
  }

  it('0x01 ECRECOVER', async () => {
    const priv = new Uint8Array(32).fill(3);
    const h = keccak256(new Uint8Array([1, 2, 3]));
    const sig = secp256k1.sign(h, priv, { prehash: false, format: 'recovered' });
    const rec = sig[0]!;
    const input = new Uint8Array(128);
    input.set(h, 0);
    input[63] = 27 + rec;
    input.set(sig.subarray(1, 65), 64);
    const o = await callPrecompile(1, input);
    const pub = secp256k1.getPublicKey(priv, false).subarray(1);
    expect(hex(o.returnData)).toBe(hex(new Uint8Array([...new Uint8Array(12), ...crypto.publicKeyToAddress(pub)])));
    const zeros = BigInt(input.filter((b) => b === 0).length);
    expect(o.gasUsed).toBe(21000n + 3000n + zeros * 4n + (128n - zeros) * 16n);
  });

  it('0x02 SHA256, 0x03 RIPEMD160, 0x04 IDENTITY', async () => {
    expect(hex((await callPrecompile(2, bytes('616263'))).returnData)).toBe(hex(sha256(bytes('616263'))));
    expect(hex((await callPrecompile(3, bytes('616263'))).returnData)).toBe(
      '0000000000000000000000008eb208f7e05d987a9b044a8e98c6b087f15a0bfc',
    );
    expect(hex((await callPrecompile(4, bytes('0102030405'))).returnData)).toBe('0102030405');
  });

  it('0x05 MODEXP, 0x06-0x08 BN254, 0x09 BLAKE2F', async () => {
    // 3^5 mod 7 = 5
    const modexp = new Uint8Array([...word(1n), ...word(1n), ...word(1n), 3, 5, 7]);
    expect(hex((await callPrecompile(5, modexp)).returnData)).toBe('05');
    const g1 = new Uint8Array([...word(1n), ...word(2n)]);
    const add = await callPrecompile(6, new Uint8Array([...g1, ...g1]));
    expect(add.status).toBe(1);
    expect(add.returnData).toHaveLength(64);
    const mul = await callPrecompile(7, new Uint8Array([...g1, ...word(2n)]));
    expect(hex(mul.returnData)).toBe(hex(add.returnData));
    expect(hex((await callPrecompile(8, bn254PairingInput())).returnData)).toBe(hex(word(1n)));
    // EIP-152 test vector 5 (12 rounds of "abc").
    const blake = bytes(
      '0000000c' +
        '48c9bdf267e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5d182e6ad7f520e511f6c3e2b8c68059b6bbd41fbabd9831f79217e1319cde05b' +
        '616263' + '00'.repeat(125) +
        '0300000000000000' + '0000000000000000' +
        '01',
    );
    expect(blake).toHaveLength(213);
    expect(hex((await callPrecompile(9, blake)).returnData)).toBe(
      'ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923',
    );
  });

  it('0x0a KZG point evaluation with a valid proof, and a bad one fails as precompile_error', async () => {
    const ok = await callPrecompile(0x0a, KZG_POINT_EVALUATION_INPUT);
    expect(ok.status).toBe(1);
    expect(hex(ok.returnData)).toBe(
      hex(word(4096n)) + '73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001',
    );
    const bad = KZG_POINT_EVALUATION_INPUT.slice();
    bad[95] = bad[95]! ^ 1; // y
    const o = await callPrecompile(0x0a, bad);
    expect(o).toMatchObject({ status: 0, failure: { code: 'exec.halt.precompile_error' }, gasUsed: 1_000_000n });
  });

  it('0x0b-0x11 BLS12-381', async () => {
    const G1 = bls12_381.G1.Point.BASE;
    const g1add = await callPrecompile(0x0b, new Uint8Array([...bls12G1Bytes(G1), ...bls12G1Bytes(G1)]));
    expect(hex(g1add.returnData)).toBe(hex(bls12G1Bytes(G1.double())));
    const g1msm = await callPrecompile(0x0c, new Uint8Array([...bls12G1Bytes(G1), ...word(2n)]));
    expect(hex(g1msm.returnData)).toBe(hex(bls12G1Bytes(G1.double())));
    const g2 = bls12PairingInput().subarray(128, 384);
    const g2add = await callPrecompile(0x0d, new Uint8Array([...g2, ...g2]));
    expect(g2add.status).toBe(1);
    const g2msm = await callPrecompile(0x0e, new Uint8Array([...g2, ...word(2n)]));
    expect(hex(g2msm.returnData)).toBe(hex(g2add.returnData));
    expect(hex((await callPrecompile(0x0f, bls12PairingInput())).returnData)).toBe(hex(word(1n)));
    const fp = new Uint8Array(64);
    fp[63] = 5;
    expect((await callPrecompile(0x10, fp)).returnData).toHaveLength(128);
    expect((await callPrecompile(0x11, new Uint8Array([...fp, ...fp]))).returnData).toHaveLength(256);
  });

  it('0x0100 (P256VERIFY, Osaka) is not active: an empty account', async () => {
    const o = await callPrecompile(0x100, new Uint8Array(160).fill(1));
    expect(o).toMatchObject({ status: 1, failure: undefined });
    expect(o.returnData).toHaveLength(0);
    // EIP-7623 floor: 160 non-zero bytes = 640 tokens * 10 exceeds the standard 160 * 16.
    expect(o.gasUsed).toBe(21000n + 640n * 10n);
  });
});
