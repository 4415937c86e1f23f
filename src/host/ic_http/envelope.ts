// The edge of the IC HTTP interface: a request body is decoded and validated once, here, into a typed
// envelope, as the IC's HTTP handler and ingress validator do (interface spec, "Request: Authentication"):
// CBOR envelope (bounded decoder, cbor.ts), content fields and their types, request id (representation-
// independent hash, hash.ts, the same bytes as the agent's `requestIdOf`), ingress expiry window, sender vs public key, signature (Ed25519, ECDSA secp256k1 and
// P-256), delegation chain (expiry, targets, signatures). Every failure is an IcHttpError value with the
// HTTP status and text the IC answers with; nothing here throws to the caller.
import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { Ed25519PublicKey, IC_REQUEST_AUTH_DELEGATION_DOMAIN_SEPARATOR, IC_REQUEST_DOMAIN_SEPARATOR } from '@icp-sdk/core/agent';
import { Principal } from '@icp-sdk/core/principal';
import { ed25519 } from '@noble/curves/ed25519.js';
import { toHex } from '../../core/codec/bytes.js';
import { decodeCbor, prefixRefusal, type CborMap } from './cbor.js';
import { hashOfMap } from './hash.js';

/** An HTTP-level refusal: the status and plain-text body the IC sends (no reject code: the call never ran). */
export interface IcHttpError {
  readonly status: 400 | 403 | 404 | 405 | 413 | 415 | 429 | 503;
  readonly message: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: IcHttpError };
const ok = <T>(value: T): Result<T> => ({ ok: true, value });
const bad = (message: string, status: IcHttpError['status'] = 400): Result<never> => ({ ok: false, error: { status, message } });

/** The IC's limits (rs/validator): ingress time-to-live plus the drift the validator permits. */
export const MAX_INGRESS_TTL_NS = 5n * 60n * 1_000_000_000n;
export const PERMITTED_DRIFT_NS = 30n * 1_000_000_000n;
export const MAX_DELEGATIONS = 20;
export const MAX_DELEGATION_TARGETS = 1000;
export const MAX_PATHS = 1000;
export const MAX_PATH_LABELS = 127;
export const MAX_NONCE_BYTES = 32;

export const ANONYMOUS_BYTES = Uint8Array.of(0x04);

interface Common {
  readonly sender: Principal;
  readonly ingressExpiry: bigint;
  readonly nonce: Uint8Array | undefined;
}
export interface CallContent extends Common {
  readonly requestType: 'call' | 'query';
  readonly canisterId: Principal;
  readonly methodName: string;
  readonly arg: Uint8Array;
}
export interface ReadStateContent extends Common {
  readonly requestType: 'read_state';
  readonly paths: readonly (readonly Uint8Array[])[];
}
export type Content = CallContent | ReadStateContent;

export interface Envelope<C extends Content = Content> {
  readonly content: C;
  readonly requestId: Uint8Array;
  /** The canisters a delegation chain restricts the request to (undefined: no restriction). */
  readonly targets: readonly Principal[] | undefined;
}

const isBytes = (v: unknown): v is Uint8Array => v instanceof Uint8Array;
const isMap = (v: unknown): v is CborMap => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
const natOf = (v: unknown): bigint | undefined => (typeof v === 'bigint' && v >= 0n ? v : typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : undefined);

/**
 * The decoder's budget for one body. A real envelope holds a few dozen items (an agent's read_state: one to
 * three paths of a few labels; Internet Identity's delegation chain: one or two delegations); the budget
 * bounds what is decoded and hashed before the signature is checked (bench: ic_http.refuse_items_body).
 */
export const MAX_ENVELOPE_ITEMS = 4_096;
/** Envelope, content, paths, a path, a label: 5 levels; a delegation's targets: 6. */
export const MAX_ENVELOPE_DEPTH = 8;

/** The fields the interface spec defines; any other key is refused (it would only be hashed). */
const ENVELOPE_KEYS = new Set(['content', 'sender_pubkey', 'sender_sig', 'sender_delegation']);
const CONTENT_KEYS = {
  call: new Set(['request_type', 'canister_id', 'method_name', 'arg', 'sender', 'ingress_expiry', 'nonce']),
  query: new Set(['request_type', 'canister_id', 'method_name', 'arg', 'sender', 'ingress_expiry', 'nonce']),
  read_state: new Set(['request_type', 'paths', 'sender', 'ingress_expiry', 'nonce']),
} as const;
const SIGNED_DELEGATION_KEYS = new Set(['delegation', 'signature']);
const DELEGATION_KEYS = new Set(['pubkey', 'expiration', 'targets', 'permissions']);
const unknownKey = (m: CborMap, known: ReadonlySet<string>): string | undefined => Object.keys(m).find((k) => !known.has(k));

