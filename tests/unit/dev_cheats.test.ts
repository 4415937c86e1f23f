// The development (cheat) methods in the core over the real EVM engine: refused (dev.disabled) unless the chain
// was installed as a development chain, and the flag cannot be turned on later; dev_set_account is read at
// once, recorded as the next block's state changes and committed by its state root; impersonated transactions
// run like any other (receipt, logs, origin Impersonated) with anvil's hash; drop, base fee and coinbase.
// Replaying the exported chain (state changes re-applied, transactions re-submitted) gives every block's
// state root.
import { blake3 } from '@noble/hashes/blake3.js';
import { RLP } from '@ethereumjs/rlp';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { describe, expect, it } from 'vitest';
import { createEvmEngine } from '../../src/core/evm/index.js';
import { MemoryCoreHost } from '../../src/core/host.js';
import { EvmCore, type ChainInitArgs } from '../../src/core/index.js';
import { keccak256 } from '../../src/core/crypto.js';
import { CHAIN_ID } from '../../src/core/constants.js';
import { concatBytes, toHex } from '../../src/core/codec/bytes.js';
import { ExportAssembler, type ExportedBlock } from '../../src/core/export/decode.js';
import { encodeStateChanges } from '../../src/core/export/state_changes.js';
import { storedFields } from '../../src/core/tx/stored.js';
import { TxOrigin } from '../../src/core/tx/types.js';
import { impersonatedRaw, impersonatedTxHash } from '../../src/core/tx/impersonated.js';
import { addr, common, ETH, key, okValue, sign1559 } from '../support/chain_testkit.js';
import { startAnvil } from '../support/e2e.js';

const A = key(31);
const WHALE = addr(0x3a1e); // nobody's key
const word = (n: number): Uint8Array => {
  const w = new Uint8Array(32);
  w[31] = n;
  return w;
};
// Runtime code: LOG1(topic 0x77) with no data, then SSTORE(slot 5, CALLER).
const LOGGER = Uint8Array.of(0x60, 0x77, 0x60, 0x00, 0x60, 0x00, 0xa1, 0x33, 0x60, 0x05, 0x55, 0x00);

async function chain(init: ChainInitArgs) {
  const host = new MemoryCoreHost();
  let core: EvmCore | undefined;
  const engine = await createEvmEngine({ host, blockHash: (n) => core?.getBlockHash(n) });
  core = new EvmCore(host, engine);
  okValue(await core.init(init));
  return { host, core, engine };
}
const GENESIS: ChainInitArgs = { genesisAllocations: [{ address: A.address, balance: 100n * ETH }] };

function pull(core: EvmCore): ExportedBlock[] {
  const asm = new ExportAssembler({ blockNumber: 0n, segment: 0, byteOffset: 0 });
  const out: ExportedBlock[] = [];
  let cursor = asm.cursor;
  for (;;) {
    const r = core.exportBlocks(cursor, 1 << 20);
    if (!r.ok) throw new Error(r.error.kind);
    if (r.value.chunks.length === 0) return out;
    for (const c of r.value.chunks) out.push(...asm.push(c));
    cursor = r.value.nextCursor;
  }
}

const code = (r: { ok: boolean; error?: { code: string } }) => (r.ok ? 'ok' : r.error!.code);

