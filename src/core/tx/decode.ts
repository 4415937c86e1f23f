// Decoding and format validation of signed raw transactions (Legacy with EIP-155, EIP-2930, EIP-1559).
// Parsing is separate from recovery: parse is cheap (no hashing) and is reused when reading stored
// transactions; recovery (most of submit_raw.transfer.without_key.instructions) runs once, at submit (DESIGN rule 1).

import { CHAIN_ID } from '../constants.js';
import { addressByKnownKey, isKnownKey, keccak256, recoverAddressAt, recoverAddressComparing, recoverKeyAt, recoveryPoint, type RecoveryPoint } from '../crypto.js';
import type { Address, Bytes32 } from '../engine.js';
import { ErrorCode, err, ok, type Result } from '../errors.js';
import { bytesToBigint, concatBytes, bigintToMinBytes } from '../codec/bytes.js';
import { rlpDecodeStrict, rlpListHeader, RlpError, type RlpItem, type RlpList } from '../codec/rlp.js';
import type { AccessList, EthSignature, ParsedEthTx, TxFields } from './types.js';
import { RLP } from '@ethereumjs/rlp';

// secp256k1 group order; EIP-2 requires s <= n/2.
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const SECP256K1_HALF_N = SECP256K1_N >> 1n;
const U64_MAX = (1n << 64n) - 1n;

class FieldError extends Error {}

function bytesOf(it: RlpItem | undefined, what: string): Uint8Array {
  if (it === undefined || it.kind !== 'bytes') throw new FieldError(`${what}: expected a byte string`);
  return it.value;
}

/** RLP integer: no leading zeros, at most maxBytes. */
function intOf(it: RlpItem | undefined, what: string, maxBytes: number): bigint {
  const b = bytesOf(it, what);
  if (b.length > maxBytes) throw new FieldError(`${what}: too large`);
  if (b.length > 0 && b[0] === 0) throw new FieldError(`${what}: leading zero`);
  return bytesToBigint(b);
}

function toOf(it: RlpItem | undefined): Address | undefined {
  const b = bytesOf(it, 'to');
  if (b.length === 0) return undefined;
  if (b.length !== 20) throw new FieldError('to: must be empty or 20 bytes');
  return b;
}

function accessListOf(it: RlpItem | undefined): AccessList {
  if (it === undefined || it.kind !== 'list') throw new FieldError('accessList: expected a list');
  return it.items.map((e) => {
    if (e.kind !== 'list' || e.items.length !== 2) throw new FieldError('accessList entry: expected [address, keys]');
    const addr = bytesOf(e.items[0], 'accessList address');
    if (addr.length !== 20) throw new FieldError('accessList address: must be 20 bytes');
    const keys = e.items[1];
    if (keys === undefined || keys.kind !== 'list') throw new FieldError('accessList keys: expected a list');
    const ks = keys.items.map((k) => {
      const kb = bytesOf(k, 'accessList key');
      if (kb.length !== 32) throw new FieldError('accessList key: must be 32 bytes');
      return kb;
    });
    return [addr, ks] as const;
  });
}

function checkNonceGas(nonce: bigint, gasLimit: bigint): void {
  // EIP-2681: nonce < 2^64 - 1.
  if (nonce >= U64_MAX) throw new FieldError('nonce: must be below 2^64-1');
  if (gasLimit > U64_MAX) throw new FieldError('gasLimit: too large');
}

function sigError(r: bigint, s: bigint): string | undefined {
  if (r === 0n || r >= SECP256K1_N) return 'r out of range';
  if (s === 0n || s >= SECP256K1_N) return 's out of range';
  if (s > SECP256K1_HALF_N) return 's is in the upper half of the curve order (EIP-2)';
  return undefined;
}

// The signing payloads, from the unsigned fields' bytes [start, end) of the input: a slice re-wrapped as a list,
// no re-encoding (the item-tree parse and the walk both build them here).

/** EIP-155's tail of a legacy payload on this chain: rlp(chainId), 0, 0. */
const EIP155_TAIL = concatBytes(RLP.encode(bigintToMinBytes(CHAIN_ID)), Uint8Array.of(0x80, 0x80));

