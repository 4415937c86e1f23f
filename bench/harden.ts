// What hostile input costs the canister (docs/hardening.md): a maximum-size raw transaction with an invalid signature,
// and a Candid decoding bomb refused by canister_inspect_message and by a method's own argument check.
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { IDL } from '@dfinity/candid';
import { lebEncode } from '@icp-sdk/core/candid';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { INSPECT_SCREEN_MAX_TX_BYTES, MAX_LOG_BYTES_PER_TX, MAX_LOGS_PER_TX, MAX_TX_SIZE } from '../src/core/constants.js';
import { MAX_INSTRUCTION_SOFT_LIMIT } from '../src/core/ops/limits.js';
import { recoveryPoint } from '../src/core/secp256k1.js';
import { parseBlockLine, unquote, type BlockReport } from '../src/canister/block_line.js';
import { deployCode } from '../tests/support/asm.js';
import { LOG_EMITTER_RUNTIME, MAX_LIMITS_GENESIS, STORAGE_WRITER_RUNTIME, emitCall, runMaxLimits, writeCall } from '../tests/support/finalize.js';
import { selfAuthenticating } from '../tests/support/ic.js';
import { account, BenchChain, common, GWEI, signTx, type Account } from './support.js';
import type { Report } from './evm.js';

/**
 * A type-2 transaction of MAX_TX_SIZE bytes (zero calldata, so its intrinsic gas fits the block) whose signature
 * does not verify: its r is changed to one that is not the x of a curve point, which a submit refuses before
 * hashing (about half of all r are such).
 */
export function maxSizeInvalidTx(): Uint8Array {
  return invalidSignatureTx(MAX_TX_SIZE);
}

/** A type-2 transaction of exactly `size` bytes (at least 300; zero calldata) whose r has no curve point. */
export function invalidSignatureTx(size: number): Uint8Array {
  return txOfSize(size, (signed) => {
    // Another r (still in range) with no curve point: the signature no longer matches the payload.
    let r = (signed.r! ^ 0xffffn) | 1n;
    while (recoveryPoint(r, 0) !== undefined) r += 2n;
    return r;
  });
}

/**
 * The worst junk a submit can be sent: a maximum-size transaction whose signature is valid (any r with a curve
 * point recovers to some key) from an account with nothing to pay: only hashing the payload and recovering the
 * sender can find that out.
 */
export function maxSizeUnfundedTx(): Uint8Array {
  return unfundedTx(MAX_TX_SIZE);
}

/** A validly signed type-2 transaction of exactly `size` bytes (zero calldata) from an account with no funds. */
export function unfundedTx(size: number): Uint8Array {
  return txOfSize(size, (signed) => signed.r!);
}

function txOfSize(size: number, rOf: (signed: { r?: bigint }) => bigint): Uint8Array {
  const build = (dataLen: number): Uint8Array => {
    const fields = { nonce: 0n, to: new Uint8Array(20).fill(0x11), value: 0n, data: new Uint8Array(dataLen), gasLimit: 3_000_000n, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI };
    const signed = createFeeMarket1559Tx(fields, { common }).sign(account(999).key);
    return createFeeMarket1559Tx({ ...fields, r: rOf(signed), s: signed.s!, v: signed.v! }, { common }).serialize();
  };
  const probe = build(size - 200);
  return build(size - 200 + (size - probe.length));
}

/** rpc_eth_send_raw_transaction's blob plus one extra `vec null` argument of length 2^40. */
export function candidBomb(): Uint8Array {
  return Uint8Array.from([0x44, 0x49, 0x44, 0x4c, 2, 0x6d, 0x7b, 0x6d, 0x7f, 2, 0, 1, 1, 0xc0, ...lebEncode(1n << 40n)]);
}

