// The edge of the IC HTTP interface: a request body is decoded and validated once, here, into a typed
// envelope, as the IC's HTTP handler and ingress validator do (interface spec, "Request: Authentication"):
// CBOR envelope, content fields and their types, request id (representation-independent hash, the agent's
// own `requestIdOf`), ingress expiry window, sender vs public key, signature (Ed25519, ECDSA secp256k1 and
// P-256), delegation chain (expiry, targets, signatures). Every failure is an IcHttpError value with the
// HTTP status and text the IC answers with; nothing here throws to the caller.
import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { Cbor, Ed25519PublicKey, IC_REQUEST_AUTH_DELEGATION_DOMAIN_SEPARATOR, IC_REQUEST_DOMAIN_SEPARATOR, requestIdOf } from '@icp-sdk/core/agent';
import { Principal } from '@icp-sdk/core/principal';
import { ed25519 } from '@noble/curves/ed25519.js';

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
const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
const hexOf = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const natOf = (v: unknown): bigint | undefined => (typeof v === 'bigint' && v >= 0n ? v : typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : undefined);

/** Only the value kinds the representation-independent hash defines (nat, blob, text, arrays, maps). */
function hashable(v: unknown, depth = 0): boolean {
  if (depth > 8) return false;
  if (isBytes(v) || typeof v === 'string' || natOf(v) !== undefined) return true;
  if (Array.isArray(v)) return v.every((x) => hashable(x, depth + 1));
  if (isMap(v)) return Object.values(v).every((x) => hashable(x, depth + 1));
  return false;
}

function principalOf(v: unknown, field: string): Result<Principal> {
  if (!isBytes(v) || v.length > 29) return bad(`Could not parse body as request: ${field} is not a principal (a byte string of at most 29 bytes)`);
  return ok(Principal.fromUint8Array(v));
}

/** Formats ns since the epoch the way the IC's messages do (UTC). */
const fmtTime = (ns: bigint): string => `${new Date(Number(ns / 1_000_000n)).toISOString().replace('T', ' ').replace('Z', '')} UTC`;

/**
 * Decodes and validates an HTTP body as an envelope of `kind` at time `nowNs`. The request id is the agent's
 * representation-independent hash of the content map exactly as received (every field, known or not).
 */
export function decodeEnvelope(body: Uint8Array, kind: 'call' | 'query' | 'read_state', nowNs: bigint): Result<Envelope> {
  let raw: unknown;
  try {
    raw = Cbor.decode(body);
  } catch (e) {
    const cause = (e as { cause?: { code?: { error?: unknown } } }).cause?.code?.error;
    return bad(`Failed to deserialize cbor request: ${cause instanceof Error ? cause.message : 'not CBOR'}`);
  }
  if (!isMap(raw) || !isMap(raw.content)) return bad(`Could not parse body as ${kind} message: expected a CBOR map with a content map`);
  const c = raw.content;
  if (!hashable(c)) return bad(`Could not parse body as ${kind} message: content holds values outside the representation-independent hash (floats, booleans, null, tags or too deep)`);
  if (c.request_type !== kind) return bad(`Could not parse body as ${kind} message: request_type is ${JSON.stringify(typeof c.request_type === 'string' ? c.request_type : typeof c.request_type)}, expected "${kind}"`);
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
  const requestId = new Uint8Array(requestIdOf(c));
  const rid = `0x${hexOf(requestId)}`;

  // Syntactic limits first (rs/validator order), then time, then authentication.
  if (nonce !== undefined && nonce.length > MAX_NONCE_BYTES) return bad(`Nonce in request is too big: max ${MAX_NONCE_BYTES} bytes, got ${nonce.length}`);
  if (content.requestType === 'read_state') {
    if (content.paths.length > MAX_PATHS) return bad(`Too many paths in read state request: got ${content.paths.length} paths, but at most ${MAX_PATHS} are allowed`);
    const long = content.paths.find((p) => p.length > MAX_PATH_LABELS);
    if (long !== undefined) return bad(`At least one path in read state request is too deep: got ${long.length} labels, but at most ${MAX_PATH_LABELS} are allowed`);
  }
  const min = nowNs;
  const max = nowNs + MAX_INGRESS_TTL_NS + PERMITTED_DRIFT_NS;
  if (ingressExpiry < min || ingressExpiry > max) {
    return bad(`Invalid request expiry: Specified ingress_expiry not within expected range: Minimum allowed expiry: ${fmtTime(min)}, Maximum allowed expiry: ${fmtTime(max)}, Provided expiry: ${fmtTime(ingressExpiry)}`);
  }
  const auth = authenticate(raw, sender.value, requestId, nowNs);
  if (!auth.ok) return { ok: false, error: { status: 400, message: `Failed to authenticate request ${rid} due to: ${auth.error.message}` } };
  return ok({ content, requestId, targets: auth.value });
}

