// A method's reply encoder: the same bytes as `IDL.encode([ret], [value])`, for a fraction of the cost.
//
// Why: IDL.encode rebuilds the Candid type table of the return type on every call (type names, label hashes
// through azle's JavaScript TextEncoder). For a `Result<blob>` that was 5.1 M instructions of an
// eth_sendRawTransaction's 65 M, and as much in every query. IDL.encode's bytes are
// magic || type table || count || types || values, and everything before the values depends only on the type,
// so that prefix is built once per method and later calls run only the value check (`covariant`, as
// IDL.encode does) and `encodeValue`. Queries never keep heap changes, so the canister builds every prefix in
// a timer message after start (warmReplyEncoders); until then a query builds its own, as IDL.encode did.
// Imports nothing at run time: the canister passes azle's IDL.encode, the unit test @dfinity/candid's.
import type { IDL } from '@dfinity/candid';

type Encode = (types: IDL.Type[], values: unknown[]) => Uint8Array;

/**
 * IDL.encode's bytes before the value for a single argument of type t. A stand-in that is t for the type
 * table (it inherits t's name, fields and type-table methods) but encodes no value gives exactly them.
 */
export function typePrefix(t: IDL.Type, encode: Encode): Uint8Array {
  const probe = Object.create(t) as IDL.Type;
  probe.covariant = (_x: unknown): _x is unknown => true;
  probe.encodeValue = () => new Uint8Array(0);
  return encode([probe], [undefined]);
}

export interface ReplyEncoder {
  (value: unknown): Uint8Array;
  /** Builds the prefix now (in a message whose heap is kept). */
  warm(): void;
}

const all: ReplyEncoder[] = [];

export function replyEncoder(ret: IDL.Type, encode: Encode): ReplyEncoder {
  let prefix: Uint8Array | undefined;
  const f = ((value: unknown): Uint8Array => {
    prefix ??= typePrefix(ret, encode);
    // IDL.encode refuses a value that does not fit the type (covariant throws), with this message; so does this.
    try {
      ret.covariant(value);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n\n`);
    }
    const tail = ret.encodeValue(value);
    const out = new Uint8Array(prefix.length + tail.length);
    out.set(prefix, 0);
    out.set(tail, prefix.length);
    return out;
  }) as ReplyEncoder;
  f.warm = () => void (prefix ??= typePrefix(ret, encode));
  all.push(f);
  return f;
}

/** Builds the prefix of every reply encoder made so far. */
export function warmReplyEncoders(): void {
  for (const f of all) f.warm();
}
