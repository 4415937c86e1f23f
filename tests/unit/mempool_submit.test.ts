import { describe, expect, it } from 'vitest';
import { MAX_PENDING_GLOBAL, MAX_PENDING_PER_PRINCIPAL, MAX_PENDING_PER_SENDER, MAX_TX_SIZE } from '../../src/core/constants.js';
import { ErrorCode } from '../../src/core/errors.js';
import { deriveSyntheticSender, type IcTxRecord } from '../../src/core/tx/ic_synthetic.js';
import { keccak256 } from '../../src/core/crypto.js';
import { toHex } from '../../src/core/codec/bytes.js';
import { addr, CANISTER, errCode, ETH, key, okValue, principal, PRICE, setup, sign1559, signRaw1559, sign2930, signLegacy } from '../support/chain_testkit.js';

const k = key(1);

function icRec(o: Partial<IcTxRecord> = {}): IcTxRecord {
  return { to: addr(1), value: 1n, gasLimit: 21000n, nonce: 0n, maxFeePerGas: 2n * PRICE, maxPriorityFeePerGas: PRICE, data: new Uint8Array(0), ...o };
}

const synth = (p: Uint8Array) => okValue(deriveSyntheticSender(p, CANISTER));

describe('submitRawTx', () => {
  it('accepts all three types, recovers the sender once and indexes tx_id and eth_tx_hash', async () => {
    const { core } = await setup({ genesisAllocations: [{ address: k.address, balance: ETH }] });
    const raws = [signLegacy(k, { nonce: 0n }), sign2930(k, { nonce: 1n }), sign1559(k, { nonce: 2n })];
    const ids = raws.map((r) => okValue(core.submitRawTx(r)));
    expect(ids.map(toHex)).toEqual(['0000000000000001', '0000000000000002', '0000000000000003']);
    raws.forEach((raw, i) => {
      expect(core.getPending(ids[i]!)).toEqual({ kind: 'Queued' });
      const v = core.getTransactionByEthHash(keccak256(raw))!;
      expect(v.txId).toEqual(ids[i]);
      expect(v.from).toEqual(k.address);
      expect(v.type).toBe(i);
      expect(v.blockHash).toBeUndefined();
      expect(core.getTransactionByTxId(ids[i]!)!.hash).toEqual(keccak256(raw));
    });
    // tx_id and eth_tx_hash are different values (8 vs 32 bytes).
    expect(ids[0]!.length).toBe(8);
    expect(core.pendingCount()).toBe(3);
  });

  it('returns the same tx_id for the same bytes while queued (idempotent retry)', async () => {
    const { core } = await setup({ genesisAllocations: [{ address: k.address, balance: ETH }] });
    const raw = sign1559(k);
    const a = okValue(core.submitRawTx(raw));
    expect(okValue(core.submitRawTx(raw))).toEqual(a);
    expect(core.pendingCount()).toBe(1);
  });

  it('produces every decode and size error', async () => {
    const { core } = await setup({ genesisAllocations: [{ address: k.address, balance: ETH }] });
    expect(errCode(core.submitRawTx(new Uint8Array(MAX_TX_SIZE + 1)))).toBe(ErrorCode.SubmitTxTooLarge);
    expect(errCode(core.submitRawTx(Uint8Array.of(0x03, 0xc0)))).toBe(ErrorCode.DecodeUnsupportedType);
    expect(errCode(core.submitRawTx(Uint8Array.of(0x04, 0xc0)))).toBe(ErrorCode.DecodeUnsupportedType);
    expect(errCode(core.submitRawTx(Uint8Array.of(0x02, 0xc1)))).toBe(ErrorCode.DecodeMalformed);
  });

  it('checks fees: min gas price, min priority fee, priority <= max fee', async () => {
    const { core } = await setup({ genesisAllocations: [{ address: k.address, balance: ETH }] });
    expect(errCode(core.submitRawTx(sign1559(k, { maxFee: PRICE - 1n, tip: PRICE - 1n })))).toBe(ErrorCode.SubmitInvalidFee);
    expect(errCode(core.submitRawTx(sign1559(k, { maxFee: 2n * PRICE, tip: PRICE - 1n })))).toBe(ErrorCode.SubmitInvalidFee);
    const inverted = signRaw1559(k, { nonce: 0n, maxFee: PRICE, tip: 2n * PRICE, gasLimit: 21000n, to: addr(1), value: 1n });
    expect(errCode(core.submitRawTx(inverted))).toBe(ErrorCode.SubmitInvalidFee);
    // Legacy: the gas price plays both roles.
    expect(errCode(core.submitRawTx(signLegacy(k, { gasPrice: PRICE - 1n })))).toBe(ErrorCode.SubmitInvalidFee);
    expect(core.submitRawTx(signLegacy(k, { gasPrice: PRICE })).ok).toBe(true);
  });

  it('checks gas: above the block limit, below intrinsic, oversized initcode', async () => {
    const { core } = await setup({ genesisAllocations: [{ address: k.address, balance: 100n * ETH }] });
    expect(errCode(core.submitRawTx(sign1559(k, { gasLimit: 3_000_001n })))).toBe(ErrorCode.SubmitGasLimitExceedsBlock);
    expect(errCode(core.submitRawTx(sign1559(k, { gasLimit: 20999n })))).toBe(ErrorCode.SubmitIntrinsicGas);
    expect(errCode(core.submitRawTx(sign1559(k, { gasLimit: 21000n, data: Uint8Array.of(1) })))).toBe(ErrorCode.SubmitIntrinsicGas);
    expect(errCode(core.submitRawTx(sign1559(k, { to: null, gasLimit: 3_000_000n, data: new Uint8Array(49153) })))).toBe(ErrorCode.SubmitInitcodeTooLarge);
  });

  it('checks the balance against gasLimit * maxFee + value', async () => {
    const cost = 21000n * 2n * PRICE + 5n;
    const { core } = await setup({ genesisAllocations: [{ address: k.address, balance: cost - 1n }] });
    expect(errCode(core.submitRawTx(sign1559(k, { value: 5n })))).toBe(ErrorCode.SubmitInsufficientFunds);
    expect(core.submitRawTx(sign1559(k, { value: 4n })).ok).toBe(true);
  });

  it('checks nonces: too low, gap beyond the window', async () => {
    const { core } = await setup({ genesisAllocations: [{ address: k.address, balance: ETH }] });
    okValue(core.submitRawTx(sign1559(k, { nonce: 0n })));
    expect((await core.produceBlock()).kind).toBe('Produced');
    expect(errCode(core.submitRawTx(sign1559(k, { nonce: 0n, value: 2n })))).toBe(ErrorCode.SubmitNonceTooLow);
    expect(errCode(core.submitRawTx(sign1559(k, { nonce: 65n })))).toBe(ErrorCode.SubmitNonceGap);
    expect(core.submitRawTx(sign1559(k, { nonce: 64n })).ok).toBe(true); // account nonce 1 + 63
  });

  it('replaces a pending (sender, nonce) only when both fees rise by 10%', async () => {
    const { core } = await setup({ genesisAllocations: [{ address: k.address, balance: ETH }] });
    const first = okValue(core.submitRawTx(sign1559(k, { maxFee: 10n * PRICE, tip: 2n * PRICE })));
    // Only max fee bumped, or both bumped by 9%: conflict.
    expect(errCode(core.submitRawTx(sign1559(k, { maxFee: 11n * PRICE, tip: 2n * PRICE })))).toBe(ErrorCode.SubmitNonceConflict);
    expect(errCode(core.submitRawTx(sign1559(k, { maxFee: (109n * PRICE) / 10n, tip: (218n * PRICE) / 100n })))).toBe(ErrorCode.SubmitNonceConflict);
    const second = okValue(core.submitRawTx(sign1559(k, { maxFee: 11n * PRICE, tip: (22n * PRICE) / 10n })));
    expect(core.getPending(first)).toEqual({ kind: 'Dropped', code: ErrorCode.PoolReplaced });
    expect(core.getPending(second)).toEqual({ kind: 'Queued' });
    expect(core.getTransactionByTxId(first)).toBeUndefined();
    expect(core.pendingCount()).toBe(1);
    const r = await core.produceBlock();
    expect(r.kind === 'Produced' && r.txCount).toBe(1);
    expect(core.getPending(second)).toMatchObject({ kind: 'Included', blockNumber: 1n, txIndex: 0 });
  });
});