function principalOf(v: unknown, field: string): Result<Principal> {
  if (!isBytes(v) || v.length > 29) return bad(`Could not parse body as request: ${field} is not a principal (a byte string of at most 29 bytes)`);
  return ok(Principal.fromUint8Array(v));
}

/** Formats ns since the epoch the way the IC's messages do (UTC). */
const fmtTime = (ns: bigint): string => `${new Date(Number(ns / 1_000_000n)).toISOString().replace('T', ' ').replace('Z', '')} UTC`;

/**
 * Decodes and validates an HTTP body as an envelope of `kind` at time `nowNs`. `minExpiryNs` (at least
 * `nowNs`) refuses envelopes that may have been seen and forgotten (server.ts: the replay window). Cheap
 * checks run before costly ones: the bounded decode, known keys and types, syntactic limits and the expiry
 * before the request id is hashed; delegation expirations before any signature. Never throws.
 */
export function decodeEnvelope(body: Uint8Array, kind: 'call' | 'query' | 'read_state', nowNs: bigint, minExpiryNs: bigint = nowNs): Result<Envelope> {
  try {
    return decodeChecked(body, kind, nowNs, minExpiryNs > nowNs ? minExpiryNs : nowNs);
  } catch (e) {
    // Every check above is a value; this is the last guard that a malformed body is a 400, not a 500.
    return bad(`Could not parse body as ${kind} message: ${e instanceof Error ? e.message : 'malformed'}`);
  }
}

const ENVELOPE_LIMITS = { maxItems: MAX_ENVELOPE_ITEMS, maxDepth: MAX_ENVELOPE_DEPTH };
const cborRefusal = (message: string): Result<never> => bad(`Failed to deserialize cbor request: ${message}`);

/**
 * The answer `decodeEnvelope` is sure to give a body of `total` bytes (undefined: not announced) that begins
 * with `prefix`, when the prefix's CBOR already refuses it (the decoder runs first, whatever the kind and
 * time); undefined otherwise. The server asks while the body streams in and stops reading at a refusal.
 */
export function envelopePrefixRefusal(prefix: Uint8Array, total: number | undefined): IcHttpError | undefined {
  const message = prefixRefusal(prefix, total, ENVELOPE_LIMITS);
  if (message === undefined) return undefined;
  const r = cborRefusal(message);
  return r.ok ? undefined : r.error;
}