/** EIP-155: rlp([nonce, gasPrice, gas, to, value, data, chainId, 0, 0]). */
function legacySigningPayload(raw: Uint8Array, start: number, end: number): Uint8Array {
  return concatBytes(rlpListHeader(end - start + EIP155_TAIL.length), raw.subarray(start, end), EIP155_TAIL);
}

/** type || rlp([fields without yParity, r, s]). */
function typedSigningPayload(type: 1 | 2, raw: Uint8Array, start: number, end: number): Uint8Array {
  return concatBytes(Uint8Array.of(type), rlpListHeader(end - start), raw.subarray(start, end));
}

/**
 * Parses and format-checks a signed raw transaction: type, RLP, field shapes, chain id, signature ranges.
 * Does not hash or recover. Size is checked by the caller (it has its own error code).
 */
export function parseSignedTx(raw: Uint8Array): Result<ParsedEthTx> {
  const p = walkSigned(raw);
  return p !== undefined ? ok(p) : parse(raw, true);
}

/** parseSignedTx through the item tree (rlpDecodeStrict): the reference the walk is tested against. */
export function parseSignedTxByItems(raw: Uint8Array): Result<ParsedEthTx> {
  return parse(raw, true);
}

/**
 * The fields of a transaction that passed parseSignedTx at submit (a stored one), without reading the
 * signature: block production needs no r and s, so it pays for neither their bigints nor their range checks
 * (part of block.transfer.instructions_per_tx). Every other check runs as in parseSignedTx.
 */
export function parseStoredFields(raw: Uint8Array): Result<TxFields> {
  const f = walkStoredFields(raw);
  return f !== undefined ? ok(f) : parseStoredFieldsByItems(raw);
}

/** parseStoredFields through the item tree (rlpDecodeStrict): the reference the walk is tested against. */
export function parseStoredFieldsByItems(raw: Uint8Array): Result<TxFields> {
  const p = parse(raw, false);
  return p.ok ? ok(p.value.fields) : p;
}

// The walk: parseStoredFields (and parseSignedTx, walkSigned) without the item tree. rlpDecodeStrict made an object and a subarray
// for every item and intOf a bigint through bytesToBigint for every integer, about 0.43 M a transaction in
// block production (block.transfer.instructions_per_tx; a QuickJS bytecode is about 200 instructions). The
// walk reads the fields in place, integers of up to 6 bytes as Numbers. It accepts only what parse() accepts,
// with the same fields (tests/unit/tx_stored_walk.test.ts); anything it does not accept goes to parse(), which
// gives the error, so results, errors included, are parse()'s.

// The payload [ws, we) of the item the last strAt/listAt read (module state: no object per item).
let ws = 0;
let we = 0;

/** Length of a long form (strict: no leading zero, at least 56); -1 if not. */
function longLen(b: Uint8Array, o: number, ll: number, end: number): number {
  if (o + ll > end || b[o] === 0) return -1;
  let n = 0;
  for (let i = 0; i < ll; i++) n = n * 256 + b[o + i]!;
  return n < 56 ? -1 : n;
}

/** The strict RLP byte string at o inside [o, end): its payload in ws/we, its end returned; -1 if not one. */
function strAt(b: Uint8Array, o: number, end: number): number {
  if (o >= end) return -1;
  const p = b[o]!;
  if (p < 0x80) {
    ws = o;
    return (we = o + 1);
  }
  if (p <= 0xb7) {
    const e = o + p - 0x7f;
    if (e > end || (p === 0x81 && b[o + 1]! < 0x80)) return -1;
    ws = o + 1;
    return (we = e);
  }
  if (p >= 0xc0) return -1;
  const n = longLen(b, o + 1, p - 0xb7, end);
  const s = o + p - 0xb6;
  if (n < 0 || s + n > end) return -1;
  ws = s;
  return (we = s + n);
}

/** The strict RLP list at o inside [o, end): its payload in ws/we, its end returned; -1 if not one. */
function listAt(b: Uint8Array, o: number, end: number): number {
  if (o >= end) return -1;
  const p = b[o]!;
  if (p < 0xc0) return -1;
  let s = o + 1;
  let n = p - 0xc0;
  if (p > 0xf7) {
    n = longLen(b, s, p - 0xf7, end);
    if (n < 0) return -1;
    s += p - 0xf7;
  }
  if (s + n > end) return -1;
  ws = s;
  return (we = s + n);
}