describe('submitIcTx', () => {
  it('rejects an anonymous caller before anything else (even the ops guard)', async () => {
    const { core } = await setup({}, { writeGuard: () => ({ code: ErrorCode.OpsWriteMigration, message: 'migrating' }) });
    expect(errCode(core.submitIcTx(icRec({ to: new Uint8Array(3) }), Uint8Array.of(0x04), CANISTER))).toBe(ErrorCode.AuthAnonymousForbidden);
    expect(errCode(core.submitIcTx(icRec(), principal(1), CANISTER))).toBe(ErrorCode.OpsWriteMigration);
    expect(errCode(core.submitRawTx(sign1559(k)))).toBe(ErrorCode.OpsWriteMigration);
  });

  it('validates the record: to length, derivation, fees', async () => {
    const p = principal(1);
    const { core } = await setup({ genesisAllocations: [{ address: synth(p), balance: ETH }] });
    expect(errCode(core.submitIcTx(icRec({ to: new Uint8Array(19) }), p, CANISTER))).toBe(ErrorCode.ArgInvalid);
    expect(errCode(core.submitIcTx(icRec({ to: new Uint8Array(32) }), p, CANISTER))).toBe(ErrorCode.ArgInvalid);
    expect(errCode(core.submitIcTx(icRec(), new Uint8Array(0), CANISTER))).toBe(ErrorCode.PrincipalDerivationFailed);
    expect(errCode(core.submitIcTx(icRec(), p, new Uint8Array(0)))).toBe(ErrorCode.PrincipalDerivationFailed);
    expect(errCode(core.submitIcTx(icRec({ maxPriorityFeePerGas: 1n }), p, CANISTER))).toBe(ErrorCode.SubmitInvalidFee);
    expect(errCode(core.submitIcTx(icRec({ data: new Uint8Array(MAX_TX_SIZE) }), p, CANISTER))).toBe(ErrorCode.SubmitTxTooLarge);
    const id = okValue(core.submitIcTx(icRec(), p, CANISTER));
    // Same record from the same caller: same eth_tx_hash, same tx_id.
    expect(okValue(core.submitIcTx(icRec(), p, CANISTER))).toEqual(id);
    const v = core.getTransactionByTxId(id)!;
    expect(v.origin).toBe('IcSynthetic');
    expect(v.type).toBe(2);
    expect(v.from).toEqual(synth(p));
    expect(v.r).toBe(0n);
  });

  it('limits pending transactions per principal', async () => {
    const p = principal(1);
    const { core } = await setup({ genesisAllocations: [{ address: synth(p), balance: ETH }] });
    for (let n = 0; n < MAX_PENDING_PER_PRINCIPAL; n++) okValue(core.submitIcTx(icRec({ nonce: BigInt(n) }), p, CANISTER));
    expect(errCode(core.submitIcTx(icRec({ nonce: 32n }), p, CANISTER))).toBe(ErrorCode.SubmitPrincipalLimit);
    // Replacing one of its own pending txs is still allowed at the limit.
    expect(core.submitIcTx(icRec({ nonce: 3n, maxFeePerGas: 3n * PRICE, maxPriorityFeePerGas: 2n * PRICE }), p, CANISTER).ok).toBe(true);
    await core.produceBlock();
    expect(core.submitIcTx(icRec({ nonce: 32n }), p, CANISTER).ok).toBe(true);
  });

  it('limits the whole pool', async () => {
    const principals = Array.from({ length: MAX_PENDING_GLOBAL / MAX_PENDING_PER_PRINCIPAL }, (_, i) => principal(i + 1));
    const { core } = await setup({ genesisAllocations: [...principals.map((p) => ({ address: synth(p), balance: ETH })), { address: k.address, balance: ETH }] });
    for (const p of principals) {
      for (let n = 0; n < MAX_PENDING_PER_PRINCIPAL; n++) okValue(core.submitIcTx(icRec({ nonce: BigInt(n) }), p, CANISTER));
    }
    expect(core.pendingCount()).toBe(MAX_PENDING_GLOBAL);
    expect(errCode(core.submitRawTx(sign1559(k)))).toBe(ErrorCode.SubmitPoolFull);
  }, 60_000);
});

