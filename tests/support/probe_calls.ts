// Calls to the probe canister (tests/fixtures/probe) the host tests run: the host carries raw bytes and
// knows no canister's Candid, so the probe's own types are encoded and decoded here.
import { IDL } from '@dfinity/candid';
import type { CallOptions, CallResult, IcHost } from '../../src/host/index.js';

function decode<T>(method: string, retTypes: IDL.Type[], r: CallResult): T {
  if (r.kind === 'reject') throw new Error(`call to ${method} rejected (code ${r.code}): ${r.message}`);
  const values = IDL.decode(retTypes, new Uint8Array(r.bytes));
  return (retTypes.length === 1 ? values[0] : values) as T;
}

/** A query: `args` encoded with `argTypes`, the reply decoded with `retTypes`; throws on a reject. */
export function probeQuery<T = unknown>(host: IcHost, method: string, argTypes: IDL.Type[], args: unknown[], retTypes: IDL.Type[], opts: CallOptions = {}): T {
  return decode<T>(method, retTypes, host.query(method, new Uint8Array(IDL.encode(argTypes, args)), opts));
}

export async function probeUpdate<T = unknown>(host: IcHost, method: string, argTypes: IDL.Type[], args: unknown[], retTypes: IDL.Type[], opts: CallOptions = {}): Promise<T> {
  return decode<T>(method, retTypes, await host.update(method, new Uint8Array(IDL.encode(argTypes, args)), opts));
}
