// The representation-independent hash (interface spec, "Request ids") of decoded envelope values, with
// Node's native SHA-256: the agent's `requestIdOf` computes the same bytes (tests/unit/ic_http_envelope.test.ts
// checks it) but with a JavaScript SHA-256 that takes ten times longer on a large argument, on the event
// loop that runs the whole devnet. Input is bounded by the envelope decoder's item budget (cbor.ts).
import { hash } from 'node:crypto';
import { lebEncode } from '@icp-sdk/core/candid';
import type { CborMap, CborValue } from './cbor.js';

const sha256 = (b: Uint8Array): Buffer => hash('sha256', b, 'buffer') as unknown as Buffer;

export function hashValue(v: CborValue): Buffer {
  if (typeof v === 'string') return sha256(Buffer.from(v, 'utf8'));
  if (typeof v === 'number' || typeof v === 'bigint') return sha256(lebEncode(v));
  if (v instanceof Uint8Array) return sha256(v);
  if (Array.isArray(v)) return sha256(Buffer.concat(v.map(hashValue)));
  return hashOfMap(v);
}

/** hash_of_map: the sorted concatenation of (hash(key) || hash(value)) pairs. */
export function hashOfMap(m: CborMap): Buffer {
  const pairs = Object.keys(m).map((k) => [sha256(Buffer.from(k, 'utf8')), hashValue(m[k]!)] as const);
  pairs.sort((a, b) => Buffer.compare(a[0], b[0]));
  return sha256(Buffer.concat(pairs.flat()));
}