describe('sender limit', () => {
  it('a 65th pending tx of one sender is submit.sender_limit', async () => {
    const { core, engine } = await setup({ genesisAllocations: [{ address: k.address, balance: ETH }] });
    for (let n = 0; n < MAX_PENDING_PER_SENDER; n++) okValue(core.submitRawTx(sign1559(k, { nonce: BigInt(n) })));
    // Nonces 0..63 pending and the window is [0, 64): nonce 64 is a gap.
    expect(errCode(core.submitRawTx(sign1559(k, { nonce: 64n })))).toBe(ErrorCode.SubmitNonceGap);
    // Move the account nonce outside the pool so nonce 64 is inside the window while 64 txs are pending.
    engine.nonces.set(toHex(k.address), 1n);
    expect(errCode(core.submitRawTx(sign1559(k, { nonce: 64n })))).toBe(ErrorCode.SubmitSenderLimit);
    // A replacement of a pending nonce does not count against the limit.
    expect(core.submitRawTx(sign1559(k, { nonce: 5n, maxFee: 3n * PRICE, tip: 2n * PRICE })).ok).toBe(true);
  });
});

describe('expectedNonceByAddress', () => {
  it('accepts exactly 20 bytes and counts consecutive pending nonces', async () => {
    const { core } = await setup({ genesisAllocations: [{ address: k.address, balance: ETH }] });
    expect(okValue(core.expectedNonceByAddress(k.address))).toBe(0n);
    okValue(core.submitRawTx(sign1559(k, { nonce: 0n })));
    okValue(core.submitRawTx(sign1559(k, { nonce: 1n })));
    okValue(core.submitRawTx(sign1559(k, { nonce: 3n })));
    expect(okValue(core.expectedNonceByAddress(k.address))).toBe(2n);
    expect(okValue(core.getTransactionCount(k.address, false))).toBe(0n);
    const r32 = core.expectedNonceByAddress(new Uint8Array(32));
    expect(errCode(r32)).toBe(ErrorCode.ArgAddressLength);
    expect(!r32.ok && r32.error.message).toMatch(/principal/);
    expect(errCode(core.expectedNonceByAddress(new Uint8Array(19)))).toBe(ErrorCode.ArgAddressLength);
    expect(errCode(core.getBalance(new Uint8Array(21)))).toBe(ErrorCode.ArgAddressLength);
    expect(okValue(core.getBalance(k.address))).toBe(ETH);
  });
});