/** The integer in ws/we as intOf reads it (at most max bytes, no leading zero); -1n if not one. */
function intIn(b: Uint8Array, max: number): bigint {
  const n = we - ws;
  if (n > max || (n > 0 && b[ws] === 0)) return -1n;
  if (n > 6) return bytesToBigint(b.subarray(ws, we));
  let v = 0;
  for (let i = ws; i < we; i++) v = v * 256 + b[i]!;
  return BigInt(v);
}

// What walkStoredFields leaves for walkSigned: the unsigned fields' bytes [wBody, wBodyEnd) (the list payload up
// to the data of a legacy transaction, to the access list of a typed one), v (yParity of a typed one), and
// the payloads of r and s.
let wBody = 0;
let wBodyEnd = 0;
let wV = 0n;
let wRs = 0;
let wRe = 0;
let wSs = 0;
let wSe = 0;

/** parseSignedTx by the walk: undefined where parse() decides (anything the walk does not accept, a bad r or s). */
function walkSigned(raw: Uint8Array): ParsedEthTx | undefined {
  const fields = walkStoredFields(raw);
  if (fields === undefined) return undefined;
  const body = wBody;
  const bodyEnd = wBodyEnd;
  const v = wV;
  ws = wRs;
  we = wRe;
  const r = intIn(raw, 32);
  ws = wSs;
  we = wSe;
  const s = intIn(raw, 32);
  if (r < 0n || s < 0n || sigError(r, s) !== undefined) return undefined;
  const type = fields.type;
  if (type === 0) {
    return {
      fields,
      sig: { v, r, s, yParity: Number((v - 35n) & 1n) as 0 | 1 },
      signingPayload: () => legacySigningPayload(raw, body, bodyEnd),
    };
  }
  return {
    fields,
    sig: { v, r, s, yParity: Number(v) as 0 | 1 },
    signingPayload: () => typedSigningPayload(type, raw, body, bodyEnd),
  };
}

// A legacy transaction's v on this chain (EIP-155: chainId * 2 + 35 + yParity).
const LEGACY_V0 = CHAIN_ID * 2n + 35n;
const LEGACY_V1 = LEGACY_V0 + 1n;

