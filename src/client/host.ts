// The transport to the canister wasm running in the Node IC host, in this process (`npm start`, the wasm
// tests, the benchmarks): arguments are encoded and replies decoded here with the one Candid definition
// (src/canister/idl.ts), so the host itself stays generic and knows no canister's Candid. Queries go through
// IcHost.queryAsync (in the host's query replica when it has one, otherwise synchronously on this thread).
import { IDL } from '@dfinity/candid';
import { idlFactory, initArgsTypes } from '../canister/idl.js';
import type { CallOptions, CallResult, IcHost } from '../host/index.js';
import { CanisterClient } from './client.js';
import { CanisterCallError } from './errors.js';
import type { CallMode, CanisterMethod, InitArgs, MethodArgs, MethodResult, QueryMethod, UpdateMethod } from './schema.js';
import type { Transport } from './transport.js';

const funcs = new Map(idlFactory({ IDL })._fields.map(([name, func]) => [name, func as IDL.FuncClass]));
const initTypes = initArgsTypes({ IDL });

function func(method: CanisterMethod): IDL.FuncClass {
  const f = funcs.get(method);
  if (f === undefined) throw new CanisterCallError(method, 'unknown method');
  return f;
}

/** The install / upgrade argument `opt InitArgs`: absent fields take SPEC.md's defaults; `undefined` sends none. */
export function encodeInitArgs(args: Partial<InitArgs> | undefined): Uint8Array {
  if (args === undefined) return new Uint8Array(IDL.encode(initTypes, [[]]));
  // Every field of the record is `opt`: the ones not given are sent as absent.
  const record = initTypes[0] as IDL.OptClass<unknown>;
  const fields = (record._type as IDL.RecordClass)._fields.map(([name]) => name);
  const value = Object.fromEntries(fields.map((name) => [name, (args as Record<string, unknown>)[name] ?? []]));
  return new Uint8Array(IDL.encode(initTypes, [[value]]));
}

/** A reply with the instructions the call used (undefined when the host does not instrument the wasm). */
export interface Measured<T> {
  readonly value: T;
  readonly instructions: bigint | undefined;
}

export class HostTransport implements Transport {
  readonly kind = 'host' as const;
  /** `opts` applies to every call (for example the caller principal). */
  constructor(
    readonly host: IcHost,
    readonly opts: CallOptions = {},
  ) {}

  async call(mode: CallMode, method: CanisterMethod, args: readonly unknown[]): Promise<unknown> {
    return (await this.measured(mode, method, args)).value;
  }

  /** One call with its instruction count; no mode check (CanisterClient makes it), so a test can send a wrong one. */
  async measured(mode: CallMode, method: CanisterMethod, args: readonly unknown[]): Promise<Measured<unknown>> {
    const f = func(method);
    const arg = encode(method, f, args);
    let r: CallResult;
    try {
      r = mode === 'query' ? await this.host.queryAsync(method, arg, this.opts) : await this.host.update(method, arg, this.opts);
    } catch (e) {
      throw new CanisterCallError(method, e instanceof Error ? e.message : String(e), e);
    }
    return decode(method, f, r);
  }

  /** A query on this thread, synchronously (the wasm tests and benchmarks read state between messages). */
  querySync(method: CanisterMethod, args: readonly unknown[]): Measured<unknown> {
    const f = func(method);
    const arg = encode(method, f, args);
    let r: CallResult;
    try {
      r = this.host.query(method, arg, this.opts);
    } catch (e) {
      throw new CanisterCallError(method, e instanceof Error ? e.message : String(e), e);
    }
    return decode(method, f, r);
  }
}

function encode(method: CanisterMethod, f: IDL.FuncClass, args: readonly unknown[]): Uint8Array {
  try {
    return new Uint8Array(IDL.encode(f.argTypes, [...args]));
  } catch (e) {
    throw new CanisterCallError(method, `cannot encode the arguments: ${e instanceof Error ? e.message : String(e)}`, e);
  }
}

function decode(method: CanisterMethod, f: IDL.FuncClass, r: CallResult): Measured<unknown> {
  if (r.kind === 'reject') throw new CanisterCallError(method, `rejected (code ${r.code}): ${r.message}`, undefined, r.code);
  const [value] = IDL.decode(f.retTypes, r.bytes);
  return { value, instructions: r.instructions };
}

const SUBMIT_METHODS: ReadonlySet<string> = new Set<CanisterMethod>(['rpc_eth_send_raw_transaction', 'rpc_eth_send_raw_transaction_with_key', 'submit_ic_tx', 'dev_submit_impersonated']);

/**
 * Whether an update's raw result is an accepted transaction: a submit method (an Ethereum-signed, an impersonated or an
 * IC-synthetic one, whichever way it came: the gateway, the IC HTTP interface, the devnet itself) that
 * answered Ok. For hooks that see the host's calls below any client (the devnet's automine).
 */
export function acceptedSubmit(method: string, result: CallResult): boolean {
  if (!SUBMIT_METHODS.has(method) || result.kind !== 'reply') return false;
  try {
    const [r] = IDL.decode(func(method as CanisterMethod).retTypes, result.bytes) as [unknown];
    return typeof r === 'object' && r !== null && 'Ok' in r;
  } catch {
    return false;
  }
}

/** The typed client over the in-process host, with the synchronous and measured calls tests and benchmarks use. */
export class HostClient extends CanisterClient {
  declare readonly transport: HostTransport;

  constructor(
    readonly host: IcHost,
    readonly opts: CallOptions = {},
  ) {
    super(new HostTransport(host, opts));
  }

  /** The same canister called with other options (another caller, a call from a canister). */
  as(opts: CallOptions): HostClient {
    return new HostClient(this.host, opts);
  }

  /** A query run synchronously on this thread. */
  querySync<M extends QueryMethod>(method: M, args: MethodArgs<M>): MethodResult<M> {
    return this.transport.querySync(method, args as readonly unknown[]).value as MethodResult<M>;
  }

  /** A query run synchronously, with the instructions it used. */
  queryMeasured<M extends QueryMethod>(method: M, args: MethodArgs<M>): Measured<MethodResult<M>> {
    return this.transport.querySync(method, args as readonly unknown[]) as Measured<MethodResult<M>>;
  }

  /** An update with the instructions it used. */
  updateMeasured<M extends UpdateMethod>(method: M, args: MethodArgs<M>): Promise<Measured<MethodResult<M>>> {
    return this.transport.measured('update', method, args as readonly unknown[]) as Promise<Measured<MethodResult<M>>>;
  }
}

export const hostClient = (host: IcHost, opts: CallOptions = {}): HostClient => new HostClient(host, opts);