function decodeChecked(body: Uint8Array, kind: 'call' | 'query' | 'read_state', nowNs: bigint, minExpiryNs: bigint): Result<Envelope> {
  const decoded = decodeCbor(body, ENVELOPE_LIMITS);
  if (!decoded.ok) return cborRefusal(decoded.message);
  const raw = decoded.value;
  if (!isMap(raw) || !isMap(raw.content)) return bad(`Could not parse body as ${kind} message: expected a CBOR map with a content map`);
  const extra = unknownKey(raw, ENVELOPE_KEYS);
  if (extra !== undefined) return bad(`Could not parse body as ${kind} message: unknown envelope field ${JSON.stringify(extra.slice(0, 64))}`);
  const c = raw.content;
  if (c.request_type !== kind) return bad(`Could not parse body as ${kind} message: request_type is ${JSON.stringify(typeof c.request_type === 'string' ? c.request_type.slice(0, 64) : typeof c.request_type)}, expected "${kind}"`);
  const unknown = unknownKey(c, CONTENT_KEYS[kind]);
  if (unknown !== undefined) return bad(`Could not parse body as ${kind} message: unknown content field ${JSON.stringify(unknown.slice(0, 64))}`);
  const sender = principalOf(c.sender, 'sender');
  if (!sender.ok) return sender;
  const ingressExpiry = natOf(c.ingress_expiry);
  if (ingressExpiry === undefined) return bad(`Could not parse body as ${kind} message: ingress_expiry is not a nat64`);
  if (c.nonce !== undefined && !isBytes(c.nonce)) return bad(`Could not parse body as ${kind} message: nonce is not a byte string`);
  const nonce = c.nonce as Uint8Array | undefined;
  let content: Content;
  if (kind === 'read_state') {
    if (!Array.isArray(c.paths) || !c.paths.every((p) => Array.isArray(p) && p.every(isBytes))) {
      return bad('Could not parse body as read_state message: paths is not an array of arrays of byte strings');
    }
    content = { requestType: 'read_state', sender: sender.value, ingressExpiry, nonce, paths: c.paths as Uint8Array[][] };
  } else {
    const canisterId = principalOf(c.canister_id, 'canister_id');
    if (!canisterId.ok) return canisterId;
    if (typeof c.method_name !== 'string') return bad(`Could not parse body as ${kind} message: method_name is not text`);
    if (!isBytes(c.arg)) return bad(`Could not parse body as ${kind} message: arg is not a byte string`);
    content = { requestType: kind, sender: sender.value, ingressExpiry, nonce, canisterId: canisterId.value, methodName: c.method_name, arg: c.arg };
  }

  // Syntactic limits first (rs/validator order), then time, then the request id, then authentication.
  if (nonce !== undefined && nonce.length > MAX_NONCE_BYTES) return bad(`Nonce in request is too big: max ${MAX_NONCE_BYTES} bytes, got ${nonce.length}`);
  if (content.requestType === 'read_state') {
    if (content.paths.length > MAX_PATHS) return bad(`Too many paths in read state request: got ${content.paths.length} paths, but at most ${MAX_PATHS} are allowed`);
    const long = content.paths.find((p) => p.length > MAX_PATH_LABELS);
    if (long !== undefined) return bad(`At least one path in read state request is too deep: got ${long.length} labels, but at most ${MAX_PATH_LABELS} are allowed`);
  }
  const delegations = parseDelegations(raw.sender_delegation);
  if (!delegations.ok) return delegations;
  const max = nowNs + MAX_INGRESS_TTL_NS + PERMITTED_DRIFT_NS;
  if (ingressExpiry < minExpiryNs || ingressExpiry > max) {
    return bad(`Invalid request expiry: Specified ingress_expiry not within expected range: Minimum allowed expiry: ${fmtTime(minExpiryNs)}, Maximum allowed expiry: ${fmtTime(max)}, Provided expiry: ${fmtTime(ingressExpiry)}`);
  }
  const requestId = new Uint8Array(hashOfMap(c));
  const rid = `0x${toHex(requestId)}`;
  const auth = authenticate(raw, delegations.value, sender.value, requestId, nowNs);
  if (!auth.ok) return { ok: false, error: { status: 400, message: `Failed to authenticate request ${rid} due to: ${auth.error.message}` } };
  return ok({ content, requestId, targets: auth.value });
}

interface Delegation {
  readonly map: CborMap;
  readonly pubkey: Uint8Array;
  readonly expiration: bigint;
  readonly targets: readonly Uint8Array[] | undefined;
  readonly signature: Uint8Array;
}

/** The shape of sender_delegation, checked before anything in it is hashed or verified. */
function parseDelegations(v: unknown): Result<Delegation[] | undefined> {
  if (v === undefined) return ok(undefined);
  const no = (m: string): Result<never> => bad(`Failed to authenticate request due to: Invalid delegation: ${m}`);
  if (!Array.isArray(v)) return no('sender_delegation is not an array');
  if (v.length > MAX_DELEGATIONS) return no(`chain of ${v.length} delegations, at most ${MAX_DELEGATIONS} allowed`);
  const out: Delegation[] = [];
  for (const [i, sd] of v.entries()) {
    if (!isMap(sd) || unknownKey(sd, SIGNED_DELEGATION_KEYS) !== undefined || !isMap(sd.delegation) || !isBytes(sd.signature)) return no(`entry ${i} is not {delegation, signature}`);
    const d = sd.delegation;
    if (unknownKey(d, DELEGATION_KEYS) !== undefined) return no(`entry ${i} has a field other than ${[...DELEGATION_KEYS].join(', ')}`);
    const expiration = natOf(d.expiration);
    if (!isBytes(d.pubkey) || expiration === undefined) return no(`entry ${i} needs pubkey (bytes) and expiration (nat)`);
    if (d.targets !== undefined && (!Array.isArray(d.targets) || !d.targets.every(isBytes) || d.targets.length > MAX_DELEGATION_TARGETS)) {
      return no(`entry ${i} targets must be at most ${MAX_DELEGATION_TARGETS} principals`);
    }
    out.push({ map: d, pubkey: d.pubkey, expiration, targets: d.targets as Uint8Array[] | undefined, signature: sd.signature });
  }
  return ok(out);
}