describe('development methods', () => {
  it('a chain installed without the flag refuses every one with dev.disabled, and a second init cannot turn it on', async () => {
    const { core } = await chain(GENESIS);
    expect(core.isDevelopment()).toBe(false);
    okValue(await core.init({ ...GENESIS, development: true }));
    expect(core.isDevelopment()).toBe(false);
    expect(code(core.devSetAccount({ address: A.address, balance: 1n, storage: [] }))).toBe('dev.disabled');
    expect(code(core.devSubmitImpersonated({ from: WHALE, to: A.address, value: 1n, data: new Uint8Array(), gasLimit: 21000n, accessList: [] }))).toBe('dev.disabled');
    expect(code(core.devDropTransaction(new Uint8Array(32)))).toBe('dev.disabled');
    expect(code(core.devSetNextBlockBaseFee(1n))).toBe('dev.disabled');
    expect(code(core.devSetCoinbase(WHALE))).toBe('dev.disabled');
    expect(core.getBalance(A.address)).toEqual({ ok: true, value: 100n * ETH });
  }, 60_000);

  it('dev_set_account is read at once, exported with the next block, and committed by its state root', async () => {
    const { core } = await chain({ ...GENESIS, development: true });
    expect(core.isDevelopment()).toBe(true);
    const X = addr(0x777);
    okValue(core.devSetAccount({ address: X, balance: 5n, storage: [{ slot: word(1), value: word(9) }] }));
    okValue(core.devSetAccount({ address: X, nonce: 3n, code: LOGGER, storage: [{ slot: word(1), value: word(10) }, { slot: word(2), value: word(11) }] }));
    okValue(core.devSetAccount({ address: A.address, balance: 7n * ETH, storage: [] }));
    expect(core.getBalance(X)).toEqual({ ok: true, value: 5n });
    expect(core.getTransactionCount(X, false)).toEqual({ ok: true, value: 3n });
    expect(core.getCode(X)).toEqual({ ok: true, value: LOGGER });
    expect(core.getStorageAt(X, word(1))).toEqual({ ok: true, value: word(10) });
    const parentRoot = core.getBlockByNumber(0n, false)!.stateRoot;
    const r = await core.produceBlock({ allowEmpty: true });
    expect(r.kind).toBe('Produced');
    const [, b1] = pull(core);
    const expected = [
      { address: X, balance: 5n, nonce: 3n, code: LOGGER, storage: [{ slot: word(1), value: word(10) }, { slot: word(2), value: word(11) }] },
      { address: A.address, balance: 7n * ETH, storage: [] },
    ];
    expect(b1!.stateChanges).toEqual(expected);
    const S = encodeStateChanges(expected);
    expect(b1!.block.stateChanges).toEqual(S);
    // An empty block: its root is the state-change link alone (commitment version 2: H = BLAKE3).
    expect(b1!.block.commitment).toBe(2);
    expect(toHex(b1!.block.stateRoot)).toBe(toHex(blake3(concatBytes(parentRoot, blake3(S)))));
    // Recorded once: the next block has none.
    okValue(core.submitRawTx(sign1559(A, { nonce: 0n, to: X, value: 1n, gasLimit: 60_000n })));
    await core.produceBlock();
    expect(pull(core)[2]!.stateChanges).toEqual([]);
    expect(core.getStorageAt(X, word(5))).toEqual({ ok: true, value: concatBytes(new Uint8Array(12), A.address) });
  }, 60_000);

  it('impersonated transactions: the ordinary pool and execution, origin Impersonated, anvil-style hash; drop, base fee, coinbase', async () => {
    const { core } = await chain({ ...GENESIS, development: true });
    const X = addr(0x777);
    okValue(core.devSetAccount({ address: X, code: LOGGER, storage: [] }));
    okValue(core.devSetAccount({ address: WHALE, balance: 10n * ETH, storage: [] }));
    const coinbase = addr(0xc01);
    okValue(core.devSetCoinbase(coinbase));
    okValue(core.devSetNextBlockBaseFee(300_000_000_000n));
    const id = okValue(core.devSubmitImpersonated({ from: WHALE, to: X, value: 2n, data: new Uint8Array(), gasLimit: 100_000n, maxFeePerGas: 700_000_000_000n, maxPriorityFeePerGas: 250_000_000_000n, accessList: [] }));
    const pending = core.getTransactionByTxId(id)!;
    // The hash, independently: EthereumJS's serialization with the placeholder signature, its RLP string, the sender.
    const ejs = createFeeMarket1559Tx({ chainId: CHAIN_ID, nonce: 0n, maxPriorityFeePerGas: 250_000_000_000n, maxFeePerGas: 700_000_000_000n, gasLimit: 100_000n, to: X, value: 2n, data: new Uint8Array(), v: 0n, r: 0n, s: 0n }, { common });
    expect(toHex(pending.hash)).toBe(toHex(keccak256(concatBytes(RLP.encode(ejs.serialize()), WHALE))));
    // A second one, dropped before mining.
    const id2 = okValue(core.devSubmitImpersonated({ from: WHALE, to: X, value: 3n, data: new Uint8Array(), gasLimit: 100_000n, accessList: [] }));
    const h2 = core.getTransactionByTxId(id2)!.hash;
    expect(core.devDropTransaction(h2)).toEqual({ ok: true, value: true });
    expect(core.devDropTransaction(h2)).toEqual({ ok: true, value: false });
    expect(core.getPending(id2)).toMatchObject({ kind: 'Dropped', code: 'pool.dropped.dev' });
    const r = await core.produceBlock();
    expect(r.kind).toBe('Produced');
    const block = core.getBlockByNumber(1n, true)!;
    expect(block.baseFeePerGas).toBe(300_000_000_000n);
    expect(block.miner).toEqual(coinbase);
    const rc = core.getReceipt(id)!;
    expect(rc.status).toBe(1);
    expect(rc.logs.length).toBe(1);
    expect(rc.from).toEqual(WHALE);
    const tx = core.getTransactionByTxId(id)!;
    expect(tx.origin).toBe('Impersonated');
    expect(tx.from).toEqual(WHALE);
    expect(core.getStorageAt(X, word(5))).toEqual({ ok: true, value: concatBytes(new Uint8Array(12), WHALE) });
    expect(core.getBalance(coinbase).ok && (core.getBalance(coinbase) as { value: bigint }).value > 0n).toBe(true);
    // Legacy pricing: a type 0 transaction with the placeholder v = chainId * 2 + 35.
    const id3 = okValue(core.devSubmitImpersonated({ from: WHALE, to: X, value: 0n, data: new Uint8Array(), gasLimit: 100_000n, gasPrice: 800_000_000_000n, accessList: [] }));
    const t3 = core.getTransactionByTxId(id3)!;
    expect(t3.type).toBe(0);
    expect(t3.nonce).toBe(1n);
    expect([t3.v, t3.r, t3.s]).toEqual([CHAIN_ID * 2n + 35n, 0n, 0n]);
    expect(toHex(t3.hash)).toBe(toHex(impersonatedTxHash(impersonatedRaw({ type: 0, chainId: CHAIN_ID, nonce: 1n, gasLimit: 100_000n, maxFeePerGas: 800_000_000_000n, maxPriorityFeePerGas: 800_000_000_000n, to: X, value: 0n, data: new Uint8Array(), accessList: [] }), WHALE)));
  }, 60_000);

  it("computes the hashes anvil gives impersonated transactions (the pinned anvil, same fields)", async () => {
    const anvil = await startAnvil();
    try {
      const rpc = async (method: string, params: unknown[]): Promise<unknown> => {
        const r = await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
        const j = (await r.json()) as { result?: unknown; error?: unknown };
        if (j.error !== undefined) throw new Error(JSON.stringify(j.error));
        return j.result;
      };
      const from = `0x${toHex(WHALE)}`;
      const to = addr(0x777);
      await rpc('anvil_impersonateAccount', [from]);
      await rpc('anvil_setBalance', [from, '0x1000000000000000000000']);
      await rpc('evm_setAutomine', [false]);
      const cases = [
        { type: 2 as const, nonce: 0n, maxFeePerGas: 700_000_000_000n, maxPriorityFeePerGas: 250_000_000_000n, data: Uint8Array.of(0x12, 0x34), accessList: [] },
        { type: 0 as const, nonce: 1n, maxFeePerGas: 800_000_000_000n, maxPriorityFeePerGas: 800_000_000_000n, data: new Uint8Array(), accessList: [] },
        { type: 1 as const, nonce: 2n, maxFeePerGas: 800_000_000_000n, maxPriorityFeePerGas: 800_000_000_000n, data: new Uint8Array(), accessList: [[to, [word(3)]]] as const },
      ];
      for (const c of cases) {
        const hex = (v: bigint) => `0x${v.toString(16)}`;
        const req = {
          from,
          to: `0x${toHex(to)}`,
          value: '0x2',
          gas: hex(100_000n),
          nonce: hex(c.nonce),
          data: `0x${toHex(c.data)}`,
          ...(c.type === 2 ? { maxFeePerGas: hex(c.maxFeePerGas), maxPriorityFeePerGas: hex(c.maxPriorityFeePerGas) } : { gasPrice: hex(c.maxFeePerGas) }),
          ...(c.type === 1 ? { accessList: [{ address: `0x${toHex(to)}`, storageKeys: [`0x${toHex(word(3))}`] }] } : {}),
        };
        const theirs = await rpc('eth_sendTransaction', [req]);
        const ours = impersonatedTxHash(impersonatedRaw({ ...c, chainId: CHAIN_ID, gasLimit: 100_000n, to, value: 2n }), WHALE);
        expect(`0x${toHex(ours)}`, `type ${c.type}`).toBe(theirs);
      }
    } finally {
      await anvil.stop();
    }
  }, 60_000);

  it('replaying the export stream (state changes applied, transactions re-submitted) gives every state root', async () => {
    const src = await chain({ ...GENESIS, development: true });
    const X = addr(0x777);
    const steps: Array<() => Promise<void> | void> = [
      () => void okValue(src.core.devSetAccount({ address: X, code: LOGGER, balance: 1n, storage: [{ slot: word(5), value: word(1) }] })),
      () => void okValue(src.core.devSetAccount({ address: WHALE, balance: 3n * ETH, storage: [] })),
      () => void okValue(src.core.submitRawTx(sign1559(A, { nonce: 0n, to: X, value: 1n, gasLimit: 80_000n }))),
      () => void okValue(src.core.devSubmitImpersonated({ from: WHALE, to: X, value: 0n, data: new Uint8Array(), gasLimit: 80_000n, accessList: [] })),
    ];
    for (const s of steps) await s();
    src.host.nowNs += 12_000_000_000n;
    expect((await src.core.produceBlock()).kind).toBe('Produced');
    okValue(src.core.devSetAccount({ address: X, nonce: 9n, storage: [{ slot: word(5), value: word(0) }] }));
    okValue(src.core.devSetAccount({ address: A.address, balance: 50n * ETH, storage: [] }));
    src.host.nowNs += 12_000_000_000n;
    expect((await src.core.produceBlock({ allowEmpty: true })).kind).toBe('Produced');
    okValue(src.core.devSubmitImpersonated({ from: WHALE, to: A.address, value: ETH, data: new Uint8Array(), gasLimit: 21_000n, accessList: [] }));
    okValue(src.core.submitRawTx(sign1559(A, { nonce: 1n, to: X, value: 1n, gasLimit: 80_000n })));
    src.host.nowNs += 12_000_000_000n;
    expect((await src.core.produceBlock()).kind).toBe('Produced');
    const blocks = pull(src.core);
    expect(blocks.length).toBe(4);

    // The replica knows only the stream: genesis from block 0's state changes.
    const g = blocks[0]!.stateChanges;
    const dst = await chain({ genesisAllocations: g.map((c) => ({ address: c.address, balance: c.balance! })), development: true });
    dst.host.nowNs = src.host.nowNs - 36_000_000_000n;
    expect(dst.core.getBlockByNumber(0n, false)!.stateRoot).toEqual(blocks[0]!.block.stateRoot);
    for (const b of blocks.slice(1)) {
      for (const c of b.stateChanges) okValue(dst.core.devSetAccount(c));
      okValue(dst.core.devSetCoinbase(b.block.coinbase));
      okValue(dst.core.devSetNextBlockBaseFee(b.block.baseFeePerGas));
      for (const t of b.txs) {
        if (t.origin === TxOrigin.EthSigned) okValue(dst.core.submitRawTx(t.raw));
        else {
          expect(t.origin).toBe(TxOrigin.Impersonated);
          const f = storedFields(t).fields;
          okValue(dst.core.devSubmitImpersonated({ from: t.from, to: f.to, value: f.value, data: f.data, gasLimit: f.gasLimit, nonce: f.nonce, maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas, accessList: f.accessList }));
        }
      }
      dst.host.nowNs += 12_000_000_000n;
      expect((await dst.core.produceBlock({ allowEmpty: true })).kind).toBe('Produced');
      const got = dst.core.getBlockByNumber(b.block.number, false)!;
      expect(toHex(got.stateRoot), `state root of block ${b.block.number}`).toBe(toHex(b.block.stateRoot));
      expect(got.hash).toEqual(b.block.hash);
    }
  }, 60_000);
});
