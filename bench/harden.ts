// What hostile input costs the canister (issue 11): a maximum-size raw transaction with an invalid signature,
// and a Candid decoding bomb refused by canister_inspect_message and by a method's own argument check.
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { IDL } from '@dfinity/candid';
import { MAX_TX_SIZE } from '../src/core/constants.js';
import { recoveryPoint } from '../src/core/secp256k1.js';
import { account, BenchChain, common, GWEI } from './support.js';
import type { Report } from './evm.js';

/**
 * A type-2 transaction of MAX_TX_SIZE bytes (zero calldata, so its intrinsic gas fits the block) whose signature
 * does not verify: its r is changed to one that is not the x of a curve point, which a submit refuses before
 * hashing (about half of all r are such).
 */
export function maxSizeInvalidTx(): Uint8Array {
  return maxSizeTx((signed) => {
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
  return maxSizeTx((signed) => signed.r!);
}

function maxSizeTx(rOf: (signed: { r?: bigint }) => bigint): Uint8Array {
  const build = (dataLen: number): Uint8Array => {
    const fields = { nonce: 0n, to: new Uint8Array(20).fill(0x11), value: 0n, data: new Uint8Array(dataLen), gasLimit: 3_000_000n, maxFeePerGas: 1000n * GWEI, maxPriorityFeePerGas: 250n * GWEI };
    const signed = createFeeMarket1559Tx(fields, { common }).sign(account(999).key);
    return createFeeMarket1559Tx({ ...fields, r: rOf(signed), s: signed.s!, v: signed.v! }, { common }).serialize();
  };
  const probe = build(MAX_TX_SIZE - 200);
  return build(MAX_TX_SIZE - 200 + (MAX_TX_SIZE - probe.length));
}

const leb = (n: bigint): number[] => {
  const out: number[] = [];
  do {
    let b = Number(n & 0x7fn);
    n >>= 7n;
    if (n > 0n) b |= 0x80;
    out.push(b);
  } while (n > 0n);
  return out;
};

/** rpc_eth_send_raw_transaction's blob plus one extra `vec null` argument of length 2^40. */
export function candidBomb(): Uint8Array {
  return Uint8Array.from([0x44, 0x49, 0x44, 0x4c, 2, 0x6d, 0x7b, 0x6d, 0x7f, 2, 0, 1, 1, 0xc0, ...leb(1n << 40n)]);
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
}