/** Checks pubkey, delegations and signature of an envelope; returns the delegation targets (if any). */
function authenticate(env: CborMap, delegations: Delegation[] | undefined, sender: Principal, requestId: Uint8Array, nowNs: bigint): Result<Principal[] | undefined> {
  const { sender_pubkey: pubkey, sender_sig: sig } = env;
  if (sender.isAnonymous()) {
    if (pubkey !== undefined || sig !== undefined || delegations !== undefined) return bad('Signature is not allowed for the anonymous user');
    return ok(undefined);
  }
  if (pubkey === undefined || sig === undefined) return bad(`Missing signature from user: ${sender.toText()}`);
  if (!isBytes(pubkey) || !isBytes(sig)) return bad('sender_pubkey and sender_sig must be byte strings');
  const expected = Principal.selfAuthenticating(pubkey);
  if (expected.toText() !== sender.toText()) return bad(`The user id ${sender.toText()} does not match the public key ${toHex(pubkey)}`);

  let signingKey: Uint8Array = pubkey;
  let targets: Principal[] | undefined;
  // Every expiration before the first signature: an expired chain costs no verification.
  const expired = delegations?.findIndex((d) => d.expiration < nowNs) ?? -1;
  if (expired >= 0) return bad(`Invalid delegation expiry: delegation ${expired} expired at ${fmtTime(delegations![expired]!.expiration)}, now is ${fmtTime(nowNs)}`);
  for (const [i, d] of (delegations ?? []).entries()) {
    const msg = Buffer.concat([IC_REQUEST_AUTH_DELEGATION_DOMAIN_SEPARATOR, hashOfMap(d.map)]);
    const v = verifySignature(signingKey, d.signature, msg);
    if (!v.ok) return bad(`Invalid delegation: entry ${i}: ${v.error.message}`);
    if (d.targets !== undefined) {
      const these = d.targets.map((t) => Principal.fromUint8Array(t));
      // Each delegation narrows the set: the request may only reach canisters every delegation allows.
      targets = targets === undefined ? these : targets.filter((t) => these.some((x) => x.toText() === t.toText()));
    }
    signingKey = d.pubkey;
  }
  const v = verifySignature(signingKey, sig, Buffer.concat([IC_REQUEST_DOMAIN_SEPARATOR, requestId]));
  if (!v.ok) return bad(`Invalid signature: ${v.error.message}`);
  return ok(targets);
}

const ED25519_DER_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Verifies `sig` over `msg` with a DER public key: Ed25519 (noble, as the agent), ECDSA secp256k1 / P-256 (SHA-256, r||s). */
export function verifySignature(der: Uint8Array, sig: Uint8Array, msg: Uint8Array): Result<void> {
  try {
    if (der.length === 44 && ED25519_DER_PREFIX.equals(der.subarray(0, 12))) {
      const raw = Ed25519PublicKey.fromDer(new Uint8Array(der) as never).rawKey;
      return ed25519.verify(sig, msg, raw) ? ok(undefined) : bad(`Ed25519 signature could not be verified: public key ${toHex(der)}, signature ${toHex(sig)}`);
    }
    const key = createPublicKey({ key: Buffer.from(der), format: 'der', type: 'spki' });
    const jwk = key.asymmetricKeyType === 'ec' ? key.export({ format: 'jwk' }) : undefined;
    if (jwk === undefined || (jwk.crv !== 'secp256k1' && jwk.crv !== 'P-256')) {
      return bad(`Unsupported public key type ${key.asymmetricKeyType ?? '?'}${jwk?.crv === undefined ? '' : ` (${jwk.crv})`}: the devnet verifies Ed25519, ECDSA secp256k1 and ECDSA P-256 keys`);
    }
    if (sig.length !== 64) return bad(`ECDSA signature must be 64 bytes (r || s), got ${sig.length}`);
    return nodeVerify('sha256', msg, { key, dsaEncoding: 'ieee-p1363' }, sig) ? ok(undefined) : bad(`ECDSA ${jwk.crv} signature could not be verified: public key ${toHex(der)}, signature ${toHex(sig)}`);
  } catch (e) {
    return bad(`Malformed public key or signature: ${(e as Error).message}`);
  }
}