/** The walk alone (undefined: not accepted here, parse() decides); exported for its test. */
export function walkStoredFields(b: Uint8Array): TxFields | undefined {
  if (b.length === 0) return undefined;
  const t = b[0]!;
  const legacy = t >= 0xc0;
  if (!legacy && t !== 0x01 && t !== 0x02) return undefined;
  const end = b.length;
  if (listAt(b, legacy ? 0 : 1, end) !== end) return undefined;
  let o = ws;
  wBody = o;
  const chainId = CHAIN_ID;
  if (!legacy) {
    if ((o = strAt(b, o, end)) < 0 || intIn(b, 32) !== CHAIN_ID) return undefined;
  }
  if ((o = strAt(b, o, end)) < 0) return undefined;
  const nonce = intIn(b, 8);
  if (nonce < 0n || nonce >= U64_MAX) return undefined;
  if ((o = strAt(b, o, end)) < 0) return undefined;
  const maxPriorityFeePerGas = intIn(b, 32);
  let maxFeePerGas = maxPriorityFeePerGas;
  if (t === 0x02) {
    if ((o = strAt(b, o, end)) < 0) return undefined;
    maxFeePerGas = intIn(b, 32);
  }
  if ((o = strAt(b, o, end)) < 0) return undefined;
  const gasLimit = intIn(b, 8);
  if (maxPriorityFeePerGas < 0n || maxFeePerGas < 0n || gasLimit < 0n) return undefined;
  if ((o = strAt(b, o, end)) < 0) return undefined;
  let to: Address | undefined;
  if (we > ws) {
    if (we - ws !== 20) return undefined;
    to = b.subarray(ws, we);
  }
  if ((o = strAt(b, o, end)) < 0) return undefined;
  const value = intIn(b, 32);
  if (value < 0n || (o = strAt(b, o, end)) < 0) return undefined;
  const data = b.subarray(ws, we);
  let accessList: AccessList = [];
  if (legacy) {
    wBodyEnd = o;
    if ((o = strAt(b, o, end)) < 0) return undefined;
    const v = intIn(b, 32);
    if (v !== LEGACY_V0 && v !== LEGACY_V1) return undefined;
    wV = v;
  } else {
    if ((o = listAt(b, o, end)) < 0) return undefined;
    if (we > ws) {
      const list: (readonly [Address, readonly Bytes32[]])[] = [];
      const lend = we;
      let e = ws;
      while (e < lend) {
        const eend = listAt(b, e, lend);
        if (eend < 0 || strAt(b, ws, eend) < 0 || we - ws !== 20) return undefined;
        const addr = b.subarray(ws, we);
        const kend = listAt(b, we, eend);
        if (kend !== eend) return undefined;
        const ks: Bytes32[] = [];
        let k = ws;
        while (k < kend) {
          if ((k = strAt(b, k, kend)) < 0 || we - ws !== 32) return undefined;
          ks.push(b.subarray(ws, we));
        }
        list.push([addr, ks] as const);
        e = eend;
      }
      accessList = list;
    }
    wBodyEnd = o;
    if ((o = strAt(b, o, end)) < 0) return undefined;
    const yp = intIn(b, 1);
    if (yp < 0n || yp > 1n) return undefined;
    wV = yp;
  }
  // r and s: byte strings (parse() does not read them for stored fields), and nothing after them.
  if ((o = strAt(b, o, end)) < 0) return undefined;
  wRs = ws;
  wRe = we;
  if (strAt(b, o, end) !== end) return undefined;
  wSs = ws;
  wSe = we;
  return { type: legacy ? 0 : (t as 1 | 2), chainId, nonce, gasLimit, maxFeePerGas, maxPriorityFeePerGas, to, value, data, accessList };
}

function parse(raw: Uint8Array, withSig: boolean): Result<ParsedEthTx> {
  if (raw.length === 0) return err(ErrorCode.DecodeMalformed, 'empty transaction');
  const t = raw[0]!;
  if (t === 0x03 || t === 0x04) return err(ErrorCode.DecodeUnsupportedType, `transaction type 0x0${t} is not accepted`);
  if (t >= 0x80 && t < 0xc0) return err(ErrorCode.DecodeMalformed, 'not a transaction: an RLP string');
  if (t !== 0x01 && t !== 0x02 && t < 0xc0) {
    return err(ErrorCode.DecodeUnsupportedType, `transaction type 0x${t.toString(16).padStart(2, '0')} is not accepted`);
  }
  let list: RlpItem;
  try {
    list = rlpDecodeStrict(raw, t >= 0xc0 ? 0 : 1);
  } catch (e) {
    return err(ErrorCode.DecodeMalformed, `malformed RLP: ${(e as Error).message}`);
  }
  if (list.kind !== 'list') return err(ErrorCode.DecodeMalformed, 'transaction payload is not an RLP list');
  try {
    return t >= 0xc0 ? parseLegacy(raw, list, withSig) : parseTyped(raw, list, t as 1 | 2, withSig);
  } catch (e) {
    if (e instanceof FieldError || e instanceof RlpError) return err(ErrorCode.DecodeMalformed, e.message);
    throw e;
  }
}

