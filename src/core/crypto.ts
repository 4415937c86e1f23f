// Hashing and signature recovery used by the core (tx decode) and plugged into EthereumJS
// (Common customCrypto). One module so the cheapest measured implementation is swapped in one place.
//
// keccak256: ./keccak.ts, a keccak-f[1600] on int32 locals written for QuickJS. Inside the canister one
// permutation (136-byte block) costs keccak.block.instructions (npm run bench), well under js-sha3's and
// @noble/hashes' (measured with the host's counter when it was chosen).
// Recovery: ./secp256k1.ts, written for the canister's cost model: a fraction of @noble/curves' cost inside
// the canister, same results (a submit with recovery: submit_raw.transfer.without_key.instructions).

import { keyTables, publicKeyBytes, recoverPublicKey as recoverPublicKeySecp256k1, recoverPointAt, recoveryPoint, verifiesAs, type KeyTables, type RecoveryPoint } from './secp256k1.js';
import { bytesEqual, latin1Key } from './codec/bytes.js';
import { keccak256 as keccak256Impl } from './keccak.js';

/** keccak256 (Ethereum's), a fresh 32-byte array. */
export function keccak256(data: Uint8Array): Uint8Array {
  return keccak256Impl(data);
}

/** Uncompressed public key (64 bytes, no 0x04 prefix) that signed msgHash, or undefined if the signature is invalid. */
export function recoverPublicKey(msgHash: Uint8Array, r: bigint, s: bigint, yParity: number): Uint8Array | undefined {
  return recoverPublicKeySecp256k1(msgHash, r, s, yParity);
}

/** The 20-byte Ethereum address of a 64-byte uncompressed public key. */
export function publicKeyToAddress(publicKey: Uint8Array): Uint8Array {
  return keccak256(publicKey).subarray(12);
}

export function recoverAddress(msgHash: Uint8Array, r: bigint, s: bigint, yParity: number): Uint8Array | undefined {
  const pub = recoverPublicKey(msgHash, r, s, yParity);
  return pub === undefined ? undefined : publicKeyToAddress(pub);
}

export { recoveryPoint, type RecoveryPoint };

/**
 * Addresses of recently recovered keys, by the key's x (its y is compared): a sender's key is hashed once
 * (one keccak block, keccak.block.instructions) and not again on its next transactions. A memo of a pure
 * function, so it changes no answer; cleared when full, so it stays small (~200 bytes an entry).
 */
const addressMemo = new Map<bigint, { y: bigint; address: Uint8Array }>();
const ADDRESS_MEMO_ENTRIES = 1024;

/** recoverAddress with the signature's point R already found by recoveryPoint (hash-free, done first). */
export function recoverAddressAt(msgHash: Uint8Array, point: RecoveryPoint, s: bigint): Uint8Array | undefined {
  const q = recoverPointAt(msgHash, point, s);
  return q === undefined ? undefined : addressOfPoint(q);
}

function addressOfPoint(q: { x: bigint; y: bigint }): Uint8Array {
  const known = addressMemo.get(q.x);
  if (known !== undefined && known.y === q.y) return known.address.slice();
  const address = publicKeyToAddress(publicKeyBytes(q));
  if (addressMemo.size >= ADDRESS_MEMO_ENTRIES) addressMemo.clear();
  addressMemo.set(q.x, { y: q.y, address: address.slice() });
  return address;
}

/**
 * Senders' public keys given as hints (rpc_eth_send_raw_transaction_with_key) and found by recovery to be the
 * signer's of an admitted transaction, by the key's 64 bytes as a latin1 string (codec/bytes latin1Key: one
 * native call, where a hex string cost a JavaScript loop), with their address and, from the key's
 * second hinted submit on, its verification tables (secp256k1.ts keyTables, built in that submit:
 * submit_raw.transfer.second_with_key.instructions): verifying against them costs about half a recovery.
 * Keys of refused submits are not kept, so junk builds nothing; tables wait for a key's second sight, so a
 * sender's single transaction does not pay for them. A cache of pure functions in least-recently-used order (Map order: a verified key moves to the end,
 * the first is evicted when full), about 8 KB a key with tables.
 */
const knownKeys = new Map<string, { readonly address: Uint8Array; tables?: KeyTables }>();
const KNOWN_KEYS = 512;

/**
 * Whether the hinted key made the signature (r, s, yParity) over msgHash, exactly as recovery would find:
 * its address if so, false if not, undefined when it cannot tell without recovering (a key not kept, or,
 * without `buildTables`, one whose tables are not built; canister_inspect_message's heap is discarded).
 */
export function addressByKnownKey(msgHash: Uint8Array, r: bigint, s: bigint, yParity: number, keyHint: Uint8Array, buildTables: boolean): Uint8Array | false | undefined {
  if (keyHint.length !== 64) return undefined;
  const id = latin1Key(keyHint);
  const entry = knownKeys.get(id);
  if (entry === undefined) return undefined;
  if (entry.tables === undefined) {
    if (!buildTables) return undefined;
    entry.tables = keyTables(keyHint);
    if (entry.tables === undefined) return undefined; // not a curve point: cannot be, recovery returned it
  }
  if (!verifiesAs(msgHash, r, s, yParity, entry.tables)) return false;
  if (buildTables) {
    knownKeys.delete(id);
    knownKeys.set(id, entry);
  }
  return entry.address.slice();
}