export async function benchHarden(report: Report): Promise<void> {
  const chain = await BenchChain.start({ accounts: [account(0)] });
  try {
    const junk = maxSizeInvalidTx();
    if (junk.length !== MAX_TX_SIZE) throw new Error(`junk transaction is ${junk.length} bytes, wanted ${MAX_TX_SIZE}`);
    const r = await chain.host.update('rpc_eth_send_raw_transaction', new Uint8Array(IDL.encode([IDL.Vec(IDL.Nat8)], [junk])));
    if (r.kind !== 'reply') throw new Error('junk submit was not answered');
    const [res] = IDL.decode([IDL.Variant({ Ok: IDL.Vec(IDL.Nat8), Err: IDL.Record({ code: IDL.Text, message: IDL.Text, data: IDL.Opt(IDL.Vec(IDL.Nat8)) }) })], r.bytes) as unknown as [{ Err?: { code: string } }];
    if (res.Err === undefined) throw new Error('junk submit was accepted');
    console.error(`bench: max-size invalid submit refused with ${res.Err.code}`);
    report('submit_raw.max_size_invalid.instructions', r.instructions ?? 0n, 'instructions');
    const unfunded = maxSizeUnfundedTx();
    const u = await chain.host.update('rpc_eth_send_raw_transaction', new Uint8Array(IDL.encode([IDL.Vec(IDL.Nat8)], [unfunded])));
    if (u.kind !== 'reply' || unfunded.length !== MAX_TX_SIZE) throw new Error('unfunded max-size submit was not answered');
    report('submit_raw.max_size_unfunded.instructions', u.instructions ?? 0n, 'instructions');

    // canister_inspect_message (free on the IC, at most 200 M instructions): what it spends refusing the largest
    // junk it screens, and accepting (after the argument check only) a maximum-size transaction.
    const inspectOf = async (raw: Uint8Array): Promise<{ instructions: bigint; refused: boolean }> => {
      const from = chain.messages.length;
      const res = await chain.host.update('rpc_eth_send_raw_transaction', new Uint8Array(IDL.encode([IDL.Vec(IDL.Nat8)], [raw])));
      const m = chain.messages.slice(from).find((x) => x.kind === 'inspect');
      if (m === undefined) throw new Error('no inspection ran');
      return { instructions: m.instructions ?? 0n, refused: res.kind === 'reject' };
    };
    // The costliest screening: a valid signature from an account that cannot pay (one keccak pass, one recovery).
    const screened = await inspectOf(unfundedTx(INSPECT_SCREEN_MAX_TX_BYTES));
    if (!screened.refused) throw new Error('inspection did not refuse a screened junk transaction');
    report('inspect.submit_raw.screened_unfunded.instructions', screened.instructions, 'instructions');
    const unscreened = await inspectOf(junk);
    if (unscreened.refused) throw new Error('inspection refused a maximum-size transaction it does not screen');
    report('inspect.submit_raw.max_size.instructions', unscreened.instructions, 'instructions');

    const before = chain.messages.length;
    const ingress = await chain.host.update('rpc_eth_send_raw_transaction', candidBomb());
    const inspect = chain.messages.slice(before).find((m) => m.kind === 'inspect');
    if (ingress.kind !== 'reject' || inspect === undefined) throw new Error('the Candid bomb was not refused by inspection');
    report('candid_bomb.refused_by_inspect.instructions', inspect.instructions ?? 0n, 'instructions');
    const direct = await chain.host.update('rpc_eth_send_raw_transaction', candidBomb(), { fromCanister: true });
    if (direct.kind !== 'reject') throw new Error('the Candid bomb was not refused by the method');
    report('candid_bomb.refused_by_method.instructions', direct.instructions ?? 0n, 'instructions');
  } finally {
    chain.close();
  }
  await benchFinalize(report);
}

/**
 * What finalising a block costs (docs/hardening.md, "Block production"): the instructions from the end of transaction selection to
 * the block's return (the canister's debug block line), in blocks that differ in one dimension: transactions,
 * logs, log bytes, storage writes. Reported beside the per-unit reservation (src/core/ops/limits.ts).
 */