function parseLegacy(raw: Uint8Array, list: RlpList, withSig: boolean): Result<ParsedEthTx> {
  const it = list.items;
  if (it.length !== 9) return err(ErrorCode.DecodeMalformed, `legacy transaction needs 9 fields, got ${it.length}`);
  const nonce = intOf(it[0], 'nonce', 8);
  const gasPrice = intOf(it[1], 'gasPrice', 32);
  const gasLimit = intOf(it[2], 'gasLimit', 8);
  const to = toOf(it[3]);
  const value = intOf(it[4], 'value', 32);
  const data = bytesOf(it[5], 'data');
  const v = intOf(it[6], 'v', 32);
  const r = withSig ? intOf(it[7], 'r', 32) : 1n;
  const s = withSig ? intOf(it[8], 's', 32) : 1n;
  checkNonceGas(nonce, gasLimit);
  if (v === 27n || v === 28n) {
    return err(ErrorCode.DecodeLegacyChainIdMissing, 'legacy transaction without EIP-155 chain id (v = 27/28)');
  }
  if (v < 35n) return err(ErrorCode.DecodeInvalidSignature, `invalid legacy v = ${v}`);
  const chainId = (v - 35n) >> 1n;
  if (chainId !== CHAIN_ID) return err(ErrorCode.DecodeWrongChainId, `chain id ${chainId}, expected ${CHAIN_ID}`);
  const bad = withSig ? sigError(r, s) : undefined;
  if (bad !== undefined) return err(ErrorCode.DecodeInvalidSignature, bad);
  const yParity = Number((v - 35n) & 1n) as 0 | 1;
  const fields: TxFields = {
    type: 0,
    chainId,
    nonce,
    gasLimit,
    maxFeePerGas: gasPrice,
    maxPriorityFeePerGas: gasPrice,
    to,
    value,
    data,
    accessList: [],
  };
  const sig: EthSignature = { v, r, s, yParity };
  return ok({
    fields,
    sig,
    // chainId is CHAIN_ID here (checked above)
    signingPayload: () => legacySigningPayload(raw, it[0]!.start, it[5]!.end),
  });
}

function parseTyped(raw: Uint8Array, list: RlpList, type: 1 | 2, withSig: boolean): Result<ParsedEthTx> {
  const it = list.items;
  const want = type === 1 ? 11 : 12;
  if (it.length !== want) return err(ErrorCode.DecodeMalformed, `type ${type} transaction needs ${want} fields, got ${it.length}`);
  const chainId = intOf(it[0], 'chainId', 32);
  const nonce = intOf(it[1], 'nonce', 8);
  let maxPriorityFeePerGas: bigint;
  let maxFeePerGas: bigint;
  let i = 2;
  if (type === 1) {
    maxFeePerGas = maxPriorityFeePerGas = intOf(it[i++], 'gasPrice', 32);
  } else {
    maxPriorityFeePerGas = intOf(it[i++], 'maxPriorityFeePerGas', 32);
    maxFeePerGas = intOf(it[i++], 'maxFeePerGas', 32);
  }
  const gasLimit = intOf(it[i++], 'gasLimit', 8);
  const to = toOf(it[i++]);
  const value = intOf(it[i++], 'value', 32);
  const data = bytesOf(it[i++], 'data');
  const accessList = accessListOf(it[i++]);
  const yp = intOf(it[i++], 'yParity', 1);
  const r = withSig ? intOf(it[i++], 'r', 32) : 1n;
  const s = withSig ? intOf(it[i++], 's', 32) : 1n;
  checkNonceGas(nonce, gasLimit);
  if (chainId !== CHAIN_ID) return err(ErrorCode.DecodeWrongChainId, `chain id ${chainId}, expected ${CHAIN_ID}`);
  if (yp > 1n) return err(ErrorCode.DecodeInvalidSignature, 'yParity must be 0 or 1');
  const bad = withSig ? sigError(r, s) : undefined;
  if (bad !== undefined) return err(ErrorCode.DecodeInvalidSignature, bad);
  const yParity = Number(yp) as 0 | 1;
  const fields: TxFields = { type, chainId, nonce, gasLimit, maxFeePerGas, maxPriorityFeePerGas, to, value, data, accessList };
  return ok({
    fields,
    sig: { v: yp, r, s, yParity },
    signingPayload: () => typedSigningPayload(type, raw, it[0]!.start, it[want - 4]!.end),
  });
}

const NO_POINT = 'signature does not recover to a public key';

/**
 * The signature's curve point R (a square root, no hashing): a signature whose r is not the x of a curve
 * point (about half of all r) is refused before the payload is hashed (recoverSender, recoverSenderWithKey).
 */
export function signaturePoint(parsed: ParsedEthTx): Result<RecoveryPoint> {
  const point = recoveryPoint(parsed.sig.r, parsed.sig.yParity);
  return point === undefined ? err(ErrorCode.DecodeInvalidSignature, NO_POINT) : ok(point);
}