/** Checks pubkey, delegations and signature of an envelope; returns the delegation targets (if any). */
function authenticate(env: Record<string, unknown>, sender: Principal, requestId: Uint8Array, nowNs: bigint): Result<Principal[] | undefined> {
  const { sender_pubkey: pubkey, sender_sig: sig, sender_delegation: delegations } = env;
  if (sender.isAnonymous()) {
    if (pubkey !== undefined || sig !== undefined || delegations !== undefined) return bad('Signature is not allowed for the anonymous user');
    return ok(undefined);
  }
  if (pubkey === undefined || sig === undefined) return bad(`Missing signature from user: ${sender.toText()}`);
  if (!isBytes(pubkey) || !isBytes(sig)) return bad('sender_pubkey and sender_sig must be byte strings');
  const expected = Principal.selfAuthenticating(pubkey);
  if (expected.toText() !== sender.toText()) return bad(`The user id ${sender.toText()} does not match the public key ${hexOf(pubkey)}`);

  let signingKey: Uint8Array = pubkey;
  let targets: Principal[] | undefined;
  if (delegations !== undefined) {
    if (!Array.isArray(delegations)) return bad('Invalid delegation: sender_delegation is not an array');
    if (delegations.length > MAX_DELEGATIONS) return bad(`Invalid delegation: chain of ${delegations.length} delegations, at most ${MAX_DELEGATIONS} allowed`);
    for (const [i, sd] of delegations.entries()) {
      if (!isMap(sd) || !isMap(sd.delegation) || !isBytes(sd.signature)) return bad(`Invalid delegation: entry ${i} is not {delegation, signature}`);
      const d = sd.delegation;
      if (!hashable(d)) return bad(`Invalid delegation: entry ${i} holds values outside the representation-independent hash`);
      const expiration = natOf(d.expiration);
      if (!isBytes(d.pubkey) || expiration === undefined) return bad(`Invalid delegation: entry ${i} needs pubkey (bytes) and expiration (nat)`);
      const msg = Uint8Array.from([...IC_REQUEST_AUTH_DELEGATION_DOMAIN_SEPARATOR, ...requestIdOf(d)]);
      const v = verifySignature(signingKey, sd.signature, msg);
      if (!v.ok) return bad(`Invalid delegation: entry ${i}: ${v.error.message}`);
      if (expiration < nowNs) return bad(`Invalid delegation expiry: delegation ${i} expired at ${fmtTime(expiration)}, now is ${fmtTime(nowNs)}`);
      if (d.targets !== undefined) {
        if (!Array.isArray(d.targets) || !d.targets.every(isBytes) || d.targets.length > MAX_DELEGATION_TARGETS) {
          return bad(`Invalid delegation: entry ${i} targets must be at most ${MAX_DELEGATION_TARGETS} principals`);
        }
        const these = (d.targets as Uint8Array[]).map((t) => Principal.fromUint8Array(t));
        // Each delegation narrows the set: the request may only reach canisters every delegation allows.
        targets = targets === undefined ? these : targets.filter((t) => these.some((x) => x.toText() === t.toText()));
      }
      signingKey = d.pubkey;
    }
  }
  const v = verifySignature(signingKey, sig, Uint8Array.from([...IC_REQUEST_DOMAIN_SEPARATOR, ...requestId]));
  if (!v.ok) return bad(`Invalid signature: ${v.error.message}`);
  return ok(targets);
}

const ED25519_DER_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Verifies `sig` over `msg` with a DER public key: Ed25519 (noble, as the agent), ECDSA secp256k1 / P-256 (SHA-256, r||s). */
export function verifySignature(der: Uint8Array, sig: Uint8Array, msg: Uint8Array): Result<void> {
  try {
    if (der.length === 44 && ED25519_DER_PREFIX.equals(der.subarray(0, 12))) {
      const raw = Ed25519PublicKey.fromDer(new Uint8Array(der) as never).rawKey;
      return ed25519.verify(sig, msg, raw) ? ok(undefined) : bad(`Ed25519 signature could not be verified: public key ${hexOf(der)}, signature ${hexOf(sig)}`);
    }
    const key = createPublicKey({ key: Buffer.from(der), format: 'der', type: 'spki' });
    const jwk = key.asymmetricKeyType === 'ec' ? key.export({ format: 'jwk' }) : undefined;
    if (jwk === undefined || (jwk.crv !== 'secp256k1' && jwk.crv !== 'P-256')) {
      return bad(`Unsupported public key type ${key.asymmetricKeyType ?? '?'}${jwk?.crv === undefined ? '' : ` (${jwk.crv})`}: the devnet verifies Ed25519, ECDSA secp256k1 and ECDSA P-256 keys`);
    }
    if (sig.length !== 64) return bad(`ECDSA signature must be 64 bytes (r || s), got ${sig.length}`);
    return nodeVerify('sha256', msg, { key, dsaEncoding: 'ieee-p1363' }, sig) ? ok(undefined) : bad(`ECDSA ${jwk.crv} signature could not be verified: public key ${hexOf(der)}, signature ${hexOf(sig)}`);
  } catch (e) {
    return bad(`Malformed public key or signature: ${(e as Error).message}`);
  }
}
