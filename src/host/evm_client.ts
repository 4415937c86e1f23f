// A typed Candid client for the evm canister running in an IcHost: encodes arguments and decodes replies with
// the one Candid definition (src/canister/idl.ts). Used by the wasm tests, the benchmarks and the devnet.
import { IDL } from '@dfinity/candid';
import { candidTypes, idlFactory, methodSignatures } from '../canister/idl.js';
import { CallRejectedError } from './errors.js';
import type { CallOptions, IcHost } from './index.js';

type Signatures = ReturnType<typeof methodSignatures>;
export type EvmMethod = keyof Signatures;

export const evmTypes = candidTypes(IDL);
const service = idlFactory({ IDL });
const funcs = new Map(service._fields.map(([name, func]) => [name, func as IDL.FuncClass]));

export interface Decoded<T> {
  readonly value: T;
  readonly instructions: bigint | undefined;
}

/** The empty `opt InitArgs` record with every field absent; spread overrides into it. */
export const EMPTY_INIT_ARGS = {
  genesis_allocations: [],
  mining_interval_ms: [],
  base_fee: [],
  min_gas_price: [],
  min_priority_fee: [],
  block_gas_limit: [],
  instruction_soft_limit: [],
  prune_policy: [],
  pruning_enabled: [],
  fee_recipient: [],
  genesis_code: [],
};

export function encodeInitArgs(args: Partial<Record<keyof typeof EMPTY_INIT_ARGS, unknown[]>> | undefined): Uint8Array {
  const value = args === undefined ? [] : [{ ...EMPTY_INIT_ARGS, ...args }];
  return new Uint8Array(IDL.encode([IDL.Opt(evmTypes.InitArgs)], [value]));
}

export class EvmClient {
  constructor(readonly host: IcHost) {}

  private func(method: EvmMethod): IDL.FuncClass {
    const f = funcs.get(method);
    if (f === undefined) throw new Error(`unknown evm method ${method}`);
    return f;
  }

  /** A query call; throws CallRejectedError if the canister rejects. */
  query<T = any>(method: EvmMethod, args: unknown[] = [], opts: CallOptions = {}): Decoded<T> {
    const f = this.func(method);
    const r = this.host.query(method, new Uint8Array(IDL.encode(f.argTypes, args)), opts);
    return decode<T>(method, f, r);
  }

  /** A query call through IcHost.queryAsync (the query replica when the host has one). */
  async queryAsync<T = any>(method: EvmMethod, args: unknown[] = [], opts: CallOptions = {}): Promise<Decoded<T>> {
    const f = this.func(method);
    const r = await this.host.queryAsync(method, new Uint8Array(IDL.encode(f.argTypes, args)), opts);
    return decode<T>(method, f, r);
  }

  async update<T = any>(method: EvmMethod, args: unknown[] = [], opts: CallOptions = {}): Promise<Decoded<T>> {
    const f = this.func(method);
    const r = await this.host.update(method, new Uint8Array(IDL.encode(f.argTypes, args)), opts);
    return decode<T>(method, f, r);
  }
}

function decode<T>(method: string, f: IDL.FuncClass, r: Awaited<ReturnType<IcHost['update']>>): Decoded<T> {
  if (r.kind === 'reject') throw new CallRejectedError(method, r.code, r.message);
  const [value] = IDL.decode(f.retTypes, r.bytes);
  return { value: value as T, instructions: r.instructions };
}
