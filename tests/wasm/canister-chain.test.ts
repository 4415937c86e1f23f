// The execution core through the real canister wasm: signed transactions of all three types (value
// transfers, creations, a call with logs, a revert) mined by the timer, and everything a client reads
// back (receipts, balances, code, storage, pending status, both identifiers, blocks).
import { blake3 } from '@noble/hashes/blake3.js';
import { createBlockHeader } from '@ethereumjs/block';
import { Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';
import { createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONSTRUCTOR_VALUE,
  CREATED_TOPIC,
  REVERTER_INIT,
  REVERTER_RUNTIME,
  STORED_TOPIC,
  STORE_INIT,
  STORE_RUNTIME,
} from '../fixtures/contracts/index.js';
import { word } from '../support/asm.js';
import { Principal } from '@dfinity/principal';
import { Evm, LATEST, errCode, type CandidResult, type IcTxInput, type Receipt, type TxView } from '../support/canister.js';
import { selfAuthenticating, syntheticHash, syntheticSender } from '../support/ic.js';
import {
  BASE_FEE,
  ETH,
  GWEI,
  account,
  accessListTx,
  cat,
  common,
  createAddress,
  feeMarketTx,
  hex,
  keccak,
  legacyTx,
  logsBloom,
  orBlooms,
  plainAddress,
  transfer,
} from '../support/eth.js';

const ALICE = account(1);
const BOB = plainAddress(1);
const ZERO = new Uint8Array(20);
const GENESIS = 1000n * ETH;
const CAROL = account(2);
// A user's self-authenticating principal and the EVM address derived for it (by the documented formula).
const IC_USER = selfAuthenticating(0x11);
const IC_SENDER = syntheticSender(IC_USER);

// One installed canister for the file (install and warm-up take seconds); the tests use disjoint senders.
let evm: Evm;
beforeAll(async () => {
  evm = await Evm.start({
    genesis: [
      { address: ALICE.address, balance: GENESIS },
      { address: CAROL.address, balance: GENESIS },
      { address: IC_SENDER, balance: GENESIS },
    ],
  });
});
afterAll(() => evm?.close());

describe('evm canister: transactions of all three types through the mining timer', () => {
  it('mines value transfers, creations, a call with logs and a revert; receipts, state, lookups and blocks agree', async () => {
    const store1 = createAddress(ALICE.address, 1n);
    const store3 = createAddress(ALICE.address, 3n);
    const store5 = createAddress(ALICE.address, 5n);
    const reverter = createAddress(ALICE.address, 7n);
    const storedValue = 0x1234n;
    const slotKey = word(0n);
    // Each entry: the signed tx and the effective gas price the receipt must report.
    const plan: { tx: TypedTransaction; price: bigint; value: bigint }[] = [
      // Legacy EIP-155: price = gasPrice.
      { tx: legacyTx(ALICE, { nonce: 0n, to: BOB, value: 1n * ETH, gasLimit: 21000n, gasPrice: 500n * GWEI }), price: 500n * GWEI, value: ETH },
      { tx: legacyTx(ALICE, { nonce: 1n, data: STORE_INIT, gasLimit: 300_000n, gasPrice: 500n * GWEI }), price: 500n * GWEI, value: 0n },
      // EIP-2930, the creation with an access list.
      { tx: accessListTx(ALICE, { nonce: 2n, to: BOB, value: 2n * ETH, gasLimit: 21000n, gasPrice: 600n * GWEI }), price: 600n * GWEI, value: 2n * ETH },
      {
        tx: accessListTx(ALICE, { nonce: 3n, data: STORE_INIT, gasLimit: 300_000n, gasPrice: 600n * GWEI, accessList: [[store1, [slotKey]]] }),
        price: 600n * GWEI,
        value: 0n,
      },
      // EIP-1559: min(maxFee, baseFee + priority) = 250 + 300 gwei here, and the maxFee cap (400) for the creation.
      {
        tx: feeMarketTx(ALICE, { nonce: 4n, to: BOB, value: 3n * ETH, gasLimit: 21000n, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 300n * GWEI }),
        price: 550n * GWEI,
        value: 3n * ETH,
      },
      {
        tx: feeMarketTx(ALICE, { nonce: 5n, data: STORE_INIT, gasLimit: 300_000n, maxFeePerGas: 400n * GWEI, maxPriorityFeePerGas: 300n * GWEI }),
        price: 400n * GWEI,
        value: 0n,
      },
      // A call of the first Store (created in the same block) that writes storage and logs.
      {
        tx: feeMarketTx(ALICE, { nonce: 6n, to: store1, data: word(storedValue), gasLimit: 100_000n, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI }),
        price: 500n * GWEI,
        value: 0n,
      },
      { tx: feeMarketTx(ALICE, { nonce: 7n, data: REVERTER_INIT, gasLimit: 300_000n, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI }), price: 500n * GWEI, value: 0n },
      { tx: feeMarketTx(ALICE, { nonce: 8n, to: reverter, gasLimit: 100_000n, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI }), price: 500n * GWEI, value: 0n },
    ];
    const head0 = evm.blockNumber();
    const ids: Uint8Array[] = [];
    const submitInstructions: bigint[] = [];
    for (const p of plan) {
      const r = await evm.client.updateMeasured('rpc_eth_send_raw_transaction', [p.tx.serialize()]);
      if ('Err' in r.value) throw new Error(`submit failed: ${r.value.Err.code}`);
      ids.push(r.value.Ok);
      submitInstructions.push(r.instructions!);
    }
    console.log(`submit of a raw signed tx: ${submitInstructions.map(String).join(', ')} instructions`);

    // Accepted, not mined: Queued, no receipt, the transaction is readable by both ids without a block.
    for (const [i, id] of ids.entries()) {
      expect(id.length).toBe(8);
      expect(evm.pending(id)).toEqual({ Queued: null });
      expect(evm.receipt(id)).toBeUndefined();
      expect(evm.query('rpc_eth_get_transaction_receipt_with_status_by_tx_id', id)).toEqual({ NotFound: null });
      expect(evm.query('rpc_eth_get_transaction_receipt_with_status_by_eth_hash', plan[i]!.tx.hash())).toEqual({ NotFound: null });
      const view = evm.query<[TxView] | []>('rpc_eth_get_transaction_by_tx_id', id)[0];
      expect(view?.block_number).toEqual([]);
    }
    expect(evm.blockNumber()).toBe(head0);

    const timers = await evm.mine();
    console.log(`block of ${plan.length} txs: timer messages ${timers.map((m) => `${m.method}=${m.instructions}`).join(', ')}`);
    const head = evm.blockNumber();
    expect(head).toBe(head0 + 1n);

    const receipts: Receipt[] = [];
    let cumulative = 0n;
    let logIndex = 0;
    for (const [i, p] of plan.entries()) {
      const id = ids[i]!;
      const hash = p.tx.hash();
      // tx_id (8 bytes) and eth_tx_hash (32 bytes) are different values; both find the same transaction.
      expect(hash.length).toBe(32);
      expect(hex(id)).not.toBe(hex(hash).slice(0, 16));
      expect(evm.pending(id)).toEqual({ Included: { block_number: head, tx_index: i } });
      const r = evm.receipt(id)!;
      expect(r).toBeDefined();
      receipts.push(r);
      expect(evm.query('rpc_eth_get_transaction_receipt_by_eth_hash', hash)).toEqual([r]);
      expect(evm.query('rpc_eth_get_transaction_receipt_with_status_by_eth_hash', hash)).toEqual({ Found: r });
      expect(evm.query('rpc_eth_get_transaction_receipt_with_status_by_tx_id', id)).toEqual({ Found: r });
      const byId = evm.query<[TxView] | []>('rpc_eth_get_transaction_by_tx_id', id)[0]!;
      expect(evm.query('rpc_eth_get_transaction_by_eth_hash', hash)).toEqual([byId]);
      expect(hex(byId.hash)).toBe(hex(hash));
      expect(hex(byId.tx_id)).toBe(hex(id));
      expect(byId).toMatchObject({
        origin: { EthSigned: null },
        tx_type: p.tx.type,
        chain_id: 4801360n,
        nonce: BigInt(i),
        value: p.value,
        gas: p.tx.gasLimit,
        block_number: [head],
        transaction_index: [i],
        r: p.tx.r,
        s: p.tx.s,
      });
      expect(hex(byId.from)).toBe(hex(ALICE.address));
      expect(hex(byId.input)).toBe(hex(p.tx.data));
      // Legacy v carries the EIP-155 chain id; typed transactions carry the y parity.
      expect(byId.v).toBe(p.tx.v);
      if (p.tx.type === 0) {
        expect(p.tx.v! >= 35n + 2n * 4801360n).toBe(true);
        expect(byId).toMatchObject({ y_parity: [], access_list: [], max_fee_per_gas: [], gas_price: p.price });
      } else {
        expect(byId.y_parity).toEqual([Number(p.tx.v)]);
        const list = (p.tx as { accessList?: [Uint8Array, Uint8Array[]][] }).accessList ?? [];
        expect(byId.access_list).toEqual([list.map(([address, keys]) => ({ address, storage_keys: keys }))]);
      }
      if (p.tx.type === 2) expect(byId).toMatchObject({ max_fee_per_gas: [(p.tx as { maxFeePerGas: bigint }).maxFeePerGas], gas_price: p.price });

      cumulative += r.gas_used;
      expect(r).toMatchObject({
        tx_type: p.tx.type,
        transaction_index: i,
        block_number: head,
        cumulative_gas_used: cumulative,
        effective_gas_price: p.price,
      });
      expect(hex(r.transaction_hash)).toBe(hex(hash));
      expect(hex(r.tx_id)).toBe(hex(id));
      expect(hex(r.from)).toBe(hex(ALICE.address));
      expect(hex(r.logs_bloom)).toBe(hex(logsBloom(r.logs)));
      for (const l of r.logs) {
        expect(l.log_index).toBe(logIndex++);
        expect(l.transaction_index).toBe(i);
        expect(hex(l.transaction_hash)).toBe(hex(hash));
        expect(hex(l.block_hash)).toBe(hex(r.block_hash));
        expect(l.block_number).toBe(head);
      }
    }
    const [t0, c1, t2, c3, t4, c5, call6, c7, rev8] = receipts as [Receipt, Receipt, Receipt, Receipt, Receipt, Receipt, Receipt, Receipt, Receipt];
    for (const t of [t0, t2, t4]) {
      expect(t).toMatchObject({ status: 1, gas_used: 21000n, contract_address: [], logs: [], failure_code: [] });
      expect(hex(t.to[0]!)).toBe(hex(BOB));
    }
    for (const [c, addr] of [
      [c1, store1],
      [c3, store3],
      [c5, store5],
      [c7, reverter],
    ] as const) {
      expect(c.status).toBe(1);
      expect(c.to).toEqual([]);
      expect(hex(c.contract_address[0]!)).toBe(hex(addr));
    }
    // The 2930 creation pays for its access list (one address, one key: 2400 + 1900) on top of the same work.
    expect(c3.gas_used - c1.gas_used).toBe(2400n + 1900n);
    expect(c5.gas_used).toBe(c1.gas_used);
    // Constructor logs (one per Store creation) and the call's log, numbered across the block.
    for (const [c, addr] of [
      [c1, store1],
      [c3, store3],
      [c5, store5],
    ] as const) {
      expect(c.logs).toHaveLength(1);
      expect(hex(c.logs[0]!.address)).toBe(hex(addr));
      expect(c.logs[0]!.topics.map(hex)).toEqual([hex(CREATED_TOPIC)]);
      expect(c.logs[0]!.data).toHaveLength(0);
    }
    expect([c1, c3, c5, call6].map((r) => r.logs[0]!.log_index)).toEqual([0, 1, 2, 3]);
    expect(call6).toMatchObject({ status: 1, failure_code: [] });
    expect(call6.logs).toHaveLength(1);
    const log = call6.logs[0]!;
    expect(hex(log.address)).toBe(hex(store1));
    expect(log.topics.map(hex)).toEqual([hex(STORED_TOPIC), hex(word(BigInt('0x' + hex(ALICE.address))))]);
    expect(hex(log.data)).toBe(hex(word(storedValue)));
    // The revert: status 0 with its code; gas is charged for the work done, not the whole limit.
    expect(rev8).toMatchObject({ status: 0, failure_code: ['exec.reverted'], logs: [] });
    expect(rev8.gas_used).toBeGreaterThan(21000n);
    expect(rev8.gas_used).toBeLessThan(100_000n);

    // Balances: the sender pays gasUsed * effective price + value; the recipient gets the values; the fee
    // recipient (zero address by default) gets the priority part; the base fee part is burned.
    const fees = plan.reduce((s, p, i) => s + receipts[i]!.gas_used * p.price, 0n);
    const tips = plan.reduce((s, p, i) => s + receipts[i]!.gas_used * (p.price - BASE_FEE), 0n);
    expect(evm.balance(ALICE.address)).toBe(GENESIS - fees - 6n * ETH);
    expect(evm.balance(BOB)).toBe(6n * ETH);
    expect(evm.balance(ZERO)).toBe(tips);
    expect(evm.ok('expected_nonce_by_address', ALICE.address)).toBe(9n);
    expect(evm.ok('rpc_eth_get_transaction_count_at', ALICE.address, LATEST)).toBe(9n);

    // Code and storage.
    for (const a of [store1, store3, store5]) expect(hex(evm.ok('rpc_eth_get_code', a, LATEST))).toBe(hex(STORE_RUNTIME));
    expect(hex(evm.ok('rpc_eth_get_code', reverter, LATEST))).toBe(hex(REVERTER_RUNTIME));
    expect(evm.ok('rpc_eth_get_code', BOB, LATEST)).toHaveLength(0);
    const slot = (a: Uint8Array, k: bigint) => hex(evm.ok('rpc_eth_get_storage_at', a, word(k), LATEST));
    expect(slot(store1, 0n)).toBe(hex(word(storedValue)));
    expect(slot(store1, 1n)).toBe(hex(word(CONSTRUCTOR_VALUE)));
    expect(slot(store3, 0n)).toBe(hex(word(0n)));
    expect(slot(store3, 1n)).toBe(hex(word(CONSTRUCTOR_VALUE)));
    expect(slot(reverter, 0n)).toBe(hex(word(0n))); // the write before REVERT is undone

    // The block, with hashes and with full transactions.
    const b = evm.block(head)!;
    const parent = evm.block(head - 1n)!;
    expect(b.transactions).toEqual({ Hashes: plan.map((p) => p.tx.hash()) });
    expect(b).toMatchObject({
      number: head,
      gas_used: cumulative,
      gas_limit: 3_000_000n,
      base_fee_per_gas: BASE_FEE,
      timestamp: evm.host.now() / 1_000_000_000n,
    });
    expect(hex(b.parent_hash)).toBe(hex(parent.hash));
    expect(hex(b.miner)).toBe(hex(ZERO));
    expect(hex(b.logs_bloom)).toBe(hex(orBlooms(receipts.map((r) => r.logs_bloom))));
    for (const r of receipts) expect(hex(r.block_hash)).toBe(hex(b.hash));
    const full = evm.block(head, true)!;
    if (!('Full' in full.transactions)) throw new Error('expected full transactions');
    expect(full.transactions.Full.map((t) => hex(t.hash))).toEqual(plan.map((p) => hex(p.tx.hash())));
    expect(full.transactions.Full.map((t) => hex(t.tx_id))).toEqual(ids.map(hex));
    expect(full.transactions.Full[4]!.gas_price).toBe(550n * GWEI); // type 2 once included: the effective price
    expect(full.transactions.Full[3]!.access_list).toEqual([[{ address: store1, storage_keys: [slotKey] }]]);
    expect(evm.query('rpc_eth_get_block_number_by_hash', b.hash)).toEqual([head]);
    expect(evm.query('rpc_eth_get_block_number_by_hash', parent.hash)).toEqual([head - 1n]);
    expect(evm.query('rpc_eth_get_block_number_by_hash', new Uint8Array(32).fill(7))).toEqual([]);
    // By hash in one query: the same answers as by number; an unknown hash is NotFound.
    expect(evm.query('rpc_eth_get_block_by_hash_with_status', b.hash, false)).toEqual({ Found: b });
    expect(evm.query('rpc_eth_get_block_by_hash_with_status', b.hash, true)).toEqual({ Found: full });
    expect(evm.query('rpc_eth_get_block_by_hash_with_status', new Uint8Array(32).fill(7), false)).toEqual({ NotFound: null });
    // A block's receipts, by number and by hash: every receipt as rpc_eth_get_transaction_receipt returns it,
    // in transaction order, on one page; a start index inside the block gives the rest.
    const page = { block_number: head, block_hash: b.hash, transaction_count: plan.length, receipts, next_index: [] };
    expect(evm.query('rpc_eth_get_block_receipts_paged', { Number: head }, 0)).toEqual({ Found: page });
    expect(evm.query('rpc_eth_get_block_receipts_paged', { Hash: b.hash }, 0)).toEqual({ Found: page });
    expect(evm.query('rpc_eth_get_block_receipts_paged', { Number: head }, 5)).toEqual({ Found: { ...page, receipts: receipts.slice(5) } });
    expect(evm.query('rpc_eth_get_block_receipts_paged', { Number: head + 1n }, 0)).toEqual({ NotFound: null });
    expect(evm.query('rpc_eth_get_block_receipts_paged', { Hash: new Uint8Array(32).fill(7) }, 0)).toEqual({ NotFound: null });
    expect(evm.block(head + 1n)).toBeUndefined();
    expect(evm.query('rpc_eth_get_block_by_number_with_status', head, false)).toEqual({ Found: b });
    expect(evm.query('rpc_eth_get_block_by_number_with_status', head + 1n, false)).toEqual({ NotFound: null });
    // The hash is Ethereum's header hash of the view's fields; the two roots are the chain's documented
    // flat commitments (src/core/chain/commitments.ts), recomputed here from what the client read.
    expect(hex(await headerHashOf(evm, head))).toBe(hex(b.hash));
    // A canister installed now: commitment version 2, H = BLAKE3 (src/core/chain/commitments.ts).
    expect(hex(b.transactions_root)).toBe(hex(blake3(cat(...plan.map((p) => p.tx.hash())))));
    expect(hex(b.receipts_root)).toBe(hex(receiptsCommitment(receipts)));

    // Nothing left: the next timer makes no block.
    await evm.mine();
    expect(evm.blockNumber()).toBe(head);
  });
});

describe('evm canister: submit and read errors as Candid Err values', () => {
  /** The Candid error shape: a stable code, a human message, no data for these. */
  const expectErr = (r: CandidResult<unknown>, code: string): void => {
    expect(errCode(r)).toBe(code);
    if ('Err' in r) {
      expect(r.Err.message.length).toBeGreaterThan(0);
      expect(r.Err.data).toEqual([]);
    }
  };
  const fee = { maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI };

  it('rejects what cannot be decoded: types 3 and 4, wrong chain id, legacy without chain id, too large, malformed RLP', async () => {
    const good = transfer(CAROL, 0n, BOB, 1n).serialize();
    // An EIP-4844 / EIP-7702 envelope: the type byte decides, whatever follows.
    expectErr(await evm.sendRaw(cat(Uint8Array.of(3), good.subarray(1))), 'DecodeError::UnsupportedType');
    expectErr(await evm.sendRaw(cat(Uint8Array.of(4), good.subarray(1))), 'DecodeError::UnsupportedType');
    const mainnet = createCustomCommon({ chainId: 1 }, Mainnet, { hardfork: Hardfork.Prague });
    const wrong1559 = createFeeMarket1559Tx({ nonce: 0n, to: BOB, gasLimit: 21000n, ...fee }, { common: mainnet }).sign(CAROL.key);
    expectErr(await evm.sendRaw(wrong1559), 'DecodeError::WrongChainId');
    const wrongLegacy = createLegacyTx({ nonce: 0n, to: BOB, gasLimit: 21000n, gasPrice: 500n * GWEI }, { common: mainnet }).sign(CAROL.key);
    expectErr(await evm.sendRaw(wrongLegacy), 'DecodeError::WrongChainId');
    // Before Spurious Dragon EthereumJS signs without EIP-155 (v = 27/28).
    const homestead = createCustomCommon({ chainId: 4801360 }, Mainnet, { hardfork: Hardfork.Homestead });
    const pre155 = createLegacyTx({ nonce: 0n, to: BOB, gasLimit: 21000n, gasPrice: 500n * GWEI }, { common: homestead }).sign(CAROL.key);
    expect(pre155.v === 27n || pre155.v === 28n).toBe(true);
    expectErr(await evm.sendRaw(pre155), 'DecodeError::LegacyChainIdMissing');
    const big = feeMarketTx(CAROL, { nonce: 0n, to: BOB, gasLimit: 2_900_000n, data: new Uint8Array(131072), ...fee });
    expect(big.serialize().length).toBeGreaterThan(131072);
    expectErr(await evm.sendRaw(big), 'submit.tx_too_large');
    // A typed envelope whose list header promises more bytes than follow, and a truncated legacy list.
    expectErr(await evm.sendRaw(Uint8Array.of(2, 0xf8, 0x80, 1, 2, 3)), 'DecodeError::Malformed');
    expectErr(await evm.sendRaw(good.subarray(0, good.length - 5)), 'DecodeError::Malformed');
    expectErr(await evm.sendRaw(Uint8Array.of(0xc3, 1, 2)), 'DecodeError::Malformed');
    // None of these used a nonce.
    expect(evm.ok('expected_nonce_by_address', CAROL.address)).toBe(0n);
  });

  it('fee and nonce rules: invalid fee, nonce too low, gap, conflict, and a 10% bumped replacement', async () => {
    const head0 = evm.blockNumber();
    expectErr(await evm.sendRaw(feeMarketTx(CAROL, { nonce: 0n, to: BOB, gasLimit: 21000n, maxFeePerGas: 200n * GWEI, maxPriorityFeePerGas: 100n * GWEI })), 'submit.invalid_fee');
    expectErr(await evm.sendRaw(feeMarketTx(CAROL, { nonce: 0n, to: BOB, gasLimit: 21000n, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 100n * GWEI })), 'submit.invalid_fee');
    expectErr(await evm.sendRaw(legacyTx(CAROL, { nonce: 0n, to: BOB, gasLimit: 21000n, gasPrice: 249n * GWEI })), 'submit.invalid_fee');

    const first = await evm.submit(transfer(CAROL, 0n, BOB, 1n));
    const old = await evm.submit(transfer(CAROL, 1n, BOB, 2n));
    // The nonce window is 64 ahead of the account nonce (0).
    expectErr(await evm.sendRaw(transfer(CAROL, 64n, BOB, 3n)), 'submit.nonce_gap');
    // Same nonce, fees raised by less than 10%: conflict; by 10% each: replaces, the old one is Dropped.
    const under = feeMarketTx(CAROL, { nonce: 1n, to: BOB, value: 4n, gasLimit: 21000n, maxFeePerGas: 1090n * GWEI, maxPriorityFeePerGas: 300n * GWEI });
    expectErr(await evm.sendRaw(under), 'submit.nonce_conflict');
    const replacement = feeMarketTx(CAROL, { nonce: 1n, to: BOB, value: 5n, gasLimit: 21000n, maxFeePerGas: 1100n * GWEI, maxPriorityFeePerGas: 275n * GWEI });
    const repl = await evm.submit(replacement);
    expect(evm.pending(old)).toEqual({ Dropped: { code: 'pool.replaced' } });
    expect(evm.pending(repl)).toEqual({ Queued: null });
    expect(evm.ok('expected_nonce_by_address', CAROL.address)).toBe(2n);

    const bobBefore = evm.balance(BOB);
    await evm.mine();
    expect(evm.blockNumber()).toBe(head0 + 1n);
    expect(evm.pending(first)).toMatchObject({ Included: { block_number: head0 + 1n } });
    expect(evm.pending(repl)).toMatchObject({ Included: { block_number: head0 + 1n } });
    expect(evm.pending(old)).toEqual({ Dropped: { code: 'pool.replaced' } });
    expect(evm.receipt(old)).toBeUndefined();
    expect(evm.receipt(repl)).toMatchObject({ status: 1, effective_gas_price: 525n * GWEI });
    expect(evm.balance(BOB) - bobBefore).toBe(1n + 5n);
    // Nonce 0 is used now (different bytes, so not an idempotent resubmit).
    expectErr(await evm.sendRaw(transfer(CAROL, 0n, BOB, 9n)), 'submit.nonce_too_low');
    expect(evm.pending(new Uint8Array(8).fill(0x7f))).toEqual({ Unknown: null });
  });

  it('submit_ic_tx: anonymous rejected, a self-authenticating principal sends from its derived address, 19-byte `to` rejected', async () => {
    const rec: IcTxInput = { to: [BOB], value: 7n * ETH, gas_limit: 21000n, nonce: 0n, max_fee_per_gas: 1000n * GWEI, max_priority_fee_per_gas: 250n * GWEI, data: new Uint8Array(0) };
    expectErr(await evm.submitIc(rec, Principal.anonymous()), 'auth.anonymous_forbidden');
    expectErr(await evm.submitIc({ ...rec, to: [new Uint8Array(19)] }, IC_USER), 'arg.invalid');
    expectErr(await evm.submitIc({ ...rec, max_priority_fee_per_gas: 1n }, IC_USER), 'submit.invalid_fee');
    expect(evm.ok('expected_nonce_by_address', IC_SENDER)).toBe(0n);
    const r = await evm.submitIc(rec, IC_USER);
    const id = 'Ok' in r ? r.Ok : undefined;
    expect(id).toHaveLength(8);
    expect(evm.ok('expected_nonce_by_address', IC_SENDER)).toBe(1n);
    const hash = syntheticHash(IC_SENDER, rec);
    const view = evm.query<[TxView] | []>('rpc_eth_get_transaction_by_eth_hash', hash)[0];
    expect(view).toMatchObject({ origin: { IcSynthetic: null }, tx_type: 2, nonce: 0n, value: 7n * ETH, v: 0n, r: 0n, s: 0n });
    expect(hex(view!.from)).toBe(hex(IC_SENDER));

    const bobBefore = evm.balance(BOB);
    await evm.mine();
    const receipt = evm.receipt(id!)!;
    expect(receipt).toMatchObject({ status: 1, gas_used: 21000n, effective_gas_price: 500n * GWEI, tx_type: 2 });
    expect(hex(receipt.from)).toBe(hex(IC_SENDER));
    expect(hex(receipt.transaction_hash)).toBe(hex(hash));
    expect(evm.query('rpc_eth_get_transaction_receipt_by_eth_hash', hash)).toEqual([receipt]);
    expect(evm.balance(IC_SENDER)).toBe(GENESIS - 7n * ETH - 21000n * 500n * GWEI);
    expect(evm.balance(BOB) - bobBefore).toBe(7n * ETH);
  });

  it('address lengths and block tags on head-state reads', async () => {
    expectErr(evm.query('expected_nonce_by_address', new Uint8Array(32)), 'arg.address_length');
    expectErr(evm.query('rpc_eth_get_balance', new Uint8Array(19), LATEST), 'arg.address_length');
    const head = evm.blockNumber();
    expect(head).toBeGreaterThan(1n);
    const balance = evm.balance(ALICE.address);
    for (const tag of [{ Number: head }, { Pending: null }, { Safe: null }, { Finalized: null }]) {
      expect(evm.query('rpc_eth_get_balance', ALICE.address, tag)).toEqual({ Ok: balance });
    }
    expectErr(evm.query('rpc_eth_get_balance', ALICE.address, { Number: head - 1n }), 'exec.state.unavailable');
    expectErr(evm.query('rpc_eth_get_balance', ALICE.address, { Earliest: null }), 'exec.state.unavailable');
    expectErr(evm.query('rpc_eth_get_balance', ALICE.address, { Number: head + 5n }), 'invalid.block_range.out_of_window');
    expectErr(evm.query('rpc_eth_get_code', ALICE.address, { Number: head + 1n }), 'invalid.block_range.out_of_window');
    expectErr(evm.query('rpc_eth_get_storage_at', ALICE.address, word(0n), { Number: 0n }), 'exec.state.unavailable');
    expectErr(evm.query('rpc_eth_get_storage_at', ALICE.address, new Uint8Array(31), LATEST), 'arg.invalid');
  });
});

/**
 * receiptsRoot as commitments.ts documents it: BLAKE3 (commitment version 2) over, per receipt, status u8 || cumulativeGasUsed
 * u64 || logCount u32 || per log (address || topicCount u8 || topics || dataLength u32 || data), big-endian.
 */
function receiptsCommitment(receipts: readonly Receipt[]): Uint8Array {
  const u = (v: bigint | number, n: number) => word(BigInt(v)).subarray(32 - n);
  const parts = receipts.flatMap((r) => [
    u(r.status, 1),
    u(r.cumulative_gas_used, 8),
    u(r.logs.length, 4),
    ...r.logs.flatMap((l) => [l.address, u(l.topics.length, 1), ...l.topics, u(l.data.length, 4), l.data]),
  ]);
  return blake3(cat(...parts));
}

/** keccak(RLP(header)) computed by EthereumJS from the block view's fields. */
async function headerHashOf(evm: Evm, n: bigint): Promise<Uint8Array> {
  const b = evm.block(n)!;
  return createBlockHeader(
    {
      parentHash: b.parent_hash,
      uncleHash: b.sha3_uncles,
      coinbase: b.miner,
      stateRoot: b.state_root,
      transactionsTrie: b.transactions_root,
      receiptTrie: b.receipts_root,
      logsBloom: b.logs_bloom,
      difficulty: b.difficulty,
      number: b.number,
      gasLimit: b.gas_limit,
      gasUsed: b.gas_used,
      timestamp: b.timestamp,
      extraData: b.extra_data,
      mixHash: b.mix_hash,
      nonce: b.nonce,
      baseFeePerGas: b.base_fee_per_gas,
      withdrawalsRoot: b.withdrawals_root,
      blobGasUsed: b.blob_gas_used,
      excessBlobGas: b.excess_blob_gas,
      parentBeaconBlockRoot: b.parent_beacon_block_root,
      requestsHash: b.requests_hash,
    },
    { common, skipConsensusFormatValidation: true },
  ).hash();
}
