// Bodies for attacks on the IC HTTP interface (tests/unit/ic_http_hostile.test.ts, tests/wasm/ic-http.test.ts,
// the fuzz target ic-http in tests/support/fuzz.ts): CBOR written by hand so that any size can be reached.
import { Principal } from '@icp-sdk/core/principal';

const textHead = (s: string): number[] => [0x60 | s.length, ...Buffer.from(s, 'utf8')];
const u32Head = (major: number, n: number): number[] => [(major << 5) | 26, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
const bytesHead = (b: Uint8Array): number[] => [0x58, b.length, ...b];

/**
 * An anonymous envelope of at most `size` bytes (filled to within a few bytes of it) whose bulk is small
 * arrays `[0]` (2 bytes each): in an unknown content field, in a delegation's map, or as read_state paths.
 */
export function smallArraysBody(where: 'content' | 'delegation' | 'paths', size: number, expiryNs = BigInt(Date.now() + 60_000) * 1_000_000n): Uint8Array {
  const anon = Principal.anonymous().toUint8Array();
  const canister = Principal.fromText('rrkah-fqaaa-aaaaa-aaaaq-cai').toUint8Array();
  const exp = Buffer.alloc(8);
  exp.writeBigUInt64BE(expiryNs);
  const expiry = [0x1b, ...exp];
  const common = [...textHead('sender'), ...bytesHead(anon), ...textHead('ingress_expiry'), ...expiry];
  const callFields = [...textHead('request_type'), ...textHead('call'), ...textHead('canister_id'), ...bytesHead(canister), ...textHead('method_name'), ...textHead('m'), ...textHead('arg'), 0x40];
  let prefix: number[];
  if (where === 'content') prefix = [0xd9, 0xd9, 0xf7, 0xa1, ...textHead('content'), 0xa7, ...callFields, ...common, ...textHead('x')];
  else if (where === 'paths') prefix = [0xd9, 0xd9, 0xf7, 0xa1, ...textHead('content'), 0xa4, ...textHead('request_type'), ...textHead('read_state'), ...common, ...textHead('paths')];
  else {
    // A signed-looking envelope whose one delegation carries the arrays as its targets.
    prefix = [0xd9, 0xd9, 0xf7, 0xa4, ...textHead('content'), 0xa6, ...callFields, ...common, ...textHead('sender_pubkey'), 0x40, ...textHead('sender_sig'), 0x40];
    prefix.push(...textHead('sender_delegation'), 0x81, 0xa2, ...textHead('signature'), 0x40, ...textHead('delegation'), 0xa3, ...textHead('pubkey'), 0x40, ...textHead('expiration'), ...expiry, ...textHead('targets'));
  }
  const n = Math.max(0, Math.floor((size - prefix.length - 5) / 2));
  const out = new Uint8Array(prefix.length + 5 + 2 * n);
  out.set(prefix);
  out.set(u32Head(4, n), prefix.length);
  for (let i = prefix.length + 5; i < out.length; i += 2) {
    out[i] = 0x81;
    out[i + 1] = 0x00;
  }
  return out;
}