/** Whether addressByKnownKey may answer for this hint without recovering. */
export function isKnownKey(keyHint: Uint8Array, buildTables: boolean): boolean {
  const entry = keyHint.length === 64 ? knownKeys.get(latin1Key(keyHint)) : undefined;
  return entry !== undefined && (buildTables || entry.tables !== undefined);
}

/** recoverAddressAt that also returns the recovered key (64 bytes x || y), for noteCallerKey. */
export function recoverKeyAt(msgHash: Uint8Array, point: RecoveryPoint, s: bigint): { readonly address: Uint8Array; readonly publicKey: Uint8Array } | undefined {
  const q = recoverPointAt(msgHash, point, s);
  return q === undefined ? undefined : { address: addressOfPoint(q), publicKey: publicKeyBytes(q) };
}

/** recoverAddressAt that also says whether the recovered key is the hinted one. */
export function recoverAddressComparing(msgHash: Uint8Array, point: RecoveryPoint, s: bigint, keyHint: Uint8Array): { readonly address: Uint8Array; readonly isHinted: boolean } | undefined {
  const q = recoverPointAt(msgHash, point, s);
  if (q === undefined) return undefined;
  return { address: addressOfPoint(q), isHinted: keyHint.length === 64 && bytesEqual(publicKeyBytes(q), keyHint) };
}

/**
 * Keeps the key of an admitted submit whose recovery returned it (recoverAddressComparing's isHinted), for
 * addressByKnownKey; the least recently used key goes when the cache is full.
 */
export function rememberKey(publicKey: Uint8Array, address: Uint8Array): void {
  if (publicKey.length !== 64) return;
  const id = latin1Key(publicKey);
  if (knownKeys.has(id)) return;
  if (knownKeys.size >= KNOWN_KEYS) knownKeys.delete(knownKeys.keys().next().value as string);
  knownKeys.set(id, { address: address.slice() });
}

/**
 * Caller-keyed hints (docs/execution.md "Sender key hints"): per named caller principal of a plain submit
 * (rpc_eth_send_raw_transaction without a key; never the anonymous principal, which anybody can be), the key
 * its last admitted submits were signed with, and how many in a row (1 or 2). Once a caller's last two
 * admitted submits had the same key, its next one is verified against that key first (knownKeys' tables,
 * built then; submit_raw.transfer.named_caller.instructions) and recovered only if that key did not sign it
 * (submit_raw.transfer.named_caller.miss.instructions); a miss forgets the caller's guess at once
 * (forgetCallerKey), whatever becomes of that submit, so a change of key costs one miss. A guess only chooses
 * the cheaper check: an address comes from a verification that passed or from a recovery, never from the
 * caller. Least-recently-used, as many callers as knownKeys holds keys; a few hundred bytes a caller (the
 * key's tables are knownKeys').
 */
const callerKeys = new Map<string, { readonly key: string; readonly publicKey: Uint8Array; streak: number }>();
const CALLER_KEYS = KNOWN_KEYS;

/** The key to try first for a plain submit from this caller, if its last two admitted submits used it and knownKeys still keeps it. */
export function callerKeyGuess(caller: Uint8Array): Uint8Array | undefined {
  const entry = callerKeys.get(latin1Key(caller));
  return entry !== undefined && entry.streak >= 2 && knownKeys.has(entry.key) ? entry.publicKey : undefined;
}

/**
 * After a plain submit from this caller that its guess did not sign (a miss), even one refused later or
 * already known: the guess goes, so later submits with the new key recover instead of missing again.
 */
export function forgetCallerKey(caller: Uint8Array): void {
  callerKeys.delete(latin1Key(caller));
}

/** After an admitted plain submit from this (named) caller whose sender is the key's: counts the run of the same key and keeps the key (rememberKey). */
export function noteCallerKey(caller: Uint8Array, publicKey: Uint8Array, address: Uint8Array): void {
  if (publicKey.length !== 64) return;
  // latin1 strings (one native call each) rather than hex: about 0.6 M of a named caller's admitted submit went
  // to hex-encoding these two (submit_raw.transfer.named_caller.instructions)
  const id = latin1Key(caller);
  const key = latin1Key(publicKey);
  const entry = callerKeys.get(id);
  callerKeys.delete(id);
  if (callerKeys.size >= CALLER_KEYS) callerKeys.delete(callerKeys.keys().next().value as string);
  callerKeys.set(id, entry !== undefined && entry.key === key ? { key, publicKey: entry.publicKey, streak: 2 } : { key, publicKey: publicKey.slice(), streak: 1 });
  rememberKey(publicKey, address);
}