/**
 * Recovers the sender: the signature's point first (no hash), then one keccak of the signing payload, one
 * secp256k1 recovery and one keccak of the key.
 */
export function recoverSender(parsed: ParsedEthTx): Result<Address> {
  const point = signaturePoint(parsed);
  if (!point.ok) return point;
  const hash = keccak256(parsed.signingPayload());
  const addr = recoverAddressAt(hash, point.value, parsed.sig.s);
  if (addr === undefined) return err(ErrorCode.DecodeInvalidSignature, NO_POINT);
  return ok(addr);
}

/**
 * recoverSender for a submit that names its sender's public key (64 bytes x || y): the key is checked, and a
 * submit whose signature it did not make is refused (submit.sender_key_mismatch), so a wrong hint never costs
 * more than a recovery. A key kept from an earlier admitted submit (crypto.ts rememberKey) is checked by
 * verification against its tables (about half a recovery, no square root; `buildTables`: an update may build
 * them); otherwise the sender is recovered and compared. `pointFirst` keeps the hash-free check of the
 * signature's point before the payload's keccak pass on the verification path too (large payloads, which
 * inspection does not screen).
 */
export function recoverSenderWithKey(parsed: ParsedEthTx, keyHint: Uint8Array, opts: { readonly buildTables: boolean; readonly pointFirst: boolean }): Result<Address> {
  const { r, s, yParity } = parsed.sig;
  let point = opts.pointFirst ? signaturePoint(parsed) : undefined;
  if (point !== undefined && !point.ok) return point;
  let hash: Uint8Array | undefined;
  if (isKnownKey(keyHint, opts.buildTables)) {
    hash = keccak256(parsed.signingPayload());
    const known = addressByKnownKey(hash, r, s, yParity, keyHint, opts.buildTables);
    if (known === false) return err(ErrorCode.SubmitSenderKeyMismatch, KEY_MISMATCH);
    if (known !== undefined) return ok(known);
  }
  // As recoverSender: the hash-free point first, so junk is refused before the payload is hashed.
  point ??= signaturePoint(parsed);
  if (!point.ok) return point;
  const recovered = recoverAddressComparing(hash ?? keccak256(parsed.signingPayload()), point.value, s, keyHint);
  if (recovered === undefined) return err(ErrorCode.DecodeInvalidSignature, NO_POINT);
  if (!recovered.isHinted) return err(ErrorCode.SubmitSenderKeyMismatch, KEY_MISMATCH);
  return ok(recovered.address);
}

/**
 * recoverSender for a plain submit with a guess of its key (crypto.ts callerKeyGuess, from the caller's
 * earlier submits): the guess is verified first (as recoverSenderWithKey's kept keys), and a signature it did
 * not make is recovered as without a guess, not refused (the caller claimed nothing). The sender's key comes
 * back when it was recovered (`publicKey`), so an admitted submit can be noted for the caller
 * (crypto.ts noteCallerKey); a verified one returns the guess.
 */
export function recoverSenderGuessing(parsed: ParsedEthTx, guess: Uint8Array | undefined, opts: { readonly buildTables: boolean; readonly pointFirst: boolean }): Result<{ readonly address: Address; readonly publicKey: Uint8Array }> {
  const { r, s, yParity } = parsed.sig;
  let point = opts.pointFirst ? signaturePoint(parsed) : undefined;
  if (point !== undefined && !point.ok) return point;
  let hash: Uint8Array | undefined;
  if (guess !== undefined && isKnownKey(guess, opts.buildTables)) {
    hash = keccak256(parsed.signingPayload());
    const known = addressByKnownKey(hash, r, s, yParity, guess, opts.buildTables);
    if (known !== false && known !== undefined) return ok({ address: known, publicKey: guess });
  }
  point ??= signaturePoint(parsed);
  if (!point.ok) return point;
  const recovered = recoverKeyAt(hash ?? keccak256(parsed.signingPayload()), point.value, s);
  if (recovered === undefined) return err(ErrorCode.DecodeInvalidSignature, NO_POINT);
  return ok(recovered);
}

const KEY_MISMATCH = 'the signature was not made by the given sender public key';