export async function benchFinalize(report: Report): Promise<void> {
  const controller = selfAuthenticating(0x51);
  const senders = Array.from({ length: 8 }, (_, i) => account(300 + i));
  const lines: BlockReport[] = [];
  const chain = await BenchChain.start({
    accounts: senders,
    blockGasLimit: 30_000_000n,
    controllers: [controller.toUint8Array()],
    debugPrint: (raw) => {
      const b = parseBlockLine(unquote(raw));
      if (b !== undefined) lines.push(b);
    },
  });
  try {
    const admin = chain.evm.as({ caller: controller });
    if (!('Ok' in (await admin.update('set_log_filter', [{ Debug: null }])))) throw new Error('set_log_filter refused');
    if (!('Ok' in (await admin.update('set_instruction_soft_limit', [MAX_INSTRUCTION_SOFT_LIMIT])))) throw new Error('set_instruction_soft_limit refused');
    const deployer = senders[0]!;
    const emitterRaw = signTx(deployer, { data: deployCode(LOG_EMITTER_RUNTIME), gasLimit: 500_000n });
    const writerRaw = signTx(deployer, { data: deployCode(STORAGE_WRITER_RUNTIME), gasLimit: 500_000n });
    await chain.submit(emitterRaw);
    await chain.submit(writerRaw);
    await chain.mine();
    const emitter = chain.receipt(keccak_256(emitterRaw)).contract_address[0]!;
    const writer = chain.receipt(keccak_256(writerRaw)).contract_address[0]!;
    const sink = account(1001).address;

    /** Mines one block of `n` transactions built by `tx(i)`; returns its finalisation figures. */
    const block = async (n: number, tx: (from: Account, i: number) => Uint8Array): Promise<{ instructions: bigint; reserved: bigint }> => {
      for (let i = 0; i < n; i++) await chain.submit(tx(senders[i % senders.length]!, i));
      const before = lines.length;
      const m = await chain.mine();
      if (m.txCount !== n) throw new Error(`expected ${n} transactions in the block, got ${m.txCount}`);
      const f = lines.slice(before).at(-1)?.finalize;
      if (f === undefined) throw new Error('no block line with finalisation figures');
      return f;
    };
    const transfer = (from: Account): Uint8Array => signTx(from, { to: sink, value: 1n, gasLimit: 21000n });
    const one = await block(1, transfer);
    const N = 40;
    const many = await block(N, transfer);
    const perTx = (many.instructions - one.instructions) / BigInt(N - 1);
    const fixed = one.instructions - perTx;
    report('block.finalize.fixed_instructions', fixed, 'instructions');
    report('block.finalize.instructions_per_tx', perTx, 'instructions');

    const emit = (logs: number, bytes: number, topics: 0 | 4) => (from: Account): Uint8Array =>
      signTx(from, { to: emitter, data: emitCall(logs, bytes, topics), gasLimit: 2_000_000n });
    const logs = await block(N, emit(MAX_LOGS_PER_TX, 0, 0));
    const perLog = (logs.instructions - many.instructions) / BigInt(N * MAX_LOGS_PER_TX);
    report('block.finalize.instructions_per_log', perLog, 'instructions');

    // Data bytes (LOG0) and the worst case a transaction may carry: 64 LOG4 logs of MAX_LOG_BYTES_PER_TX in all.
    const K = 8;
    const dataLen = Math.floor(MAX_LOG_BYTES_PER_TX / MAX_LOGS_PER_TX);
    const data = await block(K, emit(MAX_LOGS_PER_TX, dataLen, 0));
    const bytesIn = (txs: number, perLogBytes: number): bigint => BigInt(txs * MAX_LOGS_PER_TX * perLogBytes);
    const perByte = (data.instructions - fixed - BigInt(K) * perTx - BigInt(K * MAX_LOGS_PER_TX) * perLog) / bytesIn(K, dataLen);
    report('block.finalize.instructions_per_log_byte', perByte, 'instructions');
    const heavy = await block(K, emit(MAX_LOGS_PER_TX, dataLen - 128, 4));
    report('block.finalize.max_log_tx.instructions', (heavy.instructions - fixed) / BigInt(K), 'instructions');
    report('block.finalize.max_log_tx.reserved', heavy.reserved / BigInt(K), 'instructions');

    // Storage writes: the state commit hashes and stores every slot the block changed.
    // Storage writes: the state commit hashes every slot the block changed into the state root and writes it to
    // its stable map. Inserted slots, then the same slots cleared (the cheapest write in gas, 4,000 after refund).
    const S = 200;
    const writeBlock = (value: bigint) => block(4, (from, i) => signTx(from, { to: writer, data: writeCall(1 + i * S, S, value), gasLimit: 5_000_000n }));
    const inserts = await writeBlock(1n);
    report('block.finalize.instructions_per_storage_write', (inserts.instructions - fixed - 4n * perTx) / BigInt(4 * S), 'instructions');
    const clears = await writeBlock(0n);
    report('block.finalize.instructions_per_storage_clear', (clears.instructions - fixed - 4n * perTx) / BigInt(4 * S), 'instructions');
  } finally {
    chain.close();
  }

  // The wasm test's scenario at the highest block gas limit and soft limit (tests/support/finalize.ts): the
  // largest block message, against the IC's 40 B.
  const blocks: BlockReport[] = [];
  const max = await BenchChain.start({
    accounts: [],
    genesis: MAX_LIMITS_GENESIS,
    controllers: [controller.toUint8Array()],
    debugPrint: (raw) => {
      const b = parseBlockLine(unquote(raw));
      if (b !== undefined) blocks.push(b);
    },
  });
  try {
    const run = await runMaxLimits({ host: max.host, client: max.evm, messages: max.messages, blocks }, controller);
    if (run.messages.some((m) => m.trapped)) throw new Error('a block message trapped in the max-limits scenario');
    const peak = run.messages.reduce((a, m) => ((m.instructions ?? 0n) > a ? (m.instructions ?? 0n) : a), 0n);
    report('block.max_limits.peak_message_instructions', peak, 'instructions');
    const fin = run.blocks.reduce((a, b) => ((b.finalize?.instructions ?? 0n) > a ? (b.finalize?.instructions ?? 0n) : a), 0n);
    report('block.max_limits.peak_finalize_instructions', fin, 'instructions');
  } finally {
    max.close();
  }
}
